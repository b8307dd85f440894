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
