/**
 * Queued execution as users run it: a burst of 32 buys on one wallet through the queue executor (in
 * this process, as the engine holds it) to a real `chainpilot worker` process, against the
 * in-process live executor (SQLite journal) on the same wallet, in alternating pairs. Both drive
 * real transactions on the simulator's ledger in its own process (mainnet's 400 ms slots, JSON-RPC
 * and swap service on loopback) with the same settings; the worker's Redis is its own durable
 * redis-server (appendonly, fsync always: what the worker requires). Rows: intents/s from the first
 * submit to the last fill; the queued row's ratio is to the in-process run of the same pair
 * (goal ≥ 0.5). Run for `live.statusPoll` 400 ms (the default) and 100 ms, with the worker's
 * `execution.queue.concurrency` from BENCH_QUEUE_CONCURRENCY (default 32, the key's default).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair } from '@solana/web3.js';
import { base58Text } from '../src/core/base58.js';
import { systemClock } from '../src/core/clock.js';
import type { Bps, Lamports, UnixMs } from '../src/core/units.js';
import type { ExecutionReport, OrderIntent } from '../src/engine/orders/execution-port.js';
import { createRpcClient, createSwapClient } from '../src/client/index.js';
import { openSqliteJournal } from '../src/executors/journal/sqlite-journal.js';
import { createLiveExecutor } from '../src/executors/live/live-executor.js';
import { createQueueExecutor } from '../src/executors/queue/queue-executor.js';
import { DEFAULT_WALLET_CONCURRENCY } from '../src/executors/queue/queue-names.js';
import { keypairSigner } from '../src/executors/signer/signer.js';
import { startOwnRedis } from '../test/helpers/redis.js';
import { loadNote, median, type Bench, type BenchRow } from './harness.js';
import { firstLine, startChildServer } from './support/child-server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BURST = 32;
const PAIRS = Number(process.env['BENCH_QUEUE_PAIRS'] ?? 3);
/** `execution.queue.concurrency` of the worker and the queue (default: the key's default, 8). */
const CONCURRENCY = Number(process.env['BENCH_QUEUE_CONCURRENCY'] ?? DEFAULT_WALLET_CONCURRENCY);
const SLOT_MS = 400;
const MEMO = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const clock = systemClock();

interface Sim {
  readonly rpc: string;
  readonly swap: string;
  readonly apiKey: string;
  readonly mints: string[];
  stop(): Promise<void>;
}

async function startSim(wallet: string): Promise<Sim> {
  const child = await startChildServer<Omit<Sim, 'stop'>>('budget-sim.ts', [wallet, '1', String(SLOT_MS)], 'simulator');
  return { ...child.info, stop: child.stop };
}

function intentOf(mint: string, n: number): OrderIntent {
  return {
    id: `q${n}-${randomBytes(4).toString('hex')}`,
    strategyId: 'bench',
    side: 'buy',
    mint,
    decimals: 6,
    spendLamports: (10_000_000n + BigInt(n)) as Lamports,
    slippageBps: 500 as Bps,
    priorityFeeLamports: 10_000n as Lamports,
    referencePrice: undefined,
    createdAt: clock.now() as UnixMs,
    reason: 'bench',
  };
}

/** Submits BURST intents at once and resolves to intents/s when every one has an outcome. */
async function burst(submit: (i: OrderIntent) => Promise<void>, outcomes: { on?: (r: ExecutionReport) => void }, mint: string): Promise<number> {
  let landed = 0;
  let other = 0;
  let why = '';
  const done = new Promise<void>((resolve) => {
    outcomes.on = (r) => {
      if (r.type === 'accepted') return;
      if (r.type === 'filled') landed++;
      else {
        other++;
        why ||= JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
      }
      if (landed + other === BURST) resolve();
    };
  });
  const t0 = performance.now();
  await Promise.all(Array.from({ length: BURST }, (_, n) => submit(intentOf(mint, n))));
  await done;
  if (other > 0) {
    notLanded += other;
    firstNotLanded ||= why;
  }
  return BURST / ((performance.now() - t0) / 1000);
}

/** Intents that ended otherwise than landed (e.g. expired on a loaded machine): counted in a row, never silent. */
let notLanded = 0;
let firstNotLanded = '';

