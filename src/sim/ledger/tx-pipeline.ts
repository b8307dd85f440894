/**
 * The ledger's transaction pipeline, as a node answers `sendTransaction` and
 * `simulateTransaction`: decode the wire bytes, verify signatures, refuse what the runtime would
 * (a known signature, an unknown or expired blockhash, a fee payer who cannot pay, a failing
 * preflight), then draw the transaction's landing fault and hand it to the landing schedule.
 * Holds no state of its own: the signature store remembers, the schedule decides when it lands.
 */
import type { Logger } from '../../core/index.js';
import type { BlockWindow } from './block-window.js';
import type { FaultPlan } from './faults.js';
import { readComputeBudget, transactionFeeLamports } from './fees.js';
import type { LandingSchedule } from './landing-schedule.js';
import type { Ledger, LedgerRefusal } from './ledger-types.js';
import type { NativeSvm } from './native-svm.js';
import { parseTx, verifySignatures, type ParsedTx, type TableReader } from './parsed-tx.js';
import type { SignatureStore } from './signature-store.js';
import { describeTxError, type TxErrorJson } from './tx-error.js';
import type { TxExecution } from './tx-execution.js';

export interface TxPipelineDeps {
  readonly svm: Pick<NativeSvm, 'balance'>;
  /** Resolves a v0 transaction's lookup tables (the ledger's table accounts). */
  readonly tables: TableReader;
  readonly window: Pick<BlockWindow, 'isValid' | 'latest'>;
  readonly store: Pick<SignatureStore, 'get'>;
  readonly faults: Pick<FaultPlan, 'nextLanding'>;
  readonly execution: Pick<TxExecution, 'simulate'>;
  readonly schedule: Pick<LandingSchedule, 'accept'>;
  readonly log?: Logger;
}

/** The ledger's `send` and `simulate`. */
export type TxPipeline = Pick<Ledger, 'send' | 'simulate'>;

const refusal = (rpcCode: number, message: string, data?: unknown): LedgerRefusal =>
  data === undefined ? { ok: false, rpcCode, message } : { ok: false, rpcCode, message, data };

const decode = (bytes: Uint8Array, tables: TableReader): ParsedTx | LedgerRefusal => {
  try {
    return parseTx(bytes, tables);
  } catch (e) {
    return refusal(-32602, `invalid transaction: failed to deserialize: ${e instanceof Error ? e.message : String(e)}`);
  }
};

const preflightFailure = (err: TxErrorJson, logs: readonly string[], units: bigint): LedgerRefusal =>
  refusal(-32002, `Transaction simulation failed: ${describeTxError(err)}`, { err, logs, accounts: null, unitsConsumed: Number(units) });

const signatureFailure = (): LedgerRefusal => refusal(-32003, 'Transaction signature verification failure');

/** Creates the pipeline over the ledger's parts. */
export function createTxPipeline(deps: TxPipelineDeps): TxPipeline {
  const { svm, tables, window, store, faults, execution, schedule, log } = deps;
  return {
    send(bytes, sendOptions = {}) {
      const tx = decode(bytes, tables);
      if ('ok' in tx) return tx;
      if (!verifySignatures(tx)) return signatureFailure();
      const known = store.get(tx.signature);
      if (known) {
        // Identical bytes: never execute twice. A node with preflight answers AlreadyProcessed.
        if (!sendOptions.skipPreflight && known.state === 'landed') {
          return preflightFailure('AlreadyProcessed', [], 0n);
        }
        return { ok: true, signature: tx.signature };
      }
      if (!window.isValid(tx.recentBlockhash)) return preflightFailure('BlockhashNotFound', [], 0n);
      const fee = transactionFeeLamports(tx.numSigners, readComputeBudget(tx.keyStrings, tx.instructions));
      if ((svm.balance(tx.feePayer, tx.keys[0]) ?? 0n) < fee) return preflightFailure('InsufficientFundsForFee', [], 0n);
      if (!sendOptions.skipPreflight) {
        const sim = execution.simulate(tx, []);
        if (sim.err !== null) return preflightFailure(sim.err, sim.logs, sim.unitsConsumed);
      }
      const fault = faults.nextLanding();
      schedule.accept(tx, fault);
      log?.debug({ signature: tx.signature, fault: fault?.kind }, 'ledger accepted transaction');
      return { ok: true, signature: tx.signature };
    },
    simulate(bytes, simOptions = {}) {
      const tx = decode(bytes, tables);
      if ('ok' in tx) return tx;
      if (simOptions.sigVerify && !verifySignatures(tx)) return signatureFailure();
      const addresses = simOptions.addresses ?? [];
      if (!simOptions.replaceRecentBlockhash && !window.isValid(tx.recentBlockhash)) {
        return { err: 'BlockhashNotFound', logs: [], unitsConsumed: 0n, accounts: addresses.map(() => null) };
      }
      const result = execution.simulate(tx, addresses);
      return simOptions.replaceRecentBlockhash ? { ...result, replacementBlockhash: window.latest() } : result;
    },
  };
}
