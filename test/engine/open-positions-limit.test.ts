/**
 * maxOpenPositions counts positions as the portfolio keys them, per (strategy, token): a buy of a
 * token another strategy is already buying opens a position of its own, whichever path placed it
 * (a strategy's order or an operator's forced entry). Issue 38, case 6.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lamports, manualClock, seededRandom } from '../../src/core/index.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { createEngine } from '../../src/engine/engine.js';
import type { MarketView } from '../../src/engine/market/market-view.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { fakeFeed } from './fake-feed.js';
import { priceFrame, wire } from './wire.js';

const SOL = 1_000_000_000n;

/** Buys 1 SOL of every launched token; `onLaunch` off: a strategy that only takes forced entries. */
const buyer = (buys: boolean) =>
  defineStrategy({
    id: 'buyer',
    params: z.strictObject({}),
    rooms: () => ['latest'],
    onLaunch(e, ctx) {
      if (buys) ctx.buy({ mint: e.mint, lamports: SOL, reason: 'launch' });
    },
  });

function setup() {
  const clock = manualClock(1_700_000_000_000);
  const feed = fakeFeed(clock);
  const log = memoryDecisionLog();
  const engineRef: { market?: MarketView } = {};
  const executor = createPaperExecutor({ clock, market: { get: (m) => engineRef.market?.get(m) }, latencyMs: 200 });
  const engine = createEngine({
    feed,
    executor,
    clock,
    random: seededRandom(7),
    strategies: [
      instantiateStrategy(buyer(true), {}, { id: 'a' }),
      instantiateStrategy(buyer(true), {}, { id: 'b' }),
      instantiateStrategy(buyer(false), {}, { id: 'c' }),
    ],
    risk: { maxOpenPositions: 1 },
    startingCashLamports: 100n * SOL,
    execution: { slippageBps: 2_000, priorityFeeLamports: lamports(10_000n), defaultDecimals: 6 },
    decisions: log.sink,
  });
  engineRef.market = engine.market;
  return { clock, feed, log, engine, executor };
}

describe('maxOpenPositions across strategies', () => {
  it('with a limit of 1, two strategies buying one token at once and a forced entry on it open one position, not three', async () => {
    const t = setup();
    await t.engine.start();
    t.engine.ingest(wire('price:token:M', priceFrame(0.0001), t.clock.now()));
    t.feed.push('latest', { token: { mint: 'M', symbol: 'M', name: 'M', decimals: 6 }, pools: [{ market: 'venue_a', poolId: 'M-curve' }] });
    // a's buy is in flight; b's buy of the same token would be a second position
    expect(t.executor.inFlight()).toBe(1);
    const denied = t.log.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e['kind'] === 'denied');
    expect(denied).toMatchObject([{ strategyId: 'b', mint: 'M', code: 'RISK_MAX_OPEN_POSITIONS' }]);
    // an operator forcing an entry for c on the same token while a's buy is still in flight
    const forced = t.engine.manual({ action: 'enter', mint: 'M', strategyId: 'c', spendLamports: SOL }, { by: 'test', why: 'race' });
    expect(forced).toMatchObject({ ok: false, code: 'RISK_MAX_OPEN_POSITIONS' });
    t.clock.advance(200);
    expect(t.engine.portfolio.open().map((p) => p.strategyId)).toEqual(['a']);
    // once a's position is open it is still the one position: c's forced entry is still refused, a may add to its own
    expect(t.engine.manual({ action: 'enter', mint: 'M', strategyId: 'c', spendLamports: SOL }, { by: 'test', why: 'after' })).toMatchObject({
      ok: false,
      code: 'RISK_MAX_OPEN_POSITIONS',
    });
    expect(t.engine.manual({ action: 'enter', mint: 'M', strategyId: 'a', spendLamports: SOL }, { by: 'test', why: 'add' })).toMatchObject({ ok: true });
    t.clock.advance(200);
    expect(t.engine.portfolio.open().map((p) => p.strategyId)).toEqual(['a']);
    await t.engine.stop();
  });
});