const bench: Bench = {
  name: 'queue-worker',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'cp-bench-qw-'));
    const wallet = Keypair.generate();
    const address = wallet.publicKey.toBase58();
    const sim = await startSim(address);
    const redis = await startOwnRedis();
    const workers: ChildProcess[] = [];
    try {
      const rpc = createRpcClient({ url: sim.rpc, apiKey: sim.apiKey, timeoutMs: 5_000 });
      const swap = createSwapClient({ url: sim.swap, timeoutMs: 10_000 });
      const mint = sim.mints[0]!;
      const settings = { maxTradeLamports: 10n ** 9n, maxDayLamports: 10n ** 13n, allowedPrograms: [MEMO] };
      const startWorker = async (pollMs: number, prefix: string): Promise<void> => {
        const file = join(dir, `worker-${pollMs}.yaml`);
        writeFileSync(
          file,
          [
            'version: 1',
            `name: bench-queue-${pollMs}`,
            'endpoints:',
            '  remote:',
            '    baseUrl: http://127.0.0.1:9',
            '    datastreamUrl: ws://127.0.0.1:9',
            `    apiKey: ${sim.apiKey}`,
            `    rpcUrl: ${sim.rpc}`,
            `    swapUrl: ${sim.swap}`,
            `    rpcApiKey: ${sim.apiKey}`,
            'wallet:',
            `  secretKey: ${base58Text(wallet.secretKey)}`,
            'strategies:',
            '  - use: graduation-sniper',
            'execution:',
            '  queue:',
            `    url: ${redis.url}`,
            `    prefix: ${prefix}`,
            `    concurrency: ${CONCURRENCY}`,
            'live:',
            '  maxTradeSpendSol: "1"',
            '  maxDaySpendSol: "10000"',
            `  allowedPrograms: [${MEMO}]`,
            `  statusPoll: ${pollMs}ms`,
            'telemetry:',
            '  logLevel: warn',
            '',
          ].join('\n'),
        );
        const child = spawn(process.execPath, [join(ROOT, 'bin/chainpilot.js'), 'worker', '--redis', redis.url, file], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        workers.push(child);
        await firstLine(child, 'chainpilot worker');
      };
      const inProcess = async (pollMs: number): Promise<number> => {
        const journal = openSqliteJournal({ path: join(dir, `inproc-${randomBytes(3).toString('hex')}.sqlite`) });
        const executor = createLiveExecutor({ rpc, swap, signer: keypairSigner(wallet), journal, clock, settings: { ...settings, pollMs } });
        const outcomes: { on?: (r: ExecutionReport) => void } = {};
        await executor.start((r) => outcomes.on?.(r));
        try {
          return await burst((i) => executor.submit(i), outcomes, mint);
        } finally {
          await executor.stop();
          await journal.close();
        }
      };
      const queued = async (prefix: string): Promise<number> => {
        const executor = createQueueExecutor({ url: redis.url, prefix, wallet: address, clock, concurrency: CONCURRENCY });
        const outcomes: { on?: (r: ExecutionReport) => void } = {};
        await executor.start((r) => outcomes.on?.(r));
        try {
          return await burst((i) => executor.submit(i), outcomes, mint);
        } finally {
          await executor.close();
        }
      };
      const rows: BenchRow[] = [];
      for (const pollMs of [400, 100]) {
        const prefix = `cpq${pollMs}`;
        await startWorker(pollMs, prefix);
        await inProcess(pollMs); // warm-up: connections, compiled code, the wallet's token account
        const base: number[] = [];
        const q: number[] = [];
        const ratios: number[] = [];
        const loads: string[] = [];
        for (let i = 0; i < PAIRS; i++) {
          let b: number;
          let c: number;
          if (i % 2 === 0) {
            b = await inProcess(pollMs);
            c = await queued(prefix);
          } else {
            c = await queued(prefix);
            b = await inProcess(pollMs);
          }
          base.push(b);
          q.push(c);
          ratios.push(c / b);
          loads.push(loadNote());
        }
        rows.push(
          { name: `in-process live executor, burst of ${BURST}, statusPoll ${pollMs}ms`, value: median(base), unit: 'intents/s', note: `${SLOT_MS} ms slots` },
          {
            name: `queued to a chainpilot worker, burst of ${BURST}, statusPoll ${pollMs}ms, concurrency ${CONCURRENCY}`,
            value: median(q),
            unit: 'intents/s',
            ratio: median(ratios),
            note: `ratio to in-process, goal ≥ 0.5; one wallet; median of ${PAIRS} alternating pairs; ${loads.join(', ')}`,
          },
        );
      }
      if (notLanded > 0) rows.push({ name: 'intents that did not land', value: notLanded, unit: 'intents', note: `first: ${firstNotLanded}` });
      await rpc.close();
      await swap.close();
      return rows;
    } finally {
      for (const w of workers) {
        const gone = new Promise<void>((r) => w.once('exit', () => r()));
        w.kill('SIGTERM');
        await gone;
      }
      await redis.stop();
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
