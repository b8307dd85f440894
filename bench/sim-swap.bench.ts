/**
 * End-to-end swaps per second through the simulator as users run it: the simulator's ledger,
 * JSON-RPC and swap service in their own process (real clock, 20 ms slots: a 400 ms slot at the
 * speed-60 of the shipped simulator configs), and a client process that saturates it: C workers
 * (BENCH_SWAP_CONCURRENCY, 32 by default), each with its own wallet, loop POST /swap → sign
 * (chainpilot's native signer, as the live executor signs) → sendTransaction → getSignatureStatuses
 * every 5 ms until confirmed, through chainpilot's typed swap and RPC clients over loopback HTTP.
 * Baseline, in alternating pairs with it: getSlot round trips at the same concurrency on the same
 * server (the HTTP + JSON floor, saturating too). CPU per swap is split by process (client from its
 * own clock, simulator from /proc). Breakdowns kept from the earlier bench, labelled: the same loop
 * with the simulator in the client's process on a manual clock (skips the second process and real
 * slots), and the steps in process with no HTTP at all. BENCH_SWAP_MS sets each run's length.
 */
import { readFileSync } from 'node:fs';
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { createRpcClient, createSwapClient } from '../src/client/index.js';
import { keypairSigner } from '../src/executors/signer/signer.js';
import { manualClock, seededRandom, silentLogger } from '../src/core/index.js';
import { createLedger, ledgerServices, WRAPPED_SOL_MINT, type Ledger } from '../src/sim/ledger/index.js';
import { createSwapBuilder } from '../src/sim/swap/swap-builder.js';
import { parseSwapRequest } from '../src/sim/swap/swap-request.js';
import { parseTx, verifySignatures } from '../src/sim/ledger/parsed-tx.js';
import { fakeMarket } from '../test/sim-ledger/fake-market.js';
import { loadNote, median, type Bench, type BenchRow } from './harness.js';
import { startChildServer } from './support/child-server.js';

const RUN_MS = Number(process.env['BENCH_SWAP_MS'] ?? 1500);
const CONCURRENCY = Number(process.env['BENCH_SWAP_CONCURRENCY'] ?? 32);
/** Concurrency of the same-process breakdown (what the earlier headline used). */
const SAME_PROCESS_CONCURRENCY = 8;
const PAIRS = Number(process.env['BENCH_SWAP_PAIRS'] ?? 3);
const SLOT_MS = 400;

async function timed(fn: () => Promise<void>, ms: number): Promise<number> {
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < ms) {
    await fn();
    n++;
  }
  return n / ((performance.now() - start) / 1000);
}

async function sameProcess(): Promise<{ rows: BenchRow[] }> {
  const clock = manualClock(1_700_000_000_000);
  const market = fakeMarket('bench');
  const mint = market.launch(1_000_000n * BigInt(LAMPORTS_PER_SOL), 10n ** 18n, 6);
  let ledger: Ledger | undefined;
  const service = await ledgerServices({ onLedger: (l) => (ledger = l) })({
    market,
    clock,
    random: seededRandom('bench'),
    apiKey: 'k',
    host: '127.0.0.1',
    log: silentLogger(),
  });
  const rpc = createRpcClient({ url: service.urls['rpc']!, apiKey: 'k', timeoutMs: 30_000 });
  const swap = createSwapClient({ url: service.urls['swap']!, timeoutMs: 30_000 });
  const signers = Array.from({ length: SAME_PROCESS_CONCURRENCY }, () => keypairSigner(Keypair.generate()));
  for (const s of signers) ledger!.airdrop(s.address, 1_000_000n * BigInt(LAMPORTS_PER_SOL));
  let i = 0;
  const stage = { swap: 0, sign: 0, send: 0, confirm: 0 };
  const oneSwap = async (signer: (typeof signers)[number]): Promise<void> => {
    let t = performance.now();
    const built = await swap.buildSwap({
      wallet: signer.address,
      from: WRAPPED_SOL_MINT,
      to: mint,
      amount: (0.001 + ++i * 1e-9).toFixed(9),
      slippagePct: 5,
      priorityFeeSol: '0.00001',
    });
    stage.swap += performance.now() - t;
    t = performance.now();
    const signed = signer.signWire(built.raw);
    stage.sign += performance.now() - t;
    t = performance.now();
    const signature = await rpc.sendTransaction(signed.base64, { skipPreflight: true });
    stage.send += performance.now() - t;
    t = performance.now();
    clock.advance(SLOT_MS);
    for (;;) {
      const st = await rpc.getSignatureStatuses([signature]);
      const s0 = st.value[0];
      if (s0?.err) throw new Error(`swap failed: ${JSON.stringify(s0.err)}`);
      if (s0 && s0.confirmationStatus !== 'processed') break;
      clock.advance(SLOT_MS);
    }
    stage.confirm += performance.now() - t;
  };
  try {
    const baseline = await timed(async () => {
      await rpc.getSlot();
    }, RUN_MS / 2);
    for (const s of signers) await oneSwap(s); // warm-up: pools, caches, JIT
    i = 0;
    stage.swap = stage.sign = stage.send = stage.confirm = 0;
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    await Promise.all(
      signers.map(async (s) => {
        while (performance.now() - start < RUN_MS) await oneSwap(s);
      }),
    );
    const elapsedMs = performance.now() - start;
    const cpu = process.cpuUsage(cpu0);
    const swapsPerSec = i / (elapsedMs / 1000);
    const cpuMsPerSwap = (cpu.user + cpu.system) / 1000 / i;
    const total = stage.swap + stage.sign + stage.send + stage.confirm;
    const pct = (x: number) => `${((100 * x) / total).toFixed(1)} % of a swap's latency`;
    return {
      rows: [
        { name: 'breakdown: getSlot round trip, one at a time, same process', value: baseline, unit: 'req/s' },
        {
          name: `breakdown: swaps, same process, manual clock, ${SAME_PROCESS_CONCURRENCY} at a time`,
          value: swapsPerSec,
          unit: 'swaps/s',
          ratio: swapsPerSec / baseline,
          note: `skips the second process and real slots (the earlier headline); ${i} swaps`,
        },
        {
          name: 'same, CPU time per swap (client + simulator)',
          value: cpuMsPerSwap,
          unit: 'ms',
          note: `${(1000 / cpuMsPerSwap).toFixed(0)} swaps per CPU second: the rate on an idle core`,
        },
        { name: '  POST /swap', value: stage.swap / i, unit: 'ms/swap', note: pct(stage.swap) },
        { name: '  sign (native ed25519 signer)', value: stage.sign / i, unit: 'ms/swap', note: pct(stage.sign) },
        { name: '  sendTransaction (verify + execute)', value: stage.send / i, unit: 'ms/swap', note: pct(stage.send) },
        { name: '  next slot + getSignatureStatuses', value: stage.confirm / i, unit: 'ms/swap', note: pct(stage.confirm) },
      ],
    };
  } finally {
    await rpc.close();
    await swap.close();
    await service.stop();
  }
}

