/**
 * The live path's latency budget, in process against the simulator (ledger, JSON-RPC and swap
 * service on loopback HTTP, 20 ms slots, typed clients; the simulator runs in a child process so
 * its work is not counted as ours), one intent at a time: a launch frame as
 * received (JSON text) → engine (parse, normalise, strategy, risk gate) → executor (journal,
 * swap build, inspection, signing, journal) → bytes handed to `sendTransaction`, and on to landed
 * (`confirmed`). Each stage is timed by thin wrappers around the executor's ports; the swap
 * service and RPC round trips are reported apart, and "in process" is the rest: what chainpilot
 * itself spends. The journal's one durable write (the signed attempt, fsynced before the first
 * send: docs/executor.md, "Durability") waits on the storage device like a round trip waits on the
 * network, so the storage flush is its own row: the durable write's wall time less the CPU time
 * the process spent in it. "In process, CPU part" is in process less the flush (goal: p99 under
 * 2 ms); "process CPU time" is what the process's CPU clock says the same part cost, which a busy
 * machine cannot inflate by preempting us (it does count this process's background threads: GC,
 * JIT compilation). Runs: each inspection mode with the journal on disk (the OS
 * temp dir), and the default mode with the journal on tmpfs (/dev/shm, where one exists), whose
 * flush is nearly free: the difference between the two is what the disk costs. Issue 42: the
 * executor writes one journal transaction between the decision (create) and the send, the signed
 * attempt; the rows "journal commits between decision and send" count them per intent, "fsynced
 * journal writes between decision and send" those of them that waited for an fsync (one: the
 * signed attempt; the create commits without one, docs/executor.md "Durability"), and a
 * fourth run ("simulate, disk, + BUILT write") puts back the write issue 42 removed (a markBuilt
 * before each recordSigned, as before) so that "CPU part p99 ÷ with the BUILT write" compares the
 * two in the same bench process, and "÷ the 2 ms goal" states the goal as a ratio.
 *
 * Each run measures 1,000 intents after 500 of warm-up (BENCH_BUDGET_INTENTS sets the total), so
 * p99 is the 10th-worst sample rather than one outlier; the optimising compiler keeps compiling
 * functions of the live path on background threads for about the first 600 intents of a run
 * (each run builds new clients, executor and engine), and those threads take cores from the main
 * thread on a two-core machine, so a shorter warm-up measures the compiler more than the path. On a shared machine the wall-clock rows
 * include time the main thread was ready but waiting for a core: on Linux, "preempted" is that
 * runqueue wait (the kernel's per-thread schedstat, exact at each switch-in), and "CPU part less
 * preemption" is the CPU part without it (and without any wait of a journal write during which no
 * thread of ours ran, a floor of its device wait): it never drops work of the main thread. The
 * bench's own clock reads (about 40 per intent, 1-1.5 µs each) count inside the in-process part.
 * BENCH_BUDGET_WORST=N prints the N worst samples of each run with their stages, each journal write
 * (with the CPU other threads of the process used meanwhile) and the GC pauses that fell inside
 * them; the extra /proc reads slow those runs down and raise their percentiles (read the samples,
 * not the rows).
 */
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { z } from 'zod';
import { createRpcClient, createSwapClient } from '../src/client/index.js';
import { parseRoomMessage } from '../src/client/datastream/rooms/room-registry.js';
import { seededRandom, systemClock, type UnixMs, lamports } from '../src/core/index.js';
import { createEngine } from '../src/engine/engine.js';
import type { ExecutionSink, Executor } from '../src/engine/orders/execution-port.js';
import type { StreamFeed, StreamMessage } from '../src/engine/events/feed-port.js';
import { defineStrategy } from '../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../src/engine/strategy/strategy-instance.js';
import type { IntentJournal } from '../src/executors/journal/journal.js';
import { openSqliteJournal } from '../src/executors/journal/sqlite-journal.js';
import type { InspectionMode } from '../src/executors/live/inspect.js';
import { createLiveExecutor } from '../src/executors/live/live-executor.js';
import type { LiveRpcPort, SwapBuilderPort } from '../src/executors/live/ports.js';
import { keypairSigner, type Signer } from '../src/executors/signer/signer.js';
import { percentile, type Bench, type BenchRow } from './harness.js';
import { startChildServer } from './support/child-server.js';

