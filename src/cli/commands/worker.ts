/**
 * `chainpilot worker --redis URL FILE...`: executes queued intents for the wallets whose keys this
 * host holds (one BullMQ worker per wallet queue). See docs/scale-out.md.
 */
import { InvalidArgumentError, type Command } from 'commander';

interface WorkerOpts {
  redis: string;
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
    .action(async (files: string[], o: WorkerOpts) => {
      const { runWorkers } = await import('../../runtime/run-worker.js');
      await runWorkers({ redisUrl: o.redis, files });
    });
}
