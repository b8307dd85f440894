/**
 * Durable risk state: the risk day rolls AT its boundary on the run clock, and the daily-loss halt
 * and the kill switch live in the deployment store, so a restart keeps them and only the next
 * boundary (or `unkill`) lifts them. Real SQLite store, manual clock.
 */
import { priceFrame, wire } from '../engine/wire.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lamports, manualClock, seededRandom, type ManualClock } from '../../src/core/index.js';
import type { DecisionEntry } from '../../src/engine/logs/decision-log.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { MarketView } from '../../src/engine/market/market-view.js';
import { createRiskDay, dayBoundaryOffsetMs, dayStartOf, memoryRiskStateStore } from '../../src/engine/orders/risk-day.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { openDeploymentStore, type DeploymentStore } from '../../src/runtime/store/deployment-store.js';
import { fakeFeed } from '../engine/fake-feed.js';

const SOL = 1_000_000_000n;
const DAY = 86_400_000;
/** 2023-11-14 22:13:20 UTC. */
const T0 = 1_700_000_000_000;

const buyer = defineStrategy({
  id: 'buyer',
  params: z.strictObject({}),
  rooms: () => ['latest'],
  onLaunch(e, ctx) {
    ctx.buy({ mint: e.mint, lamports: SOL, reason: 'launch' });
  },
});

let dir: string;
const stores: DeploymentStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function openStore(): DeploymentStore {
  const s = openDeploymentStore({ path: join(dir, 'store.db'), deployment: 'risk-test' });
  stores.push(s);
  return s;
}