const SOL = 1_000_000_000n;
const INTENTS = Number(process.env['BENCH_BUDGET_INTENTS'] ?? 1_500);
const WARMUP = Math.min(500, Math.floor(INTENTS / 3)); // JIT and caches settle; process CPU time counts background compilation too
const WORST = Number(process.env['BENCH_BUDGET_WORST'] ?? 0);
/** BENCH_BUDGET_RUNS=simulate-disk,static-disk (names: simulate-disk, simulate-disk-built, static-disk, simulate-tmpfs): only those runs (a profile of one path). */
const ONLY = process.env['BENCH_BUDGET_RUNS']?.split(',');

/**
 * Milliseconds the main thread has spent runnable but waiting for a core (Linux schedstat
 * run_delay; updated whenever the thread gets a core, so exact when read by the thread itself),
 * or undefined where there is no such file.
 */
const runqueueWaitMs: (() => number) | undefined = (() => {
  try {
    const fd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
    const buf = Buffer.alloc(96);
    const read = (): number => {
      const n = readSync(fd, buf, 0, buf.length, 0);
      const text = buf.toString('latin1', 0, n);
      const from = text.indexOf(' ') + 1;
      return Number(text.slice(from, text.indexOf(' ', from))) / 1e6;
    };
    read();
    return read;
  } catch {
    return undefined;
  }
})();
const waitNow = runqueueWaitMs ?? ((): number => 0);

/**
 * CPU ms of every thread of this process but the main one (V8's compiler and GC helpers, libuv's
 * pool): schedstat run time, which a thread's own switch-out updates, so it is exact for a thread
 * that ran and stopped in between and up to one scheduler tick stale for one still running. Read
 * around journal writes only when worst samples are printed (six small file reads each).
 */
function otherThreadsMs(): number {
  return threadsMs('self', String(process.pid));
}

/** CPU ms of every thread of process `pid` (`self` for this one) but `except`, by the same schedstat reads. */
function threadsMs(pid: string, except?: string): number {
  let sum = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    if (tid === except) continue;
    try {
      sum += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'latin1').split(' ')[0]) / 1e6;
    } catch {
      // the thread ended between the listing and the read: its time is gone from both readings
    }
  }
  return sum;
}

/** Main-thread GC pauses (start, end in performance.now() ms), kept only when worst samples are printed. */
const gcPauses: { start: number; end: number }[] = [];
if (WORST > 0) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcPauses.push({ start: e.startTime, end: e.startTime + e.duration });
  }).observe({ entryTypes: ['gc'] });
}

interface Sample {
  engine: number;
  flush: number;
  preempted: number;
  inProcessCpuPartLessPreemption: number;
  inProcessCpuPart: number;
  inProcessCpuTime: number;
  swap: number;
  inspectionInProcess: number;
  inspectionRpc: number;
  otherRpc: number;
  signing: number;
  journal: number;
  toSend: number;
  inProcess: number;
  inProcessCpu: number;
  toLanded: number;
  /** Journal writes (commits, reads excluded) from the frame to the first send, the decision's create included. */
  commitsBeforeSend: number;
  /** Of those, the writes that waited for an fsync (the journal's syncedWrites()). */
  syncedBeforeSend: number;
}

interface SimProcess {
  /** The child's process id, for reading its CPU time. */
  readonly pid: string;
  readonly rpc: string;
  readonly swap: string;
  readonly apiKey: string;
  readonly mints: string[];
  stop(): Promise<void>;
}

/** Starts the simulator in a child process (see support/budget-sim.ts). */
async function startSim(wallet: string, mints: number): Promise<SimProcess> {
  const child = await startChildServer<Omit<SimProcess, 'stop' | 'pid'>>('budget-sim.ts', [wallet, String(mints)], 'budget simulator');
  return { ...child.info, pid: String(child.pid), stop: child.stop };
}

/**
 * One run of INTENTS intents. `builtWrite` puts back the journal write issue 42 removed from the
 * live path (markBuilt, NEW/EXPIRED → BUILT, before each signed attempt): the pairwise baseline.
 */
