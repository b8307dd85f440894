/**
 * Running one transaction against the ledger's accounts. `land` executes it in the current slot and
 * records the outcome: a fee-only failure (an injected failure, or a swap whose pool changed or
 * whose price passed its bound), LiteSVM's execution with the swap settled at the pool's output
 * when it landed, or a drop when the runtime refuses it; a landed swap is applied to the market
 * model. `simulate` runs the same checks without changing anything (preflight and
 * simulateTransaction). Holds no state of its own: it writes to the accounts and the signature store.
 */
import type { Clock, Logger } from '../../core/index.js';
import { keyText } from '../../client/key-text.js';
import type { SimMarketPort } from '../market-port.js';
import type { BlockWindow } from './block-window.js';
import type { LandingFault } from './faults.js';
import { readComputeBudget, transactionFeeLamports } from './fees.js';
import type { LedgerAccounts, Snapshot } from './ledger-accounts.js';
import { INJECTED_FAILURE_ERROR, type SimulationResult } from './ledger-types.js';
import { ledgerAccount, type NativeSvm } from './native-svm.js';
import type { ParsedTx } from './parsed-tx.js';
import type { SignatureStore } from './signature-store.js';
import type { LedgerSwap, SwapCheck, SwapFailure } from './swap-check.js';
import { isRefusal, txErrorJson, type TxErrorJson } from './tx-error.js';

export interface TxExecutionDeps {
  readonly svm: NativeSvm;
  readonly accounts: LedgerAccounts;
  readonly window: Pick<BlockWindow, 'slot' | 'isValid'>;
  readonly store: SignatureStore;
  readonly swaps: SwapCheck;
  readonly market: Pick<SimMarketPort, 'applyLandedSwap'>;
  readonly clock: Clock;
  readonly log?: Logger;
}

export interface TxExecution {
  /** Executes `tx` in the current slot and records it as landed (or dropped); `fault` may fail it or finalize it at once. */
  land(tx: ParsedTx, fault: LandingFault | undefined): void;
  /** What landing `tx` now would do, with the post-state of `addresses`; changes nothing. */
  simulate(tx: ParsedTx, addresses: readonly string[]): SimulationResult;
}

/** What an executed transaction produced; `dropped` when it never lands and pays nothing. */
type Outcome = { readonly err: TxErrorJson | null; readonly logs: string[]; readonly units: bigint } | 'dropped';

