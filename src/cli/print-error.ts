/**
 * How the `chainpilot` command reports a failure: one function, so every command prints the same
 * way. A coded error prints `CODE: message` and a hint (the code's meaning from the registry and
 * where it is documented); anything else is unexpected and prints its message.
 */
import { isChainpilotError } from '../core/errors.js';
import { ERROR_CODES, type ErrorCode } from '../core/error-codes.js';

/** The hint line for a code: what it means, and where to read more. */
export function errorHint(code: ErrorCode): string {
  return `hint: ${ERROR_CODES[code]} (see docs/errors.md, ${code})`;
}

/** The text printed for a thrown value, ending with a newline. */
export function formatCliError(e: unknown): string {
  if (isChainpilotError(e)) return `${e.code}: ${e.message}\n${errorHint(e.code)}\n`;
  return `chainpilot: unexpected error: ${e instanceof Error ? e.message : String(e)}\n`;
}

/** Writes `formatCliError(e)` to `write` (stderr by default). */
export function printCliError(e: unknown, write: (text: string) => void = (t) => process.stderr.write(t)): void {
  write(formatCliError(e));
}
