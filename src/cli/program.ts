/**
 * The bare `chainpilot` program (name, description, version, coded error output) without its
 * commands, and which module registers each command: `runCli` (run-cli.ts) registers only the
 * command it runs, `buildProgram` (main.ts) all of them.
 */
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Commander's "error: ..." as `CODE: message`: `CLI_BAD_OPTION` for a refused value, `CLI_USAGE` for anything else. */
export function codedCliError(text: string): string {
  const body = text.replace(/^error: /, '');
  return `${/ is invalid\b/.test(body) ? 'CLI_BAD_OPTION' : 'CLI_USAGE'}: ${body}`;
}

/** The program with no command registered yet. */
export function newProgram(): Command {
  const pkgPath = fileURLToPath(new URL('../../package.json', import.meta.url));
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string; description: string };
  return (
    new Command()
      .name('chainpilot')
      .description(pkg.description)
      .version(pkg.version)
      .showHelpAfterError()
      // every refusal as `CODE: message`, like the commands' own errors
      .configureOutput({ outputError: (s, write) => write(codedCliError(s)) })
  );
}

type Register = (program: Command) => void;

const init = async (): Promise<Register> => (await import('./commands/init.js')).registerInit;
const control = async (): Promise<Register> => (await import('./commands/control.js')).registerControlCommands;

/**
 * Each top-level command's name → the function that registers it (with the siblings its module
 * registers too). test/cli/lean-program.test.ts checks this against the full program.
 */
export const COMMAND_REGISTRARS: Readonly<Record<string, () => Promise<Register>>> = {
  validate: async () => (await import('./commands/validate.js')).registerValidate,
  paper: async () => (await import('./commands/paper.js')).registerPaper,
  sim: async () => (await import('./commands/sim.js')).registerSimCommand,
  wallet: async () => (await import('./commands/wallet.js')).registerWalletCommand,
  run: async () => (await import('./commands/run.js')).registerRunCommand,
  record: async () => (await import('./commands/record.js')).registerRecord,
  download: async () => (await import('./commands/download.js')).registerDownload,
  backtest: async () => (await import('./commands/backtest.js')).registerBacktest,
  calibrate: async () => (await import('./commands/calibrate.js')).registerCalibrate,
  report: async () => (await import('./commands/report.js')).registerReport,
  sweep: async () => (await import('./commands/sweep.js')).registerSweep,
  worker: async () => (await import('./commands/worker.js')).registerWorkerCommand,
  daemon: async () => (await import('./commands/daemon.js')).registerDaemonCommand,
  status: control,
  kill: control,
  unkill: control,
  pause: control,
  resume: control,
  close: control,
  enter: control,
  cancel: control,
  reload: control,
  init,
  new: init,
};
