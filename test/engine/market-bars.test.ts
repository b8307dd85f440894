/**
 * `ctx.bars(mint, interval)`: time bars from swaps and price ticks on the run clock (a manual clock
 * here), OHLC exact, volume in lamports, and EMA/RSI/ATR over the closed bars.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isChainpilotError, lamports, manualClock, seededRandom, type UnixMs } from '../../src/core/index.js';
import { createEngine } from '../../src/engine/engine.js';
import { createMarketBars, MAX_BARS } from '../../src/engine/market/market-bars.js';
import { createMarketView } from '../../src/engine/market/market-view.js';
import { defineStrategy, type StrategyContext } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import type { PriceTick } from '../../src/engine/events/events.js';
import { fakeFeed } from './fake-feed.js';
import { priceFrame } from './wire.js';

const START = 1_700_000_040_000; // on a minute boundary

function setup() {
  const clock = manualClock(START);
  const feed = fakeFeed(clock);
  let ctx: StrategyContext | undefined;
  const probe = defineStrategy({
    id: 'bars',
    params: z.strictObject({}),
    rooms: () => ['transaction:M', 'price:token:M'],
    onStart(c) {
      ctx = c as StrategyContext;
      c.bars('M', '1m'); // starts building 1-minute bars for every token
    },
  });
  const engine = createEngine({
    feed,
    executor: createPaperExecutor({ clock, market: createMarketView(), latencyMs: 1 }),
    clock,
    random: seededRandom(1),
    strategies: [instantiateStrategy(probe, {})],
    risk: {},
    startingCashLamports: 1_000_000_000n,
    execution: { slippageBps: 100, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
  });
  const tick = (p: number) => feed.push('price:token:M', priceFrame(p, { token: 'M' }));
  const swap = (sol: number, tokens: string) =>
    feed.push('transaction:M', [{ tx: `t${clock.now()}`, type: 'buy', wallet: 'W', token: 'M', amount: tokens, solVolume: sol }]);
  return { clock, engine, tick, swap, ctx: () => ctx! };
}

describe('ctx.bars', () => {
  it('builds 1-minute OHLCV bars from ticks and swaps on the run clock, exact', async () => {
    const t = setup();
    await t.engine.start();
    t.tick(0.00002);
    t.clock.advance(5_000);
    t.swap(0.3, '10000'); // 0.00003 SOL per token
    t.clock.advance(5_000);
    t.tick(0.00001);
    t.clock.advance(5_000);
    t.tick(0.000015);
    const ctx = t.ctx();
    const first = ctx.bars('M', '1m');
    expect(first.closed).toEqual([]);
    expect(first.current).toEqual({
      openAt: START,
      open: '0.00002',
      high: '0.00003',
      low: '0.00001',
      close: '0.000015',
      volumeLamports: 300_000_000n,
      trades: 1,
      ticks: 3,
    });
    t.clock.advance(60_000); // the next minute: the bar closes when asked, with no event
    const later = ctx.bars('M', 60_000);
    expect(later.closed).toHaveLength(1);
    expect(later.closed[0]!.close).toBe('0.000015');
    expect(later.current).toBeUndefined();
    expect(ctx.bars('N', '1m')).toMatchObject({ closed: [], current: undefined });
    await t.engine.stop();
  });

  it('computes EMA, RSI and ATR over the closed bars, streaming: asked late or from the start, the same', async () => {
    const t = setup();
    await t.engine.start();
    const ctx = t.ctx();
    const early: (number | undefined)[] = [];
    for (let i = 0; i < 30; i++) {
      t.tick(0.00001 * (1 + i / 10));
      t.clock.advance(30_000);
      t.tick(0.00001 * (1 + i / 10) * 1.02); // the bar's high
      t.clock.advance(30_000);
      early.push(ctx.bars('M', '1m').ema(5));
    }
    const s = ctx.bars('M', '1m');
    expect(s.closed.length).toBe(30);
    expect(early.slice(0, 4)).toEqual([undefined, undefined, undefined, undefined]); // not stable before 5 bars
    expect(s.ema(5)).toBe(early[29]);
    expect(s.ema(5)).toBeGreaterThan(0.00003);
    expect(s.ema(5)).toBeLessThan(0.00004 * 1.02);
    expect(s.rsi(14)).toBe(100); // only rises
    // each bar's high is 1.02 × its low and its close; the next opens 1e-6 higher: the true range is 1.02e-6 from the previous close
    expect(s.atr(14)).toBeGreaterThan(0.000001);
    expect(s.atr(14)).toBeLessThan(0.00000103);
    // a second series (5 m) asked late: bars only from then on
    expect(ctx.bars('M', '5m').closed).toEqual([]);
    await t.engine.stop();
  });

  it('refuses a bad interval or period with STRATEGY_BAD_ARGUMENT naming the argument and the fix, and keeps at most MAX_BARS', () => {
    const bars = createMarketBars();
    const caught = (f: () => unknown): Error => {
      try {
        f();
      } catch (e) {
        expect(isChainpilotError(e, 'STRATEGY_BAD_ARGUMENT')).toBe(true);
        return e as Error;
      }
      throw new Error('no error');
    };
    expect(caught(() => bars.series('M', '90ms', 0 as UnixMs)).message).toMatch(/ctx\.bars interval: got "90ms"; pass whole seconds from 1s to 1d/);
    expect(caught(() => bars.series('M', 'soon', 0 as UnixMs)).message).toMatch(/got "soon"/);
    expect(caught(() => bars.series('M', '1m', 0 as UnixMs).ema(0)).message).toMatch(/ema period: got 0; pass an integer number of bars from 1 to 512/);
    expect(bars.active).toBe(true);
    const tick = (at: number): PriceTick =>
      ({ type: 'price', mint: 'M', price: '0.001', at: at as UnixMs, room: 'price:token:M', receivedAt: at as UnixMs, origin: 'live' }) as PriceTick;
    for (let i = 0; i < MAX_BARS + 20; i++) bars.observe(tick(i * 60_000), (i * 60_000) as UnixMs);
    expect(bars.series('M', '1m', ((MAX_BARS + 20) * 60_000) as UnixMs).closed).toHaveLength(MAX_BARS);
  });
});
