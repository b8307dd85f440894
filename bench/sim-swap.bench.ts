/**
 * End-to-end swaps per second through the simulator, with a client that saturates it: C workers
 * (BENCH_SWAP_CONCURRENCY, 8 by default), each with its own wallet, loop POST /swap → sign
 * (chainpilot's native signer, as the live executor signs) → sendTransaction → next slot →
 * getSignatureStatuses until confirmed, through chainpilot's typed swap and RPC clients over
 * loopback HTTP, the simulator in the same process. CPU per swap (client + simulator) is the
 * figure that does not depend on how busy the machine is; swaps/s is what one process reached.
 * Then the same steps in process (builder, signing, ledger send) with the ledger's landing split
 * out. Baseline: a getSlot round trip on the same JSON-RPC server (the HTTP + JSON floor). Short by
 * default; BENCH_SWAP_MS=5000 for a longer run.
 */
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { createRpcClient, createSwapClient } from '../src/client/index.js';
import { keypairSigner } from '../src/executors/signer/signer.js';
import { manualClock, seededRandom, silentLogger } from '../src/core/index.js';
import { createLedger, ledgerServices, WRAPPED_SOL_MINT, type Ledger } from '../src/sim/ledger/index.js';
import { createSwapBuilder } from '../src/sim/swap/swap-builder.js';
import { parseSwapRequest } from '../src/sim/swap/swap-request.js';
import { parseTx, verifySignatures } from '../src/sim/ledger/parsed-tx.js';
import { fakeMarket } from '../test/sim-ledger/fake-market.js';
import type { Bench, BenchRow } from './harness.js';

const RUN_MS = Number(process.env['BENCH_SWAP_MS'] ?? 1500);
const CONCURRENCY = Number(process.env['BENCH_SWAP_CONCURRENCY'] ?? 8);
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

async function endToEnd(): Promise<{ rows: BenchRow[] }> {
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
  const signers = Array.from({ length: CONCURRENCY }, () => keypairSigner(Keypair.generate()));
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
        { name: 'getSlot round trip (baseline)', value: baseline, unit: 'req/s' },
        {
          name: `end-to-end swap over HTTP (confirmed), ${CONCURRENCY} at a time`,
          value: swapsPerSec,
          unit: 'swaps/s',
          ratio: swapsPerSec / baseline,
          note: `${i} swaps`,
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
      { name: 'in-process swap (build, sign, send)', value: rate, unit: 'swaps/s', ratio: rate / baselineRps },
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

const bench: Bench = {
  name: 'sim-swap',
  async run() {
    const { rows } = await endToEnd();
    return [...rows, ...(await inProcess(rows[0]!.value))];
  },
};
export default bench;
