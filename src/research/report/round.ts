/** Display values of exact amounts: ratios rounded half-even (banker's rounding), never truncated; SOL exact. */
import { Decimal, lamportsToSol } from '../../core/index.js';

/** a / b rounded half-even to `places` decimals (0 when b is 0). */
export function ratioHalfEven(a: bigint, b: bigint, places = 6): number {
  if (b === 0n) return 0;
  return new Decimal(a.toString()).div(b.toString()).decimalPlaces(places, Decimal.ROUND_HALF_EVEN).toNumber();
}

/** Exact SOL of signed `lamports` (`-0.5` for -500 000 000). */
export function signedSol(lamports: bigint): string {
  return lamports < 0n ? `-${lamportsToSol(-lamports)}` : lamportsToSol(lamports);
}

/** Significant digits of a price in report text. */
const TEXT_PRICE_DIGITS = 8;

/**
 * `text` with every decimal number of more than 8 significant digits rounded half-even to 8 (plain
 * notation): an exit reason's exact price (`stop loss … below entry 0.0000000312345678901234…`)
 * reads `0.000000031234568`.
 */
export function readablePrices(text: string): string {
  return text.replace(/\d+\.\d+/g, (n) => {
    const d = new Decimal(n);
    return d.precision(true) > TEXT_PRICE_DIGITS ? d.precision(TEXT_PRICE_DIGITS, Decimal.ROUND_HALF_EVEN).toFixed() : n;
  });
}
