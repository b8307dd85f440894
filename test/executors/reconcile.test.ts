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
  it.each<[LiveProbePoint, string]>([
    // every step between the decision and the first send: nothing is journaled after the create until the signed attempt
    ['created', 'NEW'],
    ['swapped', 'NEW'],
    ['inspected', 'NEW'],
    ['built', 'NEW'],
    ['signed-unjournaled', 'NEW'], // signed in memory only: those bytes are never sent
    ['signed', 'SIGNED'],
    ['sent', 'SIGNED'],
    ['resolved', 'LANDED'],
  ])('after a crash at %s (journal %s) the restart lands the intent exactly once', async (point, journaled) => {
    const crash = crashAt(point);
    h = await createHarness({ probe: crash.probe });
    await startHarness(h);
    // a crash at `created` is thrown out of submit itself (the decision is journaled, nothing else ran)
    await h.executor.submit(h.intent(1)).catch((e: unknown) => {
      if (!crash.crashed()) throw e;
    });
    await h.runUntil(crash.crashed);
    await h.runUntil(() => true);
    const before = await h.journal.get('int-1');
    expect(before?.state).toBe(journaled);
    const sentBeforeRestart = h.chain.stats.received.size;
    expect(sentBeforeRestart).toBe(point === 'sent' || point === 'resolved' ? 1 : 0);
    await h.restart();
    await h.runUntil(() => h.reports.some((r) => r.type === 'filled'));
    expect(h.chain.stats.landed).toHaveLength(1);
    expect(h.chain.stats.received.size).toBe(1); // one transaction ever left, whatever the crash point
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
    const crash = crashAt('built');
    h = await createHarness({ probe: crash.probe, settings: { maxIntentAgeMs: 5_000 } });
    await startHarness(h);
    await h.executor.submit(h.intent(1));
    await h.runUntil(crash.crashed);
    await h.runUntil(() => true);
    h.clock.advance(10_000);
    const builds = h.swap.builds;
    await h.restart();
    const r = h.reports.at(-1);
    expect(r?.type === 'rejected' && r.code).toBe('LIVE_INTENT_STALE');
    expect(h.swap.builds).toBe(builds);
    expect(h.chain.stats.received.size).toBe(0);
  });
});