function run(clock: ManualClock, store: DeploymentStore, dailyLossLimitLamports = 2n * SOL) {
  const feed = fakeFeed(clock);
  const entries: DecisionEntry[] = [];
  const ref: { market?: MarketView } = {};
  const engine: Engine = createEngine({
    feed,
    clock,
    random: seededRandom(3),
    decisions: (e) => void entries.push(e),
    riskStore: store.risk,
    executor: createPaperExecutor({ clock, market: { get: (m) => ref.market?.get(m) }, latencyMs: 0 }),
    strategies: [instantiateStrategy(buyer, {}, { id: 'buyer' })],
    risk: { dailyLossLimitLamports: lamports(dailyLossLimitLamports) },
    startingCashLamports: 100n * SOL,
    execution: { slippageBps: 2_000, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
  });
  ref.market = engine.market;
  const price = (mint: string, p: number) =>
    engine.ingest(wire(`price:token:${mint}`, priceFrame(p, { pool: `${mint}-curve`, time: clock.now() }), clock.now()));
  const launch = (mint: string) =>
    feed.push('latest', { token: { mint, symbol: mint, name: mint, decimals: 6 }, pools: [{ market: 'venue_a', poolId: `${mint}-curve` }] });
  const lastDecision = () => entries.at(-1);
  return { engine, price, launch, lastDecision };
}

describe('durable risk state', () => {
  it('takes the day-start equity at the boundary on the run clock, not at the first buy check of the day', () => {
    const clock = manualClock(T0);
    let equity = 10n * SOL;
    const store = memoryRiskStateStore();
    const day = createRiskDay({ clock, equity: () => equity, store });
    day.start();
    expect(day.snapshot()).toMatchObject({ dayStartedAt: dayStartOf(T0, 0), dayStartEquityLamports: 10n * SOL });
    equity = 7n * SOL;
    const midnight = dayStartOf(T0, 0) + DAY;
    clock.advanceTo(midnight as never);
    equity = 4n * SOL; // after the boundary: must not become the day-start equity
    expect(day.snapshot()).toMatchObject({ dayStartedAt: midnight, dayStartEquityLamports: 7n * SOL });
    expect(day.dayStartEquity(clock.now(), equity)).toBe(7n * SOL);
    expect(store.load()).toMatchObject({ dayStartedAt: midnight, dayStartEquityLamports: 7n * SOL });
    day.stop();
    expect(clock.pending()).toBe(0);
  });

  it('rolls at a configured boundary such as "13:30" UTC', () => {
    const offset = dayBoundaryOffsetMs('13:30');
    expect(offset).toBe(13.5 * 3_600_000);
    const clock = manualClock(T0);
    const day = createRiskDay({ clock, equity: () => SOL, boundaryOffsetMs: offset });
    day.start();
    const start = day.snapshot().dayStartedAt;
    expect(new Date(start).toISOString()).toBe('2023-11-14T13:30:00.000Z');
    clock.advanceTo((start + DAY) as never);
    expect(new Date(day.snapshot().dayStartedAt).toISOString()).toBe('2023-11-15T13:30:00.000Z');
    day.stop();
  });

  it('keeps the daily-loss halt across a restart, and the next day boundary lifts it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-risk-'));
    const clock = manualClock(T0);
    const first = run(clock, openStore());
    await first.engine.start();
    first.price('A', 0.0001);
    first.launch('A');
    clock.advance(1);
    expect(first.engine.portfolio.open()).toHaveLength(1);
    first.price('B', 0.0001);
    first.launch('B');
    clock.advance(1);
    first.price('C', 0.0001);
    first.launch('C');
    clock.advance(1);
    expect(first.engine.portfolio.open()).toHaveLength(3);
    for (const m of ['A', 'B', 'C']) first.price(m, 0.000001); // each loses 99%: ~2.97 SOL, over the 2 SOL limit
    first.price('D', 0.0001);
    first.launch('D');
    expect(first.lastDecision()).toMatchObject({ kind: 'denied', code: 'RISK_DAILY_LOSS_HALT' });
    expect(first.engine.risk.halted(clock.now())).toBe(true);
    await first.engine.stop();
    await stores.pop()!.close();

    // A restart the same day: the halt comes back from the store before any buy is checked.
    clock.advance(60_000);
    const second = run(clock, openStore());
    await second.engine.start();
    expect(second.engine.risk.halted(clock.now())).toBe(true);
    second.price('E', 0.0001);
    second.launch('E');
    expect(second.lastDecision()).toMatchObject({ kind: 'denied', code: 'RISK_DAILY_LOSS_HALT' });

    // The boundary lifts it, on the clock's timer, and the new day starts from the equity then.
    const midnight = dayStartOf(T0, 0) + DAY;
    clock.advanceTo(midnight as never);
    expect(second.engine.risk.halted(clock.now())).toBe(false);
    expect(second.engine.risk.day.snapshot()).toMatchObject({ dayStartedAt: midnight, dailyHalted: false });
    second.price('F', 0.0001);
    second.launch('F');
    expect(second.lastDecision()).toMatchObject({ kind: 'intent', mint: 'F' });
    await second.engine.stop();
  });

  it('keeps the kill switch across a restart until unkill clears it, also in the store', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-risk-'));
    const clock = manualClock(T0);
    const first = run(clock, openStore());
    await first.engine.start();
    first.engine.kill('operator: investigating');
    await first.engine.stop();
    await stores.pop()!.close();

    clock.advance(2 * DAY); // days later: the kill switch is not tied to a day
    const second = run(clock, openStore());
    await second.engine.start();
    expect(second.engine.risk.killed).toBe(true);
    second.price('A', 0.0001);
    second.launch('A');
    expect(second.lastDecision()).toMatchObject({ kind: 'denied', code: 'RISK_KILL_SWITCH', reason: 'kill switch is on: operator: investigating' });
    second.engine.unkill();
    second.launch('A');
    expect(second.lastDecision()).toMatchObject({ kind: 'intent', mint: 'A' });
    await second.engine.stop();
    await stores.pop()!.close();

    const third = run(clock, openStore());
    await third.engine.start();
    expect(third.engine.risk.killed).toBe(false);
    await third.engine.stop();
  });

  it('lets a kill or unkill made before start win over the store, without losing the saved halt of the day', () => {
    const clock = manualClock(T0);
    const today = dayStartOf(T0, 0);
    const store = memoryRiskStateStore({ dayStartedAt: today, dayStartEquityLamports: 9n * SOL, dailyHalted: true, killReason: 'old reason' });
    const day = createRiskDay({ clock, equity: () => SOL, store });
    day.unkill();
    day.start();
    expect(day.killReason).toBeUndefined();
    expect(store.load()).toEqual({ dayStartedAt: today, dayStartEquityLamports: 9n * SOL, dailyHalted: true, killReason: undefined });
    day.stop();
  });

  it('does not persist a kill switch set in the deployment file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cp-risk-'));
    const clock = manualClock(T0);
    const first = run(clock, openStore());
    first.engine.kill('risk.killSwitch is set in the deployment', { persist: false });
    await first.engine.start();
    expect(first.engine.risk.killed).toBe(true);
    await first.engine.stop();
    expect(stores[0]!.risk.load()?.killReason).toBeUndefined();
  });
});
