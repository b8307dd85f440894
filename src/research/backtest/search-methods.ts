/**
 * The search methods of a sweep, run in rounds over a task runner (in process, worker threads or
 * BullMQ workers); each round's results are merged by cell index and window name, so what is
 * selected depends only on the seed, never on the number of workers or their timing.
 *
 * - `grid`: every cell of the axes.
 * - `random`: `budget` distinct cells drawn with the seed.
 * - `halving` (successive halving, η = 3): `budget` cells drawn with the seed run on the last ninth
 *   (say) of each fold's in-sample window; the best third by the objective go on to a window three
 *   times longer, and so on up to the whole in-sample window; the minimum-trades guard is scaled by
 *   the window's share. Every fold prunes on its own in-sample data only.
 *
 * Selection is on in-sample only: in each fold the best cell on its in-sample window is run on the
 * fold's out-of-sample window, and those results are the sweep's headline.
 */
import { ChainpilotError, seededRandom } from '../../core/index.js';
import type { SilentRooms } from '../report/silent-rooms.js';
import type { CellResult, CellTask, CellWindow } from './sweep-cell.js';
import { cellAt, gridSize, type SweepAxis, type SweepCell } from './sweep-grid.js';
import { rankBy, scoreOf, type Objective } from './sweep-objective.js';
import type { Fold } from './walk-forward.js';

export const SEARCH_METHODS = ['grid', 'random', 'halving'] as const;
export type SearchMethod = (typeof SEARCH_METHODS)[number];
export const DEFAULT_BUDGET = 27;
const ETA = 3;
/** A grid bigger than this is refused (use random or halving). */
const MAX_GRID = 100_000;

export type RunTasks = (tasks: readonly CellTask[]) => Promise<readonly CellResult[]>;

export interface SearchFold {
  readonly n: number;
  readonly inSample: CellWindow & { readonly fromMs: number; readonly toMs: number };
  readonly outOfSample: CellWindow | null;
}

/** Every cell's merged windows, in the order windows were first run. */
export interface SearchState {
  readonly cells: Map<
    number,
    { index: number; params: SweepCell['params']; windows: Record<string, CellResult['windows'][string]>; silentRooms?: SilentRooms }
  >;
  readonly windowOrder: string[];
}

export interface FoldSelection {
  readonly n: number;
  /** The selected cell (best in-sample), or null when no cell ran. */
  readonly selected: number | null;
  readonly inSampleScore: number | null;
}

const bad = (msg: string, field: string): ChainpilotError =>
  new ChainpilotError('BACKTEST_INVALID_OPTION', msg, { retry: 'not_retryable', context: { field } });

/** The cells a method starts from: the whole grid, or `budget` distinct cells drawn with `seed` (in cell order). */
export function startingCells(axes: readonly SweepAxis[], method: SearchMethod, budget: number, seed: number): SweepCell[] {
  const size = gridSize(axes);
  if (method === 'grid') {
    if (size > MAX_GRID) throw bad(`the grid has ${size} cells (more than ${MAX_GRID}); use --search random or halving with a --budget`, 'search');
    return Array.from({ length: size }, (_, i) => cellAt(axes, i));
  }
  if (!Number.isSafeInteger(budget) || budget < 1) throw bad(`--budget ${budget}: expected a positive integer`, 'budget');
  const n = Math.min(budget, size);
  // Partial Fisher–Yates over [0, size) with a sparse swap map: O(n) whatever the grid's size.
  const random = seededRandom(`sweep:${seed}`);
  const swapped = new Map<number, number>();
  const picked: number[] = [];
  for (let i = 0; i < n; i++) {
    const j = random.int(i, size - 1);
    const vi = swapped.get(i) ?? i;
    const vj = swapped.get(j) ?? j;
    swapped.set(j, vi);
    picked.push(vj);
  }
  return picked.sort((a, b) => a - b).map((i) => cellAt(axes, i));
}

/** One cell's silent rooms over the windows it ran on: each kind once, with the most rooms any window joined. */
function mergeSilentRooms(a: SilentRooms | undefined, b: SilentRooms): SilentRooms {
  if (!a) return b;
  const byKind = new Map(a.kinds.map((k) => [k.kind, k]));
  for (const k of b.kinds) if ((byKind.get(k.kind)?.rooms ?? -1) < k.rooms) byKind.set(k.kind, k);
  return { kinds: [...byKind.values()].sort((x, y) => (x.kind < y.kind ? -1 : x.kind > y.kind ? 1 : 0)), quiet: Math.max(a.quiet, b.quiet) };
}

