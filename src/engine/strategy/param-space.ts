/**
 * Search spaces declared next to a strategy's parameters: `space: { milestonePct: range(30, 70, 10),
 * buySol: choice('0.05', '0.1') }` in `defineStrategy`. `chainpilot sweep` searches these (grid,
 * random or successive halving) when no `--set` is given. Imports nothing, so the strategy API stays
 * light.
 */
import { ChainpilotError } from '../../core/errors.js';

const invalid = (message: string): ChainpilotError => new ChainpilotError('CORE_INVALID_ARGUMENT', message, { retry: 'not_retryable' });

/** A value a sweep can set: what a deployment's `params:` block holds. */
export type ParamValue = string | number | boolean;

/** The values one parameter takes in a search: an inclusive range with a step, or a list of choices. */
export type ParamSpace =
  | { readonly kind: 'range'; readonly min: number; readonly max: number; readonly step: number }
  | { readonly kind: 'choice'; readonly values: readonly ParamValue[] };

/** `min, min + step, …` up to and including `max` (when the steps land on it). */
export function range(min: number, max: number, step: number): ParamSpace {
  if (!(Number.isFinite(min) && Number.isFinite(max) && Number.isFinite(step)) || step <= 0 || max < min)
    throw invalid(`range(${min}, ${max}, ${step}): expected finite min <= max and step > 0`);
  return Object.freeze({ kind: 'range', min, max, step });
}

/** One of the given values (at least one). */
export function choice(...values: readonly ParamValue[]): ParamSpace {
  if (values.length === 0) throw invalid('choice(): give at least one value');
  return Object.freeze({ kind: 'choice', values: Object.freeze([...values]) });
}

const decimalsOf = (n: number): number => {
  const s = String(n);
  const e = /e-(\d+)$/.exec(s);
  if (e) return Number(e[1]);
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
};

/** Every value of `space`, in order. A range's values are `min + i × step`, rounded to the inputs' decimals (no float drift). */
export function spaceValues(space: ParamSpace): ParamValue[] {
  if (space.kind === 'choice') return [...space.values];
  const digits = Math.max(decimalsOf(space.min), decimalsOf(space.step));
  const out: number[] = [];
  for (let i = 0; ; i++) {
    const v = Number((space.min + i * space.step).toFixed(digits));
    if (v > space.max + 1e-12) break;
    out.push(v);
    if (out.length > 100_000) throw invalid('range(): more than 100,000 values; use a larger step');
  }
  return out;
}

/**
 * What a sweep's objective sees of one window of one cell (the strategy file may export a function
 * of these: `export function objective(m: WindowMetrics): number | null`, higher is better).
 */
export interface WindowMetrics {
  /** Net PnL in SOL, an exact decimal string. */
  readonly netPnlSol: string;
  readonly returnPct: number;
  readonly trades: number;
  readonly winRatePct: number | null;
  readonly profitFactor: number | null;
  readonly expectancySol: string | null;
  readonly maxDrawdownPct: number;
  /** Annualised Sharpe, null under 7 days (see docs/backtesting.md). */
  readonly sharpe: number | null;
  /** Sharpe of the equity returns per sample, scaled to one hour (not annualised; null under two returns or flat equity). */
  readonly hourlySharpe: number | null;
  readonly feesSol: string;
}
