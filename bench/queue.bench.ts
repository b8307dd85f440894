/**
 * Scale-out throughput and latency: intents through BullMQ and the Redis journal to wallet workers
 * (1, 2, 4 workers × 1, 4, 16 wallets), on the in-process fake chain (2 ms blocks), against two
 * baselines measured in the same run: the in-process live executor with its SQLite journal on the
 * same chain (the mode scale-out replaces), and a bare BullMQ add → process round trip (the floor
 * the queue itself sets). Workers run in this process (one Redis connection each): the numbers are
 * the queue's and journal's overhead and the per-wallet serialisation, not a multi-machine speed-up.
 *
 * Uses REDIS_URL or 127.0.0.1:6379 with a random prefix (volatile Redis allowed: a benchmark).
 * Every row here is a breakdown: in-process workers, a fake chain with 2 ms blocks and a 2 ms status
 * poll skip what a user's queue pays; bench queue-worker measures `chainpilot worker` processes on
 * the simulator's ledger.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { systemClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/logger.js';
import type { Bps, Lamports, UnixMs } from '../src/core/units.js';
import type { ExecutionReport, OrderIntent } from '../src/engine/orders/execution-port.js';
import { openSqliteJournal } from '../src/executors/journal/sqlite-journal.js';
import { createLiveExecutor } from '../src/executors/live/live-executor.js';
import { createQueueExecutor, type QueueExecutor } from '../src/executors/queue/queue-executor.js';
import { startWalletWorker, type WalletWorker } from '../src/executors/queue/wallet-worker.js';
import { keypairSigner } from '../src/executors/signer/signer.js';
import { createFakeChain, FAKE_SWAP_PROGRAM, type FakeChain } from '../test/executors/support/fake-chain.js';
import { createFakeSwap } from '../test/executors/support/fake-swap.js';
import { redisReachable, REDIS_URL } from '../test/helpers/redis.js';
import { percentile, type Bench, type BenchRow } from './harness.js';

const clock = systemClock();
const settings = {
  maxTradeLamports: 10n ** 12n,
  maxDayLamports: 10n ** 15n,
  allowedPrograms: [FAKE_SWAP_PROGRAM.toBase58()],
  pollMs: 2,
  rebroadcastMs: 1_000,
  blockhashValidityBlocks: 15_000,
};

function intentOf(id: string, mint: string, n: number): OrderIntent {
  return {
    id,
    strategyId: 'bench',
    side: 'buy',
    mint,
    decimals: 6,
    spendLamports: (1_000_000n + BigInt(n)) as Lamports,
    slippageBps: 100 as Bps,
    priorityFeeLamports: 10_000n as Lamports,
    referencePrice: undefined,
    createdAt: clock.now() as UnixMs,
    reason: 'bench',
  };
}

interface Run {
  readonly perSecond: number;
  readonly latenciesMs: number[];
}

/** Submits `n` intents (all at once, or one after the other's fill) and waits for every fill. */
async function drive(
  n: number,
  mint: string,
  submit: (i: number, intent: OrderIntent) => Promise<void>,
  fills: { onFill?: (id: string) => void },
  sequential = false,
): Promise<Run> {
  const started = new Map<string, bigint>();
  const latenciesMs: number[] = [];
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  fills.onFill = (id) => {
    latenciesMs.push(Number(process.hrtime.bigint() - started.get(id)!) / 1e6);
    if (latenciesMs.length === n) done();
  };
  const t0 = process.hrtime.bigint();
  const one = (i: number): Promise<void> => {
    const id = `i${i}-${randomBytes(3).toString('hex')}`;
    started.set(id, process.hrtime.bigint());
    return submit(i, intentOf(id, mint, i));
  };
  if (sequential) {
    for (let i = 0; i < n; i++) {
      const landed = new Promise<void>((r) => {
        const inner = fills.onFill!;
        fills.onFill = (id) => {
          inner(id);
          fills.onFill = inner;
          r();
        };
      });
      await one(i);
      await landed;
    }
  } else await Promise.all(Array.from({ length: n }, (_, i) => one(i)));
  await all;
  return { perSecond: n / (Number(process.hrtime.bigint() - t0) / 1e9), latenciesMs };
}

let failures = 0;

function sinkOf(fills: { onFill?: (id: string) => void }): (r: ExecutionReport) => void {
  return (r) => {
    if (r.type === 'accepted') return;
    if (r.type !== 'filled') failures++; // counted in the row; the run still completes
    fills.onFill?.(r.intentId);
  };
}

async function inProcess(chain: FakeChain, mint: string, n: number, dir: string, sequential: boolean): Promise<Run> {
  const key = Keypair.generate();
  chain.airdrop(key.publicKey, 1_000_000_000_000n);
  const journal = openSqliteJournal({ path: join(dir, `inproc-${randomBytes(3).toString('hex')}.sqlite`) });
  const executor = createLiveExecutor({ rpc: chain, swap: createFakeSwap(chain, () => 6), signer: keypairSigner(key), journal, clock, settings });
  const fills: { onFill?: (id: string) => void } = {};
  await executor.start(sinkOf(fills));
  const run = await drive(n, mint, (_i, intent) => executor.submit(intent), fills, sequential);
  await executor.stop();
  await journal.close();
  return run;
}

