/**
 * Walk-forward windows of a sweep. The recording's window `[first, last]` (run-clock ms) is cut as
 * follows: the in-sample length is `inSamplePct` of the span; the rest is split into `folds` equal
 * out-of-sample windows that follow each other. Fold `n`'s in-sample window ends the millisecond
 * before its out-of-sample window starts; it is the `inSamplePct` span right before it (`rolling`)
 * or everything from the start (`anchored`). Windows are inclusive at both ends, so no recorded line
 * is replayed in both the in-sample and the out-of-sample window of a fold, and out-of-sample
 * windows never overlap.
 */
import { ChainpilotError } from '../../core/index.js';
import type { CellWindow } from './sweep-cell.js';

export type WalkForwardMode = 'rolling' | 'anchored';

export interface WalkForwardOptions {
  readonly folds: number;
  /** In-sample share of the whole span, percent (10–90). */
  readonly inSamplePct: number;
  readonly mode: WalkForwardMode;
}

export interface Fold {
  /** 1-based. */
  readonly n: number;
  readonly inSample: CellWindow & { readonly fromMs: number; readonly toMs: number };
  readonly outOfSample: CellWindow & { readonly fromMs: number; readonly toMs: number };
}

const bad = (msg: string, field: string): ChainpilotError =>
  new ChainpilotError('BACKTEST_INVALID_OPTION', msg, { retry: 'not_retryable', context: { field } });

/** `70/30` → 70. */
export function parseWalkForward(v: string): number {
  const m = /^(\d{1,2})\/(\d{1,2})$/.exec(v.trim());
  if (!m || Number(m[1]) + Number(m[2]) !== 100 || Number(m[1]) < 10 || Number(m[2]) < 10)
    throw bad(`--walk-forward ${v}: expected IN/OUT percentages adding up to 100, each at least 10, e.g. 70/30`, 'walk-forward');
  return Number(m[1]);
}

/** The folds over `[firstMs, lastMs]`; see the module comment. */
export function foldWindows(firstMs: number, lastMs: number, o: WalkForwardOptions): Fold[] {
  if (!Number.isSafeInteger(o.folds) || o.folds < 1 || o.folds > 50) throw bad(`--folds ${o.folds}: expected 1 to 50`, 'folds');
  if (o.inSamplePct < 10 || o.inSamplePct > 90) throw bad(`walk-forward in-sample share ${o.inSamplePct}%: expected 10 to 90`, 'walk-forward');
  const span = lastMs - firstMs;
  const inMs = Math.floor((span * o.inSamplePct) / 100);
  const outMs = Math.floor((span - inMs) / o.folds);
  if (outMs < 1 || inMs < 1) throw bad(`the recording spans ${span} ms: too short for ${o.folds} folds`, 'folds');
  const folds: Fold[] = [];
  for (let i = 0; i < o.folds; i++) {
    const outFrom = firstMs + inMs + i * outMs;
    const outTo = i === o.folds - 1 ? lastMs : outFrom + outMs - 1;
    const inFrom = o.mode === 'anchored' ? firstMs : outFrom - inMs;
    folds.push({
      n: i + 1,
      inSample: { name: `fold${i + 1}-in`, fromMs: inFrom, toMs: outFrom - 1 },
      outOfSample: { name: `fold${i + 1}-out`, fromMs: outFrom, toMs: outTo },
    });
  }
  return folds;
}
