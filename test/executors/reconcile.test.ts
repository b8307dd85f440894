import { afterEach, describe, expect, it } from 'vitest';
import type { LiveProbePoint } from '../../src/executors/live/drive-intent.js';
import { createHarness, startHarness, type Harness } from './support/harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

/** A probe that "crashes" the executor at `point`: it aborts everything after that instant. */
function crashAt(point: LiveProbePoint): { probe: (p: LiveProbePoint) => void; crashed: () => boolean } {
  let crashed = false;
  return {
    probe: (p) => {
      if (p === point && !crashed) {
        crashed = true;
        throw new Error(`simulated crash at ${p}`);
      }
    },
    crashed: () => crashed,
  };
}

describe('start-up reconciliation', () => {
  it('after a crash at built nothing of the decision is journaled or sent, and the restart sends nothing for it', async () => {
    const crash = crashAt('built');
    h = await createHarness({ probe: crash.probe });
    await startHarness(h);
    await h.executor.submit(h.intent(1));
    await h.runUntil(crash.crashed);
    await h.runUntil(() => true);
    // the decision's first write is its signed attempt: a crash before it drops a decision of which nothing left
    expect(await h.journal.get('int-1')).toBeUndefined();
    expect(h.swap.builds).toBe(1);
    await h.restart();
    await h.runUntil(() => true);
    expect(await h.journal.unresolved()).toEqual([]);
    expect(h.chain.stats.received.size).toBe(0);
    expect(h.reports.map((r) => r.type)).toEqual(['accepted']);
  });

  it('builds an intent found NEW (a journal written before the decision and its attempt were one write) and lands it exactly once', async () => {
    h = await createHarness();
    await h.journal.create(h.intent(1), { spendLamports: 100_010_000n, day: '2026-01-01' }, h.clock.now());
    await h.restart();
    await h.runUntil(() => h.reports.some((r) => r.type === 'filled'));
    expect(h.chain.stats.landed).toHaveLength(1);
    const rec = await h.journal.get('int-1');
    expect([rec?.state, rec?.attempts.length, rec?.reported]).toEqual(['LANDED', 1, true]);
  });

  it.each<[LiveProbePoint, string]>([
    ['signed', 'SIGNED'],
    ['sent', 'SIGNED'],
    ['resolved', 'LANDED'],
  ])('after a crash at %s (journal %s) the restart lands the intent exactly once', async (point, journaled) => {
    const crash = crashAt(point);
    h = await createHarness({ probe: crash.probe });
    await startHarness(h);
    await h.executor.submit(h.intent(1));
    await h.runUntil(crash.crashed);
    await h.runUntil(() => true);
    const before = await h.journal.get('int-1');
    expect(before?.state).toBe(journaled);
    await h.restart();
    await h.runUntil(() => h.reports.some((r) => r.type === 'filled'));
    expect(h.chain.stats.landed).toHaveLength(1);
    expect(h.reports.filter((r) => r.type === 'filled')).toHaveLength(1);
    const rec = await h.journal.get('int-1');
    expect(rec?.state).toBe('LANDED');
    expect(rec?.attempts).toHaveLength(1); // no second transaction
    expect(rec?.reported).toBe(true);
  });

  it('start() resolves only after an in-flight transaction found in the journal is decided', async () => {
    const crash = crashAt('sent');
    h = await createHarness({ probe: crash.probe });
    await startHarness(h);
    h.chain.fates.push({ kind: 'drop' });
    await h.executor.submit(h.intent(1));
    await h.runUntil(crash.crashed);
    await h.runUntil(() => true);
    const heightAtCrash = h.chain.height();
    await h.restart();
    // start waited out the expiry of the dropped transaction, then rebuilt and landed once
    expect(h.chain.height()).toBeGreaterThan(heightAtCrash + 150);
    expect(h.reports.filter((r) => r.type === 'filled')).toHaveLength(1);
    expect(h.chain.stats.landed).toHaveLength(1);
    expect((await h.journal.get('int-1'))?.attempts.map((a) => a.state)).toEqual(['EXPIRED', 'LANDED']);
  });

  it('does not rebuild an expired intent found after a downtime longer than maxRebuildAgeMs', async () => {
    const crash = crashAt('sent');
    h = await createHarness({ probe: crash.probe, settings: { maxRebuildAgeMs: 120_000 } });
    await startHarness(h);
    h.chain.fates.push({ kind: 'drop' });
    await h.executor.submit(h.intent(1));
    await h.runUntil(crash.crashed);
    await h.runUntil(() => true);
    h.clock.advance(10 * 60_000); // the process was down for ten minutes
    await h.restart();
    expect(h.reports.at(-1)?.type).toBe('expired');
    expect(h.swap.builds).toBe(1);
    const rec = await h.journal.get('int-1');
    expect([rec?.state, rec?.done, rec?.attempts.length]).toEqual(['EXPIRED', true, 1]);
  });

  it('does not build a first transaction for an intent found NEW and older than maxIntentAgeMs', async () => {
    h = await createHarness({ settings: { maxIntentAgeMs: 5_000 } });
    await h.journal.create(h.intent(1), { spendLamports: 100_010_000n, day: '2026-01-01' }, h.clock.now());
    h.clock.advance(10_000);
    const builds = h.swap.builds;
    await h.restart();
    const r = h.reports.at(-1);
    expect(r?.type === 'rejected' && r.code).toBe('LIVE_INTENT_STALE');
    expect(h.swap.builds).toBe(builds);
    expect(h.chain.stats.received.size).toBe(0);
  });
});