async function inProcess(baselineRps: number): Promise<BenchRow[]> {
  const clock = manualClock(1_700_000_000_000);
  const market = fakeMarket('bench-in-process');
  const mint = market.launch(1_000_000n * BigInt(LAMPORTS_PER_SOL), 10n ** 18n, 6);
  const ledger = createLedger({ market, clock, random: seededRandom('bench') });
  const builder = createSwapBuilder({ market, ledger, random: seededRandom('b') });
  const wallet = Keypair.generate();
  const signer = keypairSigner(wallet);
  ledger.airdrop(wallet.publicKey.toBase58(), 1_000_000n * BigInt(LAMPORTS_PER_SOL));
  let i = 0;
  const t = { build: 0, sign: 0, send: 0, verify: 0 };
  try {
    const rate = await timed(async () => {
      let s = performance.now();
      const built = builder.build(
        parseSwapRequest({
          wallet: wallet.publicKey.toBase58(),
          from: WRAPPED_SOL_MINT,
          to: mint,
          amount: (0.001 + ++i * 1e-9).toFixed(9),
          slippage: 5,
          priorityFee: 0,
        }),
      );
      t.build += performance.now() - s;
      s = performance.now();
      const bytes = signer.signWire(Buffer.from(built.txn, 'base64')).raw;
      t.sign += performance.now() - s;
      s = performance.now();
      if (!verifySignatures(parseTx(bytes))) throw new Error('bad signature');
      t.verify += performance.now() - s;
      s = performance.now();
      const r = ledger.send(bytes, { skipPreflight: true });
      if (!r.ok) throw new Error(r.message);
      t.send += performance.now() - s;
      if (i % 20 === 0) clock.advance(SLOT_MS);
    }, RUN_MS);
    return [
      { name: 'breakdown: in-process swap (build, sign, send; no HTTP)', value: rate, unit: 'swaps/s', ratio: rate / baselineRps },
      { name: '  build', value: t.build / i, unit: 'ms/swap' },
      { name: '  sign', value: t.sign / i, unit: 'ms/swap' },
      { name: '  ledger send', value: t.send / i, unit: 'ms/swap' },
      { name: '    of which decode + verify signatures', value: t.verify / i, unit: 'ms/swap', note: 'measured apart on the same bytes' },
      { name: '    of which LiteSVM + snapshots + model', value: Math.max(0, t.send - t.verify) / i, unit: 'ms/swap' },
    ];
  } finally {
    ledger.stop();
  }
}

interface SimProcess {
  readonly pid: number;
  readonly rpc: string;
  readonly swap: string;
  readonly apiKey: string;
  readonly mints: string[];
  stop(): Promise<void>;
}

