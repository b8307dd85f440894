import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isChainpilotError, manualClock, seededRandom, lamports } from '../../src/core/index.js';
import type { DataLookupOptions, DataPort } from '../../src/engine/strategy/data-lookup.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { createEngine, type EngineOptions } from '../../src/engine/engine.js';
import type { Executor } from '../../src/engine/orders/execution-port.js';
import type { MarketView } from '../../src/engine/market/market-view.js';
import type { RiskLimits } from '../../src/engine/orders/risk-gate.js';
import { defineStrategy, type IntentFailed, type StrategyContext, type StrategyDefinition } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { fakeFeed } from '../engine/fake-feed.js';
import { priceFrame, wire } from '../engine/wire.js';

const SOL = 1_000_000_000n;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any strategy's parameter and state types
type AnyStrategy = StrategyDefinition<any, any>;

/** An engine over a fake feed and the paper executor (or `executor`), running `def`. */
function setup(def: AnyStrategy, extra: Partial<EngineOptions> = {}) {
  const clock = manualClock(1_700_000_000_000);
  const feed = fakeFeed(clock);
  const log = memoryDecisionLog();
  const ref: { market?: MarketView } = {};
  const executor = createPaperExecutor({ clock, market: { get: (m) => ref.market?.get(m) }, latencyMs: 200 });
  const engine = createEngine({
    feed,
    executor,
    clock,
    random: seededRandom(11),
    strategies: [instantiateStrategy(def, {}, {})],
    risk: {},
    startingCashLamports: 100n * SOL,
    execution: { slippageBps: 2_000, priorityFeeLamports: lamports(10_000n), defaultDecimals: 6 },
    decisions: log.sink,
    ...extra,
  });
  ref.market = engine.market;
  const launch = (mint: string): void => {
    feed.push('latest', { token: { mint, symbol: mint, name: mint, decimals: 6 }, pools: [{ market: 'venue_a', poolId: `${mint}-curve` }], riskScore: 9 });
  };
  return { clock, feed, log, engine, launch };
}

/** A strategy that buys 1 SOL of every launch and keeps each ctx.buy result. */
function buyer(results: { ok: boolean; code?: string }[]): AnyStrategy {
  return defineStrategy({
    id: 'buyer',
    params: z.strictObject({}),
    rooms: () => ['latest'],
    onLaunch(e, ctx) {
      results.push(ctx.buy({ mint: e.mint, lamports: SOL, reason: 'launch' }));
    },
  });
}

describe('risk gate denial codes, through the engine', () => {
  it.each<[string, RiskLimits, string, Record<string, unknown>]>([
    ['RISK_SAFETY_RISK_SCORE', { maxRiskScore: 5 }, '', {}],
    ['RISK_SAFETY_SNIPERS', { maxSniperPct: 10 }, 'sniper:A', { totalSniperPercentage: 30 }],
    ['RISK_SAFETY_INSIDERS', { maxInsiderPct: 10 }, 'insider:A', { totalInsiderPercentage: 30 }],
    ['RISK_SAFETY_TOP10', { maxTop10Pct: 40 }, 'top10:A', { totalPercentage: 75 }],
    ['RISK_SAFETY_DEV_HOLDING', { maxDevHoldingPct: 5 }, 'dev_holding:A', { percentage: 12 }],
  ])('denies a buy with %s when the observed value is above the limit', async (code, risk, room, frame) => {
    const results: { ok: boolean; code?: string }[] = [];
    const t = setup(buyer(results), { risk });
    await t.engine.start();
    t.engine.ingest(wire('price:token:A', priceFrame(0.0001), t.clock.now()));
    if (room !== '') t.engine.ingest(wire(room, frame, t.clock.now()));
    t.launch('A');
    expect(results).toEqual([expect.objectContaining({ ok: false, code })]);
    expect(t.log.lines.at(-1)).toContain(code);
    // The same buy with the limit off goes through: the denial is the limit's.
    const allowed: { ok: boolean; code?: string }[] = [];
    const u = setup(buyer(allowed));
    await u.engine.start();
    u.engine.ingest(wire('price:token:A', priceFrame(0.0001), u.clock.now()));
    if (room !== '') u.engine.ingest(wire(room, frame, u.clock.now()));
    u.launch('A');
    expect(allowed).toEqual([expect.objectContaining({ ok: true })]);
  });

  it('denies a buy with RISK_MIN_LIQUIDITY when the pool holds less USD than minLiquidityUsd, and allows a deeper pool', async () => {
    const results: { ok: boolean; code?: string }[] = [];
    const t = setup(buyer(results), { risk: { minLiquidityUsd: 10_000 } });
    await t.engine.start();
    t.engine.ingest(wire('price:token:A', priceFrame(0.0001, { liquidity: 2_500 }), t.clock.now()));
    t.engine.ingest(wire('price:token:B', priceFrame(0.0001, { liquidity: 50_000 }), t.clock.now()));
    t.launch('A');
    t.launch('B');
    expect(results).toEqual([expect.objectContaining({ ok: false, code: 'RISK_MIN_LIQUIDITY' }), expect.objectContaining({ ok: true })]);
  });
});

