/** `chainpilot paper FILE [--duration 60s] [--speed N] [--seed N]`: paper trading. */
import { InvalidArgumentError, type Command } from 'commander';
import { parseDuration } from '../../config/schema.js';
import { runPaper } from '../../runtime/run-paper.js';

function duration(v: string): number {
  const ms = parseDuration(v);
  if (ms === undefined || ms <= 0) throw new InvalidArgumentError('expected a duration such as 60s, 5m or 1h');
  return ms;
}

function speed(v: string): number | 'max' {
  if (v === 'max') return 'max';
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number or "max"');
  return n;
}

function seed(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer');
  return n;
}

export function registerPaper(program: Command): void {
  program
    .command('paper')
    .description('run a deployment in paper mode (embedded simulator by default); Ctrl-C stops and prints a summary')
    .argument('<file>', 'deployment YAML file')
    .option('--duration <time>', 'stop after this wall time (60s, 5m, 1h)', duration)
    .option('--speed <n>', 'simulator speed: multiple of real time, or max', speed)
    .option('--seed <n>', 'seed of the simulator and of intent ids', seed)
    .action(async (file: string, opts: { duration?: number; speed?: number | 'max'; seed?: number }) => {
      await runPaper({ file, ...(opts.duration ? { durationMs: opts.duration } : {}), ...(opts.speed ? { speed: opts.speed } : {}), ...(opts.seed !== undefined ? { seed: opts.seed } : {}) });
    });
}
