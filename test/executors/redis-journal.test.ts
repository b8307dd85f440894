import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { checkRedisDurability, evalScript, openRedisJournal, redisJournalKeys } from '../../src/executors/journal/redis-journal.js';
import { LEASE_ACQUIRE } from '../../src/executors/journal/redis-scripts.js';
import { acquireWalletLease, readLeaseStats } from '../../src/executors/queue/wallet-lease.js';
import { REDIS_URL, startOwnRedis, useRedis, type OwnRedis } from '../helpers/redis.js';
import { attempt, intent, journalConformance } from './journal-conformance.js';

const redisOk = await useRedis();
const WALLET = 'W1111111111111111111111111111111111111111';
const spend = { spendLamports: 100n, day: '2026-01-01' };
const prefix = (): string => `cpt-${randomBytes(5).toString('hex')}`;

let redis: Redis;
beforeAll(() => {
  if (redisOk) redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  if (redisOk) await redis.quit();
});

/** Deletes every key under `p` (tests share one Redis; each uses its own prefix). */
async function dropPrefix(r: Redis, p: string): Promise<void> {
  const keys = await r.keys(`${p}:*`);
  if (keys.length > 0) await r.del(...keys);
}

if (redisOk) {
  journalConformance('Redis', () => {
    const p = prefix();
    const log = silentLogger();
    const open = async () => {
      const lease = await acquireWalletLease({ redis, prefix: p, wallet: WALLET, ttlMs: 30_000, holder: 'test', log });
      await lease.release(); // the epoch stays current until someone takes the lease again
      return openRedisJournal({ redis, prefix: p, wallet: WALLET, epoch: lease.epoch });
    };
    return { open, reopen: open, cleanup: () => dropPrefix(redis, p) };
  });
}

