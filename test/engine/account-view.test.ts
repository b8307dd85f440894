/**
 * `ctx.account(mint?)`: cash, equity, exposure and the room under each risk limit, read from what
 * the risk gate checks. Its `maxBuyLamports` is held to the gate itself: a buy of exactly that
 * passes, one lamport more is denied.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lamports, manualClock, seededRandom } from '../../src/core/index.js';
import { createEngine } from '../../src/engine/engine.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import type { MarketView } from '../../src/engine/market/market-view.js';
import { defineStrategy, type StrategyContext } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { fakeFeed } from './fake-feed.js';
import { priceFrame, wire } from './wire.js';

const SOL = 1_000_000_000n;

function setup() {
  const clock = manualClock(1_700_000_000_000);
  const feed = fakeFeed(clock);
  const log = memoryDecisionLog();
  let ctx: StrategyContext | undefined;
  const probe = defineStrategy({ id: 'probe', params: z.strictObject({}), onStart: (c) => void (ctx = c as StrategyContext) });
  const ref: { market?: MarketView } = {};
  const engine = createEngine({
    feed,
    executor: createPaperExecutor({ clock, market: { get: (m) => ref.market?.get(m) }, latencyMs: 200 }),
    clock,
    random: seededRandom(3),
    strategies: [instantiateStrategy(probe, {})],
    risk: {
      maxTradeLamports: lamports(3n * SOL),
      maxOpenPositions: 2,
      maxExposureLamports: lamports(5n * SOL),
      maxPerTokenLamports: lamports(4n * SOL),
      cooldownMs: 60_000,
      dailyLossLimitLamports: lamports(2n * SOL),
    },
    startingCashLamports: 10n * SOL,
    execution: { slippageBps: 2_000, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    decisions: log.sink,
  });
  ref.market = engine.market;
  const price = (mint: string, p: number) => engine.ingest(wire(`price:token:${mint}`, priceFrame(p, { pool: `${mint}-curve` }), clock.now()));
  return { clock, engine, price, log, ctx: () => ctx! };
}

describe('ctx.account', () => {
  it('shows cash, equity, exposure and the room under each limit, and maxBuyLamports is what the gate lets through', async () => {
    const t = setup();
    await t.engine.start();
    const ctx = t.ctx();
    const fresh = ctx.account('A');
    expect(fresh).toMatchObject({
      cashLamports: 10n * SOL,
      freeCashLamports: 10n * SOL,
      equityLamports: 10n * SOL,
      exposureLamports: 0n,
      openPositions: 0,
      buysHalted: undefined,
      room: { openPositions: 2, tradeLamports: 3n * SOL, exposureLamports: 5n * SOL, tokenLamports: 4n * SOL, dailyLossLamports: 2n * SOL, cooldownMs: 0 },
      maxBuyLamports: 3n * SOL, // the trade size is the tightest
    });
    expect(ctx.account().room.tokenLamports).toBeUndefined();
    t.price('A', 0.001);
    t.price('B', 0.001);
    // one lamport over the room is denied; the room itself passes
    expect(ctx.buy({ mint: 'A', lamports: fresh.maxBuyLamports + 1n, reason: 'over' })).toMatchObject({ ok: false, code: 'RISK_TRADE_SIZE' });
    expect(ctx.buy({ mint: 'A', lamports: fresh.maxBuyLamports, reason: 'at' }).ok).toBe(true);
    // in flight: counted against cash, exposure and positions at once
    const inFlight = ctx.account('B');
    expect(inFlight).toMatchObject({ freeCashLamports: 7n * SOL, exposureLamports: 3n * SOL, openPositions: 1, maxBuyLamports: 2n * SOL });
    expect(inFlight.room).toMatchObject({ openPositions: 1, exposureLamports: 2n * SOL, tokenLamports: 4n * SOL });
    expect(ctx.buy({ mint: 'B', lamports: inFlight.maxBuyLamports + 1n, reason: 'over' })).toMatchObject({ ok: false, code: 'RISK_MAX_EXPOSURE' });
    t.clock.advance(1_000);
    await Promise.resolve();
    const filled = ctx.account('A');
    expect(filled.openPositions).toBe(1);
    expect(filled.exposureLamports).toBe(ctx.position('A')!.costLamports);
    expect(filled.room.cooldownMs).toBe(60_000 - 800); // bought 200 ms after the order, 1 s ago
    expect(filled.maxBuyLamports).toBe(0n); // cooling down
    expect(ctx.buy({ mint: 'A', lamports: 1n, reason: 'cooldown' })).toMatchObject({ ok: false, code: 'RISK_COOLDOWN' });
    const b = ctx.account('B');
    expect(ctx.buy({ mint: 'B', lamports: b.maxBuyLamports + 1n, reason: 'over' }).ok).toBe(false);
    expect(ctx.buy({ mint: 'B', lamports: b.maxBuyLamports, reason: 'at' }).ok).toBe(true);
    t.clock.advance(1_000);
    await Promise.resolve();
    // two positions open: no room for a third token, and the price halving costs equity and daily-loss room
    expect(ctx.account('C')).toMatchObject({ openPositions: 2, room: { openPositions: 0 }, maxBuyLamports: 0n });
    t.price('A', 0.0005);
    const after = ctx.account();
    expect(after.equityLamports).toBeLessThan(10n * SOL);
    expect(after.room.dailyLossLamports).toBe(2n * SOL - (10n * SOL - after.equityLamports));
    t.engine.kill('test');
    expect(ctx.account('A')).toMatchObject({ buysHalted: 'kill switch: test', maxBuyLamports: 0n });
    await t.engine.stop();
  });
});
