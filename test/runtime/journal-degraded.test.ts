/**
 * Issue 38 case 4, the runtime's side: the live executor's journal outage (`onJournalHealth`) makes
 * the deployment degraded through the run conditions (readiness names the code, an error alert
 * when it begins and an info alert when it ends, one of each per outage), and the notifier turns
 * those alerts into one notification each. Real run conditions, handle events and event mapper.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { writeNewKeypairFile } from '../../src/cli/commands/wallet-file.js';
import { loadDeployment } from '../../src/config/index.js';
import { manualClock, silentLogger, type UnixMs } from '../../src/core/index.js';
import { createDeployment } from '../../src/runtime/handle/create-deployment.js';
import { defaultSimServices } from '../../src/runtime/shell/sim-runtime.js';
import { startSimulator } from '../../src/sim/start-simulator.js';
import { liveSimOnRemote } from '../e2e/support/live-sim-remote.js';
import { until } from './helpers.js';
import type { DeploymentEvent } from '../../src/runtime/handle/deployment-handle.js';
import { createHandleEvents } from '../../src/runtime/handle/handle-events.js';
import { createRunConditions } from '../../src/runtime/handle/run-conditions.js';
import { createEventMapper } from '../../src/service/notify/messages.js';

function conditions() {
  const now = (): UnixMs => 1_000 as UnixMs;
  const events = createHandleEvents({ log: silentLogger(), counters: {}, now });
  const seen: DeploymentEvent[] = [];
  events.on((e) => void seen.push(e));
  const c = createRunConditions({
    name: 'live-j',
    onLoss: 'pause-entries',
    log: silentLogger(),
    events,
    counters: {},
    now,
    killReason: () => undefined,
    controls: events.fanout('control'),
  });
  return { c, seen };
}

describe('a deployment whose journal cannot write', () => {
  it('is degraded with the reason until the journal writes again, alerting once when it begins and once when it ends', () => {
    const { c, seen } = conditions();
    const reason = 'LIVE_JOURNAL_UNAVAILABLE: journal resolve of intent i1 failed: SqliteError: database or disk is full';
    c.degrade('LIVE_JOURNAL_UNAVAILABLE', reason);
    c.degrade('LIVE_JOURNAL_UNAVAILABLE', `${reason} (again)`); // the same outage: no second alert
    expect(c.degradations).toEqual([{ code: 'LIVE_JOURNAL_UNAVAILABLE', message: `${reason} (again)` }]);
    c.degrade('LIVE_JOURNAL_UNAVAILABLE', undefined);
    c.degrade('LIVE_JOURNAL_UNAVAILABLE', undefined);
    expect(c.degradations).toEqual([]);
    const alerts = seen.filter((e) => e.type === 'alert');
    expect(alerts.map((a) => (a.type === 'alert' ? [a.level, a.code] : []))).toEqual([
      ['error', 'LIVE_JOURNAL_UNAVAILABLE'],
      ['info', 'LIVE_JOURNAL_UNAVAILABLE'],
    ]);

    // the notifier sends one notification per edge, under the `fatal` event (degraded, then recovered)
    const map = createEventMapper();
    const drafts = alerts.map((a, i) => map('live-j', i, a));
    expect(drafts.map((d) => [d?.event, d?.data])).toEqual([
      ['fatal', { state: 'degraded', code: 'LIVE_JOURNAL_UNAVAILABLE' }],
      ['fatal', { state: 'recovered', code: 'LIVE_JOURNAL_UNAVAILABLE' }],
    ]);
    expect(drafts[0]?.text).toBe(`live-j: degraded: ${reason}`);
    expect(drafts[1]?.text).toBe('live-j: the journal writes again; no longer degraded');
  });
});

describe('a live deployment on the simulator whose journal cannot write', () => {
  it('is not ready, naming LIVE_JOURNAL_UNAVAILABLE, while intents are refused, and ready again once the journal accepts one', async () => {
    const KEY = 'journal-degraded-key-38';
    const dir = mkdtempSync(join(tmpdir(), 'cp-journal-degraded-'));
    const walletPath = join(dir, 'wallet.json');
    const wallet = writeNewKeypairFile(walletPath);
    const clock = manualClock(Date.UTC(2026, 10, 2, 12));
    const sim = await startSimulator({ seed: 5, clock, apiKey: KEY, services: defaultSimServices([{ address: wallet, lamports: 10_000_000_000n }]) });
    const file = join(dir, 'live.yaml');
    writeFileSync(file, liveSimOnRemote(sim.urls, walletPath, join(dir, 'journal.sqlite')));
    const disk = { full: false };
    const part = createDeployment(loadDeployment(file, { env: { K: KEY } }), {
      mode: 'live',
      confirmation: { live: true },
      clock,
      seed: 5,
      // the journal's storage: `create` fails with SQLite's disk-full error while the disk is full
      journal: (j) => ({
        ...j,
        create: (intent, spend, at) =>
          disk.full
            ? Promise.reject(Object.assign(new Error('database or disk is full'), { name: 'SqliteError', code: 'SQLITE_FULL' }))
            : j.create(intent, spend, at),
      }),
    });
    const alerts: string[] = [];
    part.events.on((e) => {
      if (e.type === 'alert' && e.code === 'LIVE_JOURNAL_UNAVAILABLE') alerts.push(e.level);
    });
    try {
      await part.start();
      await until(() => part.health().ready, 'the deployment ready');
      const enter = (): void => {
        const r = part.manual?.(
          { action: 'enter', strategyId: 'curve-momentum', mint: Keypair.generate().publicKey.toBase58(), spendLamports: 10_000_000n },
          { by: 'test', why: 'issue 38' },
        );
        expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
      };
      disk.full = true;
      enter();
      await until(() => !part.health().ready, 'the deployment degraded');
      expect(part.health().reasons).toEqual([
        expect.stringMatching(/^LIVE_JOURNAL_UNAVAILABLE: journal create of intent \S+ failed: SqliteError: database or disk is full/),
      ]);
      enter(); // a second refusal in the same outage alerts nothing more
      disk.full = false;
      enter();
      await until(() => part.health().ready, 'the deployment ready again');
      expect(alerts).toEqual(['error', 'info']);
    } finally {
      await part.stop({ drainMs: 1_000 });
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