async function run(mode: InspectionMode, dir: string, builtWrite = false): Promise<Sample[]> {
  const clock = systemClock();
  const wallet = Keypair.generate();
  const sim = await startSim(wallet.publicKey.toBase58(), INTENTS);
  const rpc = createRpcClient({ url: sim.rpc, apiKey: sim.apiKey, timeoutMs: 5_000 });
  const swap = createSwapClient({ url: sim.swap, timeoutMs: 5_000 });
  const mints = sim.mints;

  // Stage clocks of the current intent (one at a time).
  const now = (): number => performance.now();
  const cpuNow = (): number => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const fresh = () => ({
    t0: 0,
    cpu0: 0,
    cpuAtSend: 0,
    submit: 0,
    send: 0,
    landed: 0,
    swap: 0,
    swapEnd: 0,
    inspectionRpc: 0,
    otherRpc: 0,
    networkCpu: 0,
    signing: 0,
    journal: 0,
    flush: 0,
    heightStart: 0,
    wait0: 0,
    waitAtSend: 0,
    networkWait: 0,
    /** Journal-write time during which the main thread was off CPU and no thread of ours ran. */
    blocked: 0,
    writes: [] as string[],
    commits: 0,
    synced: 0,
    /** The simulator's CPU at t0 and at the first send, and during round trips (worst-sample lines only). */
    sim0: 0,
    simAtSend: 0,
    simDuringRpc: 0,
  });
  const simCpu = (): number => (WORST > 0 && runqueueWaitMs ? threadsMs(sim.pid) : 0);
  let cur = fresh();
  /** Times a round trip (wall into `add`, the CPU it took into networkCpu) while the intent is before its first send. */
  const timed = async <T>(f: () => Promise<T>, add: (ms: number) => void): Promise<T> => {
    const sc = simCpu();
    const s = now();
    const c = cpuNow();
    const w = waitNow();
    try {
      return await f();
    } finally {
      if (cur.send === 0) {
        cur.simDuringRpc += simCpu() - sc;
        cur.networkWait += waitNow() - w;
        cur.networkCpu += cpuNow() - c;
        add(now() - s);
      }
    }
  };
  /** Times a journal write: the CPU the process spent in it is journal time, the rest of its wall time is the storage flush. */
  const journaled = async <T>(what: string, f: () => Promise<T>): Promise<T> => {
    const others = WORST > 0 && runqueueWaitMs ? otherThreadsMs() : 0;
    const simulator = WORST > 0 && runqueueWaitMs ? threadsMs(sim.pid) : 0;
    const synced = syncedWrites();
    const s = now();
    const c = cpuNow();
    const w = waitNow();
    try {
      return await f();
    } finally {
      if (cur.send === 0) {
        cur.synced += syncedWrites() - synced;
        const wall = now() - s;
        const used = cpuNow() - c;
        const waited = waitNow() - w;
        const cpu = Math.min(wall, used);
        if (what !== 'get') cur.commits++;
        cur.journal += cpu;
        cur.flush += wall - cpu;
        cur.blocked += Math.max(0, wall - used - waited);
        if (WORST > 0) {
          const other = runqueueWaitMs
            ? `, other threads ${(otherThreadsMs() - others).toFixed(2)}, simulator process ${(threadsMs(sim.pid) - simulator).toFixed(2)}`
            : '';
          cur.writes.push(`${what} ${wall.toFixed(2)} (process cpu ${used.toFixed(2)}${other}, preempted ${waited.toFixed(2)})`);
        }
      }
    }
  };
  const rpcPort: LiveRpcPort = {
    sendTransaction: (tx, o) => {
      if (cur.send === 0) {
        cur.send = now();
        cur.cpuAtSend = cpuNow();
        cur.waitAtSend = waitNow();
        cur.simAtSend = simCpu();
      }
      return rpc.sendTransaction(tx, o);
    },
    getSignatureStatuses: (s, o) => rpc.getSignatureStatuses(s, o),
    getBlockHeight: (o) => {
      if (cur.send === 0) cur.heightStart = now(); // the read before signing, not the confirmation polls
      return timed(
        () => rpc.getBlockHeight(o),
        (ms) => (cur.otherRpc += ms),
      );
    },
    simulateTransaction: (tx, o) =>
      timed(
        () => rpc.simulateTransaction(tx, o),
        (ms) => (cur.inspectionRpc += ms),
      ),
    getTransaction: (s, o) => rpc.getTransaction(s, o),
    getMultipleAccounts: (a, o) =>
      timed(
        () => rpc.getMultipleAccounts(a, o),
        (ms) => (cur.inspectionRpc += ms),
      ),
  };
  const swapPort: SwapBuilderPort = {
    buildSwap: (req, o) =>
      timed(
        () => swap.buildSwap(req, o),
        (ms) => {
          cur.swap += ms;
          cur.swapEnd = now();
        },
      ),
  };
  const inner = keypairSigner(wallet);
  const signer: Signer = {
    address: inner.address,
    publicKey: inner.publicKey,
    sign: (tx) => inner.sign(tx),
    signWire: (raw) => {
      const s = now();
      const signed = inner.signWire(raw);
      void signed.signature; // the id and text encodings are part of signing, not of the journal
      void signed.base64;
      cur.signing += now() - s;
      return signed;
    },
  };
  const j = openSqliteJournal({ path: join(dir, `budget-${mode}${builtWrite ? '-built' : ''}.sqlite`) });
  // a build from before syncedWrites (BENCH_DIST naming an older dist/, for a pairwise run) reports NaN fsynced writes
  const syncedWrites = (): number => (typeof j.syncedWrites === 'function' ? j.syncedWrites() : Number.NaN);
  const journal: IntentJournal = {
    create: (i, s, at) => journaled('create', () => j.create(i, s, at)),
    get: (id) => journaled('get', () => j.get(id)),
    markBuilt: (id, at) => journaled('markBuilt', () => j.markBuilt(id, at)),
    recordSigned: async (id, a, at) => {
      if (builtWrite) await journaled('markBuilt', () => j.markBuilt(id, at));
      return journaled('recordSigned', () => j.recordSigned(id, a, at));
    },
    markSent: (id, sig, at) => j.markSent(id, sig, at),
    resolve: (id, r, at) => j.resolve(id, r, at),
    deny: (id, c, r, at) => j.deny(id, c, r, at),
    markReported: (id, at) => j.markReported(id, at),
    unresolved: () => j.unresolved(),
    landed: () => j.landed(),
    spentOn: (d) => j.spentOn(d),
    close: () => j.close(),
  };
  const live = createLiveExecutor({
    rpc: rpcPort,
    swap: swapPort,
    signer,
    journal,
    clock,
    settings: {
      maxTradeLamports: 10n * SOL,
      maxDayLamports: 10_000n * SOL,
      allowedPrograms: ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'],
      pollMs: 2,
      inspection: mode,
    },
  });
  let landed: () => void = () => undefined;
  const executor: Executor = {
    start: (sink: ExecutionSink) =>
      live.start((r) => {
        if (r.type === 'filled') {
          cur.landed = now();
          landed();
        } else if (r.type !== 'accepted') throw new Error(`budget bench intent ${r.intentId} ended ${r.type}`);
        sink(r);
      }),
    submit: (intent) => {
      cur.submit = now();
      return live.submit(intent);
    },
    stop: (s) => live.stop(s),
  };
  const feed: StreamFeed = { subscribe: () => () => undefined, onGap: () => () => undefined };
  const strategy = defineStrategy({
    id: 'budget',
    params: z.strictObject({}),
    rooms: () => ['latest'],
    onLaunch(e, ctx) {
      ctx.buy({ mint: e.mint, lamports: SOL / 100n, reason: 'budget' });
    },
  });
  const engine = createEngine({
    feed,
    executor,
    clock,
    random: seededRandom(1),
    strategies: [instantiateStrategy(strategy, {}, {})],
    risk: { maxOpenPositions: 1_000_000 },
    startingCashLamports: 1_000n * SOL,
    execution: { slippageBps: 500, priorityFeeLamports: lamports(10_000n), defaultDecimals: 6 },
  });
  const samples: Sample[] = [];
  const worst: { cpuPart: number; text: string }[] = [];
  const parsed = (room: string, data: unknown, at: UnixMs): StreamMessage => {
    const r = parseRoomMessage(room, data, at);
    if (!r.ok) throw new Error(`bench frame rejected: ${r.reason}`);
    return r.message;
  };
  try {
    await engine.start();
    for (const mint of mints) {
      engine.ingest(parsed(`price:token:${mint}`, { price: 0.0005, price_quote: 0.000003, time: clock.now() }, clock.now()));
      const text = JSON.stringify({
        type: 'message',
        room: 'latest',
        data: { token: { mint, symbol: 'B', name: 'B', decimals: 6 }, pools: [{ market: 'venue_a', poolId: 'P' }] },
      });
      cur = { ...fresh(), sim0: simCpu(), t0: now(), cpu0: cpuNow(), wait0: waitNow() };
      const done = new Promise<void>((r) => (landed = r));
      // The client's one parse: JSON, then the room family's guard.
      const f = JSON.parse(text) as { room: string; data: unknown };
      engine.ingest(parsed(f.room, f.data, clock.now()));
      await done;
      const c = cur;
      const toSend = c.send - c.t0;
      const inspectionTotal = c.heightStart - c.swapEnd;
      const network = c.swap + c.inspectionRpc + c.otherRpc;
      const inProcess = toSend - network;
      const preempted = c.waitAtSend - c.wait0 - c.networkWait;
      const sample: Sample = {
        engine: c.submit - c.t0,
        flush: c.flush,
        preempted,
        inProcessCpuPartLessPreemption: inProcess - preempted - c.blocked,
        inProcessCpuPart: inProcess - c.flush,
        inProcessCpuTime: c.cpuAtSend - c.cpu0 - c.networkCpu,
        swap: c.swap,
        inspectionInProcess: inspectionTotal - c.inspectionRpc,
        inspectionRpc: c.inspectionRpc,
        otherRpc: c.otherRpc,
        signing: c.signing,
        journal: c.journal,
        toSend,
        inProcess,
        inProcessCpu: inProcess - c.flush - c.journal,
        toLanded: c.landed - c.t0,
        commitsBeforeSend: c.commits,
        syncedBeforeSend: c.synced,
      };
      samples.push(sample);
      if (WORST > 0 && samples.length > WARMUP) {
        const gc = gcPauses.filter((g) => g.end > c.t0 && g.start < c.send).map((g) => (g.end - g.start).toFixed(2));
        const stages = (['engine', 'inspectionInProcess', 'signing', 'journal', 'flush', 'preempted'] as const).map((k) => `${k} ${sample[k].toFixed(2)}`);
        const simulator = runqueueWaitMs ? `; simulator process CPU outside our round trips ${(c.simAtSend - c.sim0 - c.simDuringRpc).toFixed(2)}` : '';
        worst.push({
          cpuPart: sample.inProcessCpuPart,
          text: `CPU part ${sample.inProcessCpuPart.toFixed(2)} ms: ${stages.join(', ')}; writes: ${c.writes.join('; ')}; GC pauses in the window: ${gc.join(' ') || 'none'}${simulator}`,
        });
        worst.sort((a, b) => b.cpuPart - a.cpuPart).splice(WORST);
      }
      gcPauses.splice(0);
    }
    for (const w of worst) console.log(`latency-budget worst (${mode}, ${dir}): ${w.text}`);
  } finally {
    await engine.stop();
    await live.stop();
    await j.close();
    await rpc.close();
    await swap.close();
    await sim.stop();
  }
  return samples.slice(WARMUP);
}

