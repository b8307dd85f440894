/**
 * `chainpilot run FILE --live [--confirm NAME] [--duration 60s] [--speed N] [--seed N]`: runs a
 * deployment in live mode. Live trading needs an explicit confirmation: the `--live` flag, or
 * `mode: live` in the deployment plus `--confirm <deployment name>`. The rails are in
 * src/runtime/live/live-rails.ts; see docs/live.md.
 */
import type { Command } from 'commander';
import { durationOption as duration, seedOption as seed, speedOption as speed } from '../options.js';

interface RunOpts {
  live?: boolean;
  confirm?: string;
  duration?: number;
  speed?: number | 'max';
  seed?: number;
}

/** Registers `run` on the program. */
export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run a deployment in live mode (real transactions; with simulator endpoints, on the embedded ledger with a funded wallet)')
    .argument('<file>', 'deployment YAML file')
    .option('--live', 'confirm live trading (required unless the deployment says mode: live and --confirm names it)')
    .option('--confirm <name>', "with mode: live in the deployment: the deployment's name, to confirm live trading")
    .option('--duration <time>', 'stop after this wall time (60s, 5m, 1h)', duration)
    .option('--speed <n>', 'simulator speed: multiple of real time, or max (simulator endpoints only)', speed)
    .option('--seed <n>', 'seed of the simulator and of intent ids', seed)
    .action(async (file: string, o: RunOpts) => {
      const [{ runLive }, { runRecording }] = await Promise.all([import('../../runtime/shell/run-live.js'), import('../../research/record/run-recorder.js')]);
      const r = await runLive({
        file,
        recording: runRecording,
        ...(o.live ? { live: true } : {}),
        ...(o.confirm !== undefined ? { confirm: o.confirm } : {}),
        ...(o.duration ? { durationMs: o.duration } : {}),
        ...(o.speed ? { speed: o.speed } : {}),
        ...(o.seed !== undefined ? { seed: o.seed } : {}),
      });
      if (r.problem) process.stderr.write(`${r.problem}\n`);
      process.exitCode = r.exitCode;
    });
}
