/**
 * The swap terms a swap transaction carries in a Memo instruction. There is no custom on-chain
 * program in the simulator: the transaction moves fixed amounts (the quote at build time), and the
 * ledger reads these terms at landing to check the model's price against the slippage bound, then
 * settles the swap at the pool's output when it landed (the difference to `amountOut` goes between
 * the pool and the wallet), as a swap program computing its output at execution would. The
 * memo counts only when the pool authority signed the transaction, so nobody can move the market
 * with a hand-written memo.
 */
export const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const PREFIX = 'chainpilot-sim-swap:v1';

export interface SwapTerms {
  readonly mint: string;
  readonly poolId: string;
  readonly side: 'buy' | 'sell';
  /** Lamports in (buy) or raw tokens in (sell). */
  readonly amountIn: bigint;
  /** Raw tokens out (buy) or lamports out (sell) that the transaction transfers. */
  readonly amountOut: bigint;
  /** The least output the model may give at landing for the swap to succeed. */
  readonly minOut: bigint;
}

/** Encodes swap terms as memo text. */
export function encodeSwapMemo(t: SwapTerms): string {
  return [PREFIX, t.mint, t.poolId, t.side, t.amountIn, t.amountOut, t.minOut].join(' ');
}

/** Decodes memo text; undefined when it is not a swap memo of this version. */
export function decodeSwapMemo(text: string): SwapTerms | undefined {
  const parts = text.split(' ');
  if (parts.length !== 7 || parts[0] !== PREFIX) return undefined;
  const [, mint, poolId, side, amountIn, amountOut, minOut] = parts as [string, string, string, string, string, string, string];
  if (side !== 'buy' && side !== 'sell') return undefined;
  if (![amountIn, amountOut, minOut].every((s) => /^\d+$/.test(s))) return undefined;
  return { mint, poolId, side, amountIn: BigInt(amountIn), amountOut: BigInt(amountOut), minOut: BigInt(minOut) };
}
