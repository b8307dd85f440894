/**
 * `chainpilot worker --redis URL FILE...`: executes queued intents for the wallets whose keys this
 * host holds (one BullMQ worker per wallet queue). See docs/scale-out.md.
 * `chainpilot worker --sweeps --redis URL`: runs the cells of sweeps started with `sweep --redis`
 * (docs/backtesting.md). Both in one process when files are given with `--sweeps`.
 */
import { InvalidArgumentError, type Command } from 'commander';

interface WorkerOpts {
  redis: string;
  sweeps?: boolean;
  recordings?: string;
  concurrency?: number;
  lockDuration?: number;
  queuePrefix?: string;
  drainMs: number;
}

/** `--drain-ms N`: a whole number of milliseconds. */
function drainOption(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 3_600_000) throw new InvalidArgumentError('expected whole milliseconds from 0 to 3600000, e.g. 10000');
  return n;
}

/** `--redis URL`: a redis:// or rediss:// URL. */
function redisUrlOption(v: string): string {
  if (!/^rediss?:\/\/./.test(v)) throw new InvalidArgumentError('expected a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379');
  return v;
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('expected a positive integer');
  return n;
}

async function runSweepWorker(o: WorkerOpts): Promise<() => Promise<void>> {
  const [{ startSweepWorker }, { createLogger, createRedactor }] = await Promise.all([
    import('../../research/backtest/sweep-queue.js'),
    import('../../core/index.js'),
  ]);
  const log = createLogger({ redactor: createRedactor([o.redis]), level: 'info', name: 'sweep-worker' });
  const w = startSweepWorker({
    redisUrl: o.redis,
    log,
    ...(o.queuePrefix !== undefined ? { prefix: o.queuePrefix } : {}),
    ...(o.recordings !== undefined ? { recordingsDir: o.recordings } : {}),
    ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
    ...(o.lockDuration !== undefined ? { lockDurationMs: o.lockDuration } : {}),
  });
  process.stdout.write(`chainpilot worker: running sweep cells (concurrency ${o.concurrency ?? 1}); Ctrl-C stops\n`);
  return async () => {
    await w.close();
    process.stdout.write(`stopped: ${w.completed()} sweep cell(s) completed\n`);
  };
}

/** Registers `worker` on the program. */
export function registerWorkerCommand(program: Command): void {
  const cmd = program
    .command('worker')
    .description('execute queued intents (execution.queue) for the wallets whose keys these deployments hold, and/or sweep cells (--sweeps)')
    .argument('[files...]', 'deployment YAML files (each with wallet, remote rpcUrl/swapUrl and live caps)')
    .requiredOption('--redis <url>', 'Redis URL of the queues and journals (appendonly yes, maxmemory-policy noeviction)', redisUrlOption)
    .option('--sweeps', 'run cells of sweeps started with `chainpilot sweep --redis` (the recording is read at the path the sweep gives, checked by sha256)')
    .option('--recordings <dir>', "with --sweeps: find recordings by file name in this directory instead of at the sweep machine's path")
    .option('--concurrency <n>', 'with --sweeps: cells run at once in this process (default 1; start one process per core)', positiveInt)
    .option(
      '--lock-duration <ms>',
      'with --sweeps: how long a cell stays with a worker that stopped answering before another runs it (default 30000)',
      positiveInt,
    )
    .option('--queue-prefix <prefix>', 'with --sweeps: key prefix of the sweep queue (default chainpilot)')
    .option('--drain-ms <ms>', 'on SIGTERM/SIGINT, how long running jobs may finish before the worker exits anyway', drainOption, 10_000)
    .action(async (files: string[], o: WorkerOpts) => {
      if (!o.sweeps && files.length === 0) cmd.error('error: give deployment files (to execute queued intents), or --sweeps (to run sweep cells)');
      if (!o.sweeps) {
        const { runWorkers } = await import('../../runtime/queue/run-worker.js');
        await runWorkers({ redisUrl: o.redis, files, drainMs: o.drainMs });
        return;
      }
      const stopSweeps = await runSweepWorker(o);
      const stopped = new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      if (files.length > 0) {
        const { runWorkers } = await import('../../runtime/queue/run-worker.js');
        await runWorkers({ redisUrl: o.redis, files, drainMs: o.drainMs });
      } else await stopped;
      await stopSweeps();
    });
}
