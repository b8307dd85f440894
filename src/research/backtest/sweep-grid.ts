/**
 * The parameter grid of a sweep: `--set 'strategies[curve-momentum].params.milestonePct=40,50,60'`
 * names a path in the deployment file (config/overrides.ts: `strategies[ID]` picks the strategy by
 * its `id:`, by the strategy's own id, or by `use`; `[N]` picks by position) and its values; the
 * cells are every combination, in a fixed order. Each cell is the deployment file with those values set, validated like any file.
 */
import { ChainpilotError } from '../../core/index.js';
import { parseDeployment, parseSetScalar, type LoadedDeployment, type StrategyIds } from '../../config/index.js';

export interface SweepAxis {
  readonly path: string;
  readonly values: readonly (string | number | boolean)[];
}

export interface SweepCell {
  readonly index: number;
  readonly params: Readonly<Record<string, string | number | boolean>>;
}

const bad = (msg: string): ChainpilotError => new ChainpilotError('BACKTEST_INVALID_OPTION', msg, { retry: 'not_retryable', context: { field: 'set' } });

/** Parses one `--set PATH=V1,V2,...`. */
export function parseSetOption(spec: string): SweepAxis {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw bad(`--set ${spec}: expected PATH=V1,V2,... such as strategies[curve-momentum].params.milestonePct=40,50,60`);
  const path = spec.slice(0, eq).trim();
  const values = spec
    .slice(eq + 1)
    .split(',')
    .filter((v) => v.trim().length > 0)
    .map(parseSetScalar);
  if (values.length === 0) throw bad(`--set ${path}: give at least one value`);
  return { path, values };
}

/** How many cells the grid of `axes` has. */
export function gridSize(axes: readonly SweepAxis[]): number {
  return axes.reduce((n, a) => n * a.values.length, 1);
}

/** Cell `index` of the grid (first axis slowest), without building the others. */
export function cellAt(axes: readonly SweepAxis[], index: number): SweepCell {
  const params: Record<string, string | number | boolean> = {};
  let rest = index;
  for (let i = axes.length - 1; i >= 0; i--) {
    const a = axes[i]!;
    params[a.path] = a.values[rest % a.values.length]!;
    rest = Math.floor(rest / a.values.length);
  }
  const ordered: Record<string, string | number | boolean> = {};
  for (const a of axes) ordered[a.path] = params[a.path]!;
  return { index, params: ordered };
}

/** Every combination of the axes' values (the first axis varies slowest). */
export function gridCells(axes: readonly SweepAxis[]): SweepCell[] {
  let cells: Record<string, string | number | boolean>[] = [{}];
  for (const a of axes) cells = cells.flatMap((c) => a.values.map((v) => ({ ...c, [a.path]: v })));
  return cells.map((params, index) => ({ index, params }));
}

/** The deployment of `cell`: the file's text with the cell's values set, validated. `ids`: the strategies' own ids by position. */
export function cellDeployment(
  fileText: string,
  file: string,
  cell: SweepCell,
  env?: Readonly<Record<string, string | undefined>>,
  ids: StrategyIds = [],
): LoadedDeployment {
  const set = Object.entries(cell.params).map(([path, value]) => ({ path, value }));
  return parseDeployment(fileText, file, { set, strategyIds: ids, setErrorCode: 'BACKTEST_INVALID_OPTION', ...(env ? { env } : {}) });
}
