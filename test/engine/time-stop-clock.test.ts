/**
 * Time stops measure from when the engine saw the fill on the run's clock, never from the fill's
 * own timestamp (a live fill carries the chain's block time, which a fast simulator or a skewed
 * cluster puts minutes away from the run's clock). Restored positions measure from when the
 * earlier run saw them (`seenAt`, the journal's run-clock time). Manual clock; any skew.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lamports, manualClock, seededRandom, type Lamports, type RawAmount, type UnixMs } from '../../src/core/index.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { createEngine, type RestoredFill } from '../../src/engine/engine.js';
import type { ExecutionSink, Executor, Fill, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { fuzzParams } from '../helpers/fuzz.js';
import { fakeFeed } from './fake-feed.js';
import { priceFrame, wire } from './wire.js';

const SOL = 1_000_000_000n;
const TIME_STOP_MS = 300_000;

const buyer = defineStrategy({
  id: 'b',
  params: z.strictObject({}),
  rooms: () => ['latest'],
  onLaunch(e, ctx) {
    ctx.buy({ mint: e.mint, lamports: SOL / 10n, reason: 'launch' });
  },
});

/** An executor that fills every intent at once, stamping the fill `skewMs` away from the run clock (a chain's block time). */
function skewedExecutor(now: () => number, skewMs: number): Executor & { sells: OrderIntent[] } {
  let sink: ExecutionSink | undefined;
  const sells: OrderIntent[] = [];
  return {
    sells,
    start: (s) => {
      sink = s;
      return Promise.resolve();
    },
    submit: (i) => {
      if (i.side === 'sell') sells.push(i);
      const filledAt = (now() + skewMs) as UnixMs;
      const fill: Fill = {
        intentId: i.id,
        side: i.side,
        mint: i.mint,
        decimals: i.decimals,
        solAmount: lamports(i.side === 'buy' ? i.spendLamports : SOL / 10n),
        tokenAmount: (i.side === 'buy' ? 1_000_000n : i.sellRaw) as RawAmount,
        feeLamports: lamports(5_000n),
        price: '0.0001',
        filledAt,
      };
      sink?.({ type: 'filled', intentId: i.id, at: now() as UnixMs, fill });
      return Promise.resolve();
    },
    stop: () => Promise.resolve(),
  };
}

function setup(skewMs: number, restoredFills: RestoredFill[] = []) {
  const clock = manualClock(1_800_000_000_000);
  const feed = fakeFeed(clock);
  const executor = skewedExecutor(() => clock.now(), skewMs);
  const engine = createEngine({
    feed,
    executor,
    clock,
    random: seededRandom(1),
    strategies: [instantiateStrategy(buyer, {}, { exits: { timeStopMs: TIME_STOP_MS } })],
    risk: { maxOpenPositions: 100 },
    startingCashLamports: 100n * SOL,
    execution: { slippageBps: 500, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    decisions: memoryDecisionLog().sink,
    restoredFills,
  });
  const launch = (mint: string): void => {
    engine.ingest(wire(`price:token:${mint}`, priceFrame(0.0001, { pool: `${mint}-curve` }), clock.now()));
    feed.push('latest', { token: { mint, symbol: mint, name: mint, decimals: 6 }, pools: [{ market: 'venue_a', poolId: `${mint}-curve` }] });
  };
  return { clock, engine, executor, launch };
}

describe('time stops on the run clock', () => {
  it('sells exactly timeStop after the engine saw the fill, whatever the skew of the fill stamp (chain ahead or behind)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -3_600_000, max: 3_600_000 }), async (skewMs) => {
        const t = setup(skewMs);
        await t.engine.start();
        t.launch('A');
        expect(t.engine.portfolio.open()).toHaveLength(1);
        expect(t.engine.portfolio.open()[0]!.openedAt).toBe(t.clock.now());
        t.clock.advance(TIME_STOP_MS - 1);
        expect(t.executor.sells).toHaveLength(0);
        t.clock.advance(1);
        expect(t.executor.sells.map((s) => s.reason)).toEqual([`time stop after ${TIME_STOP_MS} ms`]);
        await t.engine.stop();
      }),
      fuzzParams({ numRuns: 40, seed: 2910 }, [[210_000], [0], [-210_000]]),
    );
  });

  it('a restored position past its time stop on the run clock is sold at start, though its fill stamp is 3.5 min ahead', async () => {
    const now = 1_800_000_000_000;
    const fill = (mint: string): Fill => ({
      intentId: `old-${mint}`,
      side: 'buy',
      mint,
      decimals: 6,
      solAmount: lamports(SOL / 10n) as Lamports,
      tokenAmount: 1_000_000n as RawAmount,
      feeLamports: lamports(5_000n),
      price: '0.0001',
      filledAt: (now + 210_000) as UnixMs, // the chain's block time, ahead of the run clock
    });
    const mints = ['R1', 'R2', 'R3', 'R4', 'R5', 'R6', 'R7', 'R8'];
    const restored = mints.map((m) => ({ strategyId: 'b', fill: fill(m), seenAt: (now - 6 * 60_000) as UnixMs }));
    const t = setup(0, restored);
    await t.engine.start();
    t.clock.advance(1);
    expect(t.executor.sells.map((s) => s.mint).sort()).toEqual(mints);
    await t.engine.stop();
  });
});
