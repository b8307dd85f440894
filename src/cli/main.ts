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
import { registerDaemonCommand } from './commands/daemon.js';
import { registerControlCommands } from './commands/control.js';

export function buildProgram(): Command {
  const pkgPath = fileURLToPath(new URL('../../package.json', import.meta.url));
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string; description: string };
  const program = new Command()
    .name('chainpilot')
    .description(pkg.description)
    .version(pkg.version)
    .showHelpAfterError()
    .configureOutput({ outputError: (s, write) => write(s) });
  // Commands register themselves here, one line each:
  registerValidate(program);
  registerPaper(program);
  registerSimCommand(program);
  registerWalletCommand(program);
  registerRunCommand(program);
  registerDaemonCommand(program);
  registerControlCommands(program);
  return program;
}

/** Parses `argv` and runs the chosen command. */
export async function runCli(argv: readonly string[]): Promise<void> {
  await buildProgram().parseAsync([...argv]);
}
