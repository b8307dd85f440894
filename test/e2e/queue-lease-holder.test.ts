/**
 * One lease holder per wallet, several of its jobs at once (issue 30), with real `chainpilot worker`
 * processes (bin/chainpilot.js, default lease and lock timings), their own durable redis-server and
 * the simulator's ledger (no faults: a transaction lands the moment it is sent, so the ledger's
 * order of swaps is the order the sends reached the RPC).
 *
 * (a) Two workers on one wallet: only one takes the lease and runs the burst, several jobs at once,
 *     and the swaps land in decision order (the order the engine submitted them).
 * (b) The holder is SIGKILLed mid-burst: the other worker takes the lease over and finishes; every
 *     intent has exactly one landed transaction on the ledger, each reported once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Keypair } from '@solana/web3.js';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { workerDeploymentYaml } from './support/worker-deployment.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import type { Bps, Lamports, UnixMs } from '../../src/core/units.js';
import type { ExecutionReport } from '../../src/engine/orders/execution-port.js';
import { openRedisJournal, redisJournalKeys } from '../../src/executors/journal/redis-journal.js';
import { createQueueExecutor } from '../../src/executors/queue/queue-executor.js';
import { walletQueueName } from '../../src/executors/queue/queue-names.js';
import { readLeaseStats } from '../../src/executors/queue/wallet-lease.js';
import { startOwnRedis, useRedis, type OwnRedis } from '../helpers/redis.js';
import { startSimChain, type SimChain } from '../executors/support/sim-chain.js';

const redisOk = await useRedis(); // redis-server must be installed; the test starts its own
const clock = systemClock();
const dir = mkdtempSync(join(tmpdir(), 'cp-lease-holder-'));
const CONCURRENCY = 8;
let own: OwnRedis;
let chain: SimChain;
let redis: Redis;

beforeAll(async () => {
  if (!redisOk) return;
  own = await startOwnRedis({ fsync: 'always' });
  // 100 ms slots, 600 blocks (60 s) of blockhash validity: a resumed job re-broadcasts its journaled bytes.
  chain = await startSimChain({ seed: 'lease-holder', slotMs: 100, validBlocks: 600 });
  redis = new Redis(own.url, { maxRetriesPerRequest: null });
}, 60_000);
afterAll(async () => {
  redis?.disconnect();
  await chain?.close();
  await own?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function deploymentFile(name: string, key: Keypair, prefix: string): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    workerDeploymentYaml({
      name,
      chain,
      key,
      redisUrl: own.url,
      prefix,
      execution: ['  inspection: static'], // no simulation round: concurrent buys of one wallet are never refused for "accounts changed"
      queue: [`    concurrency: ${CONCURRENCY}`],
      live: ['  statusPoll: 100ms'],
      tail: ['telemetry:', '  logLevel: warn'],
    }),
  );
  return file;
}

interface WorkerProc {
  readonly child: ChildProcess;
  output(): string;
  readonly exited: Promise<number | null>;
}

function startWorker(file: string): WorkerProc {
  const child = spawn(process.execPath, ['bin/chainpilot.js', 'worker', '--redis', own.url, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout?.on('data', (b: Buffer) => (text += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (text += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => text, exited };
}

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Pid of the lease holder (the owner token is `host:pid:random`). */
async function holderPid(prefix: string, wallet: string): Promise<number | undefined> {
  const owner = await redis.hget(redisJournalKeys(prefix, wallet).lease, 'owner');
  const parts = (owner ?? '').split(':');
  return parts.length >= 3 ? Number(parts.at(-2)) : undefined;
}

/** Starts a queue executor for `wallet`, submits `n` buys one after another (decision order) and returns their ids and reports. */
async function engine(prefix: string, wallet: string) {
  const exec = createQueueExecutor({ url: own.url, prefix, wallet, clock, consumer: `engine-${prefix}`, concurrency: CONCURRENCY, retryDelayMs: 200 });
  const reports: ExecutionReport[] = [];
  await exec.start((r) => reports.push(r));
  const ids: string[] = [];
  return {
    reports,
    ids,
    async submit(n: number): Promise<void> {
      for (let i = 0; i < n; i++) {
        const id = `${prefix}-${String(i).padStart(3, '0')}`;
        ids.push(id);
        await exec.submit({
          id,
          strategyId: 'lease',
          side: 'buy',
          mint: chain.mint,
          decimals: 6,
          spendLamports: (10_000_000n + BigInt(i)) as Lamports,
          slippageBps: 500 as Bps,
          priorityFeeLamports: 10_000n as Lamports,
          referencePrice: undefined,
          createdAt: clock.now() as UnixMs,
          reason: 'lease test',
        });
      }
    },
    outcomes: (): ExecutionReport[] => reports.filter((r) => r.type !== 'accepted'),
    close: () => exec.close(),
  };
}

/** Each intent's landed transactions on the ledger (from the journal's attempts). */
async function landedPerIntent(prefix: string, wallet: string, ids: readonly string[]): Promise<Map<string, string[]>> {
  const journal = openRedisJournal({ redis, prefix, wallet });
  const out = new Map<string, string[]>();
  for (const id of ids) {
    const rec = await journal.get(id);
    out.set(
      id,
      (rec?.attempts ?? []).filter((a) => chain.landed(a.signature)?.err === null).map((a) => a.signature),
    );
  }
  return out;
}

