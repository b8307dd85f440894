/**
 * Drawdown of an equity series observed point by point (a backtest feeds it at every fill and every
 * price change of an open position, not at a sampling interval): the largest fall from a running
 * peak in lamports and in percent of that peak, and the longest time spent below a peak.
 */
import { ratioHalfEven } from './round.js';

export interface DrawdownResult {
  readonly maxLamports: bigint;
  /** Largest fall in percent of its peak, rounded half-even to 6 decimals. */
  readonly maxPct: number;
  readonly longestMs: number;
}

export interface DrawdownTracker {
  observe(at: number, equityLamports: bigint): void;
  /** The drawdown so far; a fall still open at `endAt` counts until then. */
  result(endAt?: number): DrawdownResult;
}

export function createDrawdownTracker(startAt: number, startEquityLamports: bigint): DrawdownTracker {
  let peak = startEquityLamports;
  let peakAt = startAt;
  let last = startEquityLamports;
  let lastAt = startAt;
  let maxDd = 0n;
  let maxPctNum = 0n;
  let maxPctDen = 1n;
  let longest = 0;
  return {
    observe(at, v) {
      // the equity a backtest looks at after most lines is the one it saw last: below the peak, nothing but the time moves
      if (v === last && v < peak) {
        lastAt = at;
        return;
      }
      last = v;
      lastAt = at;
      if (v >= peak) {
        longest = Math.max(longest, at - peakAt);
        peak = v;
        peakAt = at;
        return;
      }
      const dd = peak - v;
      if (dd > maxDd) maxDd = dd;
      // dd / peak > maxPctNum / maxPctDen, compared exactly
      if (peak > 0n && dd * maxPctDen > maxPctNum * peak) {
        maxPctNum = dd;
        maxPctDen = peak;
      }
    },
    result(endAt) {
      const end = Math.max(endAt ?? lastAt, lastAt);
      const open = last < peak ? end - peakAt : 0;
      return { maxLamports: maxDd, maxPct: ratioHalfEven(maxPctNum * 100n, maxPctDen), longestMs: Math.max(longest, open) };
    },
  };
}
