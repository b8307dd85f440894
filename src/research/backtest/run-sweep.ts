/**
 * `chainpilot sweep`: runs the grid of a deployment's parameters over one recording on worker
 * threads (one per core by default; each loads the recording once, from the prepared cache the
 * sweep built first), ranks the cells by a metric and writes sweep.json, sweep.csv and sweep.html.
 * Results depend only on the cells, never on the number of workers or their timing: each cell is
 * deterministic and results are ordered by cell.
 * `walkForward` splits the window into an in-sample and an out-of-sample part and reports both.
 */
import { availableParallelism } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { siblingModule, startModuleWorker } from '../../runtime/module-worker.js';
import { ChainpilotError } from '../../core/index.js';
import { renderSweepCsv, renderSweepHtml, type SweepOutput } from '../report/sweep-output.js';
import { loadRecording } from './backtest-job.js';
import { runCell, type CellJob, type CellResult, type CellWindow } from './sweep-cell.js';
import { cellDeployment, gridCells, type SweepAxis, type SweepCell } from './sweep-grid.js';

export const SWEEP_METRICS = ['profitFactor', 'netPnlSol', 'returnPct', 'winRatePct', 'expectancySol', 'sharpe', 'maxDrawdownPct'] as const;
export type SweepMetric = (typeof SWEEP_METRICS)[number];

export interface SweepOptions {
  readonly file: string;
  readonly data: readonly string[];
  readonly axes: readonly SweepAxis[];
  readonly outDir: string;
  readonly metric?: SweepMetric;
  readonly minTrades?: number;
  /** Worker threads (default: available cores; 0 runs in this thread). */
  readonly workers?: number;
  /** In-sample share in percent, e.g. 70 for `--walk-forward 70/30`. */
  readonly walkForwardPct?: number;
  readonly sampleMs?: number;
  /** Use the recording's prepared cache, building it on first use (default true); workers read it too. */
  readonly cache?: boolean;
  readonly cacheDir?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly onCell?: (done: number, total: number) => void;
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

/** What a sweep worker reads: the recording's files and how (through the prepared cache or not). */
export interface SweepWorkerData {
  readonly job: CellJob;
  readonly data: readonly string[];
  readonly cache: boolean;
  readonly cacheDir: string | undefined;
}

async function runOnWorkers(n: number, init: SweepWorkerData, cells: readonly SweepCell[], onResult: (r: CellResult) => void): Promise<void> {
  const queue = [...cells];
  const entry = siblingModule('sweep-worker', import.meta.url);
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const w = startModuleWorker(entry, { ...init });
      const next = (): void => {
        const cell = queue.shift();
        if (cell) w.postMessage({ cell });
        else {
          w.postMessage({ done: true });
          void w.terminate().then(() => resolve());
        }
      };
      w.on('message', (m: { ready?: boolean; result?: CellResult; error?: { index: number; message: string } }) => {
        if (m.error) {
          void w.terminate();
          reject(bad(`sweep cell ${m.error.index} failed: ${m.error.message}`, 'set'));
          return;
        }
        if (m.result) onResult(m.result);
        next();
      });
      w.on('error', (e) => reject(e));
    });
  await Promise.all(Array.from({ length: Math.min(n, cells.length) }, one));
}

/** Value of `metric` for ranking (higher is better; drawdown is negated); null ranks last. */
function score(r: CellResult, window: string, metric: SweepMetric): number | null {
  const w = r.windows[window];
  if (!w) return null;
  const v = w[metric];
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- cells read back from JSON may lack a metric
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return metric === 'maxDrawdownPct' ? -n : n;
}

export async function runSweep(o: SweepOptions): Promise<SweepOutput> {
  if (o.axes.length === 0) throw bad('sweep: give at least one --set PATH=V1,V2', 'set');
  const metric = o.metric ?? 'profitFactor';
  const minTrades = o.minTrades ?? 5;
  const fileText = readFileSync(o.file, 'utf8');
  const cells = gridCells(o.axes);
  // Validate every cell's deployment up front: a bad value fails before any work starts.
  for (const c of cells) cellDeployment(fileText, o.file, c, o.env);
  const { recording } = loadRecording(o.data, o.cache, o.cacheDir);
  const lines = recording.lines;
  const first = lines.find((l) => l.kind === 'start')?.t ?? recording.files[0]?.header.startedAt ?? 0;
  const last = lines.findLast((l) => l.kind === 'end')?.t ?? lines[lines.length - 1]?.t ?? first;
  let windows: CellWindow[] = [{ name: 'full' }];
  let split: number | undefined;
  if (o.walkForwardPct !== undefined) {
    split = first + Math.floor(((last - first) * o.walkForwardPct) / 100);
    windows = [
      { name: 'in-sample', toMs: split },
      { name: 'out-of-sample', fromMs: split },
    ];
  }
  const job: CellJob = { file: o.file, fileText, windows, sampleMs: o.sampleMs ?? 60_000, ...(o.env ? { env: o.env } : {}) };
  const results: CellResult[] = [];
  const onResult = (r: CellResult): void => {
    results.push(r);
    o.onCell?.(results.length, cells.length);
  };
  const workers = o.workers ?? availableParallelism();
  if (workers <= 0) for (const c of cells) onResult(await runCell(job, recording, c));
  else await runOnWorkers(workers, { job, data: o.data, cache: o.cache ?? true, cacheDir: o.cacheDir }, cells, onResult);
  results.sort((a, b) => a.index - b.index);

  const rankWindow = windows[0]!.name;
  const ranked = [...results].sort((a, b) => {
    const ea = (a.windows[rankWindow]?.trades ?? 0) >= minTrades ? 0 : 1;
    const eb = (b.windows[rankWindow]?.trades ?? 0) >= minTrades ? 0 : 1;
    if (ea !== eb) return ea - eb;
    const sa = score(a, rankWindow, metric);
    const sb = score(b, rankWindow, metric);
    if (sa === null || sb === null) return sa === sb ? a.index - b.index : sa === null ? 1 : -1;
    return sb - sa || a.index - b.index;
  });
  const output: SweepOutput = {
    kind: 'chainpilot-sweep',
    format: 1,
    deployment: o.file,
    metric,
    minTrades,
    axes: o.axes.map((a) => ({ path: a.path, values: [...a.values] })),
    windows: windows.map((w) => w.name),
    split: split ?? null,
    recordings: recording.files.map((f) => f.sha256),
    cells: results,
    ranking: ranked.map((r) => r.index),
  };
  mkdirSync(o.outDir, { recursive: true });
  writeFileSync(join(o.outDir, 'sweep.json'), `${JSON.stringify(output, null, 1)}\n`);
  writeFileSync(join(o.outDir, 'sweep.csv'), renderSweepCsv(output));
  writeFileSync(join(o.outDir, 'sweep.html'), renderSweepHtml(output));
  return output;
}