describe('engine order codes', () => {
  it('denies an order placed after stop with ENGINE_STOPPED', async () => {
    let saved: StrategyContext | undefined;
    const def = defineStrategy({
      id: 'late',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      onLaunch(_e, ctx) {
        saved = ctx as StrategyContext;
      },
    });
    const t = setup(def);
    await t.engine.start();
    t.launch('A');
    await t.engine.stop();
    expect(saved!.buy({ mint: 'A', lamports: SOL, reason: 'after stop' })).toMatchObject({ ok: false, code: 'ENGINE_STOPPED' });
  });

  it('reports an executor that fails to take an intent (an uncoded error) as ENGINE_SUBMIT_FAILED to the strategy', async () => {
    const failed: IntentFailed[] = [];
    const broken: Executor = {
      start: () => Promise.resolve(),
      submit: () => Promise.reject(new Error('queue connection lost')),
      stop: () => Promise.resolve(),
    };
    const def = defineStrategy({ ...buyer([]), id: 'told', onIntentFailed: (e) => void failed.push(e) });
    const t = setup(def, { executor: broken });
    await t.engine.start();
    t.engine.ingest(wire('price:token:A', priceFrame(0.0001), t.clock.now()));
    t.launch('A');
    await new Promise((r) => setImmediate(r));
    expect(failed).toEqual([expect.objectContaining({ mint: 'A', outcome: 'rejected', code: 'ENGINE_SUBMIT_FAILED' })]);
  });
});

describe('strategy limits and ctx.data codes', () => {
  it('refuses a timer beyond the per-strategy limit with STRATEGY_TOO_MANY_TIMERS, and accepts one after a cancel', async () => {
    let caught: unknown;
    let scheduled = 0;
    const def = defineStrategy({
      id: 'timers',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      onLaunch(_e, ctx) {
        let last = -1;
        try {
          for (;;) {
            last = ctx.schedule(60_000, 'tick');
            scheduled++;
          }
        } catch (e) {
          caught = e;
        }
        ctx.cancel(last);
        ctx.schedule(60_000, 'tick');
        scheduled++;
      },
    });
    const t = setup(def);
    await t.engine.start();
    t.launch('A');
    expect(isChainpilotError(caught, 'STRATEGY_TOO_MANY_TIMERS')).toBe(true);
    expect(scheduled).toBe(10_001);
  });

  it('refuses a room beyond the per-strategy limit with STRATEGY_TOO_MANY_ROOMS', async () => {
    let caught: unknown;
    let watched = 0;
    const def = defineStrategy({
      id: 'rooms',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      onLaunch(_e, ctx) {
        try {
          for (;;) {
            ctx.watch(`price:token:M${watched}`);
            watched++;
          }
        } catch (e) {
          caught = e;
        }
      },
    });
    const t = setup(def);
    await t.engine.start();
    t.launch('A');
    expect(isChainpilotError(caught, 'STRATEGY_TOO_MANY_ROOMS')).toBe(true);
    expect(watched).toBe(1_000);
    expect(t.feed.joined()).toContain('price:token:M999');
    expect(t.feed.joined()).not.toContain('price:token:M1000');
  });

  it('rejects ctx.data look-ups with ENGINE_DATA_UNAVAILABLE when the deployment has no REST endpoint', async () => {
    const errors: unknown[] = [];
    const def = defineStrategy({
      id: 'reader',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      async onLaunch(e, ctx) {
        await ctx.data.get(`/tokens/${e.mint}`).catch((err: unknown) => errors.push(err));
      },
    });
    const t = setup(def);
    await t.engine.start();
    t.launch('A');
    await new Promise((r) => setImmediate(r));
    expect(errors).toHaveLength(1);
    expect(isChainpilotError(errors[0], 'ENGINE_DATA_UNAVAILABLE')).toBe(true);
  });

  it('rejects ctx.data look-ups over the rate limit with ENGINE_DATA_RATE_LIMITED until the bucket refills on the engine clock', async () => {
    const asked: string[] = [];
    const data: DataPort = {
      get: (path) => {
        asked.push(path);
        return Promise.resolve({ path });
      },
    };
    const dataLookup: DataLookupOptions = { ttlMs: 10_000, maxEntries: 100, ratePerSecond: 1, burst: 2 };
    const outcomes: string[] = [];
    const def = defineStrategy({
      id: 'reader',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      async onLaunch(e, ctx) {
        await ctx.data.get(`/tokens/${e.mint}`).then(
          () => outcomes.push(`${e.mint}:ok`),
          (err: unknown) => outcomes.push(`${e.mint}:${isChainpilotError(err) ? err.code : 'uncoded'}`),
        );
      },
    });
    const t = setup(def, { data, dataLookup });
    await t.engine.start();
    t.launch('A');
    t.launch('B');
    t.launch('C');
    await new Promise((r) => setImmediate(r));
    expect(outcomes).toEqual(['A:ok', 'B:ok', 'C:ENGINE_DATA_RATE_LIMITED']);
    t.clock.advance(1_000);
    t.launch('D');
    await new Promise((r) => setImmediate(r));
    expect(outcomes.at(-1)).toBe('D:ok');
    expect(asked).toEqual(['/tokens/A', '/tokens/B', '/tokens/D']);
  });
});
