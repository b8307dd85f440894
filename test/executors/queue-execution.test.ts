/**
 * Queued execution end to end on one machine: the engine-side queue executor, wallet workers in
 * this process, real Redis (a random prefix per test) and the simulator's real ledger.
 */
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRpcClient, createSwapClient } from '../../src/client/index.js';
import { base58Text } from '../../src/core/base58.js';
import { systemClock } from '../../src/core/clock.js';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { ExecutionReport, OrderIntent } from '../../src/engine/orders/execution-port.js';
import { openRedisJournal, redisJournalKeys } from '../../src/executors/journal/redis-journal.js';
import { createQueueExecutor, type QueueExecutor } from '../../src/executors/queue/queue-executor.js';
import { walletQueueName } from '../../src/executors/queue/queue-names.js';
import { readLeaseStats } from '../../src/executors/queue/wallet-lease.js';
import type { WalletWorker, WalletWorkerOptions } from '../../src/executors/queue/wallet-worker.js';
import { keypairSigner } from '../../src/executors/signer/signer.js';
import { REDIS_URL, useRedis } from '../helpers/redis.js';
import { until } from '../helpers/until.js';
import { INITIAL_LAMPORTS, type SimChain } from './support/sim-chain.js';
import { simWorkerSettings, startSimQueue, startSimWalletWorker, type SimQueue } from './support/sim-queue.js';

const redisOk = await useRedis();
const clock = systemClock();
let q: SimQueue;
let chain: SimChain;
let redis: Redis;

beforeAll(async () => {
  if (!redisOk) return;
  q = await startSimQueue('queue-it');
  ({ chain, redis } = q);
});
afterAll(async () => {
  if (!redisOk) return;
  await q.close();
});

const intent = (id: string, mint: string): OrderIntent => ({
  id,
  strategyId: 'q',
  side: 'buy',
  mint,
  decimals: 6,
  spendLamports: 10_000_000n as Lamports,
  slippageBps: 100 as Bps,
  priorityFeeLamports: 10_000n as Lamports,
  referencePrice: undefined,
  createdAt: clock.now() as UnixMs,
  reason: 'queue test',
});

function baseSettings(): WalletWorkerOptions['settings'] {
  return { ...simWorkerSettings(chain), maxIntentAgeMs: 3_600_000, maxRebuildAgeMs: 3_600_000 };
}

function worker(prefix: string, n: number, holder: string, extra: Partial<WalletWorkerOptions> = {}): WalletWorker {
  return startSimWalletWorker({ chain, redis }, { prefix, signer: keypairSigner(chain.wallet(n)), holder, clock, settings: baseSettings() }, extra);
}

function executor(prefix: string, wallet: string): QueueExecutor {
  return createQueueExecutor({ url: REDIS_URL, prefix, wallet, clock, unsafeAllowVolatileRedis: true, retryDelayMs: 100 });
}

async function dropPrefix(p: string): Promise<void> {
  const keys = await redis.keys(`${p}:*`);
  if (keys.length > 0) await redis.del(...keys);
}

