/**
 * `chainpilot paper FILE`: runs a deployment in paper mode through its handle. With simulator
 * endpoints (the default) the embedded simulator runs in process and its clock is the run's; with
 * remote endpoints it trades on the real service's live feed. A thin shell (run-shell.ts): status
 * panel, signals, drain, summary and exit status.
 */
import type { RunSummary } from '../../engine/logs/engine-stats.js';
import type { ShutdownReport } from '../handle/deployment-handle.js';
import { runShell, type ShellOptions } from './run-shell.js';

export interface RunPaperOptions extends ShellOptions {
  /** Overrides `endpoints.simulator.speed`. */
  readonly speed?: number | 'max';
  /** Seed of the engine's ids and of the simulator (overrides `endpoints.simulator.seed`). */
  readonly seed?: number;
}

/** The run summary, with the shutdown report and the exit status the CLI should use. */
export type PaperRunResult = RunSummary & { readonly report: ShutdownReport; readonly exitCode: number; readonly problem: string | undefined };

/** Runs a deployment in paper mode until a signal, `durationMs`, `signal` or a fatal error. */
export async function runPaper(o: RunPaperOptions): Promise<PaperRunResult> {
  const r = await runShell(
    o,
    {
      mode: 'paper',
      ...(o.speed !== undefined ? { speed: o.speed } : {}),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
    },
    (loaded, handle) =>
      `chainpilot paper: ${loaded.deployment.name} with ${handle.startInfo()?.strategies.join(', ') ?? ''} on ${handle.startInfo()?.where ?? ''}`,
  );
  return { ...r.report.summary, report: r.report, exitCode: r.exitCode, problem: r.problem };
}
