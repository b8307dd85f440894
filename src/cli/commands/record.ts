/**
 * `chainpilot record [DEPLOYMENT] [--rooms a,b] [--sim --seed N --duration 24h] [--out DIR]`:
 * records the Datastream (and the strategies' ctx.data answers) for backtests.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { isChainpilotError } from '../../core/errors.js';
import { createRedactor } from '../../core/redact.js';
import { durationOption, seedOption } from '../options.js';

const SIZE = /^(\d+)(B|KB|MB|GB)?$/i;
const UNIT: Record<string, number> = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3 };

/** `--rotate-size 256MB`. */
export function sizeOption(v: string): number {
  const m = SIZE.exec(v.trim());
  if (!m) throw new InvalidArgumentError('expected a size such as 64MB or 1GB');
  const n = Number(m[1]) * UNIT[(m[2] ?? 'B').toUpperCase()]!;
  if (n < 1024) throw new InvalidArgumentError('expected at least 1KB');
  return n;
}

/** `--rooms latest,graduated`. */
export function roomsOption(v: string): string[] {
  const rooms = v
    .split(',')
    .map((r) => r.trim())
    .filter((r) => r.length > 0);
  if (rooms.length === 0 || rooms.some((r) => /\s/.test(r)))
    throw new InvalidArgumentError('expected room names separated by commas, e.g. latest,graduated,venue_a:curve:50');
  return rooms;
}

interface RecordOpts {
  rooms?: string[];
  sim?: boolean;
  seed?: number;
  duration?: number;
  out: string;
  gzip: boolean;
  rotateSize?: number;
  rotateTime?: number;
  start?: string;
}

export function registerRecord(program: Command): void {
  program
    .command('record')
    .description('record the Datastream frames, connection events and ctx.data answers of a deployment (or of --rooms) for backtests')
    .argument('[deployment]', "deployment YAML file: its endpoints, and its strategies' rooms and look-ups")
    .option('--rooms <list>', 'record these rooms (comma-separated) instead of running the strategies', roomsOption)
    .option('--sim', 'record the embedded simulator at full speed on its own clock (deterministic)')
    .option('--seed <n>', 'simulator seed (with --sim)', seedOption)
    .option('--duration <time>', 'how long to record (simulated time with --sim, wall time otherwise)', durationOption)
    .option('--start <time>', 'simulated start time with --sim (default 2026-01-01T00:00:00Z)')
    .option('--out <dir>', 'directory of the recording files', './recordings')
    .option('--no-gzip', 'write plain .jsonl instead of .jsonl.gz')
    .option('--rotate-size <size>', 'start a new file after this many uncompressed bytes', sizeOption)
    .option('--rotate-time <time>', 'start a new file after this much run-clock time', durationOption)
    .action(async (file: string | undefined, opts: RecordOpts) => {
      const [{ loadDeployment }, { recordLive }, { recordSimulator }, { createProgress }] = await Promise.all([
        import('../../config/index.js'),
        import('../../research/record/record-live.js'),
        import('../../research/record/record-sim.js'),
        import('../progress.js'),
      ]);
      (await import('../cli-paths.js')).prepareDirOption('--out', opts.out);
      try {
        const common = {
          dir: opts.out,
          gzip: opts.gzip,
          ...(opts.rotateSize ? { rotateBytes: opts.rotateSize } : {}),
          ...(opts.rotateTime ? { rotateMs: opts.rotateTime } : {}),
        };
        if (opts.sim) {
          if (!file && !opts.rooms) throw new InvalidArgumentError('record --sim needs a deployment file or --rooms');
          const durationMs = opts.duration ?? 3_600_000;
          const startAt = opts.start === undefined ? undefined : Date.parse(opts.start);
          if (startAt !== undefined && !Number.isFinite(startAt)) throw new InvalidArgumentError('--start: expected an ISO time such as 2026-01-01T00:00:00Z');
          const redactor = createRedactor();
          const loaded = file ? loadDeployment(file) : undefined;
          for (const s of loaded?.secrets ?? []) redactor.add(s);
          const progress = createProgress('record --sim', 'simulated ms');
          const startedMs = performance.now();
          const r = await recordSimulator({
            ...common,
            seed: opts.seed ?? loaded?.deployment.endpoints.simulator?.seed ?? 1,
            durationMs,
            redactor,
            ...(startAt !== undefined ? { startAt } : {}),
            ...(opts.rooms ? { rooms: opts.rooms } : loaded ? { loaded } : {}),
            onProgress: (ms, frames) => progress.update(ms, durationMs, `${frames} frames`, ms / Math.max(0.001, (performance.now() - startedMs) / 1000)),
          });
          progress.stop();
          process.stdout.write(
            `recorded ${r.lines} lines (${(r.bytes / 1e6).toFixed(1)} MB uncompressed) into ${r.files.join(', ')}${r.decisions ? `; decisions in ${r.decisions}` : ''}\n`,
          );
          return;
        }
        if (!file) throw new InvalidArgumentError('record needs a deployment file (its endpoints), or --sim');
        const r = await recordLive({
          file,
          ...common,
          ...(opts.rooms ? { rooms: opts.rooms } : {}),
          ...(opts.duration ? { durationMs: opts.duration } : {}),
          ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        });
        process.stdout.write(`recorded ${r.lines} lines into ${r.files.join(', ')}${r.decisions ? `; decisions in ${r.decisions}` : ''}\n`);
      } catch (e) {
        if (isChainpilotError(e)) {
          process.stderr.write(`chainpilot record: ${e.code}: ${e.message}\n`);
          process.exitCode = 1;
          return;
        }
        throw e;
      }
    });
}
