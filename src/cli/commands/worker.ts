/**
 * `chainpilot worker --redis URL FILE...`: executes queued intents for the wallets whose keys this
 * host holds (one BullMQ worker per wallet queue). See docs/scale-out.md.
 */
import { InvalidArgumentError, type Command } from 'commander';

interface WorkerOpts {
  redis: string;
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

/** Registers `worker` on the program. */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('execute queued intents (execution.queue) for the wallets whose keys these deployments hold')
    .argument('<files...>', 'deployment YAML files (each with wallet, remote rpcUrl/swapUrl and live caps)')
    .requiredOption('--redis <url>', 'Redis URL of the queues and journals (appendonly yes, maxmemory-policy noeviction)', redisUrlOption)
    .option('--drain-ms <ms>', 'on SIGTERM/SIGINT, how long running jobs may finish before the worker exits anyway', drainOption, 10_000)
    .action(async (files: string[], o: WorkerOpts) => {
      const { runWorkers } = await import('../../runtime/run-worker.js');
      await runWorkers({ redisUrl: o.redis, files, drainMs: o.drainMs });
    });
}
