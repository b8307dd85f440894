/**
 * `ctx.flow(mint, windowMs)`: rolling trade flow per token from the swaps the engine dispatches,
 * on the run clock (a manual clock here), exact in lamports and VWAP, and bounded in memory.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isChainpilotError, lamports, manualClock, seededRandom, type UnixMs } from '../../src/core/index.js';
import { createEngine } from '../../src/engine/engine.js';
import type { SwapTraded } from '../../src/engine/events/events.js';
import { createMarketFlow, MAX_FLOW_TOKENS, MAX_FLOW_TRADES_PER_TOKEN, type TradeFlow } from '../../src/engine/market/market-flow.js';
import { createMarketView } from '../../src/engine/market/market-view.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { fakeFeed } from './fake-feed.js';

const SOL_MINT = 'So11111111111111111111111111111111111111112';

/** A swap in the service's shape: `sol` SOL against `tokens` whole tokens. */
function swap(tx: string, type: 'buy' | 'sell', wallet: string, sol: number, tokens: string) {
  const solSide = { address: SOL_MINT, amount: sol, decimals: 9 };
  const tokenSide = { address: 'M', amount: tokens, decimals: 6 };
  return { tx, type, wallet, amount: tokens, solVolume: sol, token: type === 'buy' ? { from: solSide, to: tokenSide } : { from: tokenSide, to: solSide } };
}

describe('ctx.flow', () => {
  it('sums the window of swaps a strategy sees: counts, exact SOL volume, distinct wallets and the exact VWAP', async () => {
    const clock = manualClock(1_700_000_000_000);
    const feed = fakeFeed(clock);
    const seen: TradeFlow[] = [];
    const tape = defineStrategy({
      id: 'tape',
      params: z.strictObject({}),
      rooms: () => ['transaction:M'],
      onTrade: (_e, ctx) => void seen.push(ctx.flow('M', 10_000)),
    });
    const engine = createEngine({
      feed,
      executor: createPaperExecutor({ clock, market: createMarketView(), latencyMs: 1 }),
      clock,
      random: seededRandom(1),
      strategies: [instantiateStrategy(tape, {})],
      risk: {},
      startingCashLamports: 1_000_000_000n,
      execution: { slippageBps: 100, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    });
    await engine.start();
    feed.push('transaction:M', [swap('a', 'buy', 'W1', 0.1, '1000'), swap('b', 'buy', 'W2', 0.2, '1000.5')]);
    clock.advance(4_000);
    feed.push('transaction:M', [swap('c', 'sell', 'W1', 0.05, '250')]);
    const at4s = seen[2]!;
    expect(at4s).toMatchObject({ trades: 3, buys: 2, sells: 1, buyers: 2, sellers: 1, wallets: 2, complete: false });
    expect(at4s.buyLamports).toBe(300_000_000n);
    expect(at4s.sellLamports).toBe(50_000_000n);
    expect(at4s.volumeLamports).toBe(350_000_000n);
    expect(at4s.netLamports).toBe(250_000_000n);
    // 0.35 SOL over 2250.5 tokens, exact to 40 places
    expect(at4s.vwap).toBe('0.000155520995334370139968895800933125972');
    clock.advance(7_000); // the first two swaps are 11 s old: out of the 10 s window
    feed.push('transaction:M', [swap('d', 'buy', 'W3', 1, '2000')]);
    const at11s = seen[3]!;
    expect(at11s).toMatchObject({
      trades: 2,
      buys: 1,
      sells: 1,
      buyers: 1,
      sellers: 1,
      wallets: 2,
      vwap: '0.0004666666666666666666666666666666666667',
      complete: true,
    });
    expect(at11s.volumeLamports).toBe(1_050_000_000n);
    await engine.stop();
  });

  it('refuses a window outside 1 ms to 1 h with STRATEGY_BAD_ARGUMENT naming the argument', () => {
    const f = createMarketFlow();
    for (const bad of [0, -5, 1.5, 3_600_001, Number.NaN]) {
      let caught: unknown;
      try {
        f.flow('M', bad, 0 as UnixMs);
      } catch (e) {
        caught = e;
      }
      expect(isChainpilotError(caught, 'STRATEGY_BAD_ARGUMENT')).toBe(true);
      expect((caught as Error).message).toMatch(/ctx\.flow windowMs: got .*; pass an integer number of milliseconds from 1 to 3600000/);
    }
  });

  it('keeps memory bounded: swaps per token, tokens, and nothing older than an hour; complete says when swaps were dropped', () => {
    const f = createMarketFlow();
    const ev = (mint: string, i: number): SwapTraded => ({
      type: 'trade',
      room: `transaction:${mint}`,
      receivedAt: 0 as UnixMs,
      origin: 'live',
      mint,
      side: 'buy',
      wallet: `W${i}`,
      tx: `t${i}`,
      amount: '1',
      priceUsd: undefined,
      volumeUsd: undefined,
      solLamports: lamports(1n),
      at: 0 as UnixMs,
    });
    for (let i = 0; i < MAX_FLOW_TRADES_PER_TOKEN + 10; i++) f.observe(ev('M', i), (1_000 + i) as UnixMs);
    const now = (1_000 + MAX_FLOW_TRADES_PER_TOKEN + 9) as UnixMs;
    const all = f.flow('M', 3_600_000, now);
    expect(all.trades).toBe(MAX_FLOW_TRADES_PER_TOKEN);
    expect(all.complete).toBe(false);
    expect(f.flow('M', 100, now)).toMatchObject({ trades: 100, complete: true });
    for (let i = 0; i < MAX_FLOW_TOKENS + 5; i++) f.observe(ev(`T${i}`, i), now);
    expect(f.size()).toBe(MAX_FLOW_TOKENS);
    expect(f.flow('M', 100, now).trades).toBe(0); // the least recently traded token went first
    f.observe(ev('late', 0), (now + 3_600_001) as UnixMs);
    expect(f.size()).toBe(1); // every other tape had no swap in the last hour
  });
});
