/**
 * `chainpilot sweep`: searches a deployment's parameters over one recording and writes sweep.json,
 * sweep.csv and sweep.html. The axes come from `--set`, the sweep file's `space:`, or the spaces the
 * strategies declare (search-space.ts); the method (grid, random, successive halving), the objective
 * and the walk-forward folds are in search-methods.ts, sweep-objective.ts and walk-forward.ts.
 * Tasks run on lanes: this thread and `workers − 1` worker threads, which open the recording this
 * thread loaded from shared memory (sweep-pool.ts, sweep-shared.ts); or on BullMQ workers
 * (`redisUrl`, sweep-queue.ts). Results depend only on the options and the recording, never on the
 * number of workers or their timing.
 */
import { availableParallelism } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ChainpilotError, decimal } from '../../core/index.js';
import { loadDeployment, picksByName, type LoadedDeployment } from '../../config/index.js';
import { resolveStrategies, strategyIdsOf } from '../../runtime/compose/resolve-strategies.js';
import { renderSweepCsv, renderSweepHtml, type SweepCellMetrics, type SweepOutput } from '../report/sweep-output.js';
import { loadRecording } from './backtest-job.js';
import { DEFAULT_BUDGET, runSearch, searchFolds, startingCells, type SearchMethod } from './search-methods.js';
import { declaredAxes } from './search-space.js';
import type { CellJob, CellWindow } from './sweep-cell.js';
import { cellDeployment, type SweepAxis } from './sweep-grid.js';
import { loadObjective, rankBy, scoreOf } from './sweep-objective.js';
import { inlineRunner, lanePool, type LanePool, type TaskRunner } from './sweep-pool.js';
import { missingRoomWarnings, type CellStrategies } from './sweep-room-check.js';
import { shareRecording } from './sweep-shared.js';
import { readSweepSpec } from './sweep-spec.js';
import { foldWindows, type WalkForwardMode } from './walk-forward.js';

export { parseWalkForward } from './walk-forward.js';

export interface SweepOptions {
  readonly file: string;
  readonly data: readonly string[];
  /** `--set` axes; with the spec's `space:` they replace the strategies' declared spaces. */
  readonly axes?: readonly SweepAxis[];
  readonly outDir: string;
  /** A sweep file (sweep-spec.ts); the options below override it. */
  readonly spec?: string;
  readonly search?: SearchMethod;
  readonly budget?: number;
  readonly seed?: number;
  /** A built-in objective (sweep-objective.ts) or `PATH#EXPORT`; default profitFactor. */
  readonly objective?: string;
  readonly minTrades?: number;
  /** Walk-forward folds (default 1 when an in-sample share is given; none otherwise). */
  readonly folds?: number;
  /** In-sample share in percent, e.g. 70 for `--walk-forward 70/30`. */
  readonly walkForwardPct?: number;
  readonly walkForwardMode?: WalkForwardMode;
  /**
   * Cells run at once (default: available cores): this thread and `workers − 1` worker threads; 0 or
   * 1 runs every cell in this thread. Ignored with `redisUrl`.
   */
  readonly workers?: number;
  /** Put the tasks on BullMQ at this Redis; `chainpilot worker --sweeps` processes run them. */
  readonly redisUrl?: string;
  readonly queuePrefix?: string;
  readonly sampleMs?: number;
  /** Use the recording's prepared cache, building it on first use (default true); workers get its bytes in shared memory. */
  readonly cache?: boolean;
  readonly cacheDir?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Before any cell runs, each warning: one per room kind starting cells join that the recording never holds. */
  readonly onWarning?: (line: string) => void;
  /** Each finished task: tasks done and known so far (a search adds rounds as it goes). */
  readonly onCell?: (done: number, total: number) => void;
}

const bad = (msg: string, field: string): ChainpilotError =>
  new ChainpilotError('BACKTEST_INVALID_OPTION', msg, { retry: 'not_retryable', context: { field } });

const sumSol = (xs: readonly string[]): string => xs.reduce((a, x) => a.plus(x), decimal(0)).toFixed();

