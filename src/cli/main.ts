/**
 * The `chainpilot` command line. Each command lives in its own file under ./commands and is
 * registered here; commands call composition roots in src/runtime, never lower layers directly.
 */
import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { registerValidate } from './commands/validate.js';
import { registerPaper } from './commands/paper.js';
import { registerSimCommand } from './commands/sim.js';
import { registerWalletCommand } from './commands/wallet.js';
import { registerRunCommand } from './commands/run.js';
import { registerRecord } from './commands/record.js';
import { registerDownload } from './commands/download.js';
import { registerBacktest } from './commands/backtest.js';
import { registerCalibrate } from './commands/calibrate.js';
import { registerReport } from './commands/report.js';
import { registerSweep } from './commands/sweep.js';
import { registerWorkerCommand } from './commands/worker.js';
import { registerDaemonCommand } from './commands/daemon.js';
import { registerControlCommands } from './commands/control.js';
import { registerInit } from './commands/init.js';

/** Commander's "error: ..." as `CLI_BAD_OPTION: ...` (a refused value) or `CLI_USAGE: ...` (anything else). */
export function codedCliError(text: string): string {
  const body = text.replace(/^error: /, '');
  return `${/ is invalid\b/.test(body) ? 'CLI_BAD_OPTION' : 'CLI_USAGE'}: ${body}`;
}

export function buildProgram(): Command {
  const pkgPath = fileURLToPath(new URL('../../package.json', import.meta.url));
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string; description: string };
  const program = new Command()
    .name('chainpilot')
    .description(pkg.description)
    .version(pkg.version)
    .showHelpAfterError()
    // every refusal as `CODE: message`, like the commands' own errors
    .configureOutput({ outputError: (s, write) => write(codedCliError(s)) });
  // Commands register themselves here, one line each:
  registerValidate(program);
  registerPaper(program);
  registerSimCommand(program);
  registerWalletCommand(program);
  registerRunCommand(program);
  registerRecord(program);
  registerDownload(program);
  registerBacktest(program);
  registerCalibrate(program);
  registerReport(program);
  registerSweep(program);
  registerWorkerCommand(program);
  registerDaemonCommand(program);
  registerControlCommands(program);
  registerInit(program);
  return program;
}

/** Parses `argv` and runs the chosen command. */
export async function runCli(argv: readonly string[]): Promise<void> {
  await buildProgram().parseAsync([...argv]);
}
