/**
 * Unknown outcome is in flight: an engine queues a buy through real Redis, but the reply to the
 * job's add is lost after Redis stored it (a loopback proxy swallows it). The submit's outcome is
 * unknown, so the engine keeps the intent in flight; the worker runs the stored job on the
 * simulator's ledger, its report arrives, and the position ends open with its exits armed.
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { systemClock } from '../../src/core/clock.js';
import { lamports, seededRandom } from '../../src/core/index.js';
import { createEngine } from '../../src/engine/engine.js';
import type { Executor, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { defineStrategy } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createQueueExecutor } from '../../src/executors/queue/queue-executor.js';
import { keypairSigner } from '../../src/executors/signer/signer.js';
import { fakeFeed } from '../engine/fake-feed.js';
import { priceFrame, wire } from '../engine/wire.js';
import { REDIS_URL, useRedis } from '../helpers/redis.js';
import { startStallProxy } from '../helpers/stall-proxy.js';
import { until } from '../helpers/until.js';
import type { SimChain } from './support/sim-chain.js';
import { startSimQueue, startSimWalletWorker, type SimQueue } from './support/sim-queue.js';

const redisOk = await useRedis();
let q: SimQueue;
let chain: SimChain;
let redis: Redis;

beforeAll(async () => {
  if (!redisOk) return;
  q = await startSimQueue('unknown-submit');
  ({ chain, redis } = q);
});
afterAll(async () => {
  if (!redisOk) return;
  await q.close();
});

const buyOnLaunch = defineStrategy({
  id: 'buyer',
  params: z.strictObject({}),
  rooms: () => ['latest'],
  onLaunch(e, ctx) {
    ctx.buy({ mint: e.mint, lamports: 10_000_000n, reason: 'launch' });
  },
});

describe.skipIf(!redisOk)('a queue submit whose reply is lost after Redis stored the job', () => {
  it('keeps the intent in flight and ends with the position open and its exits armed', async () => {
    const prefix = `unk-${randomBytes(4).toString('hex')}`;
    const clock = systemClock();
    const signer = keypairSigner(chain.wallet(7));
    const proxy = await startStallProxy(Number(new URL(REDIS_URL).port || 6379));
    const worker = startSimWalletWorker({ chain, redis }, { prefix, signer, holder: 'w', clock });
    const executor = createQueueExecutor({
      url: `redis://127.0.0.1:${proxy.port}`,
      prefix,
      wallet: signer.address,
      clock,
      unsafeAllowVolatileRedis: true,
      retryDelayMs: 100,
      submitTimeoutMs: 300,
    });
    const submitErrors: unknown[] = [];
    const seen: Executor = {
      start: (sink) => executor.start(sink),
      submit: (i) =>
        executor.submit(i).catch((e: unknown) => {
          submitErrors.push(e);
          throw e;
        }),
      stop: (signal) => executor.stop(signal),
    };
    const feed = fakeFeed(clock);
    const placed: OrderIntent[] = [];
    const engine = createEngine({
      feed,
      executor: seen,
      clock,
      random: seededRandom(3),
      strategies: [instantiateStrategy(buyOnLaunch, {}, { id: 'buyer', exits: { stopLossBps: 5_000 } })],
      risk: { maxOpenPositions: 5 },
      startingCashLamports: 100_000_000_000n,
      execution: { slippageBps: 300, priorityFeeLamports: lamports(10_000n), defaultDecimals: 6 },
      intentIdPrefix: 'lost_',
      onIntent: (i) => void placed.push(i),
    });
    try {
      await engine.start();
      proxy.arm('lost_'); // the connection that queues the buy loses every reply from now on
      feed.push('latest', { token: { mint: chain.mint, symbol: 'T', name: 'T', decimals: 6 }, pools: [{ market: 'venue_a', poolId: 'p-curve' }] });
      expect(placed.map((i) => i.side)).toEqual(['buy']);
      await until('the submit to time out as unknown', () => engine.stats.submitsUnknown === 1);
      expect(proxy.stalled()).toBe(true);
      expect(submitErrors).toEqual([expect.objectContaining({ code: 'QUEUE_SUBMIT_UNKNOWN', retry: 'unknown_outcome' })]);
      const id = placed[0]!.id;
      expect(await redis.exists(`${prefix}:${(await import('../../src/executors/queue/queue-names.js')).walletQueueName(signer.address)}:${id}`)).toBe(1); // Redis stored the job
      expect(engine.stats.summary().intents).toBe(1);
      proxy.release(); // the command connection reconnects; the stored job was never lost
      await until('the fill of the stored job', () => (engine.portfolio.position('buyer', chain.mint)?.tokenRaw ?? 0n) > 0n);
      const position = engine.portfolio.position('buyer', chain.mint)!;
      expect(position.tokenRaw).toBe(chain.tokensOf(signer.address));
      expect(engine.stats.unknownReports).toBe(0); // the report found its intent: it was kept in flight
      // Exits armed: a price far below the entry triggers the stop loss, which places a sell.
      engine.ingest(wire(`price:token:${chain.mint}`, priceFrame(1e-12, { pool: 'p-curve' }), clock.now()));
      expect(placed.map((i) => i.side)).toEqual(['buy', 'sell']);
    } finally {
      proxy.release(); // a failed assertion must not leave the executor's connection stalled
      await engine.stop(AbortSignal.timeout(5_000));
      await executor.close();
      await worker.stop({ drainMs: 0 });
      await proxy.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  });
});
