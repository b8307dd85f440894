/**
 * Metrics that make sense for runs of hours rather than weeks: the distribution of per-hour equity
 * returns and the Sharpe of per-sample returns scaled to one hour (not annualised). Used by the
 * report (next to the annualised ratios that are n/a under 7 days) and by sweep objectives.
 */

const HOUR_MS = 3_600_000;

export interface HourlyReturns {
  /** Complete hours (or the whole run, when shorter than an hour: then one partial "hour"). */
  readonly hours: number;
  /** Per-hour returns in percent: mean, median, 5th and 95th percentile, worst and best. */
  readonly meanPct: number | null;
  readonly medianPct: number | null;
  readonly p5Pct: number | null;
  readonly p95Pct: number | null;
  readonly worstPct: number | null;
  readonly bestPct: number | null;
  /** Share of hours with a positive return, in percent. */
  readonly positivePct: number | null;
  /** Sharpe of per-sample returns × √(samples per hour); null under two returns or when equity never moved. */
  readonly hourlySharpe: number | null;
}

/** a / b as a float, unrounded (rounding is the display's). */
const ratio = (a: bigint, b: bigint): number => (b === 0n ? 0 : Number(a) / Number(b));

function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * The returns between consecutive regular samples (those `sampleMs` apart from `startedAt`), one
 * sample per instant: when a run's length is a multiple of `sampleMs` its closing sample falls on a
 * regular instant already sampled, and the later of the two (the equity at the end) stands for that
 * instant, so no zero-length interval counts as a return. Unrounded.
 */
export function regularReturns(equity: readonly (readonly [number, bigint])[], startedAt: number, sampleMs: number): number[] {
  const regular: (readonly [number, bigint])[] = [];
  for (const s of equity) {
    if ((s[0] - startedAt) % sampleMs !== 0) continue;
    if (regular.length > 0 && regular[regular.length - 1]![0] === s[0]) regular[regular.length - 1] = s;
    else regular.push(s);
  }
  const rets: number[] = [];
  for (let k = 1; k < regular.length; k++) {
    const prev = regular[k - 1]![1];
    if (prev > 0n) rets.push(ratio(regular[k]![1] - prev, prev));
  }
  return rets;
}

/** Sharpe of the returns between consecutive regular samples ({@link regularReturns}), scaled to one hour. */
export function hourlySharpe(equity: readonly (readonly [number, bigint])[], startedAt: number, sampleMs: number): number | null {
  const rets = regularReturns(equity, startedAt, sampleMs);
  if (rets.length < 2) return null;
  const mean = rets.reduce((a, b) => a + b, 0) / rets.length;
  const sd = Math.sqrt(rets.reduce((a, r) => a + (r - mean) ** 2, 0) / (rets.length - 1));
  return sd > 0 ? (mean / sd) * Math.sqrt(HOUR_MS / sampleMs) : null;
}

/** The per-hour return distribution of an equity curve (lamports), hours counted from `startedAt`. */
export function hourlyReturns(equity: readonly (readonly [number, bigint])[], startedAt: number, sampleMs: number): HourlyReturns {
  // Equity at each hour boundary: the last sample at or before it; the run's last sample closes the last (partial) hour only when no hour is complete.
  const marks: bigint[] = [];
  let k = 0;
  const first = equity[0];
  const lastSample = equity[equity.length - 1];
  if (first && lastSample) {
    marks.push(first[1]);
    for (let h = startedAt + HOUR_MS; h <= lastSample[0]; h += HOUR_MS) {
      while (k + 1 < equity.length && equity[k + 1]![0] <= h) k++;
      marks.push(equity[k]![1]);
    }
    if (marks.length === 1) marks.push(lastSample[1]);
  }
  const rets: number[] = [];
  for (let i = 1; i < marks.length; i++) if (marks[i - 1]! > 0n) rets.push(ratio(marks[i]! - marks[i - 1]!, marks[i - 1]!) * 100);
  const sorted = [...rets].sort((a, b) => a - b);
  const n = rets.length;
  return {
    hours: n,
    meanPct: n ? rets.reduce((a, b) => a + b, 0) / n : null,
    medianPct: quantile(sorted, 0.5),
    p5Pct: quantile(sorted, 0.05),
    p95Pct: quantile(sorted, 0.95),
    worstPct: sorted[0] ?? null,
    bestPct: sorted[n - 1] ?? null,
    positivePct: n ? (rets.filter((r) => r > 0).length * 100) / n : null,
    hourlySharpe: hourlySharpe(equity, startedAt, sampleMs),
  };
}
