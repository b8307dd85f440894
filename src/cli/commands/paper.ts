/** `chainpilot paper FILE [--duration 60s] [--speed N] [--seed N]`: paper trading. */
import type { Command } from 'commander';
import { durationOption as duration, seedOption as seed, setOption, SET_HELP, speedOption as speed } from '../options.js';

export function registerPaper(program: Command): void {
  program
    .command('paper')
    .description(
      'run a deployment in paper mode (embedded simulator by default); Ctrl-C or SIGTERM drains and prints a summary, a second one exits at once (130)',
    )
    .argument('<file>', 'deployment YAML file')
    .option('--duration <time>', 'stop after this wall time (60s, 5m, 1h)', duration)
    .option('--speed <n>', 'simulator speed: multiple of real time, or max', speed)
    .option('--seed <n>', 'seed of the simulator and of intent ids', seed)
    .option('--set <path=value>', SET_HELP, setOption)
    .action(async (file: string, opts: { duration?: number; speed?: number | 'max'; seed?: number; set?: string[] }) => {
      const [{ runPaper }, { runRecording }, { parseSetAssignment }] = await Promise.all([
        import('../../runtime/shell/run-paper.js'),
        import('../../research/record/run-recorder.js'),
        import('../../config/overrides.js'),
      ]);
      const r = await runPaper({
        file,
        recording: runRecording,
        ...(opts.set ? { set: opts.set.map((s) => parseSetAssignment(s)) } : {}),
        ...(opts.duration ? { durationMs: opts.duration } : {}),
        ...(opts.speed ? { speed: opts.speed } : {}),
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
      });
      if (r.problem) process.stderr.write(`${r.problem}\n`);
      process.exitCode = r.exitCode;
    });
}
