/**
 * What a run's equity says (docs/backtesting.md gives every formula): the chart rows (SOL and
 * percent below the running peak), the drawdown, Sharpe and Sortino over the regular samples
 * (n/a for short or flat runs), and exposure, the time with at least one trade open. Equity stays
 * bigint lamports; only ratios and chart points are floats.
 */
import { createDrawdownTracker, type DrawdownResult } from './drawdown.js';
import { ratioHalfEven } from './round.js';
import { regularReturns } from './short-run-metrics.js';

const DAY_MS = 86_400_000;
const YEAR_MS = 365 * DAY_MS;

export interface EquityInput {
  /** Samples `[at, lamports]`, in time order. */
  readonly equity: readonly (readonly [number, bigint])[];
  readonly startingLamports: bigint;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly sampleMs: number;
  /** Sharpe and Sortino are n/a for runs shorter than this (default 7 days). */
  readonly minRatioSpanMs?: number;
  /** Drawdown over every fill and price change (a backtest tracks it); default: from the equity samples. */
  readonly drawdown?: DrawdownResult;
}

export interface EquityStats {
  /** `[at, SOL, percent below the running peak (≤ 0)]` per sample. */
  readonly rows: [number, number, number][];
  /** The last sample's equity (the starting equity without samples). */
  readonly endingLamports: bigint;
  readonly drawdown: DrawdownResult;
  readonly sharpe: number | null;
  readonly sortino: number | null;
  /** Why a ratio is n/a, when one is. */
  readonly ratioNote: string | null;
}

/** Chart rows, drawdown and annualised ratios of `i.equity`. */
export function equityStats(i: EquityInput): EquityStats {
  const eq = i.equity;
  let peak = eq[0]?.[1] ?? i.startingLamports;
  const sampled = createDrawdownTracker(eq[0]?.[0] ?? i.startedAt, peak);
  const rows: [number, number, number][] = [];
  for (const [at, v] of eq) {
    sampled.observe(at, v);
    if (v > peak) peak = v;
    rows.push([at, Number(v) / 1e9, peak > 0n ? -ratioHalfEven((peak - v) * 100n, peak) : 0]);
  }
  const drawdown = i.drawdown ?? sampled.result(eq[eq.length - 1]?.[0] ?? i.endedAt);
  return { rows, endingLamports: eq[eq.length - 1]?.[1] ?? i.startingLamports, drawdown, ...ratios(i) };
}

/** Sharpe and Sortino of the returns between regular samples (one per instant), annualised; n/a below the minimum span. */
function ratios(i: EquityInput): Pick<EquityStats, 'sharpe' | 'sortino' | 'ratioNote'> {
  const span = i.endedAt - i.startedAt;
  const minSpan = i.minRatioSpanMs ?? 7 * DAY_MS;
  const rets = regularReturns(i.equity, i.startedAt, i.sampleMs);
  if (span < minSpan) {
    const note = `n/a: the run spans ${(span / DAY_MS).toFixed(2)} days, below the ${(minSpan / DAY_MS).toFixed(0)}-day minimum for annualised ratios`;
    return { sharpe: null, sortino: null, ratioNote: note };
  }
  if (rets.length < 2) return { sharpe: null, sortino: null, ratioNote: 'n/a: fewer than two equity returns' };
  const mean = rets.reduce((a, b) => a + b, 0) / rets.length;
  const sd = Math.sqrt(rets.reduce((a, r) => a + (r - mean) ** 2, 0) / (rets.length - 1));
  const down = Math.sqrt(rets.reduce((a, r) => a + Math.min(r, 0) ** 2, 0) / rets.length);
  const annual = Math.sqrt(YEAR_MS / i.sampleMs);
  const sharpe = sd > 0 ? (mean / sd) * annual : null;
  const sortino = down > 0 ? (mean / down) * annual : null;
  return { sharpe, sortino, ratioNote: sharpe === null || sortino === null ? 'n/a where equity never moved (or never fell, for Sortino)' : null };
}

/** Milliseconds of the run with at least one of `spans` (`[opened, closed]`) open. */
export function exposedMs(spans: readonly (readonly [number, number])[]): number {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let exposed = 0;
  let curS = -Infinity;
  let curE = -Infinity;
  for (const [s, e] of sorted) {
    if (s > curE) {
      if (curE > curS) exposed += curE - curS;
      curS = s;
      curE = e;
    } else curE = Math.max(curE, e);
  }
  if (curE > curS) exposed += curE - curS;
  return exposed;
}
