/**
 * Progress of a long command: a cli-progress bar on a TTY (rate, simulated time, ETA), otherwise one
 * plain line every few seconds, so logs of CI and daemons stay readable.
 */
import cliProgress from 'cli-progress';

export interface ProgressSink {
  update(done: number, total: number, label: string, ratePerSec: number): void;
  stop(): void;
}

/**
 * A rate as people read it: whole numbers from 10 up with thousands separators (`17,821`), one
 * decimal below (a sweep of slow cells is not "0 cells/s"). Grouped by hand: the first
 * `toLocaleString` of a process initialises ICU (about 10 ms of CPU, 1 % of a backtest).
 */
export function formatRate(perSec: number): string {
  if (!Number.isFinite(perSec) || perSec <= 0) return '0';
  return perSec >= 10 ? String(Math.round(perSec)).replace(/\B(?=(\d{3})+$)/g, ',') : perSec.toFixed(perSec >= 1 ? 1 : 2);
}

export function createProgress(what: string, unit = 'lines', stream: NodeJS.WriteStream = process.stderr, everyMs = 5_000): ProgressSink {
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: `${what} [{bar}] {percentage}% | {rate} ${unit}/s | {label} | ETA {eta_formatted}`,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      update(done, total, label, rate) {
        if (!started) {
          bar.start(total, 0, { rate: '0', label });
          started = true;
        }
        bar.update(done, { rate: formatRate(rate), label });
      },
      stop: () => started && bar.stop(),
    };
  }
  let last = 0;
  return {
    update(done, total, label, rate) {
      const now = Date.now();
      if (now - last < everyMs && done < total) return;
      last = now;
      stream.write(`${what}: ${Math.floor((done / Math.max(1, total)) * 100)}% (${done}/${total} ${unit}, ${formatRate(rate)} ${unit}/s) at ${label}\n`);
    },
    stop: () => undefined,
  };
}
