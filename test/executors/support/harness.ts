/** Builds a live executor over the fake chain, a real SQLite journal in a temp dir and a manual clock. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { manualClock, type ManualClock } from '../../../src/core/clock.js';
import type { Logger } from '../../../src/core/logger.js';
import type { Bps, Lamports, UnixMs } from '../../../src/core/units.js';
import type { ExecutionReport, OrderIntent } from '../../../src/engine/orders/execution-port.js';
import { orderIntent, type IntentDraft } from '../../helpers/intents.js';
import type { IntentJournal } from '../../../src/executors/journal/journal.js';
import { openSqliteJournal, type SqliteIntentJournal } from '../../../src/executors/journal/sqlite-journal.js';
import { createLiveExecutor, type LiveExecutor } from '../../../src/executors/live/live-executor.js';
import type { LiveSettingsInput } from '../../../src/executors/live/live-settings.js';
import type { SwapBuilderPort } from '../../../src/executors/live/ports.js';
import type { LiveProbePoint } from '../../../src/executors/live/drive-intent.js';
import { keypairSigner } from '../../../src/executors/signer/signer.js';
import { createFakeChain, FAKE_SWAP_PROGRAM, type FakeChain } from './fake-chain.js';
import { createFakeSwap, type FakeSwap } from './fake-swap.js';

export const START_MS = 1_767_225_600_000; // 2026-01-01T00:00:00Z
export const WALLET_KEY = Keypair.fromSeed(new Uint8Array(32).fill(1));

export interface Harness {
  readonly clock: ManualClock;
  readonly chain: FakeChain;
  readonly swap: FakeSwap;
  readonly journal: SqliteIntentJournal;
  readonly journalPath: string;
  readonly wallet: PublicKey;
  readonly mint: PublicKey;
  readonly reports: ExecutionReport[];
  executor: LiveExecutor;
  /** A fresh executor over the same chain and journal file (a restart). */
  restart(probe?: (p: LiveProbePoint, id: string) => void): Promise<void>;
  intent(n: number, over?: Partial<IntentDraft>): OrderIntent;
  /** Advances the manual clock timer by timer until `cond` holds. */
  runUntil(cond: () => boolean, maxSteps?: number): Promise<void>;
  close(): Promise<void>;
}

export const TEST_SETTINGS: LiveSettingsInput = {
  maxTradeLamports: 2_000_000_000n,
  maxDayLamports: 10_000_000_000n,
  allowedPrograms: [FAKE_SWAP_PROGRAM.toBase58()],
  pollMs: 400,
  rebroadcastMs: 1_500,
};

export async function createHarness(
  opts: {
    settings?: Partial<LiveSettingsInput>;
    logger?: Logger;
    probe?: (p: LiveProbePoint, id: string) => void;
    /** Wraps the journal the executor writes (e.g. to record its calls); the harness's `journal` stays the bare one. */
    wrapJournal?: (j: IntentJournal) => IntentJournal;
    /** Wraps the swap service the executor calls; the harness's `swap` stays the bare one. */
    wrapSwap?: (s: SwapBuilderPort) => SwapBuilderPort;
  } = {},
): Promise<Harness> {
  const clock = manualClock(START_MS);
  const chain = createFakeChain({ clock });
  const mint = chain.createMint(6);
  chain.addPool(mint, 30_000_000_000n, 1_000_000_000_000_000n);
  const wallet = WALLET_KEY.publicKey;
  chain.airdrop(wallet, 100_000_000_000n);
  const swap = createFakeSwap(chain, () => 6);
  const dir = mkdtempSync(join(tmpdir(), 'chainpilot-live-'));
  const journalPath = join(dir, 'journal.sqlite');
  let journal = openSqliteJournal({ path: journalPath });
  const reports: ExecutionReport[] = [];
  const make = (probe?: (p: LiveProbePoint, id: string) => void): LiveExecutor =>
    createLiveExecutor({
      rpc: chain,
      swap: opts.wrapSwap ? opts.wrapSwap(swap) : swap,
      signer: keypairSigner(WALLET_KEY),
      journal: opts.wrapJournal ? opts.wrapJournal(journal) : journal,
      clock,
      settings: { ...TEST_SETTINGS, ...opts.settings },
      ...(opts.logger ? { logger: opts.logger } : {}),
      ...(probe ? { probe } : {}),
    });
  const h: Harness = {
    clock,
    chain,
    swap,
    get journal() {
      return journal;
    },
    journalPath,
    wallet,
    mint,
    reports,
    executor: make(opts.probe),
    async restart(probe) {
      await h.executor.stop(AbortSignal.abort());
      await journal.close();
      journal = openSqliteJournal({ path: journalPath });
      h.executor = make(probe);
      const started = h.executor.start((r) => reports.push(r));
      let done = false;
      void started.then(
        () => (done = true),
        () => (done = true),
      );
      await h.runUntil(() => done);
      await started;
    },
    intent(n, over = {}) {
      return orderIntent({
        id: `int-${n}`,
        strategyId: 'test',
        side: 'buy',
        mint: mint.toBase58(),
        decimals: 6,
        spendLamports: 100_000_000n,
        slippageBps: 100 as Bps,
        priorityFeeLamports: 10_000n as Lamports,
        referencePrice: undefined,
        createdAt: clock.now() as UnixMs,
        reason: 'test',
        ...over,
      });
    },
    async runUntil(cond, maxSteps = 20_000) {
      for (let i = 0; i < maxSteps; i++) {
        await new Promise<void>((r) => setImmediate(r));
        if (cond()) return;
        const next = clock.nextTimerAt();
        if (next !== undefined) clock.advanceTo(next);
      }
      throw new Error('runUntil: condition not reached');
    },
    async close() {
      await h.executor.stop(AbortSignal.abort());
      await journal.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return h;
}

/** Starts the harness executor, collecting reports. */
export async function startHarness(h: Harness): Promise<void> {
  const started = h.executor.start((r) => h.reports.push(r));
  let done = false;
  void started.then(
    () => (done = true),
    () => (done = true),
  );
  await h.runUntil(() => done);
  await started;
}

/** Reports of one intent, by type. */
export function reportTypes(h: Harness, id: string): string[] {
  return h.reports.filter((r) => r.intentId === id).map((r) => r.type);
}
