/**
 * Process entry of the `chainpilot` command. Errors print as `CODE: message` with exit status 1.
 * When the command is done the process exits with its status, so a part left open by mistake (a
 * socket, a timer) can never keep it hanging.
 */
import { runCli } from './run-cli.js';
import { printCliError } from './print-error.js';

try {
  await runCli(process.argv);
} catch (e) {
  // Commands throw coded errors; printCliError prints `CODE: message` and a hint.
  printCliError(e);
  process.exitCode = 1;
}
// stdout/stderr writes to pipes are asynchronous: let them drain, then end the process.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
process.exit(process.exitCode ?? 0);