describe.skipIf(!redisOk)('Redis intent journal: fencing, reports, durability', () => {
  it('fences a writer whose lease was taken over: its writes fail with JOURNAL_FENCED and change nothing', async () => {
    const p = prefix();
    const log = silentLogger();
    // a takes the lease and then stalls (no renewals, as in a GC pause or a frozen process).
    const a = (await evalScript(redis, LEASE_ACQUIRE, [redisJournalKeys(p, WALLET).lease], ['a:stalled', '150'])) as number[];
    expect(a[0]).toBe(1);
    const ja = openRedisJournal({ redis, prefix: p, wallet: WALLET, epoch: Number(a[1]) });
    await ja.create(intent('x'), spend, 1);
    await ja.markBuilt('x', 2);
    // b waits for a's lease to expire (a never releases: a stalled worker), then takes it over.
    const b = await acquireWalletLease({ redis, prefix: p, wallet: WALLET, ttlMs: 30_000, holder: 'b', log });
    expect([b.tookOver, b.epoch]).toEqual([true, Number(a[1]) + 1]);
    await expect(ja.recordSigned('x', attempt('stale'), 3)).rejects.toMatchObject({ code: 'JOURNAL_FENCED', retry: 'fatal' });
    await expect(ja.create(intent('y'), spend, 3)).rejects.toMatchObject({ code: 'JOURNAL_FENCED' });
    const jb = openRedisJournal({ redis, prefix: p, wallet: WALLET, epoch: b.epoch });
    const rec = await jb.get('x');
    expect([rec?.state, rec?.attempts.length]).toEqual(['BUILT', 0]);
    expect(await jb.get('y')).toBeUndefined();
    await jb.recordSigned('x', attempt('fresh'), 4);
    expect((await readLeaseStats(redis, p, WALLET)).takeovers).toBe(1);
    await b.release();
    await dropPrefix(redis, p);
  });

  it("notices a take-over on renewal and aborts the holder's signal with JOURNAL_FENCED", async () => {
    const p = prefix();
    const a = await acquireWalletLease({ redis, prefix: p, wallet: WALLET, ttlMs: 300, holder: 'a', log: silentLogger() });
    // Someone forces the epoch on (as a take-over does); a's next renewal finds it gone.
    await redis.hincrby(redisJournalKeys(p, WALLET).lease, 'epoch', 1);
    await new Promise<void>((r) => a.signal.addEventListener('abort', () => r(), { once: true }));
    expect(a.signal.reason).toMatchObject({ code: 'JOURNAL_FENCED' });
    await expect(a.assertHeld()).rejects.toMatchObject({ code: 'JOURNAL_FENCED' });
    await a.release();
    await dropPrefix(redis, p);
  });

  it('refuses every write through a read-only view, and reads what writers wrote', async () => {
    const p = prefix();
    const lease = await acquireWalletLease({ redis, prefix: p, wallet: WALLET, ttlMs: 30_000, holder: 't', log: silentLogger() });
    const w = openRedisJournal({ redis, prefix: p, wallet: WALLET, epoch: lease.epoch });
    await w.create(intent('x'), spend, 1);
    const ro = openRedisJournal({ redis, prefix: p, wallet: WALLET });
    await expect(ro.markBuilt('x', 2)).rejects.toMatchObject({ code: 'JOURNAL_FENCED' });
    expect((await ro.unresolved()).map((r) => r.intent.id)).toEqual(['x']);
    await lease.release();
    await dropPrefix(redis, p);
  });

  it('appends a report to the wallet stream in the same step as markReported, once per outcome', async () => {
    const p = prefix();
    const lease = await acquireWalletLease({ redis, prefix: p, wallet: WALLET, ttlMs: 30_000, holder: 't', log: silentLogger() });
    const j = openRedisJournal({ redis, prefix: p, wallet: WALLET, epoch: lease.epoch });
    await j.create(intent('x'), spend, 1);
    await j.deny('x', 'LIVE_X', 'no', 2);
    await j.markReportedWith('x', 3, '{"type":"rejected"}');
    await j.markReportedWith('x', 4, '{"type":"rejected"}'); // a re-delivered job reports again: no second entry
    const entries = await redis.xrange(j.keys.reports, '-', '+');
    expect(entries.map(([, f]) => f)).toEqual([['id', 'x', 'r', '{"type":"rejected"}']]);
    expect(await j.unresolved()).toEqual([]);
    await lease.release();
    await dropPrefix(redis, p);
  });

  it('fails loudly with JOURNAL_CORRUPT on an entry it cannot decode', async () => {
    const p = prefix();
    const lease = await acquireWalletLease({ redis, prefix: p, wallet: WALLET, ttlMs: 30_000, holder: 't', log: silentLogger() });
    const j = openRedisJournal({ redis, prefix: p, wallet: WALLET, epoch: lease.epoch });
    await j.create(intent('a'), spend, 1);
    await redis.hset(j.keys.intent('a'), 'intent', '{"id":"a","amountIn":"-5"}');
    await expect(j.get('a')).rejects.toMatchObject({ code: 'JOURNAL_CORRUPT' });
    await lease.release();
    await dropPrefix(redis, p);
  });

  it('refuses a Redis without appendonly, naming the setting to change', async () => {
    const info = await redis.info('persistence');
    if (!/aof_enabled:0/.test(info)) return; // the shared Redis is durable here: the own-server test below covers the check
    await expect(checkRedisDurability(redis)).rejects.toMatchObject({ code: 'JOURNAL_REDIS_NOT_DURABLE', message: expect.stringContaining('appendonly yes') });
  });

  describe('against its own redis-server', () => {
    let own: OwnRedis | undefined;
    afterAll(async () => {
      await own?.stop();
    });
    it('accepts appendonly yes with noeviction, refuses an eviction policy, and keeps the journal across a SIGKILL of Redis', async () => {
      own = await startOwnRedis({ fsync: 'always' });
      const r = new Redis(own.url, { maxRetriesPerRequest: null });
      r.on('error', () => undefined); // refused connections while Redis restarts are expected here
      try {
        expect(await checkRedisDurability(r)).toEqual({ appendfsync: 'always' });
        await r.config('SET', 'maxmemory-policy', 'allkeys-lru');
        await expect(checkRedisDurability(r)).rejects.toMatchObject({
          code: 'JOURNAL_REDIS_NOT_DURABLE',
          message: expect.stringContaining('maxmemory-policy noeviction'),
        });
        await r.config('SET', 'maxmemory-policy', 'noeviction');
        const p = prefix();
        const lease = await acquireWalletLease({ redis: r, prefix: p, wallet: WALLET, ttlMs: 60_000, holder: 't', log: silentLogger() });
        const j = openRedisJournal({ redis: r, prefix: p, wallet: WALLET, epoch: lease.epoch });
        await j.create(intent('a'), spend, 1);
        await j.markBuilt('a', 2);
        await j.recordSigned('a', attempt('sig'), 3);
        await own.kill();
        await own.restart();
        const after = await j.get('a'); // ioredis reconnects; the AOF brought everything back
        expect([after?.state, after?.attempts[0]?.signature]).toEqual(['SIGNED', 'sig']);
        await j.markSent('a', 'sig', 4); // the epoch survived too: the holder may still write
        await lease.release();
      } finally {
        r.disconnect();
      }
    });
  });
});
