/**
 * One engine per wallet, with real Redis: a second engine (another deployment name, or the same
 * one started twice) is refused at start with QUEUE_WALLET_HELD; each engine reads the report
 * stream through its own consumer group, and the stream is trimmed only below what every group
 * has acknowledged, so one engine's reads never cost another its reports.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import type { UnixMs } from '../../src/core/units.js';
import type { ExecutionReport } from '../../src/engine/orders/execution-port.js';
import { redisJournalKeys } from '../../src/executors/journal/redis-journal.js';
import { engineHoldKey } from '../../src/executors/queue/engine-lease.js';
import { createQueueExecutor, type QueueExecutor } from '../../src/executors/queue/queue-executor.js';
import { encodeReport } from '../../src/executors/queue/report-codec.js';
import { REDIS_URL, useRedis } from '../helpers/redis.js';

const redisOk = await useRedis();
const WALLET = 'EnginePerWa11et1111111111111111111111111111';
let redis: Redis;
beforeAll(() => {
  if (redisOk) redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
});
afterAll(async () => {
  if (redisOk) await redis.quit();
});

const clock = manualClock(1_700_000_000_000);
const engine = (prefix: string, consumer: string): QueueExecutor =>
  createQueueExecutor({
    url: REDIS_URL,
    prefix,
    wallet: WALLET,
    clock,
    consumer,
    unsafeAllowVolatileRedis: true,
    catchUpTimeoutMs: 5_000,
    engineHoldTtlMs: 3_000,
  });

async function until(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe.skipIf(!redisOk)('one engine per wallet (real Redis)', () => {
  it('refuses a second engine on a held wallet at start with QUEUE_WALLET_HELD, whatever its name, and admits one after the holder stops', async () => {
    const prefix = `epw-${randomBytes(4).toString('hex')}`;
    const a = engine(prefix, 'deploy-a');
    const b = engine(prefix, 'deploy-b');
    const a2 = engine(prefix, 'deploy-a');
    try {
      await a.start(() => undefined);
      expect(await redis.get(engineHoldKey(prefix, WALLET))).toMatch(/^deploy-a@\d+#/);
      await expect(b.start(() => undefined)).rejects.toMatchObject({
        code: 'QUEUE_WALLET_HELD',
        retry: 'not_retryable',
        message: expect.stringContaining('held by engine deploy-a@') as unknown,
      });
      await expect(a2.start(() => undefined)).rejects.toMatchObject({ code: 'QUEUE_WALLET_HELD' });
      await a.close();
      expect(await redis.exists(engineHoldKey(prefix, WALLET))).toBe(0);
      const b2 = engine(prefix, 'deploy-b');
      await b2.start(() => undefined);
      await b2.close();
    } finally {
      await Promise.allSettled([a.close(), b.close(), a2.close()]);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  });

  it("reads reports through each engine's own group and never trims entries another group has not acknowledged", async () => {
    const prefix = `epw-${randomBytes(4).toString('hex')}`;
    const stream = redisJournalKeys(prefix, WALLET).reports;
    try {
      const first = engine(prefix, 'deploy-a');
      await first.start(() => undefined); // creates group engine:deploy-a, reads nothing
      await first.close();
      const reports: ExecutionReport[] = ['r1', 'r2', 'r3'].map((id, i) => ({ type: 'expired', intentId: id, at: (1_700_000_000_000 + i) as UnixMs }));
      for (const r of reports) await redis.xadd(stream, '*', 'r', encodeReport(r));
      const gotB: ExecutionReport[] = [];
      const b = engine(prefix, 'deploy-b');
      await b.start((r) => void gotB.push(r));
      await until('engine b to read every report', () => gotB.length === 3);
      await b.close();
      const groups = ((await redis.xinfo('GROUPS', stream)) as unknown[][]).map((g) => String(g[1]));
      expect(groups.sort()).toEqual(['engine:deploy-a', 'engine:deploy-b']);
      expect(await redis.xlen(stream)).toBe(3); // engine:deploy-a has acknowledged none of them
      const gotA: ExecutionReport[] = [];
      const a = engine(prefix, 'deploy-a');
      await a.start((r) => void gotA.push(r));
      await until('engine a to read the same reports', () => gotA.length === 3);
      expect(gotA.map((r) => r.intentId)).toEqual(['r1', 'r2', 'r3']);
      await a.close();
      expect(await redis.xlen(stream)).toBeLessThanOrEqual(1); // both groups acknowledged: trimmed below the last entry
      const after = engine(prefix, 'deploy-b');
      const gotAgain: ExecutionReport[] = [];
      await after.start((r) => void gotAgain.push(r));
      await after.close();
      expect(gotAgain).toEqual([]); // acknowledged by deploy-b before: not delivered twice
    } finally {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
    }
  });
});
