/**
 * The /swap body, validated with zod at the boundary: `{wallet, from, to, amount, slippage,
 * priorityFee}`. `amount` is in decimal units of `from` (SOL is named by the wrapped-SOL mint and has
 * 9 decimals), `slippage` in percent, `priorityFee` in SOL. Unknown fields are refused so a typo in
 * a client shows up at once.
 */
import { z } from 'zod';
import { ChainpilotError, decimal, toRaw } from '../../core/index.js';
import { keyBytes, keyText } from '../../client/key-text.js';

export const WRAPPED_SOL_MINT = 'So11111111111111111111111111111111111111112';

const address = (field: string) =>
  z.string({ error: `${field} must be a base58 address string` }).refine(
    (s) => {
      try {
        return keyText(keyBytes(s)) === s; // canonical base58 of 32 bytes (both directions cached)
      } catch {
        return false;
      }
    },
    { message: `${field} must be a valid base58 address` },
  );

const decimalNumber = (field: string) =>
  z.union([z.number(), z.string()], { error: `${field} must be a number` }).refine(
    (v) => {
      try {
        return decimal(v, field).isFinite();
      } catch {
        return false;
      }
    },
    { message: `${field} must be a finite decimal number` },
  );

const SwapBody = z.strictObject({
  wallet: address('wallet'),
  from: address('from'),
  to: address('to'),
  amount: decimalNumber('amount'),
  slippage: decimalNumber('slippage'),
  priorityFee: decimalNumber('priorityFee'),
});

export interface SwapRequest {
  readonly wallet: string;
  readonly mint: string;
  readonly side: 'buy' | 'sell';
  /** Decimal amount of `from` as given; converted once the token's decimals are known. */
  readonly amount: string;
  /** Slippage in basis points (percent × 100, rounded down). */
  readonly slippageBps: number;
  readonly priorityFeeLamports: bigint;
}

function invalid(field: string, message: string): ChainpilotError {
  return new ChainpilotError('LEDGER_INVALID_SWAP_REQUEST', `${field}: ${message}`, { retry: 'not_retryable', context: { field } });
}

/** Parses a /swap body; throws LEDGER_INVALID_SWAP_REQUEST naming the field. */
export function parseSwapRequest(body: unknown): SwapRequest {
  const parsed = SwapBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || (issue?.code === 'unrecognized_keys' ? issue.keys.join(',') : 'body');
    throw invalid(field, issue?.message ?? 'invalid body');
  }
  const b = parsed.data;
  const fromSol = b.from === WRAPPED_SOL_MINT;
  const toSol = b.to === WRAPPED_SOL_MINT;
  if (fromSol === toSol) throw invalid(fromSol ? 'to' : 'from', `exactly one of from and to must be the SOL mint ${WRAPPED_SOL_MINT}`);
  const amount = decimal(b.amount, 'amount');
  if (!amount.gt(0)) throw invalid('amount', 'must be greater than 0');
  const slippage = decimal(b.slippage, 'slippage');
  if (slippage.lt(0) || slippage.gt(100)) throw invalid('slippage', 'is a percentage from 0 to 100');
  const fee = decimal(b.priorityFee, 'priorityFee');
  if (fee.lt(0) || fee.gt(1)) throw invalid('priorityFee', 'is in SOL, from 0 to 1');
  return {
    wallet: b.wallet,
    mint: fromSol ? b.to : b.from,
    side: fromSol ? 'buy' : 'sell',
    amount: amount.toFixed(),
    slippageBps: slippage.times(100).integerValue(1).toNumber(),
    priorityFeeLamports: toRaw(fee, 9, 'down'),
  };
}
