/**
 * Engine throughput and latency on one core, against a JSON.parse baseline of the same frames:
 * - events/s: price frames for a held token (normalise, market view, marks, exits, strategy callback);
 * - frame received → intent handed to the executor (median, p99): a launch frame whose strategy buys.
 */
import { z } from 'zod';
import { manualClock, seededRandom, type Lamports, type RawAmount, type UnixMs, lamports } from '../src/core/index.js';
import { parseRoomMessage } from '../src/client/datastream/index.js';
import { createEngine } from '../src/engine/engine.js';
import { amountInOf, type ExecutionSink, type Executor, type OrderIntent } from '../src/engine/orders/execution-port.js';
import type { StreamFeed, StreamMessage } from '../src/engine/events/feed-port.js';
import { defineStrategy } from '../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../src/engine/strategy/strategy-instance.js';
import { opsPerSecond, percentile, type Bench } from './harness.js';

const SOL = 1_000_000_000n;

function build(onIntent: (i: OrderIntent) => void, fillAt?: string) {
  const clock = manualClock(1_700_000_000_000);
  const feed: StreamFeed = { subscribe: () => () => undefined, onGap: () => () => undefined };
  // An executor that accepts and never fills (latency bench), or fills at once at `fillAt` (throughput
  // bench, so the held position runs its exit rules on every tick): the engine is measured, not a fill model.
  let sink: ExecutionSink | undefined;
  const executor: Executor = {
    start: (s) => {
      sink = s;
      return Promise.resolve();
    },
    submit: (i) => {
      if (fillAt !== undefined) {
        sink?.({
          type: 'filled',
          intentId: i.id,
          at: 0 as UnixMs,
          fill: {
            intentId: i.id,
            side: i.side,
            mint: i.mint,
            decimals: 6,
            solAmount: amountInOf(i) as Lamports,
            tokenAmount: 10_000_000_000n as RawAmount,
            feeLamports: 0n as Lamports,
            price: fillAt,
            filledAt: 0 as UnixMs,
          },
        });
      }
      return Promise.resolve();
    },
    stop: () => Promise.resolve(),
  };
  const strategy = defineStrategy({
    id: 'bench',
    params: z.strictObject({}),
    rooms: () => ['latest'],
    onLaunch(e, ctx) {
      ctx.buy({ mint: e.mint, lamports: SOL / 100n, reason: 'bench' });
    },
    onPrice() {
      /* a strategy that looks at every tick */
    },
  });
  const engine = createEngine({
    feed,
    executor,
    clock,
    random: seededRandom(1),
    strategies: [
      instantiateStrategy(strategy, {}, { exits: { stopLossBps: 9_000, takeProfit: [{ multiple: '1000', sellBps: 10_000 }], trailingStopBps: 9_000 } }),
    ],
    risk: { maxOpenPositions: 1_000_000 },
    startingCashLamports: 1_000_000n * SOL,
    execution: { slippageBps: 500, priorityFeeLamports: lamports(10_000n), defaultDecimals: 6 },
    onIntent,
  });
  return { clock, engine };
}

/** A frame's payload parsed by the client's room registry, as the Datastream client delivers it. */
function typed(room: string, data: unknown): StreamMessage {
  const r = parseRoomMessage(room, data, 1 as UnixMs);
  if (!r.ok) throw new Error(`bench frame rejected: ${r.reason}`);
  return r.message;
}

const bench: Bench = {
  name: 'engine',
  async run() {
    const { engine } = build(() => undefined, '0.0001');
    await engine.start();
    // Hold a position in M (bought through the engine) so each tick also runs marks and exit rules.
    engine.ingest(typed('price:token:M', { price: 0.015, price_quote: 0.0001 }));
    engine.ingest(typed('latest', { token: { mint: 'M', decimals: 6 }, pools: [] }));
    if (engine.portfolio.open().length !== 1) throw new Error('bench setup: no position');
    const raw = [0.0001, 0.000101, 0.0000995, 0.0001003].map((p) =>
      JSON.stringify({
        type: 'message',
        room: 'price:token:M',
        data: { token: 'M', price: p * 150, price_quote: p, pool: 'P', time: 1, solReserveLamports: '30000000000', tokenReserveRaw: '300000000000000' },
      }),
    );
    let i = 0;
    const parseOnly = opsPerSecond(() => {
      JSON.parse(raw[i++ & 3]!);
    });
    i = 0;
    const withEngine = opsPerSecond(() => {
      const f = JSON.parse(raw[i++ & 3]!) as { room: string; data: unknown };
      engine.ingest(typed(f.room, f.data));
    });

    // Latency: launch frame (as received, JSON text) → intent at the executor.
    const samples: number[] = [];
    let t0 = 0n;
    const lat = build(() => samples.push(Number(process.hrtime.bigint() - t0) / 1e3));
    await lat.engine.start();
    for (let n = 0; n < 20_000; n++) {
      const mint = `Mint${n}`;
      lat.engine.ingest(typed('price:token:' + mint, { price: 0.015, price_quote: 0.0001 }));
      const text = JSON.stringify({
        type: 'message',
        room: 'latest',
        data: { token: { mint, symbol: 'B', name: 'B', decimals: 6 }, pools: [{ market: 'venue_a', poolId: 'P' }] },
      });
      t0 = process.hrtime.bigint();
      const f = JSON.parse(text) as { room: string; data: unknown };
      lat.engine.ingest(typed(f.room, f.data));
    }
    const warm = samples.slice(2_000);
    return [
      { name: 'JSON.parse of a price frame (baseline)', value: parseOnly, unit: 'frames/s' },
      { name: 'parse + engine dispatch (held token)', value: withEngine, unit: 'events/s', ratio: withEngine / parseOnly },
      {
        name: 'breakdown: frame → intent at executor, median',
        value: percentile(warm, 50),
        unit: 'µs',
        note: 'skips socket, decoder, dedup and the price-room join (price fed first): bench frame-intent has them',
      },
      { name: 'breakdown: frame → intent at executor, p99', value: percentile(warm, 99), unit: 'µs' },
    ];
  },
};
export default bench;
