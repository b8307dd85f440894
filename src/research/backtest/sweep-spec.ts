/**
 * The sweep file (`chainpilot sweep DEPLOYMENT --spec sweep.yaml`): how to search, in one place
 * next to the deployment. Every key is optional; command-line options override it.
 *
 * ```yaml
 * search: halving          # grid | random | halving
 * budget: 27               # cells drawn (random, halving)
 * seed: 7
 * objective: calmar        # netPnl | sharpe | calmar | profitFactor | ... | ./strategy.ts#objective
 * minTrades: 5
 * walkForward: { folds: 3, inSample: 70, mode: rolling }   # mode: rolling | anchored
 * space:                   # axes; without them, the spaces the strategies declare
 *   strategies[curve-momentum].params.confirmMs: [2000, 5000]
 *   risk.maxOpenPositions: { min: 2, max: 6, step: 2 }
 * ```
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { ChainpilotError } from '../../core/index.js';
import { range, spaceValues } from '../../engine/strategy/param-space.js';
import { SEARCH_METHODS, type SearchMethod } from './search-methods.js';
import type { SweepAxis } from './sweep-grid.js';
import type { WalkForwardMode } from './walk-forward.js';

const scalar = z.union([z.string(), z.number(), z.boolean()]);
const specSchema = z.strictObject({
  search: z.enum(SEARCH_METHODS).optional(),
  budget: z.number().int().positive().optional(),
  seed: z.number().int().min(0).optional(),
  objective: z.string().min(1).optional(),
  minTrades: z.number().int().min(0).optional(),
  walkForward: z
    .strictObject({
      folds: z.number().int().min(1).max(50).default(1),
      inSample: z.number().int().min(10).max(90).default(70),
      mode: z.enum(['rolling', 'anchored']).default('rolling'),
    })
    .optional(),
  space: z.record(z.string(), z.union([z.array(scalar).min(1), z.strictObject({ min: z.number(), max: z.number(), step: z.number().positive() })])).optional(),
});

export interface SweepSpec {
  readonly search?: SearchMethod;
  readonly budget?: number;
  readonly seed?: number;
  readonly objective?: string;
  readonly minTrades?: number;
  readonly walkForward?: { readonly folds: number; readonly inSamplePct: number; readonly mode: WalkForwardMode };
  readonly axes: readonly SweepAxis[];
}

/** Reads and checks a sweep file; unknown keys are refused. */
export function readSweepSpec(path: string): SweepSpec {
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ChainpilotError('BACKTEST_INVALID_OPTION', `--spec ${path}: cannot read it (${e instanceof Error ? e.message : String(e)})`, {
      retry: 'not_retryable',
      context: { field: 'spec' },
    });
  }
  const r = specSchema.safeParse(raw ?? {});
  if (!r.success)
    throw new ChainpilotError(
      'BACKTEST_INVALID_OPTION',
      `--spec ${path}: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`,
      { retry: 'not_retryable', context: { field: 'spec' } },
    );
  const s = r.data;
  return {
    ...(s.search ? { search: s.search } : {}),
    ...(s.budget !== undefined ? { budget: s.budget } : {}),
    ...(s.seed !== undefined ? { seed: s.seed } : {}),
    ...(s.objective ? { objective: s.objective } : {}),
    ...(s.minTrades !== undefined ? { minTrades: s.minTrades } : {}),
    ...(s.walkForward ? { walkForward: { folds: s.walkForward.folds, inSamplePct: s.walkForward.inSample, mode: s.walkForward.mode } } : {}),
    axes: Object.entries(s.space ?? {}).map(([path, v]) => ({ path, values: Array.isArray(v) ? v : spaceValues(range(v.min, v.max, v.step)) })),
  };
}