export async function runSweep(o: SweepOptions): Promise<SweepOutput> {
  const spec = o.spec ? readSweepSpec(o.spec) : undefined;
  const method = o.search ?? spec?.search ?? 'grid';
  const seed = o.seed ?? spec?.seed ?? 1;
  const budget = o.budget ?? spec?.budget ?? DEFAULT_BUDGET;
  const objective = await loadObjective(
    o.objective ?? spec?.objective ?? 'profitFactor',
    o.minTrades ?? spec?.minTrades ?? 5,
    o.spec ? dirname(resolve(o.spec)) : process.cwd(),
  );
  const explicit = [...(spec?.axes ?? []), ...(o.axes ?? [])];
  const axes = explicit.length > 0 ? explicit : await declaredAxes(o.file, o.env);
  if (axes.length === 0) throw bad('sweep: nothing to search: give --set PATH=V1,V2, a space: in --spec, or declare space: in the strategy', 'set');
  const fileText = readFileSync(o.file, 'utf8');
  const strategyIds = picksByName(axes.map((a) => a.path)) ? await strategyIdsOf(o.file, fileText) : undefined;
  const start = startingCells(axes, method, budget, seed);
  const job: CellJob = {
    file: o.file,
    fileText,
    sampleMs: o.sampleMs ?? 60_000,
    ...(o.env ? { env: o.env } : {}),
    ...(strategyIds ? { strategyIds } : {}),
  };
  let done = 0;
  let known = 0;
  const onResult = (): void => o.onCell?.(++done, known);
  // No search round has more tasks than its first: lanes beyond that would never get one.
  const lanes = o.redisUrl ? 0 : Math.min(o.workers ?? availableParallelism(), start.length);
  // The worker threads start now: their modules load while this thread checks the cells and loads the recording.
  // The starting cells' deployments as the check below validates them: this thread's cells reuse them.
  const deployments = new Map<number, LoadedDeployment>();
  const pool = lanes >= 2 ? lanePool(lanes - 1, job, onResult, deployments) : undefined;
  try {
    return await sweepWith(o, {
      spec,
      method,
      seed,
      budget,
      objective,
      axes,
      start,
      job,
      pool,
      deployments,
      fileText,
      onResult,
      countTasks: (n) => (known += n),
    });
  } finally {
    await pool?.close();
  }
}

interface SweepPlan {
  readonly spec: ReturnType<typeof readSweepSpec> | undefined;
  readonly method: SearchMethod;
  readonly seed: number;
  readonly budget: number;
  readonly objective: Awaited<ReturnType<typeof loadObjective>>;
  readonly axes: readonly SweepAxis[];
  readonly start: ReturnType<typeof startingCells>;
  readonly job: CellJob;
  readonly pool: LanePool | undefined;
  /** Filled by the check of the starting cells, by cell index. */
  readonly deployments: Map<number, LoadedDeployment>;
  readonly fileText: string;
  readonly onResult: () => void;
  readonly countTasks: (n: number) => void;
}

