/**
 * What a live run shows of itself when it ends: the view `inspect` gets (tests, the crash checks)
 * and the wallet and journal the shell prints. Types only, apart from live-deployment.ts, so that
 * the runtime's dependencies (assembly.ts) name them without importing the composition root.
 */
import type { RpcClient } from '../../client/index.js';
import type { Engine } from '../../engine/engine.js';
import type { IntentJournal } from '../../executors/journal/journal.js';

/** What `inspect` sees of a finished live run. */
export interface LiveRunView {
  readonly wallet: string;
  readonly engine: Engine;
  readonly journal: IntentJournal;
  readonly rpc: RpcClient;
}

/** The wallet and journal at the end of a live run (read after the drain). */
export interface LiveEndState {
  readonly wallet: string;
  /** Intents still unresolved in the journal at exit (the next start reconciles them). */
  readonly unresolvedIntents: number;
  /** Wallet SOL on chain at exit, and the portfolio's cash: equal unless something was left unresolved. */
  readonly walletLamports: bigint;
  readonly cashLamports: bigint;
}