/** The simulator's ledger services in a child process (bench/support/budget-sim.ts), funding `wallets`. */
async function startSimProcess(wallets: readonly string[]): Promise<SimProcess> {
  const child = await startChildServer<Omit<SimProcess, 'stop' | 'pid'>>('budget-sim.ts', [wallets.join(','), '1', '20'], 'simulator');
  return { ...child.info, pid: child.pid, stop: child.stop };
}

/** CPU ms of process `pid` so far (utime + stime from /proc; 0 where there is no /proc). */
function processCpuMs(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks: USER_HZ is 100 on Linux
  } catch {
    return 0;
  }
}

/** Separate processes: `C` loops of swaps against getSlot at the same concurrency, alternating. */
async function separateProcesses(): Promise<BenchRow[]> {
  const signers = Array.from({ length: CONCURRENCY }, () => keypairSigner(Keypair.generate()));
  const sim = await startSimProcess(signers.map((s) => s.address));
  const rpc = createRpcClient({ url: sim.rpc, apiKey: sim.apiKey, timeoutMs: 30_000 });
  const swap = createSwapClient({ url: sim.swap, timeoutMs: 30_000 });
  const mint = sim.mints[0]!;
  let n = 0;
  const oneSwap = async (signer: (typeof signers)[number]): Promise<void> => {
    const built = await swap.buildSwap({
      wallet: signer.address,
      from: WRAPPED_SOL_MINT,
      to: mint,
      amount: (0.001 + ++n * 1e-9).toFixed(9),
      slippagePct: 5,
      priorityFeeSol: '0.00001',
    });
    const signed = signer.signWire(built.raw);
    const signature = await rpc.sendTransaction(signed.base64, { skipPreflight: true });
    for (;;) {
      await new Promise((r) => setTimeout(r, 5));
      const s0 = (await rpc.getSignatureStatuses([signature])).value[0];
      if (s0?.err) throw new Error(`swap failed: ${JSON.stringify(s0.err)}`);
      if (s0 && s0.confirmationStatus !== 'processed') return;
    }
  };
  /** Runs `C` loops of `step` for RUN_MS; returns ops/s and CPU ms per op of this process and the simulator's. */
  const saturate = async (step: (k: number) => Promise<void>): Promise<{ rate: number; clientMs: number; simMs: number }> => {
    let ops = 0;
    const cpu0 = process.cpuUsage();
    const sim0 = processCpuMs(sim.pid);
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, k) => {
        while (performance.now() - start < RUN_MS) {
          await step(k);
          ops++;
        }
      }),
    );
    const s = (performance.now() - start) / 1000;
    const c = process.cpuUsage(cpu0);
    return { rate: ops / s, clientMs: (c.user + c.system) / 1000 / ops, simMs: (processCpuMs(sim.pid) - sim0) / ops };
  };
  try {
    for (const s of signers) await oneSwap(s); // warm-up: token accounts, pools, JIT
    const base: number[] = [];
    const swaps: number[] = [];
    const ratios: number[] = [];
    const clientMs: number[] = [];
    const simMs: number[] = [];
    const loads: string[] = [];
    const slots = (): Promise<{ rate: number }> => saturate(async () => void (await rpc.getSlot()));
    const swapRun = () => saturate((k) => oneSwap(signers[k]!));
    for (let p = 0; p < PAIRS; p++) {
      const b = p % 2 === 0 ? await slots() : undefined;
      const r = await swapRun();
      const b2 = b ?? (await slots());
      base.push(b2.rate);
      swaps.push(r.rate);
      ratios.push(r.rate / b2.rate);
      clientMs.push(r.clientMs);
      simMs.push(r.simMs);
      loads.push(loadNote());
    }
    const cpu = median(clientMs) + median(simMs);
    return [
      { name: `getSlot over HTTP, ${CONCURRENCY} at a time (baseline)`, value: median(base), unit: 'req/s', note: 'simulator in its own process' },
      {
        name: `end-to-end swaps, separate processes, ${CONCURRENCY} at a time`,
        value: median(swaps),
        unit: 'swaps/s',
        ratio: median(ratios),
        note: `confirmed, 20 ms slots; median of ${PAIRS} alternating pairs; ${loads.join(', ')}`,
      },
      {
        name: '  CPU per swap, client + simulator',
        value: cpu,
        unit: 'ms',
        note: `client ${median(clientMs).toFixed(2)} ms, simulator ${median(simMs).toFixed(2)} ms; ${(1000 / cpu).toFixed(0)} swaps per CPU second`,
      },
    ];
  } finally {
    await rpc.close();
    await swap.close();
    await sim.stop();
  }
}

const bench: Bench = {
  name: 'sim-swap',
  async run() {
    const headline = await separateProcesses();
    const { rows } = await sameProcess();
    return [...headline, ...rows, ...(await inProcess(rows[0]!.value))];
  },
};
export default bench;