function merge(state: SearchState, results: readonly CellResult[]): void {
  for (const r of results) {
    const c = state.cells.get(r.index) ?? { index: r.index, params: r.params, windows: {} };
    for (const [w, m] of Object.entries(r.windows)) {
      if (!state.windowOrder.includes(w)) state.windowOrder.push(w);
      c.windows[w] = m;
    }
    if (r.silentRooms) c.silentRooms = mergeSilentRooms(c.silentRooms, r.silentRooms);
    state.cells.set(r.index, c);
  }
}

/** Tasks of one round: (cell, window) pairs grouped by cell, in cell order. */
function tasksOf(pairs: readonly (readonly [SweepCell, CellWindow])[]): CellTask[] {
  const byCell = new Map<number, { cell: SweepCell; windows: CellWindow[] }>();
  for (const [cell, w] of pairs) {
    const t = byCell.get(cell.index) ?? { cell, windows: [] };
    t.windows.push(w);
    byCell.set(cell.index, t);
  }
  return [...byCell.values()].sort((a, b) => a.cell.index - b.cell.index);
}

function best(state: SearchState, cells: readonly SweepCell[], window: string, o: Objective, tradeScale = 1): SweepCell[] {
  return rankBy(cells, o, (c) => state.cells.get(c.index)?.windows[window], tradeScale);
}

/** Runs `method` from `start` over `folds`; returns every cell's windows and each fold's selection. */
export async function runSearch(
  method: SearchMethod,
  start: readonly SweepCell[],
  folds: readonly SearchFold[],
  objective: Objective,
  run: RunTasks,
): Promise<{ readonly state: SearchState; readonly selections: readonly FoldSelection[] }> {
  const state: SearchState = { cells: new Map(), windowOrder: [] };
  const select = (f: SearchFold, pool: readonly SweepCell[]): FoldSelection => {
    const top = best(state, pool, f.inSample.name, objective)[0];
    return { n: f.n, selected: top?.index ?? null, inSampleScore: top ? scoreOf(objective, state.cells.get(top.index)?.windows[f.inSample.name]) : null };
  };
  if (method !== 'halving') {
    const pairs = start.flatMap((c) => folds.flatMap((f) => [[c, f.inSample] as const, ...(f.outOfSample ? [[c, f.outOfSample] as const] : [])]));
    merge(state, await run(tasksOf(pairs)));
    return { state, selections: folds.map((f) => select(f, start)) };
  }
  const rungs = Math.max(1, Math.ceil(Math.log(start.length) / Math.log(ETA) - 1e-9));
  let alive: SweepCell[][] = folds.map(() => [...start]);
  for (let r = 0; r < rungs; r++) {
    const share = ETA ** (r - (rungs - 1));
    const windows = folds.map((f): CellWindow => {
      if (r === rungs - 1) return f.inSample;
      const len = f.inSample.toMs - f.inSample.fromMs + 1;
      return { name: `${f.inSample.name}@${r}`, fromMs: f.inSample.toMs - Math.ceil(len * share) + 1, toMs: f.inSample.toMs };
    });
    merge(state, await run(tasksOf(folds.flatMap((_, k) => alive[k]!.map((c) => [c, windows[k]!] as const)))));
    if (r < rungs - 1)
      alive = alive.map((cells, k) => best(state, cells, windows[k]!.name, objective, share).slice(0, Math.max(1, Math.ceil(cells.length / ETA))));
  }
  const selections = folds.map((f, k) => select(f, alive[k]!));
  const outPairs = folds.flatMap((f, k) => {
    const sel = selections[k]!.selected;
    const cell = sel === null ? undefined : start.find((c) => c.index === sel);
    return cell && f.outOfSample ? [[cell, f.outOfSample] as const] : [];
  });
  if (outPairs.length > 0) merge(state, await run(tasksOf(outPairs)));
  return { state, selections };
}

/** Folds as the search sees them: walk-forward folds, or the whole recording as one in-sample window with no out-of-sample. */
export function searchFolds(folds: readonly Fold[] | null, firstMs: number, lastMs: number): SearchFold[] {
  if (folds) return folds.map((f) => ({ n: f.n, inSample: f.inSample, outOfSample: f.outOfSample }));
  return [{ n: 1, inSample: { name: 'full', fromMs: firstMs, toMs: lastMs }, outOfSample: null }];
}
