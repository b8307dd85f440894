/**
 * The fill of a landed swap read from its meta: rent that comes back from a token account of ours
 * the swap closed is reported on its own and is never part of a sell's proceeds, so the portfolio's
 * PnL does not count it (issue 38, case 1), while its cash still follows the wallet.
 */
import { describe, expect, it } from 'vitest';
import { lamports, rawAmount, type Bps, type UnixMs } from '../../src/core/units.js';
import { createPortfolio } from '../../src/engine/market/portfolio.js';
import { decodeFill, encodeFill } from '../../src/executors/journal/codec.js';
import type { TransactionMeta } from '../../src/executors/live/ports.js';
import { readFill } from '../../src/executors/live/read-fill.js';
import { orderIntent } from '../helpers/intents.js';

const WALLET = 'Wa11et1111111111111111111111111111111111111';
const MINT = 'Mint111111111111111111111111111111111111111';
const RENT = 2_039_280n;
const FEE = 105_000n;

const sell = orderIntent({
  id: 's-1',
  strategyId: 's',
  side: 'sell',
  mint: MINT,
  decimals: 6,
  sellRaw: 1_000_000n,
  slippageBps: 100 as Bps,
  priorityFeeLamports: lamports(100_000n),
  referencePrice: '0.001',
  createdAt: 0 as UnixMs,
  reason: 'test',
});

/** Our wallet (0), our token account of MINT (1), the pool's vault (2). */
function meta(paid: bigint, closes: boolean): TransactionMeta {
  const held = { accountIndex: 1, mint: MINT, owner: WALLET, uiTokenAmount: { amount: '1000000', decimals: 6 } };
  const vault = (amount: string): TransactionMeta['preTokenBalances'][number] => ({
    accountIndex: 2,
    mint: MINT,
    owner: 'Poo1',
    uiTokenAmount: { amount, decimals: 6 },
  });
  return {
    fee: FEE,
    err: null,
    preBalances: [10_000_000_000n, RENT, RENT],
    postBalances: [10_000_000_000n - FEE + paid + (closes ? RENT : 0n), closes ? 0n : RENT, RENT],
    preTokenBalances: [held, vault('5')],
    postTokenBalances: closes ? [vault('1000005')] : [{ ...held, uiTokenAmount: { amount: '0', decimals: 6 } }, vault('1000005')],
  };
}

describe('readFill and rent returned by a closed account', () => {
  it('a sell that pays nothing and closes our account has proceeds 0 and the rent on its own', () => {
    const fill = readFill(sell, meta(0n, true), WALLET, 'sig', 1 as UnixMs);
    expect(fill.solAmount).toBe(0n);
    expect(fill.tokenAmount).toBe(1_000_000n);
    expect(fill.rentReturnedLamports).toBe(RENT);
    expect(fill.price).toBe('0');
  });

  it('a sell that pays 1 000 000 lamports and closes our account reports 1 000 000, not the rent on top', () => {
    const fill = readFill(sell, meta(1_000_000n, true), WALLET, 'sig', 1 as UnixMs);
    expect(fill.solAmount).toBe(1_000_000n);
    expect(fill.rentReturnedLamports).toBe(RENT);
    expect(decodeFill(encodeFill(fill))).toEqual(fill); // the journal keeps it
  });

  it('a sell that leaves our account open reports no returned rent', () => {
    const fill = readFill(sell, meta(1_000_000n, false), WALLET, 'sig', 1 as UnixMs);
    expect(fill.solAmount).toBe(1_000_000n);
    expect(fill.rentReturnedLamports).toBeUndefined();
  });

  it('the portfolio puts returned rent in cash but never in realised PnL', () => {
    const book = createPortfolio(10_000_000_000n);
    book.applyFill('s', {
      intentId: 'b-1',
      side: 'buy',
      mint: MINT,
      decimals: 6,
      solAmount: lamports(1_000_000n),
      tokenAmount: rawAmount(1_000_000n),
      feeLamports: lamports(0n),
      price: '0.001',
      filledAt: 0 as UnixMs,
    });
    const after = book.applyFill('s', readFill(sell, meta(1_000_000n, true), WALLET, 'sig', 1 as UnixMs));
    expect(after.realisedLamports).toBe(-FEE); // paid 1 000 000, got 1 000 000, minus the sell's fee
    expect(book.totals().cashLamports).toBe(10_000_000_000n - FEE + RENT);
  });
});
