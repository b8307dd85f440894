/** Display ratios of exact amounts: rounded half-even (banker's rounding), never truncated. */
import { Decimal } from '../../core/index.js';

/** a / b rounded half-even to `places` decimals (0 when b is 0). */
export function ratioHalfEven(a: bigint, b: bigint, places = 6): number {
  if (b === 0n) return 0;
  return new Decimal(a.toString()).div(b.toString()).decimalPlaces(places, Decimal.ROUND_HALF_EVEN).toNumber();
}
