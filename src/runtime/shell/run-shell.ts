/**
 * The shell around a deployment handle for one process (fastify's app/server split): it owns the
 * signals, the terminal and the exit status; the handle owns the deployment.
 *
 * - SIGINT and SIGTERM (or `signal`, or `durationMs` of wall time) stop new intents and drain those
 *   in flight until each lands, fails or expires (`shutdown.drain` on the run clock); the
 *   per-intent report and the summary are printed. A second signal exits at once with 130.
 * - A fatal error (journal corruption, an impossible transition, an oversold position) or a feed
 *   that stopped for good ends the run after the drain with exit status 1. A strategy the error
 *   policy halted is said on the terminal when it happens; the others keep trading, and the run
 *   exits with status 1 naming it.
 * - While user code runs, `process.exit` throws RUNTIME_PROCESS_EXIT: a strategy cannot end the process.
 */
import type { RunRecording } from '../compose/recording-port.js';
import { ChainpilotError, systemClock, type Logger, type TimerHandle } from '../../core/index.js';
import { picksByName, type LoadedDeployment } from '../../config/index.js';
import { strategyIdsOf } from '../compose/resolve-strategies.js';
import { withStrategyProblems } from '../compose/check-deployment.js';
import { createDeployment, type RuntimeDeps, type RuntimeHandle } from '../handle/create-deployment.js';
import type { ShutdownReport } from '../handle/deployment-handle.js';
import { openRun, type RunBaseOptions } from '../compose/run-common.js';
import { guardProcessExit } from './process-exit-guard.js';

export { guardProcessExit };
import { createPanelLog, createRedraw, createStatusPanel, formatShutdownReport, formatSummary } from './status-panel.js';

export interface ShellResult {
  readonly handle: RuntimeHandle;
  readonly report: ShutdownReport;
  /** 0, or 1 after a fatal error, a failed start, a feed that never worked, or a strategy the error policy halted. */
  readonly exitCode: number;
  /** The coded reason of a non-zero exit, as printed. */
  readonly problem: string | undefined;
}

export interface ShellOptions extends RunBaseOptions {
  /** Status display: redraw in place (default: when stdout is a TTY and `out` is not given). */
  readonly tty?: boolean;
  /** Listen to SIGINT/SIGTERM (default true). */
  readonly signals?: boolean;
  /** The recorder for a deployment that sets `record:` (the CLI gives research's `runRecording`). */
  readonly recording?: RunRecording;
}

/** Exit status of a second signal during the drain. */
export const SECOND_SIGNAL_EXIT = 130;

/**
 * Runs `loaded` until a signal, the duration or a fatal error, then drains and reports. `title`
 * makes the start line. Throws the coded start error when the deployment cannot start.
 */
