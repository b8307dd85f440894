/**
 * Swaps on the ledger: finds the swap terms a transaction carries (a Memo the pool authority signed,
 * swap-memo.ts) and checks them against the market model as the pool stands now, at landing and in
 * preflight. Holds no state: the model owns prices, the ledger's accounts own pools.
 */
import type { SimMarketPort } from '../market-port.js';
import type { LedgerAccounts } from './ledger-accounts.js';
import { POOL_CHANGED_ERROR, SLIPPAGE_EXCEEDED_ERROR, type PoolAccounts } from './ledger-types.js';
import type { ParsedTx } from './parsed-tx.js';
import { decodeSwapMemo, MEMO_PROGRAM, type SwapTerms } from './swap-memo.js';

/** A swap built by our swap service, found in a transaction. */
export interface LedgerSwap {
  readonly terms: SwapTerms;
  readonly pool: PoolAccounts;
  /** Index of the memo instruction (failures point at it). */
  readonly memoIndex: number;
}

/** A fee-only failure the ledger applies itself: a custom program error and its log line. */
export interface SwapFailure {
  readonly code: number;
  readonly log: string;
}

export interface SwapCheck {
  /** The swap terms when the transaction is a swap built by our swap service (pool authority signed). */
  find(tx: ParsedTx): LedgerSwap | undefined;
  /** Checks the model's price against the swap's bound; the failure, if any. */
  check(swap: LedgerSwap): SwapFailure | undefined;
  /** The model's output for the swap now (the pool as it stands), when the pool still trades the token. */
  outputNow(terms: SwapTerms): bigint | undefined;
}

/** Checks swaps against `market`, finding their pools among the ledger's accounts. */
export function createSwapCheck(market: Pick<SimMarketPort, 'quote'>, accounts: Pick<LedgerAccounts, 'pool'>): SwapCheck {
  return {
    find(tx) {
      for (let i = 0; i < tx.instructions.length; i++) {
        const ix = tx.instructions[i];
        if (!ix || tx.keyStrings[ix.programIdIndex] !== MEMO_PROGRAM) continue;
        const terms = decodeSwapMemo(Buffer.from(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength).toString('utf8'));
        const pool = terms && accounts.pool(terms.poolId);
        if (!terms || !pool) continue;
        const signerIndex = tx.keyStrings.indexOf(pool.authorityAddress);
        if (signerIndex >= 0 && signerIndex < tx.numSigners) return { terms, pool, memoIndex: i };
      }
      return undefined;
    },
    check({ terms }) {
      const quote = market.quote(terms.mint, terms.side, terms.amountIn);
      if (!quote || quote.pool.poolId !== terms.poolId || !quote.pool.tradable) {
        return { code: POOL_CHANGED_ERROR, log: `pool ${terms.poolId} no longer trades ${terms.mint}` };
      }
      if (quote.amountOut < terms.minOut) {
        return { code: SLIPPAGE_EXCEEDED_ERROR, log: `slippage exceeded: the pool gives ${quote.amountOut}, the minimum is ${terms.minOut}` };
      }
      return undefined;
    },
    outputNow(terms) {
      const quote = market.quote(terms.mint, terms.side, terms.amountIn);
      return quote && quote.pool.poolId === terms.poolId && quote.pool.tradable ? quote.amountOut : undefined;
    },
  };
}
