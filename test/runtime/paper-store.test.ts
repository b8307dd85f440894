/**
 * Paper deployments with a store: a restart on the same market restores positions, cost basis,
 * cash and realised PnL exactly, and the kill switch; a fresh embedded simulator market starts a
 * fresh paper book (the kill switch stays); intents left pending at a crash come back expired,
 * never filled; a store is either a paper book's or a live wallet's; backtests and files that name
 * no store keep nothing.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDeployment } from '../../src/config/index.js';
import { bps, lamports, rawAmount, type UnixMs } from '../../src/core/index.js';
import type { DecisionEntry } from '../../src/engine/logs/decision-log.js';
import type { Fill, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { priceOf } from '../../src/engine/market/portfolio.js';
import { createDeployment, type RuntimeHandle } from '../../src/runtime/handle/create-deployment.js';
import { openDeploymentStore, type DeploymentStore } from '../../src/runtime/store/deployment-store.js';
import { ABANDONED_REASON, paperCashAfter } from '../../src/runtime/store/paper-book.js';
import { paperStorePath } from '../../src/runtime/paper/paper-deployment.js';
import { createPaperRails } from '../../src/executors/paper/paper-rails.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { walCheckpointStats } from '../../src/runtime/store/wal-checkpointer.js';
import { paperSimYaml, tempDir, until, type TempDir } from './helpers.js';
import { roundTripDeployment } from './fixtures/round-trip-deployment.js';

const MINT = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const T0 = 1_700_000_000_000;

let tmp: TempDir | undefined;
let sim: RunningSimulator | undefined;
const handles: RuntimeHandle[] = [];
const stores: DeploymentStore[] = [];
afterEach(async () => {
  for (const h of handles.splice(0)) await h.stop({ drainMs: 0 });
  for (const s of stores.splice(0)) await s.close();
  await sim?.stop();
  sim = undefined;
  tmp?.remove();
  tmp = undefined;
});

const yaml = (endpoints: string[], extra: string[] = []): string => roundTripDeployment('book', endpoints, extra);

/** The book as the handle shows it: positions, realised PnL and cash (equity minus the marked value). */
function book(h: RuntimeHandle): { positions: unknown[]; realised: bigint; cash: bigint; starting: bigint } {
  const s = h.stats();
  const value = s.positions.reduce((sum, p) => sum + (p.valueLamports ?? 0n), 0n);
  return {
    positions: s.positions.map((p) => ({
      strategyId: p.strategyId,
      mint: p.mint,
      tokenRaw: p.tokenRaw,
      decimals: p.decimals,
      costLamports: p.costLamports,
      realisedLamports: p.realisedLamports,
      openedAt: p.openedAt,
    })),
    realised: s.summary.realisedLamports,
    cash: s.summary.equityLamports - value,
    starting: s.risk.dayStartEquityLamports,
  };
}
const priced = (h: RuntimeHandle): boolean => h.stats().positions.every((p) => p.valueLamports !== undefined);

function intentOf(id: string): OrderIntent {
  return {
    id,
    strategyId: 'round-trip',
    side: 'buy',
    mint: MINT,
    decimals: 6,
    spendLamports: lamports(1_000_000_000n),
    slippageBps: bps(300),
    priorityFeeLamports: lamports(10_000n),
    referencePrice: undefined,
    createdAt: T0 as UnixMs,
    reason: 'test',
  };
}
function fillOf(intentId: string, sol: bigint, tokens: bigint, fee: bigint): Fill {
  return {
    intentId,
    side: 'buy',
    mint: MINT,
    decimals: 6,
    solAmount: lamports(sol),
    tokenAmount: rawAmount(tokens),
    feeLamports: lamports(fee),
    price: priceOf(sol, tokens, 6),
    filledAt: (T0 + 1) as UnixMs,
  };
}

/** The paper store at `path` on market m1 (closed after the test), its book holding int_a filled: 1 SOL for 5 000 000 raw, fee 5 000. */
function bookWithOneFill(path: string): DeploymentStore {
  const a = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm1', at: T0 } });
  stores.push(a);
  a.paper?.submitted(intentOf('int_a'));
  a.paper?.resolved({ type: 'filled', intentId: 'int_a', at: (T0 + 1) as UnixMs, fill: fillOf('int_a', 1_000_000_000n, 5_000_000n, 5_000n) });
  return a;
}