async function stop(w: WorkerProc): Promise<string> {
  if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
  await w.exited;
  return w.output();
}

describe.skipIf(!redisOk)('one lease holder per wallet, several jobs at once (real chainpilot worker processes)', () => {
  it('(a) two workers on one wallet: one holds the lease and runs the burst concurrently; sends land in decision order', { timeout: 180_000 }, async () => {
    const prefix = 'lha';
    const key = chain.wallet(1);
    const wallet = key.publicKey.toBase58();
    const file = deploymentFile('lease-a', key, prefix);
    const workers = [startWorker(file), startWorker(file)];
    const queue = new Queue(walletQueueName(wallet), { connection: redis, prefix });
    const e = await engine(prefix, wallet);
    try {
      for (const w of workers) await until('both workers started', () => w.output().includes('chainpilot worker: 1 wallet(s)'));
      await until('one worker holds the lease', async () => (await holderPid(prefix, wallet)) !== undefined);
      const burst = 24;
      let maxActive = 0;
      const submitting = e.submit(burst);
      await until('several jobs of the wallet running at once', async () => {
        maxActive = Math.max(maxActive, (await queue.getJobCounts('active'))['active'] ?? 0);
        return maxActive >= 2;
      });
      await submitting;
      await until('every intent reported', () => e.outcomes().length === burst, 120_000);
      expect(e.outcomes().map((r) => r.type)).toEqual(Array.from({ length: burst }, () => 'filled'));

      const lease = await readLeaseStats(redis, prefix, wallet);
      expect(lease, 'one acquisition, never taken over').toMatchObject({ epoch: 1, takeovers: 0, held: true });
      const pid = await holderPid(prefix, wallet);
      const holder = workers.find((w) => w.child.pid === pid);
      const standby = workers.find((w) => w.child.pid !== pid);
      expect(holder && standby, `holder pid ${pid} is one of ours`).toBeTruthy();

      // The ledger's order of our swaps is the order the holder sent them: decision order.
      const landed = await landedPerIntent(prefix, wallet, e.ids);
      for (const [id, sigs] of landed) expect(sigs, `landed transactions of ${id}`).toHaveLength(1);
      const intentOf = new Map([...landed].map(([id, sigs]) => [sigs[0]!, id]));
      const order = chain.successfulSwaps().flatMap((s) => (intentOf.has(s) ? [intentOf.get(s)!] : []));
      expect(order).toEqual(e.ids);

      // The standby stops first (so it never gets the lease), then the holder: all jobs ran in the holder.
      expect(await stop(standby!)).toContain('stopped: 0 job(s) completed');
      expect(await stop(holder!)).toContain(`stopped: ${burst} job(s) completed`);
    } finally {
      await e.close();
      await queue.close();
      for (const w of workers) w.child.kill('SIGKILL');
    }
  });

  it('(b) SIGKILL of the holder mid-burst: the other worker takes over; every intent lands exactly once', { timeout: 240_000 }, async () => {
    const prefix = 'lhb';
    const key = chain.wallet(2);
    const wallet = key.publicKey.toBase58();
    const file = deploymentFile('lease-b', key, prefix);
    const workers = [startWorker(file), startWorker(file)];
    const e = await engine(prefix, wallet);
    try {
      for (const w of workers) await until('both workers started', () => w.output().includes('chainpilot worker: 1 wallet(s)'));
      await until('one worker holds the lease', async () => (await holderPid(prefix, wallet)) !== undefined);
      const pid = await holderPid(prefix, wallet);
      const holder = workers.find((w) => w.child.pid === pid)!;
      const survivor = workers.find((w) => w.child.pid !== pid)!;
      expect(holder, `holder pid ${pid} is one of ours`).toBeDefined();

      const burst = 32;
      const before = chain.successfulSwaps().length;
      await e.submit(burst);
      await until('a few of the burst landed', () => chain.successfulSwaps().length - before >= 4);
      holder.child.kill('SIGKILL');
      await holder.exited;
      const landedAtKill = chain.successfulSwaps().length - before;
      expect(landedAtKill, 'killed mid-burst').toBeLessThan(burst);

      await until('every intent reported', () => e.outcomes().length >= burst, 200_000);
      expect(e.outcomes().map((r) => r.type)).toEqual(Array.from({ length: burst }, () => 'filled'));
      expect(new Set(e.outcomes().map((r) => r.intentId)).size).toBe(burst);

      const landed = await landedPerIntent(prefix, wallet, e.ids);
      for (const [id, sigs] of landed) expect(sigs, `landed transactions of ${id}`).toHaveLength(1);
      const ours = new Set([...landed.values()].flat());
      expect(chain.successfulSwaps().length - before, 'swaps on the ledger: one per intent').toBe(burst);
      for (const s of chain.successfulSwaps().slice(before)) expect(ours.has(s), `landed but not journaled: ${s}`).toBe(true);
      expect(await openRedisJournal({ redis, prefix, wallet }).unresolved()).toEqual([]);

      const lease = await readLeaseStats(redis, prefix, wallet);
      expect(lease.takeovers, 'the survivor took the lease over').toBe(1);
      expect(await holderPid(prefix, wallet)).toBe(survivor.child.pid);
      expect(await stop(survivor)).toMatch(/stopped: \d+ job\(s\) completed, \d+ fenced, 1 lease take-over\(s\)/);
    } finally {
      await e.close();
      for (const w of workers) w.child.kill('SIGKILL');
    }
  });
});
