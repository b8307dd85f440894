/**
 * The live path (build → inspect → sign → journal → send → confirm → fill → journal) with a real
 * SQLite journal and real ed25519 signatures, against two chains: the embedded simulator's ledger
 * (LiteSVM behind JSON-RPC and the swap service over loopback HTTP through the typed clients, 20 ms slots) and the in-process
 * fake chain (test/executors/support/fake-chain.ts, 2 ms blocks). Baseline, same run: the journal's
 * writes alone for one intent's whole life with every write fsynced (synchronous=FULL); the live
 * path rows use the default durability (`critical`: one fsync per attempt) unless they say so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { systemClock } from '../src/core/clock.js';
import { silentLogger } from '../src/core/logger.js';
import { seededRandom } from '../src/core/random.js';
import { ledgerServices, type Ledger } from '../src/sim/ledger/index.js';
import { fakeMarket } from '../test/sim-ledger/fake-market.js';
import { createRpcClient, createSwapClient } from '../src/client/index.js';
import type { LiveRpcPort, SwapBuilderPort } from '../src/executors/live/ports.js';
import type { Bps, Lamports, RawAmount, UnixMs } from '../src/core/units.js';
import type { ExecutionReport, OrderIntent } from '../src/engine/orders/execution-port.js';
import { openSqliteJournal } from '../src/executors/journal/sqlite-journal.js';
import type { JournalSynchronous } from '../src/executors/journal/sqlite-durability.js';
import { createLiveExecutor } from '../src/executors/live/live-executor.js';
import { keypairSigner } from '../src/executors/signer/signer.js';
import { createFakeChain, FAKE_SWAP_PROGRAM } from '../test/executors/support/fake-chain.js';
import { createFakeSwap } from '../test/executors/support/fake-swap.js';
import { percentile, type Bench } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'chainpilot-bench-live-'));

function intentOf(id: string, mint: string, n = 0): OrderIntent {
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
    createdAt: Date.now() as UnixMs,
    reason: 'bench',
  };
}

async function journalBaseline(n: number, synchronous: JournalSynchronous): Promise<number> {
  const j = openSqliteJournal({ path: join(dir, `baseline-${synchronous}.sqlite`), synchronous });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const id = `b${i}`;
    await j.create(intentOf(id, 'So11111111111111111111111111111111111111112'), { spendLamports: 1n, day: '2026-01-01' }, i);
    await j.markBuilt(id, i);
    await j.recordSigned(id, { signature: `sig${i}`, txBase64: 'A'.repeat(600), blockhash: 'h', expiryBlockHeight: 1, slippageBps: 1 }, i);
    await j.markSent(id, `sig${i}`, i);
    const fill = {
      intentId: id,
      side: 'buy' as const,
      mint: 'm',
      decimals: 6,
      solAmount: 1n as Lamports,
      tokenAmount: 1n as RawAmount,
      feeLamports: 1n as Lamports,
      price: '1',
      filledAt: 1 as UnixMs,
      signature: `sig${i}`,
    };
    await j.resolve(id, { state: 'LANDED', signature: `sig${i}`, fill }, i);
    await j.markReported(id, i);
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  await j.close();
  return n / s;
}

interface Chain {
  readonly rpc: LiveRpcPort;
  readonly swap: SwapBuilderPort;
  readonly mint: string;
  readonly allowed: string;
  readonly validityBlocks: number;
  fund(wallet: Keypair): void;
  close(): Promise<void>;
}

function fakeChain(): Chain {
  const chain = createFakeChain({ clock: systemClock(), blockMs: 2, validityBlocks: 1000 });
  const mint = chain.createMint(6);
  chain.addPool(mint, 30_000_000_000n, 1_000_000_000_000_000n);
  return {
    rpc: chain,
    swap: createFakeSwap(chain, () => 6),
    mint: mint.toBase58(),
    allowed: FAKE_SWAP_PROGRAM.toBase58(),
    validityBlocks: 1000,
    fund: (w) => chain.airdrop(w.publicKey, 1_000_000_000_000n),
    close: async () => {},
  };
}

async function simChain(): Promise<Chain> {
  const market = fakeMarket('bench-market');
  let ledger: Ledger | undefined;
  const apiKey = 'bench-rpc-key';
  const service = await ledgerServices({ slotMs: 20, validBlocks: 150, onLedger: (l) => (ledger = l) })({
    market,
    clock: systemClock(),
    random: seededRandom('bench'),
    apiKey,
    host: '127.0.0.1',
    log: silentLogger(),
  });
  const rpc = createRpcClient({ url: service.urls['rpc'] ?? '', apiKey, timeoutMs: 5_000 });
  const swap = createSwapClient({ url: service.urls['swap'] ?? '', timeoutMs: 5_000 });
  return {
    rpc,
    swap,
    mint: market.launch(3_000_000_000_000n, 1_000_000_000_000_000_000n, 6),
    allowed: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
    validityBlocks: 150,
    fund: (w) => void ledger!.airdrop(w.publicKey.toBase58(), 1_000_000_000_000n),
    close: async () => {
      await rpc.close();
      await swap.close();
      await service.stop();
    },
  };
}

let journals = 0;

async function livePath(
  chain: Chain,
  n: number,
  concurrent: boolean,
  synchronous: JournalSynchronous = 'critical',
): Promise<{ perSecond: number; latenciesMs: number[] }> {
  const clock = systemClock();
  const key = Keypair.generate();
  chain.fund(key);
  const journal = openSqliteJournal({ path: join(dir, `live-${++journals}.sqlite`), synchronous });
  const started = new Map<string, bigint>();
  const latenciesMs: number[] = [];
  let done = 0;
  let wake: () => void = () => {};
  const executor = createLiveExecutor({
    rpc: chain.rpc,
    swap: chain.swap,
    signer: keypairSigner(key),
    journal,
    clock,
    settings: {
      maxTradeLamports: 10n ** 12n,
      maxDayLamports: 10n ** 15n,
      allowedPrograms: [chain.allowed],
      pollMs: 2,
      rebroadcastMs: 1_000,
      blockhashValidityBlocks: chain.validityBlocks,
    },
  });
  await executor.start((r: ExecutionReport) => {
    if (r.type === 'filled') {
      latenciesMs.push(Number(process.hrtime.bigint() - started.get(r.intentId)!) / 1e6);
      done++;
      wake();
    } else if (r.type !== 'accepted')
      throw new Error(`bench intent ${r.intentId} ended ${r.type}: ${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
  });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const id = `i${i}`;
    started.set(id, process.hrtime.bigint());
    await executor.submit(intentOf(id, chain.mint, i));
    if (!concurrent && done <= i) await new Promise<void>((r) => (wake = () => (done > i ? r() : undefined)));
  }
  await executor.idle();
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  await executor.stop();
  await journal.close();
  return { perSecond: n / s, latenciesMs };
}

const bench: Bench = {
  name: 'live',
  async run() {
    try {
      const baseline = await journalBaseline(500, 'full');
      const critical = await journalBaseline(2000, 'critical');
      const normal = await journalBaseline(2000, 'normal');
      const fake = fakeChain();
      const conc = await livePath(fake, 300, true);
      const concFull = await livePath(fake, 300, true, 'full');
      const concNormal = await livePath(fake, 300, true, 'normal');
      const seq = await livePath(fake, 100, false);
      const sim = await simChain();
      let simConc: Awaited<ReturnType<typeof livePath>>;
      let simSeq: Awaited<ReturnType<typeof livePath>>;
      try {
        simConc = await livePath(sim, 100, true);
        simSeq = await livePath(sim, 40, false);
      } finally {
        await sim.close();
      }
      const f = 'fake chain, 2 ms blocks';
      const si = 'simulator ledger, typed clients, 20 ms slots';
      return [
        { name: 'journal writes of one intent life (baseline)', value: baseline, unit: 'intents/s', note: 'synchronous=FULL, 6 fsyncs' },
        { name: 'same, critical (default)', value: critical, unit: 'intents/s', ratio: critical / baseline, note: '1 fsync: the signed attempt' },
        { name: 'same, synchronous=NORMAL', value: normal, unit: 'intents/s', ratio: normal / baseline, note: 'no fsync' },
        { name: 'live path, 100 concurrent intents', value: simConc.perSecond, unit: 'intents/s', ratio: simConc.perSecond / baseline, note: si },
        { name: 'live path, one at a time', value: simSeq.perSecond, unit: 'intents/s', ratio: simSeq.perSecond / baseline, note: si },
        { name: 'intent -> landed p50 (one at a time)', value: percentile(simSeq.latenciesMs, 50), unit: 'ms', note: si },
        { name: 'intent -> landed p99 (one at a time)', value: percentile(simSeq.latenciesMs, 99), unit: 'ms', note: si },
        { name: 'live path, 300 concurrent intents', value: conc.perSecond, unit: 'intents/s', ratio: conc.perSecond / baseline, note: f },
        { name: 'live path, 300 concurrent, journal FULL', value: concFull.perSecond, unit: 'intents/s', ratio: concFull.perSecond / baseline, note: f },
        { name: 'live path, 300 concurrent, journal NORMAL', value: concNormal.perSecond, unit: 'intents/s', ratio: concNormal.perSecond / baseline, note: f },
        { name: 'live path, one at a time', value: seq.perSecond, unit: 'intents/s', ratio: seq.perSecond / baseline, note: f },
        { name: 'intent -> landed p50 (one at a time)', value: percentile(seq.latenciesMs, 50), unit: 'ms', note: f },
        { name: 'intent -> landed p99 (one at a time)', value: percentile(seq.latenciesMs, 99), unit: 'ms', note: f },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
