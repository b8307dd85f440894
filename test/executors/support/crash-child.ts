/**
 * The process the crash test kills: a live executor over the chain bridge (or the simulator's
 * JSON-RPC and swap service when RPC_URL is set), a real SQLite journal
 * and a portfolio file (JSONL of reports, fsynced per line). It reconciles on start, submits the
 * intents it is told to (skipping ids already journaled), and exits once all have settled.
 * CRASH_AT=point:nth makes it SIGKILL itself at the nth pass through a named instant.
 */
import { appendFileSync } from 'node:fs';
import { Keypair } from '@solana/web3.js';
import { systemClock } from '../../../src/core/clock.js';
import type { Bps, Lamports, UnixMs } from '../../../src/core/units.js';
import { openSqliteJournal } from '../../../src/executors/journal/sqlite-journal.js';
import { createLiveExecutor } from '../../../src/executors/live/live-executor.js';
import { keypairSigner } from '../../../src/executors/signer/signer.js';
import { chainClient } from './chain-bridge.js';
import { FAKE_SWAP_PROGRAM } from './fake-chain.js';
import { createRpcClient, createSwapClient } from '../../../src/client/index.js';

const env = (k: string): string => {
  const v = process.env[k];
  if (v === undefined) throw new Error(`missing ${k}`);
  return v;
};
/** The child's whole life; wrapped so the file also bundles as CommonJS (no top-level await). */
async function main(): Promise<void> {
  const [crashPoint, crashNth] = (process.env['CRASH_AT'] ?? '').split(':');
  let passes = 0;
  const clock = systemClock();
  const journal = openSqliteJournal({ path: env('JOURNAL') });
  // Against the simulator: the real typed clients; against the fake chain: the bridge client.
  const client = process.env['RPC_URL']
    ? {
        ...createRpcClient({ url: env('RPC_URL'), apiKey: env('RPC_KEY'), timeoutMs: 1_000 }),
        buildSwap: createSwapClient({ url: env('SWAP_URL'), timeoutMs: 5_000 }).buildSwap,
      }
    : chainClient(env('CHAIN_URL'));
  const executor = createLiveExecutor({
    rpc: client,
    swap: client,
    signer: keypairSigner(Keypair.fromSeed(Buffer.from(env('WALLET_SEED'), 'hex'))),
    journal,
    clock,
    settings: {
      maxTradeLamports: 10_000_000_000n,
      maxDayLamports: 1_000_000_000_000n,
      allowedPrograms: [FAKE_SWAP_PROGRAM.toBase58(), 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'],
      pollMs: 10,
      rebroadcastMs: 30,
      blockhashValidityBlocks: Number(env('VALIDITY_BLOCKS')),
      expiryMarginBlocks: 3,
      maxAttempts: 3,
      maxIntentAgeMs: 3_600_000,
      maxRebuildAgeMs: 3_600_000,
    },
    probe: (point) => {
      if (point === crashPoint && ++passes === Number(crashNth)) process.kill(process.pid, 'SIGKILL');
    },
    onError: (e) => {
      process.stderr.write(`executor error: ${String(e)}\n`);
      process.exit(3);
    },
  });
  const portfolio = env('PORTFOLIO');
  await executor.start((r) => {
    if (r.type !== 'accepted')
      appendFileSync(portfolio, `${JSON.stringify(r, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}\n`, { flush: true });
  });
  process.stdout.write('ready\n');
  const mint = env('MINT');
  for (const id of env('INTENTS').split(',').filter(Boolean)) {
    if (await journal.get(id)) continue;
    await executor.submit({
      id,
      strategyId: 'crash',
      side: 'buy',
      mint,
      decimals: 6,
      spendLamports: 10_000_000n as Lamports,
      slippageBps: 100 as Bps,
      priorityFeeLamports: 10_000n as Lamports,
      referencePrice: undefined,
      createdAt: clock.now() as UnixMs,
      reason: 'crash test',
    });
  }
  await executor.idle();
  await journal.close();
  process.stdout.write('done\n');
}

void main();