describe('a paper deployment with a store', () => {
  it('resumes positions, cost basis, cash and realised PnL exactly after a stop and start on the same market, and the kill switch stays on', async () => {
    tmp = tempDir('cp-paper-store-');
    sim = await startSimulator({ seed: 21, speed: 60 });
    const file = tmp.write(
      'book.yaml',
      yaml(
        ['  remote:', `    baseUrl: ${sim.urls.base}`, `    datastreamUrl: ${sim.urls.datastream}`, `    apiKey: ${sim.apiKey}`],
        ['store:', '  path: ./book.db'],
      ),
    );

    const first = createDeployment(loadDeployment(file), { mode: 'paper' });
    handles.push(first);
    let fills = 0;
    first.events.on((e) => void (e.type === 'fill' && fills++));
    await first.start();
    expect(first.startInfo()?.detail).toBe(`paper book ${join(tmp.dir, 'book.db')}`);
    await until(
      () => first.stats().positions.length === 2 && first.stats().summary.fills >= 4 && first.stats().pending.length === 0 && priced(first),
      'two half-sold, priced positions',
      30_000,
    );
    await first.kill('operator stop before the restart');
    await first.stop();
    const before = book(first);
    expect(before.positions).toHaveLength(2);
    expect(before.cash).not.toBe(10_000_000_000n);

    const decisions: DecisionEntry[] = [];
    const second = createDeployment(loadDeployment(file), { mode: 'paper', decisions: (e) => void decisions.push(e) });
    handles.push(second);
    await second.start();
    expect(fills).toBeGreaterThanOrEqual(4);
    expect(second.startInfo()?.notes).toContain(`restored ${fills} paper fill(s) from the store`);
    await until(() => priced(second), 'the restored positions priced');
    const after = book(second);
    expect(after.positions).toEqual(before.positions);
    expect(after.realised).toBe(before.realised);
    expect(after.cash).toBe(before.cash);
    // The paper cash model: the configured balance minus what the fills took.
    expect(second.stats().summary.realisedLamports + 10_000_000_000n).toBe(after.cash + second.stats().risk.exposureLamports);
    expect(second.health().state).toBe('killed');
    expect(second.stats().risk.killReason).toBe('operator stop before the restart');
    // The strategy starts fresh and buys again: denied by the restored kill switch.
    await until(() => decisions.some((e) => e.kind === 'denied'), 'a denied buy');
    expect(decisions.find((e) => e.kind === 'denied')).toMatchObject({ code: 'RISK_KILL_SWITCH' });
    expect(decisions.filter((e) => e.kind === 'intent')).toEqual([]);
  }, 60_000);

  it('starts a fresh paper book on a fresh embedded simulator market, and keeps the kill switch', async () => {
    tmp = tempDir('cp-paper-store-');
    const file = tmp.write('book.yaml', yaml(['  simulator:', '    seed: 4', '    speed: max'], ['store:', '  path: ./book.db']));
    const first = createDeployment(loadDeployment(file), { mode: 'paper' });
    handles.push(first);
    await first.start();
    await until(() => first.stats().positions.length === 2 && first.stats().pending.length === 0, 'two positions', 30_000);
    await first.kill('kept across markets');
    await first.stop();

    const second = createDeployment(loadDeployment(file), { mode: 'paper' });
    handles.push(second);
    await second.start();
    expect(second.startInfo()?.notes.join('\n')).toMatch(
      /^started a fresh paper book: the store's book was kept for another market \(embedded simulator seed 4 #[0-9a-f]{12}\); this run trades on embedded simulator seed 4 #[0-9a-f]{12}$/,
    );
    expect(second.stats().positions).toEqual([]);
    expect(second.stats().summary.realisedLamports).toBe(0n);
    expect(second.health().state).toBe('killed');
    await second.stop();
  }, 60_000);

  it('gives the shipped paper-sim the same decision log on every same-seed run with a store, each from the configured balance', async () => {
    tmp = tempDir('cp-paper-store-');
    const file = tmp.write('paper.yaml', paperSimYaml('store:\n  path: ./paper.db\n'));
    const start = Date.UTC(2026, 0, 1);
    const run = async (): Promise<{ lines: string; notes: readonly string[] }> => {
      const log = memoryDecisionLog();
      const h = createDeployment(loadDeployment(file), { mode: 'paper', speed: 'max', seed: 7, decisions: log.sink });
      handles.push(h);
      await h.start();
      await until(() => (h.clock()?.now() ?? 0) >= start + 6 * 60_000, '6 simulated minutes');
      await h.stop();
      const cut = start + 5 * 60_000;
      return { lines: log.lines.filter((l) => (JSON.parse(l) as { at: number }).at <= cut).join(''), notes: h.startInfo()?.notes ?? [] };
    };
    const a = await run();
    const b = await run();
    expect(a.lines).toMatch(/"kind":"fill"/);
    expect(a.notes).toEqual([]);
    expect(b.notes.join('\n')).toMatch(/^started a fresh paper book/);
    expect(b.lines).toBe(a.lines);
  }, 60_000);

  it('keeps nothing when the file names no store and no store directory is given, and a backtest never opens one', () => {
    tmp = tempDir('cp-paper-store-');
    const bare = tmp.write('bare.yaml', yaml(['  simulator:', '    seed: 4']));
    const named = tmp.write('named.yaml', yaml(['  simulator:', '    seed: 4'], ['store:', '  path: ./named.db']));
    expect(paperStorePath({ loaded: loadDeployment(bare), deps: {} })).toBeUndefined();
    expect(paperStorePath({ loaded: loadDeployment(bare), deps: { storeDir: '/srv/stores' } })).toBe('/srv/stores/book.db');
    expect(paperStorePath({ loaded: loadDeployment(named), deps: { storeDir: '/srv/stores' } })).toBe(join(tmp.dir, 'named.db'));
    expect(paperStorePath({ loaded: loadDeployment(named), deps: { mode: 'backtest' } })).toBeUndefined();
    expect(existsSync(join(tmp.dir, 'data'))).toBe(false);
  });
});

