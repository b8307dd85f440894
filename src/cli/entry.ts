/**
 * Process entry of the `chainpilot` command. Errors print as `CODE: message` with exit status 1.
 * When the command is done the process exits with its status, so a part left open by mistake (a
 * socket, a timer) can never keep it hanging.
 */
import { runCli } from './main.js';

try {
  await runCli(process.argv);
} catch (e) {
  const code = typeof e === 'object' && e !== null && typeof (e as { code?: unknown }).code === 'string' ? (e as { code: string }).code : undefined;
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`${code && /^[A-Z][A-Z0-9_]+$/.test(code) ? `${code}: ` : 'chainpilot: '}${message}\n`);
  process.exitCode = 1;
}
// stdout/stderr writes to pipes are asynchronous: let them drain, then end the process.
await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
await new Promise<void>((resolve) => process.stderr.write('', () => resolve()));
process.exit(process.exitCode ?? 0);
