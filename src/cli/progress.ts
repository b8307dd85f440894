/**
 * Progress of a long command: a cli-progress bar on a TTY (rate, simulated time, ETA), otherwise one
 * plain line every few seconds, so logs of CI and daemons stay readable.
 */
import cliProgress from 'cli-progress';

export interface ProgressSink {
  update(done: number, total: number, label: string, ratePerSec: number): void;
  stop(): void;
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
        bar.update(done, { rate: Math.round(rate).toLocaleString('en-US'), label });
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
      stream.write(`${what}: ${Math.floor((done / Math.max(1, total)) * 100)}% (${done}/${total} ${unit}, ${Math.round(rate)} ${unit}/s) at ${label}\n`);
    },
    stop: () => undefined,
  };
}
