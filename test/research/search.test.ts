/**
 * The parts of a search that need no recording: parameter spaces, the seeded draw of cells, the
 * ranking with its minimum-trades guard, walk-forward windows, the sweep file, and the checks that
 * stop a sweep before any work.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { choice, range, spaceValues } from '../../src/engine/strategy/param-space.js';
import { startingCells } from '../../src/research/backtest/search-methods.js';
import { declaredAxes } from '../../src/research/backtest/search-space.js';
import { cellAt, gridCells, parseSetOption } from '../../src/research/backtest/sweep-grid.js';
import { BUILTIN_OBJECTIVES, loadObjective, rankBy } from '../../src/research/backtest/sweep-objective.js';
import { readSweepSpec } from '../../src/research/backtest/sweep-spec.js';
import { foldWindows } from '../../src/research/backtest/walk-forward.js';
import { windowMetrics as metrics } from '../helpers/sweep-fixture.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-search-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parameter spaces', () => {
  it('enumerate a decimal range without float drift, and choices as given', () => {
    expect(spaceValues(range(0.1, 0.5, 0.1))).toEqual([0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(spaceValues(range(30, 70, 15))).toEqual([30, 45, 60]);
    expect(spaceValues(choice('0.05', '0.1', true))).toEqual(['0.05', '0.1', true]);
    expect(() => range(5, 1, 1)).toThrow(expect.objectContaining({ code: 'CORE_INVALID_ARGUMENT' }));
  });

  it('a strategy declaring values its own schema refuses stops the sweep with BACKTEST_SPACE_INVALID', async () => {
    const strategy = join(dir, 'bad-space.mjs');
    writeFileSync(
      strategy,
      `import { z } from 'zod';
export default { id: 'bad-space', params: z.strictObject({ n: z.number().int().max(5).default(1) }), space: { n: { kind: 'range', min: 1, max: 9, step: 4 } } };\n`,
    );
    const deployment = join(dir, 'bad-space.yaml');
    writeFileSync(deployment, `version: 1\nname: bad\nendpoints:\n  simulator: { seed: 1 }\nstrategies:\n  - use: ./bad-space.mjs\n`);
    await expect(declaredAxes(deployment)).rejects.toMatchObject({ code: 'BACKTEST_SPACE_INVALID', message: expect.stringContaining('9') });
  });
});

describe('the cells a search starts from', () => {
  const axes = [parseSetOption('a=1,2,3'), parseSetOption('b=x,y'), parseSetOption('c=true,false')];

  it('cellAt gives the grid cell of an index without building the grid', () => {
    const grid = gridCells(axes);
    expect(grid.map((c) => cellAt(axes, c.index))).toEqual(grid);
  });

  it('random draws budget distinct cells, the same for a seed and different for another', () => {
    const a = startingCells(axes, 'random', 5, 7);
    expect(a.length).toBe(5);
    expect(new Set(a.map((c) => c.index)).size).toBe(5);
    expect(startingCells(axes, 'random', 5, 7)).toEqual(a);
    expect(startingCells(axes, 'random', 5, 8).map((c) => c.index)).not.toEqual(a.map((c) => c.index));
    expect(startingCells(axes, 'random', 99, 7).length).toBe(12);
    // A huge space is sampled without enumerating it.
    const huge = Array.from({ length: 8 }, (_, i) => parseSetOption(`p${i}=1,2,3,4,5,6,7,8,9,10`));
    expect(startingCells(huge, 'random', 4, 1).length).toBe(4);
    expect(() => startingCells(huge, 'grid', 4, 1)).toThrow(expect.objectContaining({ code: 'BACKTEST_INVALID_OPTION' }));
  });
});

describe('objectives', () => {
  it('rank cells under the minimum-trades guard after the others, n/a last, ties by cell index', async () => {
    const o = await loadObjective('calmar', 5, dir);
    const items = [
      { index: 0, m: metrics({ returnPct: 10, maxDrawdownPct: 5 }) }, // 2
      { index: 1, m: metrics({ returnPct: 50, maxDrawdownPct: 5, trades: 2 }) }, // 10 but too few trades
      { index: 2, m: metrics({ returnPct: 9, maxDrawdownPct: 1 }) }, // 9
      { index: 3, m: metrics({ trades: 0 }) }, // n/a
      { index: 4, m: metrics({ returnPct: 18, maxDrawdownPct: 2 }) }, // 9, ties with 2
    ];
    expect(rankBy(items, o, (i) => i.m).map((i) => i.index)).toEqual([2, 4, 0, 1, 3]);
    expect(BUILTIN_OBJECTIVES['calmar']!(metrics({ returnPct: 1, maxDrawdownPct: 0 }))).toBe(100);
    expect(BUILTIN_OBJECTIVES['sharpe']!(metrics({ sharpe: null, hourlySharpe: 0.4 }))).toBe(0.4);
  });

  it('loads an objective exported by a TypeScript strategy file', async () => {
    writeFileSync(
      join(dir, 'with-objective.ts'),
      `import type { WindowMetrics } from '${process.cwd()}/src/strategies/api.js';
export function objective(m: WindowMetrics): number | null { return m.trades < 2 ? null : Number(m.netPnlSol) / m.trades; }
`,
    );
    const o = await loadObjective('./with-objective.ts#objective', 0, dir);
    expect(o.fn(metrics({ netPnlSol: '0.3', trades: 3 }))).toBeCloseTo(0.1, 12);
    expect(o.fn(metrics({ trades: 1 }))).toBeNull();
  });

  it('refuses an unknown name and a module without the named function', async () => {
    await expect(loadObjective('bestest', 1, dir)).rejects.toMatchObject({ code: 'BACKTEST_INVALID_OPTION' });
    writeFileSync(join(dir, 'obj.mjs'), 'export const notAFunction = 3;\n');
    await expect(loadObjective('./obj.mjs#notAFunction', 1, dir)).rejects.toMatchObject({ code: 'BACKTEST_INVALID_OPTION' });
  });
});

describe('walk-forward windows', () => {
  it('tile the out-of-sample part with disjoint windows, each in-sample window ending right before its own', () => {
    const folds = foldWindows(0, 10_000, { folds: 3, inSamplePct: 70, mode: 'rolling' });
    expect(folds.map((f) => [f.inSample.fromMs, f.inSample.toMs, f.outOfSample.fromMs, f.outOfSample.toMs])).toEqual([
      [0, 6_999, 7_000, 7_999],
      [1_000, 7_999, 8_000, 8_999],
      [2_000, 8_999, 9_000, 10_000],
    ]);
    expect(foldWindows(0, 10_000, { folds: 2, inSamplePct: 50, mode: 'anchored' }).map((f) => f.inSample.fromMs)).toEqual([0, 0]);
    expect(() => foldWindows(0, 3, { folds: 5, inSamplePct: 70, mode: 'rolling' })).toThrow(expect.objectContaining({ code: 'BACKTEST_INVALID_OPTION' }));
  });
});

describe('the sweep file', () => {
  it('reads search, objective, walk-forward and space, and refuses unknown keys', () => {
    const f = join(dir, 'sweep.yaml');
    writeFileSync(
      f,
      `search: halving\nbudget: 9\nseed: 4\nobjective: calmar\nminTrades: 2\nwalkForward: { folds: 3, inSample: 60, mode: anchored }\nspace:\n  risk.maxOpenPositions: { min: 2, max: 6, step: 2 }\n  strategies[curve-momentum].params.confirmMs: [2000, 5000]\n`,
    );
    expect(readSweepSpec(f)).toEqual({
      search: 'halving',
      budget: 9,
      seed: 4,
      objective: 'calmar',
      minTrades: 2,
      walkForward: { folds: 3, inSamplePct: 60, mode: 'anchored' },
      axes: [
        { path: 'risk.maxOpenPositions', values: [2, 4, 6] },
        { path: 'strategies[curve-momentum].params.confirmMs', values: [2000, 5000] },
      ],
    });
    writeFileSync(f, 'serach: grid\n');
    expect(() => readSweepSpec(f)).toThrow(expect.objectContaining({ code: 'BACKTEST_INVALID_OPTION', message: expect.stringContaining('serach') }));
  });
});
