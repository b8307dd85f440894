/** Process entry of the `chainpilot` command. */
import { describeError } from '../core/errors.js';
import { runCli } from './main.js';

try {
  await runCli(process.argv);
} catch (e) {
  // `CODE: message` for coded errors (the same form `validate` prints); `Name: message` otherwise
  process.stderr.write(`${describeError(e)}\n`);
  process.exitCode = 1;
}