export async function runShell(
  o: ShellOptions,
  deps: Omit<RuntimeDeps, 'log' | 'redactor'>,
  title: (loaded: LoadedDeployment, handle: RuntimeHandle) => string,
): Promise<ShellResult> {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- isTTY is undefined, not false, when stdout is a pipe
  const tty = o.tty ?? (o.out === undefined && process.stdout.isTTY === true);
  const out = o.out ?? ((t: string) => void process.stdout.write(t));
  const redraw = createRedraw(out, (t) => void process.stderr.write(t));
  // On one terminal the log goes to stderr above the panel, as readable lines (orders' refusals counted in it), never through it.
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-boolean-literal-compare -- as above
  const panelLog = tty && !o.log && !o.logDestination && process.stderr.isTTY === true ? createPanelLog(redraw) : undefined;
  const strategyIds = o.set && picksByName(o.set.map((s) => s.path)) ? await strategyIdsOf(o.file) : undefined;
  const base = { ...o, out, ...(panelLog ? { logDestination: panelLog } : {}), ...(strategyIds ? { strategyIds } : {}) };
  let opened: ReturnType<typeof openRun>;
  try {
    opened = openRun(base);
  } catch (e) {
    throw await withStrategyProblems(e, o.file, {
      ...(o.env ? { env: o.env } : {}),
      ...(o.set ? { set: o.set } : {}),
      ...(strategyIds ? { strategyIds } : {}),
    });
  }
  const { loaded, deployment: d, redactor, log } = opened;
  const handle = createDeployment(loaded, { ...deps, log, redactor, ...(o.env ? { env: o.env } : {}), ...(o.recording ? { recording: o.recording } : {}) });
  const wall = systemClock();
  const restoreExit = guardProcessExit();
  const stop = new AbortController();
  let stopReason: string | undefined;
  const requestStop = (why: string): void => {
    if (stop.signal.aborted) return;
    stopReason = why;
    stop.abort();
  };
  const onSignal = drainOrExit({ out, log, restoreExit }, (name) => {
    out(`\n${name}: stopping new intents and draining those in flight (up to ${d.shutdown.drain} ms); ${name} again exits at once\n`);
    requestStop(name);
  });
  const useSignals = o.signals ?? true;
  if (useSignals) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  const onAbort = (): void => requestStop('aborted');
  o.signal?.addEventListener('abort', onAbort, { once: true });
  if (o.signal?.aborted) onAbort();

  let problem: string | undefined;
  let strategyHalted: string | undefined;
  const unlisten = handle.events.on((e) => {
    if (e.type === 'state' && e.state === 'halted' && e.cause && e.cause.code !== 'RUNTIME_FEED_LOST') {
      problem ??= `${e.cause.code}: ${e.cause.message}`;
      requestStop(e.cause.code);
    }
    if (e.type === 'feed' && e.health.state === 'stopped') {
      problem ??= `RUNTIME_FEED_LOST: the Datastream client stopped (the key was refused or the service turned us away); see the log for its cause`;
      requestStop('feed stopped');
    }
    if (e.type === 'alert' && e.level !== 'info') log.warn({ code: e.code }, e.message);
    // a halted strategy is said on the terminal at once (the others keep trading) and fails the run's exit status
    if (e.type === 'alert' && e.code === 'ENGINE_STRATEGY_HALTED') {
      strategyHalted ??= `${e.code}: ${e.message}`;
      out(`\n${redactor.redact(`${e.code}: ${e.message}`)}\n`);
    }
  });

  const timers: TimerHandle[] = [];
  let statusTimer: TimerHandle | undefined;
  try {
    try {
      await handle.start();
    } catch (e) {
      const report = await handle.done();
      throw e instanceof ChainpilotError
        ? e
        : new ChainpilotError('RUNTIME_START_FAILED', `${d.name}: ${report.fatal?.message ?? String(e)}`, { retry: 'not_retryable', cause: e });
    }
    const info = handle.startInfo();
    for (const w of info?.warnings ?? []) out(`warning: ${w}\n`);
    for (const n of info?.notes ?? []) out(`${n}\n`);
    out(`${title(loaded, handle)}${info?.detail ? `; ${info.detail}` : ''}${o.durationMs ? `; for ${o.durationMs / 1000}s` : ''}; Ctrl-C stops\n`);
    if (o.durationMs !== undefined) timers.push(wall.setTimeout(() => requestStop('duration'), o.durationMs));
    const runClock = handle.clock();
    const panel = createStatusPanel(handle, () => runClock?.now() ?? Date.now(), panelLog ? { heldLogLines: () => panelLog.held() } : {});
    const tick = (): void => {
      if (tty) redraw.draw(panel.screen());
      else out(`${panel.line()}\n`);
      statusTimer = wall.setTimeout(tick, d.telemetry.statusInterval);
    };
    statusTimer = wall.setTimeout(tick, d.telemetry.statusInterval);
    if (!stop.signal.aborted) await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    wall.clearTimeout(statusTimer);
    statusTimer = undefined;
    if (tty) redraw.done();
    log.info({ reason: stopReason }, 'stopping');
    const report = await handle.stop();
    const health = handle.health();
    out(`${formatShutdownReport(report)}\n`);
    out(`${redactor.redact(formatSummary(report.summary))}\n`);
    const f = health.feed;
    out(
      `  feed: ${f.frames} frames, ${f.rejected} rejected, ${f.dropped} dropped, ${f.gaps} gaps, ${f.reconnects} reconnects, ${f.backfillFailures} failed backfills\n`,
    );
    if (report.fatal) problem ??= `${report.fatal.code}: ${report.fatal.message}`;
    problem ??= strategyHalted;
    if (!problem && f.frames === 0 && !f.connected && handle.mode !== 'backtest') {
      problem = 'RUNTIME_FEED_NEVER_OPENED: the Datastream never delivered a frame; check the endpoint and its API key (see the log)';
    }
    if (problem) out(`${redactor.redact(problem)}\n`);
    return { handle, report, exitCode: problem ? 1 : 0, problem: problem === undefined ? undefined : redactor.redact(problem) };
  } finally {
    for (const t of timers) wall.clearTimeout(t);
    if (statusTimer) wall.clearTimeout(statusTimer);
    unlisten();
    o.signal?.removeEventListener('abort', onAbort);
    if (useSignals) {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
    }
    restoreExit();
    flush(log);
  }
}

/**
 * A handler for SIGINT/SIGTERM: the first signal calls `first` (start the drain); a second one
 * says so, flushes the log and exits at once with 130 (unresolved intents wait for the next start).
 */
export function drainOrExit(
  o: { readonly out: (text: string) => void; readonly log: Logger; readonly restoreExit: () => void },
  first: (name: string) => void,
): (name: string) => void {
  let signals = 0;
  return (name) => {
    signals++;
    if (signals > 1) {
      o.out(`\n${name} again: exiting now; unresolved intents are reconciled at the next start\n`);
      flush(o.log);
      o.restoreExit();
      process.exit(SECOND_SIGNAL_EXIT);
    }
    first(name);
  };
}

/** Flushes an asynchronous pino destination (no-op for others). */
export function flush(log: Logger): void {
  try {
    log.flush();
  } catch (e) {
    process.stderr.write(`chainpilot: the log could not be flushed (${e instanceof Error ? e.message : String(e)})\n`);
  }
}