describe.skipIf(!redisOk)('queued execution (BullMQ, Redis journal, simulator ledger)', () => {
  it('executes intents of two wallets through two workers: one landed transaction each, reported once, ledger = fills', async () => {
    const prefix = `cpt-${randomBytes(5).toString('hex')}`;
    const wallets = [0, 1].map((n) => chain.wallet(n).publicKey.toBase58());
    const workers = [worker(prefix, 0, 'A'), worker(prefix, 1, 'A'), worker(prefix, 0, 'B'), worker(prefix, 1, 'B')];
    const execs = wallets.map((w) => executor(prefix, w));
    const reports: ExecutionReport[] = [];
    try {
      for (const e of execs) await e.start((r) => reports.push(r));
      const ids = wallets.flatMap((_, i) => [0, 1, 2].map((k) => `it-${i}-${k}`));
      await Promise.all(ids.map((id) => execs[Number(id.split('-')[1])]!.submit(intent(id, chain.mint))));
      const terminal = (): ExecutionReport[] => reports.filter((r) => r.type !== 'accepted');
      await until('every intent reported', () => terminal().length >= ids.length);
      expect(
        terminal()
          .map((r) => [r.intentId, r.type])
          .sort(),
      ).toEqual(ids.map((id) => [id, 'filled']).sort());
      expect(reports.filter((r) => r.type === 'accepted')).toHaveLength(ids.length);
      for (const [i, w] of wallets.entries()) {
        const j = openRedisJournal({ redis, prefix, wallet: w });
        const recs = await j.landed();
        expect(recs).toHaveLength(3);
        let spent = 0n;
        let tokens = 0n;
        for (const rec of recs) {
          expect(rec.attempts.filter((a) => chain.landed(a.signature) !== undefined)).toHaveLength(1);
          spent += rec.fill!.solAmount + rec.fill!.feeLamports;
          tokens += rec.fill!.tokenAmount;
        }
        expect(chain.lamportsOf(w)).toBe(INITIAL_LAMPORTS - spent);
        expect(chain.tokensOf(w)).toBe(tokens);
        const s = await execs[i]!.stats();
        expect([s.queueDepth, s.activeJobs, s.reportsApplied, s.duplicateReports, s.reportsBehind]).toEqual([0, 0, 3, 0, 0]);
        expect(s.activeWorkers).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await Promise.all(execs.map((e) => e.close()));
      await Promise.all(workers.map((w) => w.stop({ drainMs: 0 })));
      await dropPrefix(prefix);
    }
  }, 60_000);

  it('stops a worker whose lease was taken over with JOURNAL_FENCED before it sends; the next holder sends the journaled bytes once', async () => {
    const prefix = `cpt-${randomBytes(5).toString('hex')}`;
    const wallet = chain.wallet(2).publicKey.toBase58();
    const leaseKey = redisJournalKeys(prefix, wallet).lease;
    let bumped: Promise<number> | undefined;
    // A signs, then (as if paused past its lease) loses the lease before its first send.
    const a = worker(prefix, 2, 'A', { probe: (point) => void (point === 'signed' && !bumped ? (bumped = redis.hincrby(leaseKey, 'epoch', 1)) : undefined) });
    const exec = executor(prefix, wallet);
    const reports: ExecutionReport[] = [];
    let b: WalletWorker | undefined;
    try {
      await exec.start((r) => reports.push(r));
      await exec.submit(intent('fence-1', chain.mint));
      await until('A fenced', () => a.stats().fenced === 1);
      b = worker(prefix, 2, 'B');
      await until('the intent reported', () => reports.some((r) => r.type === 'filled'));
      const rec = await openRedisJournal({ redis, prefix, wallet }).get('fence-1');
      expect(rec?.state).toBe('LANDED');
      expect(rec?.attempts).toHaveLength(1); // B resumed the journaled attempt; nothing was rebuilt
      expect(chain.landed(rec!.attempts[0]!.signature)).toEqual({ err: null });
      const bb = b;
      await until('the job completed', () => a.stats().jobsCompleted + bb.stats().jobsCompleted === 1); // by whichever worker took the lease over
      expect(a.stats().takeovers + b.stats().takeovers).toBe(1);
      expect(reports.filter((r) => r.type === 'filled')).toHaveLength(1);
    } finally {
      await exec.close();
      await Promise.all([a.stop({ drainMs: 0 }), b?.stop({ drainMs: 0 })]);
      await dropPrefix(prefix);
    }
  }, 60_000);

  it('resumes a job whose worker stopped after the send from the journal: the same bytes, no second transaction', async () => {
    const prefix = `cpt-${randomBytes(5).toString('hex')}`;
    const wallet = chain.wallet(3).publicKey.toBase58();
    let stopA: Promise<unknown> | undefined;
    const a: WalletWorker = worker(prefix, 3, 'A', { probe: (point) => void (point === 'sent' && !stopA ? (stopA = a.stop({ drainMs: 0 })) : undefined) });
    const exec = executor(prefix, wallet);
    const reports: ExecutionReport[] = [];
    let b: WalletWorker | undefined;
    try {
      await exec.start((r) => reports.push(r));
      await exec.submit(intent('resume-1', chain.mint));
      await until('A stopped mid-job', () => stopA !== undefined);
      await stopA;
      b = worker(prefix, 3, 'B');
      await until('the intent reported', () => reports.some((r) => r.type !== 'accepted'));
      const rec = await openRedisJournal({ redis, prefix, wallet }).get('resume-1');
      expect(rec?.attempts).toHaveLength(1);
      expect(reports.filter((r) => r.type !== 'accepted').map((r) => r.type)).toEqual(['filled']);
    } finally {
      await exec.close();
      await b?.stop({ drainMs: 0 });
      await dropPrefix(prefix);
    }
  }, 60_000);

  it("lets a restarted engine catch up: it waits for the earlier run's intents, gets each report once and restores every landed fill", async () => {
    const prefix = `cpt-${randomBytes(5).toString('hex')}`;
    const wallet = chain.wallet(4).publicKey.toBase58();
    const reports: ExecutionReport[] = [];
    const first = executor(prefix, wallet);
    await first.start((r) => reports.push(r));
    await first.submit(intent('restart-1', chain.mint));
    await first.submit(intent('restart-2', chain.mint));
    await first.close(); // the engine goes away with both intents in flight
    const w = worker(prefix, 4, 'A');
    const second = executor(prefix, wallet);
    try {
      const caught = await second.catchUp();
      reports.push(...caught.reports);
      expect(caught.landed.map((r) => r.intent.id).sort()).toEqual(['restart-1', 'restart-2']);
      expect(
        reports
          .filter((r) => r.type !== 'accepted')
          .map((r) => [r.intentId, r.type])
          .sort(),
      ).toEqual([
        ['restart-1', 'filled'],
        ['restart-2', 'filled'],
      ]);
      expect((await second.stats()).reportsBehind).toBe(0);
    } finally {
      await second.close();
      await w.stop({ drainMs: 0 });
      await dropPrefix(prefix);
    }
  }, 60_000);

  it('drives several jobs of the wallet at once under one lease; first sends go out in the order the jobs were taken, however long each build took', async () => {
    const prefix = `cpt-${randomBytes(5).toString('hex')}`;
    const wallet = chain.wallet(6).publicKey.toBase58();
    const swap = createSwapClient({ url: chain.swapUrl, timeoutMs: 5_000 });
    let building = 0;
    let maxBuilding = 0;
    let calls = 0;
    // Earlier jobs build slowest: without the in-order send pipeline the later ones would send first.
    const slowFirst: WalletWorkerOptions['swap'] = {
      buildSwap: async (req) => {
        const k = calls++;
        building++;
        maxBuilding = Math.max(maxBuilding, building);
        try {
          await new Promise((r) => setTimeout(r, Math.max(0, 8 - (k % 8)) * 40));
          return await swap.buildSwap(req);
        } finally {
          building--;
        }
      },
    };
    // The order sends reach the RPC port (the pipeline passes a turn once the RPC answered): each
    // transaction's first signature, from its wire bytes (one signer: a count byte, then 64 bytes).
    const rpc = createRpcClient({ url: chain.rpcUrl, apiKey: chain.apiKey, timeoutMs: 2_000 });
    const sent: string[] = [];
    const recording: WalletWorkerOptions['rpc'] = {
      ...rpc,
      sendTransaction: (tx, opts) => {
        sent.push(base58Text(Buffer.from(tx, 'base64').subarray(1, 65)));
        return rpc.sendTransaction(tx, opts);
      },
    };
    const w = worker(prefix, 6, 'A', { concurrency: 8, swap: slowFirst, rpc: recording, settings: { ...baseSettings(), inspection: 'static' } });
    const exec = executor(prefix, wallet);
    const reports: ExecutionReport[] = [];
    try {
      await exec.start((r) => reports.push(r));
      const before = chain.successfulSwaps().length;
      const ids = Array.from({ length: 16 }, (_, i) => `order-${String(i).padStart(2, '0')}`);
      for (const id of ids) await exec.submit(intent(id, chain.mint)); // decision order
      await until('every intent reported', () => reports.filter((r) => r.type !== 'accepted').length >= ids.length);
      expect(reports.filter((r) => r.type !== 'accepted').map((r) => r.type)).toEqual(ids.map(() => 'filled'));
      expect(maxBuilding, 'builds of different intents overlapped').toBeGreaterThan(1);
      const journal = openRedisJournal({ redis, prefix, wallet });
      const intentOf = new Map<string, string>();
      for (const id of ids) for (const a of (await journal.get(id))?.attempts ?? []) intentOf.set(a.signature, id);
      // Each job's first send, in the order the sends were made: the jobs' order. (The ledger's order
      // is not asserted: a send that times out under load, or a swap refused on chain after the
      // market moved, is sent again later, as it should be.)
      const firstSends = [...new Set(sent.map((sig) => intentOf.get(sig)))];
      expect(firstSends).toEqual(ids);
      const landed = chain
        .successfulSwaps()
        .slice(before)
        .map((s) => intentOf.get(s));
      expect([...landed].sort(), 'each intent landed once').toEqual(ids);
      expect((await readLeaseStats(redis, prefix, wallet)).epoch, 'one lease acquisition for all 16 jobs').toBe(1);
      expect(w.stats()).toMatchObject({ holding: true, jobsCompleted: 16, fenced: 0 });
    } finally {
      await exec.close();
      await w.stop({ drainMs: 0 });
      await swap.close();
      await dropPrefix(prefix);
    }
  }, 60_000);

  it('fails a job that does not carry an intent at once, with QUEUE_BAD_JOB logged and nothing journaled', async () => {
    const prefix = `cpt-${randomBytes(5).toString('hex')}`;
    const wallet = chain.wallet(5).publicKey.toBase58();
    const w = worker(prefix, 5, 'A');
    const queue = new Queue(walletQueueName(wallet), { connection: redis, prefix });
    try {
      await queue.add('intent', { intent: '{"id":"bad-1"}' }, { jobId: 'bad-1', attempts: 5, backoff: { type: 'fixed', delay: 10 } });
      await until('the job failed', async () => (await queue.getJobState('bad-1')) === 'failed');
      expect((await queue.getJob('bad-1'))?.attemptsMade).toBe(1);
      expect(await openRedisJournal({ redis, prefix, wallet }).get('bad-1')).toBeUndefined();
    } finally {
      await queue.close();
      await w.stop({ drainMs: 0 });
      await dropPrefix(prefix);
    }
  });
});
