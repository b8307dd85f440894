/**
 * The end of a `chainpilot` process, shared by the ESM entry (entry.ts) and the bundled commands
 * (scripts/bundle-cli.mjs, run by bin/chainpilot.js): errors print as `CODE: message` with exit
 * status 1; when the command is done the process exits with its status, so a part left open by
 * mistake (a socket, a timer) can never keep it hanging.
 */
import { printCliError } from './print-error.js';

/** Runs the command `run`, prints its error if any, lets stdout and stderr drain, then exits. */
export async function runCliProcess(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (e) {
    // Commands throw coded errors; printCliError prints `CODE: message` and a hint.
    printCliError(e);
    process.exitCode = 1;
  }
  // stdout/stderr writes to pipes are asynchronous: let them drain, then end the process.
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
  process.exit(process.exitCode ?? 0);
}
