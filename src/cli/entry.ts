/** Process entry of the `chainpilot` command. */
import { runCli } from './main.js';
import { printCliError } from './print-error.js';

try {
  await runCli(process.argv);
} catch (e) {
  // Commands throw coded errors; printCliError prints `CODE: message` and a hint.
  printCliError(e);
  process.exitCode = 1;
}
