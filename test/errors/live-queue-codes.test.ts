import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Keypair } from '@solana/web3.js';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createRpcClient } from '../../src/client/index.js';
import { isChainpilotError, manualClock, silentLogger, systemClock, type Bps, type Lamports, type UnixMs } from '../../src/core/index.js';
import type { OrderIntent } from '../../src/engine/orders/execution-port.js';
import { READ_ATTEMPTS, readUntilKnown } from '../../src/executors/live/drive-intent.js';
import { resolveLiveSettings } from '../../src/executors/live/live-settings.js';
import { createQueueExecutor } from '../../src/executors/queue/queue-executor.js';
import { REDIS_URL, useRedis } from '../helpers/redis.js';
import { until } from '../runtime/helpers.js';

const redisOk = await useRedis();

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

describe('live chain read codes', () => {
  it('gives up a chain read that keeps failing (RPC refusing connections) after READ_ATTEMPTS with LIVE_CHAIN_READ_FAILED', async () => {
    const rpc = createRpcClient({ url: `http://127.0.0.1:${await closedPort()}`, retry: { maxAttempts: 1 } });
    const clock = manualClock(1_700_000_000_000);
    const settings = resolveLiveSettings({ maxTradeLamports: 1_000_000_000n, maxDayLamports: 5_000_000_000n, pollMs: 100 });
    const retries: unknown[] = [];
    let outcome: { error: unknown } | undefined;
    void readUntilKnown(
      { clock, settings, signal: new AbortController().signal, log: silentLogger(), count: (_what, e) => retries.push(e) },
      () => rpc.getBlockHeight(),
      'reading the block height',
    ).then(
      () => (outcome = { error: undefined }),
      (e: unknown) => (outcome = { error: e }),
    );
    try {
      // Each failed read sleeps on the manual clock: advance it once the sleep is scheduled.
      while (outcome === undefined) {
        await until(() => outcome !== undefined || clock.pending() > 0, 'the next backoff sleep or the end');
        if (outcome === undefined) clock.advance(60_000);
      }
    } finally {
      await rpc.close();
    }
    expect(isChainpilotError(outcome.error, 'LIVE_CHAIN_READ_FAILED')).toBe(true);
    expect((outcome.error as Error).message).toContain(`reading the block height failed ${READ_ATTEMPTS} times`);
    expect(retries).toHaveLength(READ_ATTEMPTS);
  }, 60_000);
});

describe.skipIf(!redisOk)('queue codes (real Redis)', () => {
  it('fails catch-up with QUEUE_CATCH_UP_TIMEOUT when an earlier run left queued intents and no worker runs', async () => {
    const prefix = `cpt-${randomBytes(5).toString('hex')}`;
    const wallet = Keypair.generate().publicKey.toBase58();
    const clock = systemClock();
    const intent: OrderIntent = {
      id: 'left-1',
      strategyId: 'q',
      side: 'buy',
      mint: Keypair.generate().publicKey.toBase58(),
      decimals: 6,
      spendLamports: 10_000_000n as Lamports,
      slippageBps: 100 as Bps,
      priorityFeeLamports: 10_000n as Lamports,
      referencePrice: undefined,
      createdAt: clock.now() as UnixMs,
      reason: 'catch-up test',
    };
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const first = createQueueExecutor({ url: REDIS_URL, prefix, wallet, clock, unsafeAllowVolatileRedis: true, retryDelayMs: 100 });
    const second = createQueueExecutor({ url: REDIS_URL, prefix, wallet, clock, unsafeAllowVolatileRedis: true, retryDelayMs: 100, catchUpTimeoutMs: 300 });
    try {
      await first.start(() => undefined);
      await first.submit(intent);
      await first.close(); // the engine goes away with its intent queued; no worker takes it
      const e = await second.catchUp().catch((err: unknown) => err);
      expect(isChainpilotError(e, 'QUEUE_CATCH_UP_TIMEOUT')).toBe(true);
      expect(e).toMatchObject({ retry: 'retryable', context: { wallet, jobs: 1 } });
      expect((e as Error).message).toContain('chainpilot worker');
    } finally {
      await second.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
    }
  }, 30_000);
});
