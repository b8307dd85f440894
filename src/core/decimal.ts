/**
 * Exact decimal arithmetic on bignumber.js, and conversions between decimal strings and raw
 * integer amounts. Money never passes through a JS float here.
 */
import BigNumber from 'bignumber.js';
import { ChainpilotError } from './errors.js';
import { isLamports, type Lamports } from './units.js';

/** A BigNumber constructor configured for money: no exponential notation, round half even. */
export const Decimal = BigNumber.clone({
  DECIMAL_PLACES: 40,
  ROUNDING_MODE: BigNumber.ROUND_HALF_EVEN,
  EXPONENTIAL_AT: [-60, 60],
});
export type Decimal = BigNumber;

/** Parses a decimal string (or a finite number from the wire) into an exact Decimal. */
export function decimal(value: string | number | bigint | BigNumber, field = 'value'): BigNumber {
  const d = new Decimal(typeof value === 'bigint' ? value.toString() : value);
  if (!d.isFinite()) {
    throw new ChainpilotError('CORE_INVALID_DECIMAL', `${field}: ${String(value)} is not a finite decimal number`, {
      retry: 'not_retryable',
      context: { field },
    });
  }
  return d;
}

/**
 * Converts a decimal amount ("1.5") to raw integer units given `decimals` (1.5, 6 → 1500000n).
 * Rejects more fractional digits than `decimals` unless `round` is given.
 */
export function toRaw(amount: string | BigNumber, decimals: number, round?: 'down' | 'up'): bigint {
  const d = decimal(amount, 'amount').shiftedBy(decimals);
  if (!d.isInteger()) {
    if (!round) {
      throw new ChainpilotError('CORE_INVALID_DECIMAL', `amount ${String(amount)} has more than ${decimals} decimal places`, {
        retry: 'not_retryable',
        context: { decimals },
      });
    }
    return BigInt(d.integerValue(round === 'down' ? BigNumber.ROUND_DOWN : BigNumber.ROUND_UP).toFixed(0));
  }
  return BigInt(d.toFixed(0));
}

/** Converts raw integer units to an exact decimal string (1500000n, 6 → "1.5"). */
export function fromRaw(raw: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0) return new Decimal(raw.toString()).shiftedBy(-decimals).toFixed();
  // Placing a decimal point in an integer's digits needs no decimal arithmetic (and this runs on
  // the live path for every swap request): the same text as the Decimal form, without one.
  const digits = (raw < 0n ? -raw : raw).toString();
  if (decimals === 0) return raw < 0n ? `-${digits}` : digits;
  const padded = digits.length > decimals ? digits : digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, padded.length - decimals);
  let end = padded.length;
  while (end > whole.length && padded.charCodeAt(end - 1) === 48) end--; // trailing zeros of the fraction
  const text = end === whole.length ? whole : `${whole}.${padded.slice(whole.length, end)}`;
  return raw < 0n ? `-${text}` : text;
}

/**
 * Parses a SOL amount written as a decimal ("0.25" or 0.25) into lamports: exact, at most 9
 * decimals, never negative. Undefined when the text is not such an amount, so callers
 * (config, strategy parameters) can name the field in their own error.
 */
export function parseSolToLamports(value: string | number): Lamports | undefined {
  let l: bigint;
  try {
    l = toRaw(String(value), 9);
  } catch {
    return undefined;
  }
  return isLamports(l) ? l : undefined;
}

/** Formats lamports as SOL with all 9 decimals trimmed of trailing zeros. */
export function lamportsToSol(l: bigint): string {
  return fromRaw(l, 9);
}
