/**
 * Drives a paper book as a paper deployment does, one buy intent and its fill at a time, numbered:
 * intent `n` is `int_<n>` (0.01 SOL of one mint, created at `n` ms), its fill 10^6 raw tokens.
 * Shared by the paper-book crash test's child (support/paper-book-child.ts) and bench/paper-book.
 */
import { bps, lamports, rawAmount, type UnixMs } from '../../../src/core/index.js';
import type { Fill, OrderIntent } from '../../../src/engine/orders/execution-port.js';
import type { PaperBook } from '../../../src/runtime/store/paper-book.js';

export const BOOK_MINT = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';

/** Intent `n`, placed by `who`. */
export function bookIntent(n: number, who: { readonly strategyId: string; readonly reason: string }): OrderIntent {
  return {
    id: `int_${n}`,
    strategyId: who.strategyId,
    side: 'buy',
    mint: BOOK_MINT,
    decimals: 6,
    spendLamports: lamports(10_000_000n),
    slippageBps: bps(300),
    priorityFeeLamports: lamports(10_000n),
    referencePrice: undefined,
    createdAt: n as UnixMs,
    reason: who.reason,
  };
}

/** The fill of intent `n`, filled at `at` ms (default `n`). */
export function bookFill(n: number, at: number = n): Fill {
  return {
    intentId: `int_${n}`,
    side: 'buy',
    mint: BOOK_MINT,
    decimals: 6,
    solAmount: lamports(10_000_000n),
    tokenAmount: rawAmount(1_000_000n),
    feeLamports: lamports(5_000n),
    price: '0.00001',
    filledAt: at as UnixMs,
  };
}

/** Reports intent `n` filled to `book`, at `at` ms (default `n`). */
export function fillInBook(book: PaperBook, n: number, at: number = n): void {
  book.resolved({ type: 'filled', intentId: `int_${n}`, at: at as UnixMs, fill: bookFill(n, at) });
}