async function sweepWith(o: SweepOptions, p: SweepPlan): Promise<SweepOutput> {
  const { spec, method, seed, budget, objective, axes, start, job, pool, deployments, fileText, onResult } = p;
  // Validate every starting cell up front (the deployment file, and each strategy's parameters): a bad value fails before any work starts.
  const resolved: CellStrategies[] = [];
  for (const cell of start) {
    const loaded = cellDeployment(fileText, o.file, cell, o.env, job.strategyIds);
    deployments.set(cell.index, loaded);
    resolved.push({ cell, strategies: await resolveStrategies(loaded) });
  }

  // With worker lanes the prepared bytes are loaded into shared memory once, and every lane opens them there.
  const loadedRecording = loadRecording(o.data, o.cache, o.cacheDir, { shared: pool !== undefined });
  const { recording } = loadedRecording;
  if (pool) pool.share(recording, shareRecording(loadedRecording));
  // before any cell runs: the cells whose strategies join rooms this recording never holds
  for (const line of missingRoomWarnings(resolved, recording)) o.onWarning?.(line);
  const { first, last } = recording.span;
  const wfSpec = spec?.walkForward;
  const wantWf = o.folds !== undefined || o.walkForwardPct !== undefined || wfSpec !== undefined;
  const walkForward = wantWf
    ? { folds: o.folds ?? wfSpec?.folds ?? 1, inSamplePct: o.walkForwardPct ?? wfSpec?.inSamplePct ?? 70, mode: o.walkForwardMode ?? wfSpec?.mode ?? 'rolling' }
    : null;
  const folds = searchFolds(walkForward ? foldWindows(first, last, walkForward) : null, first, last);

  let runner: TaskRunner;
  if (o.redisUrl) {
    // The deployment's text goes on the queue: refuse one that holds a secret itself rather than as ${VAR}.
    const { secrets } = loadDeployment(o.file, o.env ? { env: o.env } : {});
    if (secrets.some((x) => x.length > 0 && fileText.includes(x)))
      throw bad(
        `sweep --redis: ${o.file} holds a secret in its text, which would be put on the queue; write it as \${VAR} (workers substitute from their own environment)`,
        'redis',
      );
    const { queueRunner } = await import('./sweep-queue.js');
    runner = await queueRunner({ redisUrl: o.redisUrl, ...(o.queuePrefix ? { prefix: o.queuePrefix } : {}), job, data: o.data, recording, onResult });
  } else runner = pool ?? inlineRunner(job, recording, onResult, deployments);
  const windowsRun = new Map<string, CellWindow>();
  let search: Awaited<ReturnType<typeof runSearch>>;
  try {
    search = await runSearch(method, start, folds, objective, async (tasks) => {
      p.countTasks(tasks.length);
      for (const t of tasks) for (const w of t.windows) if (!windowsRun.has(w.name)) windowsRun.set(w.name, w);
      return runner.run(tasks);
    });
  } finally {
    await runner.close();
  }
  const { state, selections } = search;
  const cells = [...state.cells.values()]
    .sort((a, b) => a.index - b.index)
    .map((c) => {
      const windows: Record<string, SweepCellMetrics> = {};
      const scores: Record<string, number | null> = {};
      for (const w of state.windowOrder) {
        const m = c.windows[w];
        if (!m) continue;
        windows[w] = m;
        scores[w] = scoreOf(objective, m);
      }
      return { index: c.index, params: c.params, windows, scores, ...(c.silentRooms ? { silentRooms: c.silentRooms } : {}) };
    });
  const rankWindow = folds[folds.length - 1]!.inSample.name;
  const ranked = rankBy(
    cells.filter((c) => c.windows[rankWindow]),
    objective,
    (c) => c.windows[rankWindow],
  );
  const foldResults = folds.map((f, k) => {
    const sel = selections[k]!.selected;
    const cell = sel === null ? undefined : cells.find((c) => c.index === sel);
    const resultWindow = f.outOfSample?.name ?? f.inSample.name;
    return {
      n: f.n,
      inSample: f.inSample.name,
      outOfSample: f.outOfSample?.name ?? null,
      selected: sel,
      params: cell?.params ?? null,
      inSampleScore: selections[k]!.inSampleScore,
      result: cell?.windows[resultWindow] ?? null,
    };
  });
  const results = foldResults.map((f) => f.result).filter((r): r is SweepCellMetrics => r !== null);
  const output: SweepOutput = {
    kind: 'chainpilot-sweep',
    format: 2,
    deployment: o.file,
    search: { method, budget: method === 'grid' ? null : budget, seed },
    objective: { name: objective.name, minTrades: objective.minTrades },
    walkForward,
    axes: axes.map((a) => ({ path: a.path, values: [...a.values] })),
    windows: state.windowOrder.map((name) => ({ name, fromMs: windowsRun.get(name)?.fromMs ?? null, toMs: windowsRun.get(name)?.toMs ?? null })),
    folds: foldResults,
    headline: {
      outOfSample: walkForward !== null,
      netPnlSol: sumSol(results.map((r) => r.netPnlSol)),
      trades: results.reduce((a, r) => a + r.trades, 0),
      feesSol: sumSol(results.map((r) => r.feesSol)),
      foldsPositive: results.filter((r) => decimal(r.netPnlSol).gt(0)).length,
    },
    recordings: recording.files.map((f) => f.sha256),
    cells,
    rankWindow,
    ranking: [...ranked.map((c) => c.index), ...cells.filter((c) => !c.windows[rankWindow]).map((c) => c.index)],
  };
  mkdirSync(o.outDir, { recursive: true });
  writeFileSync(join(o.outDir, 'sweep.json'), `${JSON.stringify(output, null, 1)}\n`);
  writeFileSync(join(o.outDir, 'sweep.csv'), renderSweepCsv(output));
  writeFileSync(join(o.outDir, 'sweep.html'), renderSweepHtml(output));
  return output;
}