describe('the paper book in the store', () => {
  it('resolves an intent left pending by a crash as expired, never filled, and restores fills in order with the paper cash', async () => {
    tmp = tempDir('cp-paper-book-');
    const path = join(tmp.dir, 'book.db');
    const a = bookWithOneFill(path);
    a.paper?.submitted(intentOf('int_b'));
    a.paper?.resolved({ type: 'failed', intentId: 'int_b', at: (T0 + 2) as UnixMs, code: 'PAPER_SLIPPAGE', reason: 'test', feeLamports: lamports(7_000n) });
    a.paper?.submitted(intentOf('int_c'));
    // The process dies here: int_c is pending.
    await a.close();

    const b = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm1', at: T0 + 10 } });
    stores.push(b);
    expect(b.paper?.run).toBe(2);
    expect(b.paper?.abandoned.map((i) => i.id)).toEqual(['int_c']);
    const restored = b.paper?.restored();
    expect(restored?.fills.map((f) => f.fill.intentId)).toEqual(['int_a']);
    expect(restored?.failedFees).toEqual([{ strategyId: 'round-trip', mint: MINT, feeLamports: 7_000n }]);
    expect(paperCashAfter(10_000_000_000n, restored ?? { fills: [], failedFees: [] })).toBe(10_000_000_000n - 1_000_000_000n - 5_000n - 7_000n);
    // A late report of the abandoned intent changes nothing: it stays expired.
    b.paper?.resolved({ type: 'filled', intentId: 'int_c', at: (T0 + 11) as UnixMs, fill: fillOf('int_c', 1n, 1n, 0n) });
    expect(b.paper?.restored().fills).toHaveLength(1);
    await b.close();
    const c = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm1', at: T0 + 20 } });
    stores.push(c);
    expect(c.paper?.abandoned).toEqual([]);
    expect(ABANDONED_REASON).toMatch(/never made up/);
  });

  it('asks the worker thread for a WAL checkpoint every 100 commits (SQLite itself only at 10,000 pages) and loses nothing', async () => {
    tmp = tempDir('cp-paper-checkpoint-');
    const path = join(tmp.dir, 'book.db');
    const before = walCheckpointStats();
    const a = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm1', at: T0 } });
    stores.push(a);
    const commits = (from: number, n: number): void => {
      for (let i = from; i < from + n; i++) {
        a.paper?.submitted(intentOf(`int_${i}`));
        a.paper?.flush(); // one commit each, as one event-loop turn each would
      }
    };
    commits(0, 99);
    expect(walCheckpointStats().requested - before.requested).toBe(0);
    commits(99, 1);
    expect(walCheckpointStats().requested - before.requested).toBe(1);
    commits(100, 100); // the 200th asks again: one request per path at a time, so the first must be answered
    expect(walCheckpointStats().requested - before.requested).toBeLessThanOrEqual(2);
    await until(() => walCheckpointStats().done - before.done === walCheckpointStats().requested - before.requested, 'the checkpoints');
    commits(200, 100);
    await until(() => walCheckpointStats().done - before.done >= 2, 'a checkpoint after the 300th commit');
    commits(300, 50);
    expect(walCheckpointStats().failed).toBe(before.failed);
    // another connection checkpoints without waiting on the book's (busy 0), and the WAL still holds the last commits
    const probe = new Database(path);
    const [row] = probe.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
    probe.close();
    expect(row?.busy).toBe(0);
    expect(row?.log).toBeGreaterThan(0);
    await a.close();
    stores.splice(0);
    const b = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm1', at: T0 + 10 } });
    stores.push(b);
    expect(b.paper?.abandoned).toHaveLength(350); // every commit is there
  });

  it("counts the earlier runs' admitted spend of each UTC day, so a resumed run's day cap refuses as live would", async () => {
    tmp = tempDir('cp-paper-spend-');
    const path = join(tmp.dir, 'book.db');
    const a = bookWithOneFill(path);
    a.paper?.submitted(intentOf('int_b'));
    a.paper?.resolved({
      type: 'failed',
      intentId: 'int_b',
      at: (T0 + 2) as UnixMs,
      code: 'PAPER_SLIPPAGE_EXCEEDED',
      reason: 'test',
      feeLamports: lamports(7_000n),
    });
    a.paper?.submitted(intentOf('int_c'));
    a.paper?.resolved({ type: 'rejected', intentId: 'int_c', at: (T0 + 3) as UnixMs, code: 'LIVE_SPEND_CAP_DAY', reason: 'test' });
    a.paper?.submitted({ ...intentOf('int_d'), createdAt: (T0 + 86_400_000) as UnixMs });
    a.paper?.submitted(intentOf('int_e')); // in flight at the end: admitted, so its spend counts (as the journal's does)
    await a.close();

    const b = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm1', at: T0 + 10 } });
    stores.push(b);
    const spent = b.paper?.spentBefore ?? new Map<string, bigint>();
    // int_a, int_b and int_e: 1 SOL each plus its fee budget (10,000-lamport priority fee and one 5,000-lamport signature); int_c was refused, int_d is the next day.
    const perIntent = 1_000_000_000n + 10_000n + 5_000n;
    expect(Object.fromEntries(spent)).toEqual({ '2023-11-14': 3n * perIntent, '2023-11-15': perIntent });
    const limits = { maxTradeLamports: lamports(2_000_000_000n), maxDayLamports: lamports(3n * perIntent + 500_000_000n) };
    const denial = createPaperRails(limits, spent).admit(intentOf('int_f'), (T0 + 20) as UnixMs);
    expect(denial).toMatchObject({ code: 'LIVE_SPEND_CAP_DAY' });
    // Without the book's spend (the previous behaviour) the same intent was admitted.
    expect(createPaperRails(limits).admit(intentOf('int_f'), (T0 + 20) as UnixMs)).toBeUndefined();
  });

  it("drops the book and the risk day on another market, keeps the kill switch, and refuses a live wallet's store (and a live deployment the paper store)", async () => {
    tmp = tempDir('cp-paper-book-');
    const path = join(tmp.dir, 'book.db');
    const a = bookWithOneFill(path);
    a.risk.save({ dayStartedAt: T0 as UnixMs, dayStartEquityLamports: 9n, dailyHalted: true, killReason: 'stop it' });
    await a.close();

    const b = openDeploymentStore({ path, deployment: 'book', paper: { market: 'm2', at: T0 } });
    stores.push(b);
    expect(b.paper?.replacedMarket).toBe('m1');
    expect(b.paper?.run).toBe(1);
    expect(b.paper?.restored()).toEqual({ fills: [], failedFees: [] });
    expect(b.risk.load()).toEqual({ dayStartedAt: 0, dayStartEquityLamports: 0n, dailyHalted: false, killReason: 'stop it' });
    await b.close();

    expect(() => openDeploymentStore({ path, deployment: 'book', wallet: 'Wa11et1111111111111111111111111111111111111' })).toThrow(
      /is the store of a paper \(a paper book\) deployment, not of a live one/,
    );
    const live = join(tmp.dir, 'live.db');
    const l = openDeploymentStore({ path: live, deployment: 'book', wallet: 'Wa11et1111111111111111111111111111111111111' });
    await l.close();
    let err: unknown;
    try {
      openDeploymentStore({ path: live, deployment: 'book', paper: { market: 'm1', at: T0 } });
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({
      code: 'RUNTIME_STORE_FOREIGN',
      context: { field: 'store.path', storeKind: 'live (wallet Wa11et1111111111111111111111111111111111111)', kind: 'paper' },
    });
  });
});
