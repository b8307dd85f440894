/**
 * One sweep task: a backtest of one cell's deployment over some windows of the recording, each
 * from a fresh portfolio, reduced to the metrics a sweep ranks by. Run by the worker threads, by
 * `chainpilot worker --sweeps` processes, and by the in-process path; the result depends only on the
 * task and the recording.
 */
import type { LoadedDeployment, StrategyIds } from '../../config/index.js';
import type { WindowMetrics } from '../../engine/strategy/param-space.js';
import type { SilentRooms } from '../report/silent-rooms.js';
import type { Recording } from '../replay/recording-reader.js';
import { computeMetrics } from '../report/compute-report.js';
import { hourlySharpe } from '../report/short-run-metrics.js';
import { runFingerprint } from './backtest-job.js';
import { runBacktest } from './run-backtest.js';
import { silentRoomsOf } from './silent-rooms-of.js';
import { cellDeployment, type SweepCell } from './sweep-grid.js';

export type CellMetrics = WindowMetrics;

/** A part of the recording, run-clock times inclusive at both ends (windows of one fold never share an instant). */
export interface CellWindow {
  readonly name: string;
  readonly fromMs?: number;
  readonly toMs?: number;
}

export interface CellResult {
  readonly index: number;
  readonly params: SweepCell['params'];
  readonly windows: Readonly<Record<string, CellMetrics & { readonly fingerprint: string }>>;
  /** Joined rooms of kinds the recording never holds, over all windows (absent when none). */
  readonly silentRooms?: SilentRooms;
}

/** What every task of one sweep shares: the deployment file (path and text) and the sampling interval. */
export interface CellJob {
  readonly file: string;
  readonly fileText: string;
  readonly sampleMs: number;
  /** For `${VAR}` in the deployment; never put on a queue (workers use their own environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The strategies' own ids by position, for `strategies[ID]` paths (config/overrides.ts). */
  readonly strategyIds?: StrategyIds;
}

/** One unit of work: a cell and the windows to run it on. */
export interface CellTask {
  readonly cell: SweepCell;
  readonly windows: readonly CellWindow[];
}

/** Deployments of cells already parsed and validated in this thread (the sweep's check of its starting cells), by cell index. */
export type KnownDeployments = ReadonlyMap<number, LoadedDeployment>;

/** Runs `task`; its cell's deployment comes from `known` when this thread has it already (the same value `cellDeployment` gives). */
export async function runCell(job: CellJob, recording: Recording, task: CellTask, known?: KnownDeployments): Promise<CellResult> {
  const { cell } = task;
  const loaded = known?.get(cell.index) ?? cellDeployment(job.fileText, job.file, cell, job.env, job.strategyIds);
  const windows: Record<string, CellMetrics & { fingerprint: string }> = {};
  const silent = new Set<string>();
  for (const w of task.windows) {
    const r = await runBacktest({
      loaded,
      recording,
      sampleMs: job.sampleMs,
      ...(w.fromMs !== undefined ? { fromMs: w.fromMs } : {}),
      ...(w.toMs !== undefined ? { toMs: w.toMs } : {}),
    });
    // the report's metrics and fingerprint without the rest of a report (trade rows, tables, charts: unused here)
    const m = computeMetrics({
      decisions: r.decisions,
      equity: r.equity,
      drawdown: r.drawdown,
      openPositions: r.openPositions,
      startingLamports: r.deployment.paper.startingBalanceLamports,
      startedAt: r.startedAt,
      endedAt: r.endedAt,
      sampleMs: job.sampleMs,
    });
    for (const room of r.feed.silentRooms) silent.add(room);
    windows[w.name] = {
      netPnlSol: m.netPnlSol,
      returnPct: m.returnPct,
      trades: m.trades,
      winRatePct: m.winRatePct,
      profitFactor: m.profitFactor,
      expectancySol: m.expectancySol,
      maxDrawdownPct: m.maxDrawdownPct,
      sharpe: m.sharpe,
      hourlySharpe: hourlySharpe(r.equity, r.startedAt, job.sampleMs),
      feesSol: m.feesSol,
      fingerprint: runFingerprint(recording, loaded.deployment, r.decisionLogSha256),
    };
  }
  const loud = silentRoomsOf([...silent].sort(), recording);
  return { index: cell.index, params: cell.params, windows, ...(loud.kinds.length > 0 ? { silentRooms: loud } : {}) };
}