const bench: Bench = {
  name: 'latency-budget',
  async run() {
    const disk = mkdtempSync(join(tmpdir(), 'chainpilot-bench-budget-'));
    const shm = existsSync('/dev/shm') ? mkdtempSync('/dev/shm/chainpilot-bench-budget-') : undefined;
    const runs: { name: string; mode: InspectionMode; where: string; dir: string; builtWrite?: boolean }[] = [
      { name: 'simulate-disk', mode: 'simulate' as const, where: 'disk', dir: disk },
      { name: 'simulate-disk-built', mode: 'simulate' as const, where: 'disk, + BUILT write', dir: disk, builtWrite: true },
      { name: 'static-disk', mode: 'static' as const, where: 'disk', dir: disk },
      ...(shm ? [{ name: 'simulate-tmpfs', mode: 'simulate' as const, where: 'tmpfs', dir: shm }] : []),
    ].filter((r) => ONLY === undefined || ONLY.includes(r.name));
    try {
      const rows: BenchRow[] = [];
      /** CPU part p50 and p99 of the first run (simulate, disk), for the ratios against the run with the BUILT write. */
      let first: { p50: number; p99: number } | undefined;
      for (const { mode, where, dir, builtWrite } of runs) {
        const s = await run(mode, dir, builtWrite);
        const p = (k: keyof Sample, q: number): number =>
          percentile(
            s.map((x) => x[k]),
            q,
          );
        const row = (name: string, k: keyof Sample, note?: string): BenchRow[] => [
          { name: `${mode}, ${where}: ${name} p50`, value: p(k, 50), unit: 'ms', ...(note ? { note } : {}) },
          { name: `${mode}, ${where}: ${name} p99`, value: p(k, 99), unit: 'ms' },
        ];
        rows.push(
          ...row(
            'frame -> bytes to sendTransaction',
            'toSend',
            `${s.length} intents, one at a time, journal on ${where.startsWith('disk') ? tmpdir() : '/dev/shm'}`,
          ),
          ...row('  in process', 'inProcess', 'all but swap service and RPC round trips'),
          ...row('    storage flush', 'flush', 'the durable write waiting on the device (wall less CPU)'),
          ...row('    CPU part (goal p99 < 2 ms)', 'inProcessCpuPart', 'in process less the storage flush'),
          ...row('    CPU part, process CPU time', 'inProcessCpuTime', 'the same part by the CPU clock: preemption not counted'),
          ...(runqueueWaitMs
            ? [
                ...row('    preempted', 'preempted', 'main thread runnable, waiting for a core (schedstat)'),
                ...row('    CPU part less preemption', 'inProcessCpuPartLessPreemption', 'what the main thread spent, not what the scheduler withheld'),
              ]
            : []),
          ...row('      breakdown: engine (frame -> submit; skips socket, decoder, dedup and the price-room join: bench frame-intent has them)', 'engine'),
          ...row('      inspection, in process', 'inspectionInProcess'),
          ...row('      signing', 'signing'),
          ...row('      journal (CPU)', 'journal'),
          ...row('      CPU part without the journal', 'inProcessCpu'),
          ...row('  swap service round trip', 'swap'),
          ...row('  inspection RPC round trips', 'inspectionRpc'),
          ...row('  block height read', 'otherRpc'),
          ...row('frame -> landed (confirmed)', 'toLanded', '20 ms slots'),
          {
            name: `${mode}, ${where}: journal commits between decision and send (max per intent)`,
            value: Math.max(...s.map((x) => x.commitsBeforeSend)),
            unit: 'commits',
            note: 'create (the decision) and the writes before the first send; goal: create + one (the signed attempt)',
          },
          {
            name: `${mode}, ${where}: fsynced journal writes between decision and send (max per intent)`,
            value: Math.max(...s.map((x) => x.syncedBeforeSend)),
            unit: 'writes',
            note: 'the writes that waited for an fsync (syncedWrites); goal: one, the signed attempt (the create commits without one)',
          },
          {
            name: `${mode}, ${where}: CPU part p99 ÷ the 2 ms goal`,
            value: p('inProcessCpuPart', 99),
            unit: 'ms',
            ratio: p('inProcessCpuPart', 99) / 2,
            note: 'at most 1 meets the goal',
          },
        );
        if (first === undefined) first = { p50: p('inProcessCpuPart', 50), p99: p('inProcessCpuPart', 99) };
        else if (builtWrite)
          for (const q of [50, 99] as const)
            rows.push({
              name: `simulate, disk: CPU part p${q} ÷ with the BUILT write`,
              value: first[`p${q}`],
              unit: 'ms',
              ratio: first[`p${q}`] / p('inProcessCpuPart', q),
              note: 'one commit between create and the send ÷ two (before issue 42); the runs follow each other, so read it with the load',
            });
      }
      return rows;
    } finally {
      rmSync(disk, { recursive: true, force: true });
      if (shm) rmSync(shm, { recursive: true, force: true });
    }
  },
};
export default bench;
