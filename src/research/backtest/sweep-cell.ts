/**
 * One sweep cell: a backtest of the cell's deployment over one or two windows of the recording,
 * reduced to the metrics a sweep ranks by. Used by the worker threads and by the in-process path.
 */
import type { ReportMetrics } from '../report/report-types.js';
import type { SilentRooms } from '../report/silent-rooms.js';
import type { Recording } from '../replay/recording-reader.js';
import { reportOf } from './backtest-job.js';
import { runBacktest } from './run-backtest.js';
import { silentRoomsOf } from './silent-rooms-of.js';
import { cellDeployment, type SweepCell } from './sweep-grid.js';

export type CellMetrics = Pick<
  ReportMetrics,
  'netPnlSol' | 'returnPct' | 'trades' | 'winRatePct' | 'profitFactor' | 'expectancySol' | 'maxDrawdownPct' | 'sharpe' | 'feesSol'
>;

export interface CellWindow {
  readonly name: 'full' | 'in-sample' | 'out-of-sample';
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

export interface CellJob {
  readonly file: string;
  readonly fileText: string;
  readonly windows: readonly CellWindow[];
  readonly sampleMs: number;
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export async function runCell(job: CellJob, recording: Recording, cell: SweepCell): Promise<CellResult> {
  const loaded = cellDeployment(job.fileText, job.file, cell, job.env);
  const windows: Record<string, CellMetrics & { fingerprint: string }> = {};
  const silent = new Set<string>();
  for (const w of job.windows) {
    const r = await runBacktest({
      loaded,
      recording,
      sampleMs: job.sampleMs,
      ...(w.fromMs !== undefined ? { fromMs: w.fromMs } : {}),
      ...(w.toMs !== undefined ? { toMs: w.toMs } : {}),
    });
    const rep = reportOf(r, recording, loaded, job.sampleMs);
    for (const room of r.feed.silentRooms) silent.add(room);
    const m = rep.metrics;
    windows[w.name] = {
      netPnlSol: m.netPnlSol,
      returnPct: m.returnPct,
      trades: m.trades,
      winRatePct: m.winRatePct,
      profitFactor: m.profitFactor,
      expectancySol: m.expectancySol,
      maxDrawdownPct: m.maxDrawdownPct,
      sharpe: m.sharpe,
      feesSol: m.feesSol,
      fingerprint: rep.fingerprint,
    };
  }
  const loud = silentRoomsOf([...silent].sort(), recording);
  return { index: cell.index, params: cell.params, windows, ...(loud.kinds.length > 0 ? { silentRooms: loud } : {}) };
}