/** Lands and simulates transactions on `deps.svm` and the ledger's accounts. */
export function createTxExecution(deps: TxExecutionDeps): TxExecution {
  const { svm, accounts, window, store, swaps, market, clock, log } = deps;

  /** The runtime charges the fee payer and moves nothing else; dropped when the payer cannot pay. */
  const failFeeOnly = (tx: ParsedTx, pre: Snapshot, fee: bigint, failure: SwapFailure, swap: LedgerSwap | undefined): Outcome => {
    const payer = pre.lamports[0] ?? 0n;
    if (payer < fee) return 'dropped';
    accounts.setLamports(tx.feePayer, payer - fee);
    return {
      err: { InstructionError: [swap?.memoIndex ?? 0, { Custom: failure.code }] },
      logs: [`Program log: chainpilot-sim: ${failure.log}`, `Program failed: custom program error: 0x${failure.code.toString(16)}`],
      units: 0n,
    };
  };

  /** LiteSVM executes the transaction; a swap that succeeds settles at `out`, the pool's output now. */
  const execute = (tx: ParsedTx, swap: LedgerSwap | undefined, out: bigint | undefined): Outcome => {
    if (swap) accounts.ensureLiquidity(swap.terms, swap.pool);
    const result = svm.send(tx.bytes, tx.version);
    if ('err' in result) {
      const err = txErrorJson(result.err());
      if (isRefusal(err)) {
        log?.debug({ signature: tx.signature, err }, 'ledger refused transaction at landing');
        return 'dropped';
      }
      return { err, logs: result.meta().logs(), units: result.meta().computeUnitsConsumed() };
    }
    if (swap && out !== undefined) accounts.settleAtLanding(swap.terms, swap.pool, tx.feePayer, out);
    return { err: null, logs: result.logs(), units: result.computeUnitsConsumed() };
  };

  const land = (tx: ParsedTx, fault: LandingFault | undefined): void => {
    if (!window.isValid(tx.recentBlockhash)) {
      store.dropped(tx.signature);
      return;
    }
    const budget = readComputeBudget(tx.keyStrings, tx.instructions);
    const fee = transactionFeeLamports(tx.numSigners, budget);
    const pre = accounts.snapshot(tx);
    const swap = swaps.find(tx);
    let failure = fault?.kind === 'fail' ? { code: INJECTED_FAILURE_ERROR, log: 'injected on-chain failure' } : undefined;
    if (!failure && swap) failure = swaps.check(swap);
    // A swap pays what the pool gives when it lands (at least minOut, checked above), as a swap program does.
    const out = !failure && swap ? (swaps.outputNow(swap.terms) ?? swap.terms.amountOut) : undefined;
    const outcome = failure ? failFeeOnly(tx, pre, fee, failure, swap) : execute(tx, swap, out);
    if (outcome === 'dropped') {
      store.dropped(tx.signature);
      return;
    }
    const slot = window.slot();
    const post = accounts.snapshot(tx, pre);
    const writable = tx.keyStrings.filter((_, i) => tx.isWritable(i));
    for (const w of writable) accounts.markWritten(w, slot);
    store.landed({
      state: 'landed',
      signature: tx.signature,
      slot,
      blockTimeSec: Math.floor(clock.now() / 1000),
      bytes: tx.bytes,
      version: tx.version,
      finalizeAtOnce: fault?.kind === 'finalizeAtOnce',
      cuPriceMicroLamports: budget.cuPriceMicroLamports,
      writableAccounts: writable,
      meta: {
        fee,
        err: outcome.err,
        preBalances: pre.lamports,
        postBalances: post.lamports,
        preTokenBalances: pre.tokens,
        postTokenBalances: post.tokens,
        logMessages: outcome.logs,
        computeUnitsConsumed: outcome.units,
      },
    });
    store.sampleFee(slot, budget.cuPriceMicroLamports, writable);
    if (outcome.err === null && swap) {
      const { terms } = swap;
      market.applyLandedSwap({
        mint: terms.mint,
        wallet: tx.feePayer,
        side: terms.side,
        solLamports: terms.side === 'buy' ? terms.amountIn : (out ?? terms.amountOut),
        tokenRaw: terms.side === 'buy' ? (out ?? terms.amountOut) : terms.amountIn,
        signature: tx.signature,
        slot,
        at: clock.now(),
      });
    }
  };

  const simulate = (tx: ParsedTx, addresses: readonly string[]): SimulationResult => {
    const swap = swaps.find(tx);
    const failure = swap && swaps.check(swap);
    if (failure) {
      return {
        err: { InstructionError: [swap.memoIndex, { Custom: failure.code }] },
        logs: [`Program log: chainpilot-sim: ${failure.log}`],
        unitsConsumed: 0n,
        accounts: addresses.map(() => null),
      };
    }
    if (swap) accounts.ensureLiquidity(swap.terms, swap.pool); // the vault must look as it will at landing
    const r = svm.simulate(tx.bytes, tx.version);
    if ('err' in r) {
      return { err: txErrorJson(r.err()), logs: r.meta().logs(), unitsConsumed: r.meta().computeUnitsConsumed(), accounts: addresses.map(() => null) };
    }
    const post = new Map(r.postAccounts().map((a) => [keyText(a.address), a.account()]));
    return {
      err: null,
      logs: r.meta().logs(),
      unitsConsumed: r.meta().computeUnitsConsumed(),
      accounts: addresses.map((a) => {
        const p = post.get(a);
        if (!p) return accounts.getAccount(a) ?? null;
        if (p.lamports() === 0n && p.data().length === 0) return null;
        return ledgerAccount(a, p);
      }),
    };
  };

  return { land, simulate };
}
