/**
 * `engine.dispatching()` names the event whose dispatch placed an intent (the runtime measures
 * event → intent latency with it): the launch for a strategy's buy, the price tick for an exit
 * rule's sell, nothing for a timer's order or between events.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { manualClock, seededRandom, type Lamports, type RawAmount, type UnixMs, lamports } from '../../src/core/index.js';
import { createEngine, type Engine } from '../../src/engine/engine.js';
import type { DomainEvent } from '../../src/engine/events/events.js';
import type { ExecutionSink, Executor, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { fakeFeed } from './fake-feed.js';
import { priceFrame, wire } from './wire.js';

const SOL = 1_000_000_000n;

describe('engine.dispatching()', () => {
  it("is the triggering event while an intent is handed over, and undefined for a timer's order and between events", async () => {
    const clock = manualClock(1_700_000_000_000);
    const feed = fakeFeed(clock);
    const seen: { intent: OrderIntent; trigger: DomainEvent | undefined }[] = [];
    const ref: { engine?: Engine } = {};
    let sink: ExecutionSink | undefined;
    // Fills every buy at once, so the position exists and its stop loss can fire.
    const executor: Executor = {
      start: (s) => {
        sink = s;
        return Promise.resolve();
      },
      submit: (i) => {
        seen.push({ intent: i, trigger: ref.engine?.dispatching() });
        if (i.side === 'buy') {
          sink?.({
            type: 'filled',
            intentId: i.id,
            at: clock.now() as UnixMs,
            fill: {
              intentId: i.id,
              side: 'buy',
              mint: i.mint,
              decimals: 6,
              solAmount: i.spendLamports,
              tokenAmount: 1_000_000_000n as RawAmount,
              feeLamports: 0n as Lamports,
              price: '0.0001',
              filledAt: clock.now() as UnixMs,
            },
          });
        }
        return Promise.resolve();
      },
      stop: () => Promise.resolve(),
    };
    const strategy = defineStrategy({
      id: 'trigger',
      params: z.strictObject({}),
      rooms: () => ['latest'],
      onLaunch(e, ctx) {
        ctx.buy({ mint: e.mint, lamports: SOL / 10n, reason: 'launch' });
        ctx.schedule(1_000, 'later', e.mint);
      },
      onTimer(t, ctx) {
        ctx.buy({ mint: String(t.payload), lamports: SOL / 10n, reason: 'timer', allowConcurrent: true });
      },
    });
    const engine = createEngine({
      feed,
      executor,
      clock,
      random: seededRandom(1),
      strategies: [instantiateStrategy(strategy, {}, { exits: { stopLossBps: 5_000 } })],
      risk: { maxOpenPositions: 5 },
      startingCashLamports: 10n * SOL,
      execution: { slippageBps: 100, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    });
    ref.engine = engine;
    await engine.start();
    engine.ingest(wire('price:token:M1', priceFrame(0.0001, { pool: 'M1-curve' }), clock.now()));
    clock.advance(5);
    feed.push('latest', { token: { mint: 'M1', symbol: 'M1', name: 'M1', decimals: 6 }, pools: [{ market: 'venue_a', poolId: 'M1-curve' }] });
    expect(engine.dispatching()).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.trigger?.type).toBe('launch');
    expect(seen[0]?.trigger?.receivedAt).toBe(clock.now());

    clock.advance(1_000); // the strategy's timer buys: no event triggered it
    expect(seen).toHaveLength(2);
    expect(seen[1]?.intent.reason).toBe('timer');
    expect(seen[1]?.trigger).toBeUndefined();

    const tickAt = clock.now();
    engine.ingest(wire('price:token:M1', priceFrame(0.00001, { pool: 'M1-curve' }), tickAt)); // -90%: the stop loss sells
    const sell = seen.find((s) => s.intent.side === 'sell');
    expect(sell?.trigger?.type).toBe('price');
    expect(sell?.trigger?.receivedAt).toBe(tickAt);
    expect(engine.dispatching()).toBeUndefined();
    await engine.stop();
  });
});
