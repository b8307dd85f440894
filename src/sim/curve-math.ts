/**
 * Constant-product pricing in exact integers. The fee is taken from the input; the net input goes
 * into the pool and the output is `reserveOut * netIn / (reserveIn + netIn)`, rounded down, so the
 * product of reserves never decreases.
 */
import { ChainpilotError } from '../core/errors.js';

export interface SwapMath {
  readonly feeIn: bigint;
  readonly netIn: bigint;
  readonly amountOut: bigint;
}

/** Output of a constant-product swap of `amountIn` with `feeBps` taken from the input. */
export function constantProductOut(reserveIn: bigint, reserveOut: bigint, amountIn: bigint, feeBps: number): SwapMath {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return { feeIn: 0n, netIn: 0n, amountOut: 0n };
  const feeIn = (amountIn * BigInt(feeBps)) / 10_000n;
  const netIn = amountIn - feeIn;
  const amountOut = (reserveOut * netIn) / (reserveIn + netIn);
  return { feeIn, netIn, amountOut };
}

/** Net input needed to take exactly `amountOut` out of a pool (rounded up). */
export function netInForOut(reserveIn: bigint, reserveOut: bigint, amountOut: bigint): bigint {
  if (amountOut <= 0n) return 0n;
  if (amountOut >= reserveOut)
    throw new ChainpilotError('CORE_INVALID_ARGUMENT', `amountOut ${amountOut} must be below reserveOut ${reserveOut}`, { retry: 'not_retryable' });
  const num = reserveIn * amountOut;
  const den = reserveOut - amountOut;
  return num % den === 0n ? num / den : num / den + 1n;
}

/** Gross input (before fee) whose net part is at least `netIn`. */
export function grossForNet(netIn: bigint, feeBps: number): bigint {
  const num = netIn * 10_000n;
  const den = BigInt(10_000 - feeBps);
  let gross = num % den === 0n ? num / den : num / den + 1n;
  while (gross - (gross * BigInt(feeBps)) / 10_000n < netIn) gross += 1n;
  return gross;
}
