/**
 * The `chainpilot` command line. Each command lives in its own file under ./commands and is
 * registered here and named in program.ts's COMMAND_REGISTRARS (so that running one loads only its
 * module); commands call composition roots in src/runtime, never lower layers directly.
 */
import type { Command } from 'commander';
import { newProgram } from './program.js';
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

export { codedCliError } from './program.js';

/** The program with every command registered (help, `help <command>`, an unknown command's suggestion). */
export function buildProgram(): Command {
  const program = newProgram();
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
