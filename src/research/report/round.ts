/** Display values of exact amounts: ratios rounded half-even (banker's rounding), never truncated; SOL exact. */
import { lamportsToSol } from '../../core/index.js';
import { divHalfEven, plainText, pow10, QUOTIENT_PLACES } from '../../core/exact-ratio.js';

/**
 * a / b rounded half-even to `places` decimals (0 when b is 0), as `Decimal` computes it (the
 * quotient to 40 places half even, then to `places` half even; a negative quotient that rounds to
 * zero is -0), in bigints: this runs for every trade and equity sample of a report.
 */
export function ratioHalfEven(a: bigint, b: bigint, places = 6): number {
  if (b === 0n) return 0;
  const negative = a < 0n !== b < 0n;
  const q40 = divHalfEven((a < 0n ? -a : a) * pow10(QUOTIENT_PLACES), b < 0n ? -b : b);
  const unit = pow10(places);
  const q = places < QUOTIENT_PLACES ? divHalfEven(q40, pow10(QUOTIENT_PLACES - places)) : q40 * pow10(places - QUOTIENT_PLACES);
  const frac = (q % unit).toString().padStart(places, '0');
  return Number(`${negative ? '-' : ''}${q / unit}${places > 0 ? `.${frac}` : ''}`);
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
  return text.replace(/\d+\.\d+/g, roundedPrice);
}

/**
 * A plain decimal `n` (digits, a point, digits) rounded half-even to 8 significant digits when it
 * has more, as `Decimal#precision(8, ROUND_HALF_EVEN).toFixed()` writes it, in bigints (one per
 * exit reason of a report). Significant digits as `precision(true)` counts them: from the first
 * non-zero digit to the last non-zero one of the fraction, the integer's trailing zeros included.
 */
function roundedPrice(n: string): string {
  const dot = n.indexOf('.');
  const scale = n.length - dot - 1;
  const d = BigInt(n.slice(0, dot) + n.slice(dot + 1));
  const ds = d.toString();
  let zeros = 0;
  while (zeros < scale && zeros < ds.length - 1 && ds.charCodeAt(ds.length - 1 - zeros) === 48) zeros++;
  if (ds.length - zeros <= TEXT_PRICE_DIGITS) return n;
  const drop = pow10(ds.length - TEXT_PRICE_DIGITS);
  return plainText(divHalfEven(d, drop) * drop, scale);
}
