/**
 * Exact decimal arithmetic in bigints for the hot paths of valuation and paper fills: a plain
 * decimal string is `digits / 10^scale`, and a quotient is written out exactly as the `Decimal`
 * of decimal.ts writes it (40 decimal places, rounded half to even). The results are the same as
 * bignumber.js's, digit for digit (tested on random values); bignumber.js stays the general tool.
 */

const POW10: bigint[] = [];

/** 10^n as a bigint (cached below 256). */
export function pow10(n: number): bigint {
  if (n < 256) return (POW10[n] ??= 10n ** BigInt(n));
  return 10n ** BigInt(n);
}

/** A plain decimal string (`123`, `0.000123`: digits and at most one inner point, no sign or exponent) as `digits / 10^scale`. */
export interface DecimalParts {
  readonly digits: bigint;
  readonly scale: number;
}

/** The parts of a plain decimal string; undefined for anything else (a sign, an exponent, a stray character). */
export function plainDecimalParts(s: string): DecimalParts | undefined {
  const n = s.length;
  if (n === 0) return undefined;
  let dot = -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46 && dot < 0 && i > 0 && i < n - 1) dot = i;
    else if (c < 48 || c > 57) return undefined;
  }
  return dot < 0 ? { digits: BigInt(s), scale: 0 } : { digits: BigInt(s.slice(0, dot) + s.slice(dot + 1)), scale: n - dot - 1 };
}

/** Decimal places of a quotient, as decimal.ts's `Decimal` (DECIMAL_PLACES). */
export const QUOTIENT_PLACES = 40;

/** `num / den` rounded half to even (num >= 0, den > 0). */
export function divHalfEven(num: bigint, den: bigint): bigint {
  const q = num / den;
  const twice = (num - q * den) * 2n;
  return twice > den || (twice === den && (q & 1n) === 1n) ? q + 1n : q;
}

/** `num / den` at 40 decimal places (half even), shifted by `shift` powers of ten: the integer and its scale. */
function quotient(num: bigint, den: bigint, shift: number): DecimalParts {
  return { digits: divHalfEven(num * pow10(QUOTIENT_PLACES), den), scale: QUOTIENT_PLACES - shift };
}

/** `new Decimal(num).div(den).shiftedBy(shift).toFixed()` for num >= 0 and den > 0, in bigints. */
export function quotientString(num: bigint, den: bigint, shift: number): string {
  const { digits, scale } = quotient(num, den, shift);
  return plainText(digits, scale);
}

/** `digits / 10^scale` (digits >= 0) as a plain decimal string, as `Decimal#toFixed()` writes it (no trailing zeros). */
export function plainText(digits: bigint, scale: number): string {
  if (scale <= 0) return (digits * pow10(-scale)).toString();
  let s = digits.toString();
  if (s.length <= scale) s = '0'.repeat(scale - s.length + 1) + s;
  let end = s.length;
  while (end > s.length - scale && s.charCodeAt(end - 1) === 48) end--;
  const point = s.length - scale;
  return end === point ? s.slice(0, point) : `${s.slice(0, point)}.${s.slice(point, end)}`;
}

/** `new Decimal(num).div(den).shiftedBy(shift).integerValue(ROUND_DOWN)` for num >= 0 and den > 0, in bigints. */
export function quotientFloor(num: bigint, den: bigint, shift: number): bigint {
  const { digits, scale } = quotient(num, den, shift);
  return scale <= 0 ? digits * pow10(-scale) : digits / pow10(scale);
}

/** Sign of `a × ka − b × kb` for plain decimals `a`, `b` and integer factors (exact cross-multiplication). */
export function compareScaled(a: DecimalParts, ka: bigint, b: DecimalParts, kb: bigint): number {
  // a.digits/10^a.scale × ka  vs  b.digits/10^b.scale × kb: bring both to the larger scale
  const left = a.digits * ka * pow10(Math.max(0, b.scale - a.scale));
  const right = b.digits * kb * pow10(Math.max(0, a.scale - b.scale));
  return left > right ? 1 : left < right ? -1 : 0;
}
