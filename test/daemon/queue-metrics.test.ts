/**
 * Queued execution in the daemon's /metrics, against real Redis (a random prefix per test) and a
 * real BullMQ worker: queue depth, running jobs and connected workers, a report applied through the
 * wallet's journal and stream (reports behind, report lag), and a lease taken over from a holder
 * that vanished. The wallet is never a label value.
 */
import { randomBytes } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { silentLogger, systemClock, type Bps, type Lamports, type UnixMs } from '../../src/core/index.js';
import type { ExecutionReport, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { openRedisJournal } from '../../src/executors/journal/redis-journal.js';
import { createQueueExecutor } from '../../src/executors/queue/queue-executor.js';
import { walletQueueName } from '../../src/executors/queue/queue-names.js';
import { encodeReport } from '../../src/executors/queue/report-codec.js';
import { acquireWalletLease } from '../../src/executors/queue/wallet-lease.js';
import { createDaemonMetrics } from '../../src/service/daemon/daemon-metrics.js';
import { createServiceMetrics } from '../../src/service/daemon/service-metrics.js';
import { waitFor } from '../e2e/support/wait-for.js';
import { freePort, REDIS_URL, useRedis } from '../helpers/redis.js';
import { expectBounded, parseMetrics, series, total } from './support/scrape.js';

const redisOk = await useRedis();
const clock = systemClock();

const intent = (id: string): OrderIntent => ({
  id,
  strategyId: 'q',
  side: 'buy',
  mint: 'MintQueueMetrics1111111111111111111111111',
  decimals: 6,
  spendLamports: 10_000_000n as Lamports,
  slippageBps: 100 as Bps,
  priorityFeeLamports: 10_000n as Lamports,
  referencePrice: undefined,
  createdAt: clock.now() as UnixMs,
  reason: 'queue metrics test',
});

describe.skipIf(!redisOk)('queue metrics', () => {
  it('show depth, running jobs and workers, applied reports with their lag, and lease take-overs of the deployment', async () => {
    const prefix = `cp-qm-${randomBytes(4).toString('hex')}`;
    const wallet = Keypair.generate().publicKey.toBase58();
    const d = { deployment: 'queued-d' };
    const service = createServiceMetrics();
    const metrics = createDaemonMetrics({ slots: () => [], extensions: [service.metrics], processMetrics: false });
    const scrape = async () => parseMetrics(await metrics.render());
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const workerRedis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const vanished = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const executor = createQueueExecutor({ url: REDIS_URL, prefix, wallet, clock, consumer: 'metrics-test', unsafeAllowVolatileRedis: true });
    const unregister = service.deployment('queued-d').queue(() => executor.stats());
    const reports: ExecutionReport[] = [];
    let open = (): void => undefined;
    const gate = new Promise<void>((r) => (open = r));
    let worker: Worker | undefined;
    try {
      expect(series(await scrape(), 'chainpilot_queue_depth', d)).toEqual([{ labels: d, value: 0 }]);
      await executor.start((r) => reports.push(r));
      for (let i = 0; i < 3; i++) await executor.submit(intent(`int_qm_${i}`));
      const queued = await scrape();
      expect(total(queued, 'chainpilot_queue_depth', d)).toBe(3);
      expect(total(queued, 'chainpilot_queue_active_jobs', d)).toBe(0);
      expect(total(queued, 'chainpilot_queue_workers', d)).toBe(0);
      expect(total(queued, 'chainpilot_queue_lease_takeovers_total', d)).toBe(0);
      expect(series(queued, 'chainpilot_queue_report_lag_seconds', d)).toEqual([]); // no report applied yet

      // A worker takes the first job and holds it.
      worker = new Worker(walletQueueName(wallet), () => gate, { connection: workerRedis, prefix, concurrency: 1 });
      const running = await waitFor(
        'a worker running one job',
        async () => {
          const s = await scrape();
          return total(s, 'chainpilot_queue_active_jobs', d) === 1 && total(s, 'chainpilot_queue_workers', d) === 1 ? s : undefined;
        },
        15_000,
      );
      expect(total(running, 'chainpilot_queue_depth', d)).toBe(2);

      // A report written through the wallet's journal (as a worker does) is applied by the engine side.
      const lease = await acquireWalletLease({ redis, prefix, wallet, ttlMs: 5_000, holder: 'metrics-test', log: silentLogger() });
      const journal = openRedisJournal({ redis, prefix, wallet, epoch: lease.epoch });
      const denied = intent('int_qm_report');
      await journal.create(denied, { spendLamports: 0n, day: '2026-01-01' }, clock.now());
      await journal.deny(denied.id, 'LIVE_TRADE_CAP', 'over the cap', clock.now());
      await journal.markReportedWith(
        denied.id,
        clock.now(),
        encodeReport({ type: 'rejected', intentId: denied.id, at: clock.now(), code: 'LIVE_TRADE_CAP', reason: 'over the cap' }),
      );
      await lease.release();
      const applied = await waitFor(
        'the report applied',
        async () => {
          const s = await scrape();
          return total(s, 'chainpilot_queue_reports_applied_total', d) === 1 ? s : undefined;
        },
        15_000,
      );
      expect(reports.some((r) => r.intentId === denied.id && r.type === 'rejected')).toBe(true);
      expect(total(applied, 'chainpilot_queue_reports_behind', d)).toBe(0);
      const lag = series(applied, 'chainpilot_queue_report_lag_seconds', d);
      expect(lag).toHaveLength(1);
      expect(lag[0]?.value).toBeGreaterThanOrEqual(0);

      // A holder that vanishes without releasing: the next one takes the lease over once it expires.
      const gone = await acquireWalletLease({ redis: vanished, prefix, wallet, ttlMs: 300, holder: 'vanished', log: silentLogger() });
      vanished.disconnect();
      const next = await acquireWalletLease({ redis, prefix, wallet, ttlMs: 5_000, holder: 'next', log: silentLogger() });
      expect(next.tookOver).toBe(true);
      await next.release();
      await gone.release().catch(() => undefined);
      const after = await scrape();
      expect(total(after, 'chainpilot_queue_lease_takeovers_total', d)).toBe(1);
      expectBounded(after, [wallet, prefix]);

      // A deployment that stopped leaves the queue series.
      unregister();
      expect(series(await scrape(), 'chainpilot_queue_depth')).toEqual([]);
    } finally {
      open();
      await worker?.close();
      await executor.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
      await workerRedis.quit();
    }
  }, 60_000);
});

describe('queue metrics without Redis', () => {
  it('a scrape still answers when Redis does not: the queue series are left out and the failure is counted', async () => {
    const url = `redis://127.0.0.1:${await freePort()}`; // nothing listens: commands wait for a connection
    const service = createServiceMetrics({ queueStatsTimeoutMs: 200 });
    const metrics = createDaemonMetrics({ slots: () => [], extensions: [service.metrics], processMetrics: false });
    const executor = createQueueExecutor({ url, wallet: Keypair.generate().publicKey.toBase58(), clock, unsafeAllowVolatileRedis: true });
    service.deployment('unreachable').queue(() => executor.stats());
    try {
      const s = parseMetrics(await metrics.render());
      expect(series(s, 'chainpilot_queue_depth')).toEqual([]);
      expect(total(s, 'chainpilot_queue_stats_failures_total', { deployment: 'unreachable' })).toBe(1);
      const again = parseMetrics(await metrics.render());
      expect(total(again, 'chainpilot_queue_stats_failures_total', { deployment: 'unreachable' })).toBe(2);
    } finally {
      await Promise.race([executor.close(), new Promise((r) => setTimeout(r, 1_000))]);
    }
  }, 20_000);
});
