/**
 * Process entry of the `chainpilot` command when it runs unbundled (the sources through tsx, or
 * dist/ for a command without a bundle: see bin/chainpilot.js). Errors print as `CODE: message`
 * with exit status 1 (cli-process.ts).
 */
import { runCli } from './run-cli.js';
import { runCliProcess } from './cli-process.js';

await runCliProcess(() => runCli(process.argv));
