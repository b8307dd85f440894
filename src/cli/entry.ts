/** Process entry of the `chainpilot` command. */
import { runCli } from './main.js';

try {
  await runCli(process.argv);
} catch (e) {
  // Commands print their own coded errors; anything reaching here is unexpected.
  process.stderr.write(`chainpilot: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}
