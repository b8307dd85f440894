/**
 * End-to-end swaps per second through the simulator (POST /swap → sign (chainpilot's native
 * signer, as the live executor signs) → sendTransaction →
 * getSignatureStatuses until confirmed), and where the time goes: the same steps in process
 * (builder, signing, ledger send) with the ledger's landing split out. Baseline: a getSlot round
 * trip on the same JSON-RPC server (the HTTP + JSON floor). Short by default; BENCH_SWAP_MS=5000
 * for a longer run.
 */
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { keypairSigner } from '../src/executors/signer/signer.js';
import { manualClock, seededRandom, silentLogger } from '../src/core/index.js';
import { createLedger, ledgerServices, WRAPPED_SOL_MINT, type Ledger } from '../src/sim/ledger/index.js';
import { createSwapBuilder } from '../src/sim/swap/swap-builder.js';
import { parseSwapRequest } from '../src/sim/swap/swap-request.js';
import { parseTx, verifySignatures } from '../src/sim/ledger/parsed-tx.js';
import { fakeMarket } from '../test/sim-ledger/fake-market.js';
import type { Bench, BenchRow } from './harness.js';

const RUN_MS = Number(process.env['BENCH_SWAP_MS'] ?? 1500);
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

const post = async (url: string, body: unknown): Promise<Record<string, unknown>> => {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as Record<string, unknown>;
};

async function endToEnd(): Promise<{ rows: BenchRow[] }> {
  const clock = manualClock(1_700_000_000_000);
  const market = fakeMarket('bench');
  const mint = market.launch(1_000_000n * BigInt(LAMPORTS_PER_SOL), 10n ** 18n, 6);
  let ledger: Ledger | undefined;
  const service = await ledgerServices({ onLedger: (l) => (ledger = l) })({
    market, clock, random: seededRandom('bench'), apiKey: 'k', host: '127.0.0.1', log: silentLogger(),
  });
  const rpcUrl = `${service.urls['rpc']}?api_key=k`;
  const swapUrl = `${service.urls['swap']}/swap`;
  const wallet = Keypair.generate();
  const signer = keypairSigner(wallet);
  ledger!.airdrop(wallet.publicKey.toBase58(), 1_000_000n * BigInt(LAMPORTS_PER_SOL));
  let i = 0;
  const stage = { swap: 0, sign: 0, send: 0, confirm: 0 };
  const rpc = (method: string, params: unknown[]) => post(rpcUrl, { jsonrpc: '2.0', id: 1, method, params });
  try {
    const baseline = await timed(async () => {
      await rpc('getSlot', []);
    }, RUN_MS / 2);
    const cpu0 = process.cpuUsage();
    const swapsPerSec = await timed(async () => {
      let t = performance.now();
      const { txn } = (await post(swapUrl, { wallet: wallet.publicKey.toBase58(), from: WRAPPED_SOL_MINT, to: mint, amount: (0.001 + ++i * 1e-9).toFixed(9), slippage: 5, priorityFee: 0.00001 })) as { txn: string };
      stage.swap += performance.now() - t;
      t = performance.now();
      const bytes = signer.signWire(Buffer.from(txn, 'base64')).base64;
      stage.sign += performance.now() - t;
      t = performance.now();
      const sent = await rpc('sendTransaction', [bytes, { encoding: 'base64', skipPreflight: true }]);
      stage.send += performance.now() - t;
      t = performance.now();
      clock.advance(SLOT_MS);
      const st = (await rpc('getSignatureStatuses', [[sent['result']]])) as { result: { value: [{ confirmationStatus: string } | null] } };
      if (st.result.value[0]?.confirmationStatus !== 'confirmed') throw new Error(`swap did not confirm: ${JSON.stringify(st)}`);
      stage.confirm += performance.now() - t;
    }, RUN_MS);
    const cpu = process.cpuUsage(cpu0);
    const cpuMsPerSwap = (cpu.user + cpu.system) / 1000 / i;
    const total = stage.swap + stage.sign + stage.send + stage.confirm;
    const pct = (x: number) => `${((100 * x) / total).toFixed(1)} % of the time`;
    return {
      rows: [
        { name: 'getSlot round trip (baseline)', value: baseline, unit: 'req/s' },
        { name: 'end-to-end swap over HTTP (confirmed)', value: swapsPerSec, unit: 'swaps/s', ratio: swapsPerSec / baseline, note: `${i} swaps` },
        { name: 'same, CPU time per swap (client + simulator)', value: cpuMsPerSwap, unit: 'ms', note: `${(1000 / cpuMsPerSwap).toFixed(0)} swaps per CPU second: the rate on an idle core` },
        { name: '  POST /swap', value: stage.swap / i, unit: 'ms/swap', note: pct(stage.swap) },
        { name: '  sign (native ed25519 signer)', value: stage.sign / i, unit: 'ms/swap', note: pct(stage.sign) },
        { name: '  sendTransaction (verify + execute)', value: stage.send / i, unit: 'ms/swap', note: pct(stage.send) },
        { name: '  next slot + getSignatureStatuses', value: stage.confirm / i, unit: 'ms/swap', note: pct(stage.confirm) },
      ],
    };
  } finally {
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
      const built = builder.build(parseSwapRequest({ wallet: wallet.publicKey.toBase58(), from: WRAPPED_SOL_MINT, to: mint, amount: (0.001 + ++i * 1e-9).toFixed(9), slippage: 5, priorityFee: 0 }));
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
