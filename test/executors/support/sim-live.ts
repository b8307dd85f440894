/**
 * The live executor against the embedded simulator's real ledger (LiteSVM behind JSON-RPC and the
 * swap service) on a manual clock: the real typed clients, a real SQLite journal in a temp dir, a
 * funded wallet and tokens launched in the fake market. Shared by the hostile-swap, malicious-builder
 * and simulator-integration tests; `runSimUntil` also by the lagging-RPC test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAMPORTS_PER_SOL, type Keypair } from '@solana/web3.js';
import { createRpcClient, createSwapClient, type RpcClient, type SwapClient } from '../../../src/client/index.js';
import type { ExecutionReport, OrderIntent } from '../../../src/engine/orders/execution-port.js';
import type { IntentJournal } from '../../../src/executors/journal/journal.js';
import { openSqliteJournal } from '../../../src/executors/journal/sqlite-journal.js';
import { createLiveExecutor, type LiveExecutor } from '../../../src/executors/live/live-executor.js';
import type { LiveSettingsInput } from '../../../src/executors/live/live-settings.js';
import type { LiveRpcPort } from '../../../src/executors/live/ports.js';
import { keypairSigner } from '../../../src/executors/signer/signer.js';
import type { SwapTransactionFormat } from '../../../src/sim/ledger/index.js';
import { API_KEY, startHarness, type Harness } from '../../sim-ledger/harness.js';

export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

export interface SimLiveOptions {
  readonly validBlocks: number;
  /** Prefix of the temp dir that holds the journal. */
  readonly tmpPrefix: string;
  /** Tokens to launch (30 SOL against 10^15 raw, 6 decimals), in order, before the wallet is funded. */
  readonly mints: number;
  /** Settings beside the shared ones (2 SOL a trade, the memo program allowed, `validBlocks`). */
  readonly settings: Omit<LiveSettingsInput, 'maxTradeLamports' | 'allowedPrograms' | 'blockhashValidityBlocks'>;
  /** Called on every sendTransaction the executor makes. */
  readonly onSend?: () => void;
  /** The swap service's transactions (default legacy). */
  readonly swapTransactions?: SwapTransactionFormat;
}

export interface SimLive {
  readonly sim: Harness;
  /** The launched tokens, in launch order. */
  readonly mints: readonly string[];
  /** Funded with 10 SOL. */
  readonly wallet: Keypair;
  readonly journal: IntentJournal;
  readonly executor: LiveExecutor;
  readonly rpc: RpcClient;
  readonly swap: SwapClient;
  readonly dir: string;
  readonly reports: ExecutionReport[];
  /** Moves the simulator's manual clock one timer at a time, letting real HTTP settle in between. */
  runUntil(cond: () => boolean, maxSteps?: number): Promise<void>;
  /** Submits `intent` and waits for its outcome (the first report that is not `accepted`). */
  submit(intent: OrderIntent): Promise<ExecutionReport>;
  /** Stops the executor, closes the journal and clients, stops the simulator, removes the temp dir. */
  close(): Promise<void>;
}

/** Moves `sim`'s manual clock one timer at a time, waiting `stepMs` of real time in between for real HTTP to settle. */
export async function runSimUntil(sim: Pick<Harness, 'clock'>, cond: () => boolean, maxSteps = 5_000, stepMs = 2): Promise<void> {
  for (let i = 0; i < maxSteps; i++) {
    await new Promise<void>((r) => setTimeout(r, stepMs));
    if (cond()) return;
    const next = sim.clock.nextTimerAt();
    if (next !== undefined) sim.clock.advanceTo(next);
  }
  throw new Error('runUntil: condition not reached');
}

/** Starts the simulator and a started live executor against it. */
export async function startSimLive(o: SimLiveOptions): Promise<SimLive> {
  const sim = await startHarness({ validBlocks: o.validBlocks, ...(o.swapTransactions ? { swapTransactions: o.swapTransactions } : {}) });
  const mints: string[] = [];
  for (let i = 0; i < o.mints; i++) mints.push(sim.market.launch(30n * BigInt(LAMPORTS_PER_SOL), 1_000_000_000_000_000n, 6));
  const wallet = await sim.wallet(10);
  const dir = mkdtempSync(join(tmpdir(), o.tmpPrefix));
  const journal = openSqliteJournal({ path: join(dir, 'journal.sqlite') });
  // The real typed clients (src/client) satisfy the executor's narrow ports structurally.
  const rpc = createRpcClient({ url: sim.service.urls['rpc'] ?? '', apiKey: API_KEY, timeoutMs: 1_000 });
  const swap = createSwapClient({ url: sim.service.urls['swap'] ?? '', timeoutMs: 5_000 });
  const asPort: LiveRpcPort = rpc; // compile-time proof: the real client satisfies the port
  const counted: LiveRpcPort = {
    ...asPort,
    sendTransaction: (tx, opts) => {
      o.onSend?.();
      return rpc.sendTransaction(tx, opts);
    },
    getSignatureStatuses: (sigs, opts) => rpc.getSignatureStatuses(sigs, opts),
    getBlockHeight: (opts) => rpc.getBlockHeight(opts),
    simulateTransaction: (tx, opts) => rpc.simulateTransaction(tx, opts),
    getTransaction: (sig, opts) => rpc.getTransaction(sig, opts),
    getMultipleAccounts: (a, opts) => rpc.getMultipleAccounts(a, opts),
  };
  const executor = createLiveExecutor({
    rpc: counted,
    swap,
    signer: keypairSigner(wallet),
    journal,
    clock: sim.clock,
    settings: {
      maxTradeLamports: 2n * BigInt(LAMPORTS_PER_SOL),
      allowedPrograms: [MEMO_PROGRAM],
      blockhashValidityBlocks: o.validBlocks,
      ...o.settings,
    },
  });
  const reports: ExecutionReport[] = [];
  const runUntil = (cond: () => boolean, maxSteps?: number): Promise<void> => runSimUntil(sim, cond, maxSteps);
  const started = executor.start((r) => reports.push(r));
  await runUntil(() => true);
  await started;
  return {
    sim,
    mints,
    wallet,
    journal,
    executor,
    rpc,
    swap,
    dir,
    reports,
    runUntil,
    async submit(intent) {
      const outcome = (r: ExecutionReport): boolean => r.intentId === intent.id && r.type !== 'accepted';
      await executor.submit(intent);
      await runUntil(() => reports.some(outcome));
      return reports.find(outcome)!;
    },
    async close() {
      await executor.stop(AbortSignal.abort());
      await journal.close();
      await rpc.close();
      await swap.close();
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
