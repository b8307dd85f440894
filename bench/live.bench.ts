/**
 * The live path (build → inspect → sign → journal → send → confirm → fill → journal) against the
 * in-process fake chain (test/executors/support/fake-chain.ts; the simulator's ledger is not on
 * main yet) with a real SQLite journal and real ed25519 signatures. Baseline, same run: the
 * journal's writes alone for one intent's whole life (the floor a durable executor cannot beat).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { systemClock } from '../src/core/clock.js';
import type { Bps, Lamports, RawAmount, UnixMs } from '../src/core/units.js';
import type { ExecutionReport, OrderIntent } from '../src/engine/execution-port.js';
import { openSqliteJournal } from '../src/executors/journal/sqlite-journal.js';
import { createLiveExecutor } from '../src/executors/live/live-executor.js';
import { keypairSigner } from '../src/executors/signer/signer.js';
import { createFakeChain, FAKE_SWAP_PROGRAM } from '../test/executors/support/fake-chain.js';
import { createFakeSwap } from '../test/executors/support/fake-swap.js';
import { percentile, type Bench } from './harness.js';

const dir = mkdtempSync(join(tmpdir(), 'chainpilot-bench-live-'));

function intentOf(id: string, mint: string): OrderIntent {
  return {
    id, strategyId: 'bench', side: 'buy', mint, decimals: 6, amountIn: 1_000_000n, slippageBps: 100 as Bps,
    priorityFeeLamports: 10_000n as Lamports, referencePrice: undefined, createdAt: Date.now() as UnixMs, reason: 'bench',
  };
}

async function journalBaseline(n: number, synchronous: 'full' | 'normal'): Promise<number> {
  const j = openSqliteJournal({ path: join(dir, `baseline-${synchronous}.sqlite`), synchronous });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const id = `b${i}`;
    await j.create(intentOf(id, 'So11111111111111111111111111111111111111112'), { spendLamports: 1n, day: '2026-01-01' }, i);
    await j.markBuilt(id, i);
    await j.recordSigned(id, { signature: `sig${i}`, txBase64: 'A'.repeat(600), blockhash: 'h', expiryBlockHeight: 1, slippageBps: 1 }, i);
    await j.markSent(id, `sig${i}`, i);
    const fill = { intentId: id, side: 'buy' as const, mint: 'm', decimals: 6, solAmount: 1n as Lamports, tokenAmount: 1n as RawAmount, feeLamports: 1n as Lamports, price: '1', filledAt: 1 as UnixMs, signature: `sig${i}` };
    await j.resolve(id, { state: 'LANDED', signature: `sig${i}`, fill }, i);
    await j.markReported(id, i);
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  await j.close();
  return n / s;
}

async function livePath(n: number, concurrent: boolean, synchronous: 'full' | 'normal' = 'full'): Promise<{ perSecond: number; latenciesMs: number[] }> {
  const clock = systemClock();
  const chain = createFakeChain({ clock, blockMs: 2, validityBlocks: 1000 });
  const mint = chain.createMint(6);
  chain.addPool(mint, 30_000_000_000n, 1_000_000_000_000_000n);
  const key = Keypair.generate();
  chain.airdrop(key.publicKey, 1_000_000_000_000n);
  const journal = openSqliteJournal({ path: join(dir, `live-${concurrent ? 'c' : 's'}-${synchronous}.sqlite`), synchronous });
  const started = new Map<string, bigint>();
  const latenciesMs: number[] = [];
  let done = 0;
  let wake: () => void = () => {};
  const executor = createLiveExecutor({
    rpc: chain, swap: createFakeSwap(chain, () => 6), signer: keypairSigner(key), journal, clock,
    settings: { maxTradeLamports: 10n ** 12n, maxDayLamports: 10n ** 15n, allowedPrograms: [FAKE_SWAP_PROGRAM.toBase58()], pollMs: 1, rebroadcastMs: 1_000 },
  });
  await executor.start((r: ExecutionReport) => {
    if (r.type === 'filled') {
      latenciesMs.push(Number(process.hrtime.bigint() - started.get(r.intentId)!) / 1e6);
      done++;
      wake();
    } else if (r.type !== 'accepted') throw new Error(`bench intent ${r.intentId} ended ${r.type}`);
  });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    const id = `i${i}`;
    started.set(id, process.hrtime.bigint());
    await executor.submit(intentOf(id, mint.toBase58()));
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
      const normal = await journalBaseline(2000, 'normal');
      const conc = await livePath(300, true);
      const seq = await livePath(100, false);
      const concNormal = await livePath(300, true, 'normal');
      const note = 'fake chain, 2 ms blocks, confirmed';
      return [
        { name: 'journal writes of one intent life (baseline)', value: baseline, unit: 'intents/s', note: 'synchronous=FULL, 6 fsyncs' },
        { name: 'same, synchronous=NORMAL', value: normal, unit: 'intents/s', ratio: normal / baseline },
        { name: 'full live path, 300 concurrent intents', value: conc.perSecond, unit: 'intents/s', ratio: conc.perSecond / baseline, note },
        { name: 'full live path, 300 concurrent, journal NORMAL', value: concNormal.perSecond, unit: 'intents/s', ratio: concNormal.perSecond / baseline, note },
        { name: 'full live path, one at a time', value: seq.perSecond, unit: 'intents/s', ratio: seq.perSecond / baseline, note },
        { name: 'intent -> landed latency p50 (one at a time)', value: percentile(seq.latenciesMs, 50), unit: 'ms', note },
        { name: 'intent -> landed latency p99 (one at a time)', value: percentile(seq.latenciesMs, 99), unit: 'ms', note },
        { name: 'intent -> landed latency p50 (concurrent)', value: percentile(conc.latenciesMs, 50), unit: 'ms', note },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