async function bareBullmq(n: number, sequential: boolean): Promise<Run> {
  const prefix = `cpb-${randomBytes(4).toString('hex')}`;
  const conn = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  const queue = new Queue('bare', { connection: conn, prefix });
  const started = new Map<string, bigint>();
  const latenciesMs: number[] = [];
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const worker = new Worker('bare', async () => undefined, { connection: conn, prefix, concurrency: 1 });
  worker.on('completed', (job) => {
    latenciesMs.push(Number(process.hrtime.bigint() - started.get(job.id ?? '')!) / 1e6);
    if (latenciesMs.length === n) done();
  });
  await queue.setGlobalConcurrency(1);
  const t0 = process.hrtime.bigint();
  const add = (i: number): Promise<unknown> => {
    started.set(`j${i}`, process.hrtime.bigint());
    return queue.add('bare', { i }, { jobId: `j${i}`, removeOnComplete: true });
  };
  if (sequential) {
    for (let i = 0; i < n; i++) {
      const completed = new Promise<void>((r) => worker.once('completed', () => r()));
      await add(i);
      await completed;
    }
  } else await Promise.all(Array.from({ length: n }, (_, i) => add(i)));
  await all;
  const perSecond = n / (Number(process.hrtime.bigint() - t0) / 1e9);
  await worker.close();
  await queue.obliterate({ force: true });
  await queue.close();
  conn.disconnect();
  return { perSecond, latenciesMs };
}

async function queued(chain: FakeChain, mint: string, n: number, workerCount: number, walletCount: number, sequential = false): Promise<Run> {
  const prefix = `cpb-${randomBytes(4).toString('hex')}`;
  const keys = Array.from({ length: walletCount }, () => Keypair.generate());
  for (const k of keys) chain.airdrop(k.publicKey, 1_000_000_000_000n);
  const conns: Redis[] = [];
  const workers: WalletWorker[] = [];
  for (let w = 0; w < workerCount; w++) {
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    conns.push(redis);
    for (const k of keys) {
      workers.push(
        startWalletWorker({
          redis,
          prefix,
          signer: keypairSigner(k),
          rpc: chain,
          swap: createFakeSwap(chain, () => 6),
          clock,
          settings,
          log: silentLogger(),
          holder: `bench-${w}`,
        }),
      );
    }
  }
  const fills: { onFill?: (id: string) => void } = {};
  const execs: QueueExecutor[] = keys.map((k) =>
    createQueueExecutor({ url: REDIS_URL, prefix, wallet: k.publicKey.toBase58(), clock, unsafeAllowVolatileRedis: true }),
  );
  for (const e of execs) await e.start(sinkOf(fills));
  const run = await drive(n, mint, (i, intent) => execs[i % walletCount]!.submit(intent), fills, sequential);
  for (const e of execs) await e.close();
  await Promise.all(workers.map((w) => w.stop()));
  const cleaner = conns[0]!;
  const left = await cleaner.keys(`${prefix}:*`);
  for (let i = 0; i < left.length; i += 500) await cleaner.del(...left.slice(i, i + 500));
  for (const c of conns) c.disconnect();
  return run;
}

const bench: Bench = {
  name: 'queue',
  async run() {
    if (!(await redisReachable())) return [{ name: 'skipped: no Redis at REDIS_URL', value: 0, unit: '-' }];
    const dir = mkdtempSync(join(tmpdir(), 'chainpilot-bench-queue-'));
    const chain = createFakeChain({ clock, blockMs: 2, validityBlocks: 15_000 });
    const mint = chain.createMint(6);
    chain.addPool(mint, 30_000_000_000n, 1_000_000_000_000_000n);
    const m = mint.toBase58();
    try {
      const n = 96;
      const lat = (r: Run): string => `p50 ${percentile(r.latenciesMs, 50).toFixed(1)} ms, p99 ${percentile(r.latenciesMs, 99).toFixed(1)} ms`;
      const baseBurst = await inProcess(chain, m, n, dir, false);
      const baseSeq = await inProcess(chain, m, 32, dir, true);
      const bareBurst = await bareBullmq(400, false);
      const bareSeq = await bareBullmq(50, true);
      const queuedSeq = await queued(chain, m, 32, 1, 1, true);
      const rows: BenchRow[] = [
        { name: 'in-process live executor, 96 at once (baseline)', value: baseBurst.perSecond, unit: 'intents/s', note: `${lat(baseBurst)} intent -> landed` },
        {
          name: 'in-process live executor, one at a time',
          value: baseSeq.perSecond,
          unit: 'intents/s',
          ratio: baseSeq.perSecond / baseBurst.perSecond,
          note: `${lat(baseSeq)} intent -> landed`,
        },
        { name: 'bare BullMQ add -> process, 400 at once', value: bareBurst.perSecond, unit: 'jobs/s', note: `${lat(bareBurst)} add -> completed` },
        { name: 'bare BullMQ add -> process, one at a time', value: bareSeq.perSecond, unit: 'jobs/s', note: `${lat(bareSeq)} add -> completed` },
        {
          name: 'breakdown: queued in process, fake chain, 1 worker, 1 wallet, one at a time',
          value: queuedSeq.perSecond,
          unit: 'intents/s',
          ratio: queuedSeq.perSecond / baseSeq.perSecond,
          note: `ratio vs in-process one at a time; ${lat(queuedSeq)} intent -> landed`,
        },
      ];
      for (const wallets of [1, 4, 16]) {
        for (const workers of [1, 2, 4]) {
          const r = await queued(chain, m, n, workers, wallets);
          rows.push({
            name: `breakdown: queued in process, fake chain, ${workers} worker(s), ${wallets} wallet(s), 96 at once`,
            value: r.perSecond,
            unit: 'intents/s',
            ratio: r.perSecond / baseBurst.perSecond,
            note: `vs bare BullMQ ${(r.perSecond / bareBurst.perSecond).toFixed(3)}; ${lat(r)} intent -> landed`,
          });
        }
      }
      if (failures > 0) rows.push({ name: 'intents that did not land (expired, failed, rejected)', value: failures, unit: 'intents' });
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
