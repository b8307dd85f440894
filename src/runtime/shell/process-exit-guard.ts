/**
 * The process-exit guard, in a module of its own so that `chainpilot validate` can use it without
 * loading the runtime (run-shell.ts re-exports it for the run and daemon shells).
 */
import { ChainpilotError } from '../../core/index.js';

let guards = 0;
let realExit: typeof process.exit | undefined;

/**
 * Makes `process.exit` throw RUNTIME_PROCESS_EXIT until the returned function is called (nested
 * guards are counted). A strategy that calls it gets the error, counted like any strategy error.
 */
export function guardProcessExit(): () => void {
  if (guards++ === 0) {
    realExit = process.exit.bind(process);
    process.exit = (code?: number | string | null) => {
      throw new ChainpilotError(
        'RUNTIME_PROCESS_EXIT',
        `process.exit(${String(code ?? '')}) was called by user code; a strategy cannot end the process (return from the callback, or throw)`,
        { retry: 'not_retryable' },
      );
    };
  }
  let restored = false;
  return () => {
    if (restored) return;
    restored = true;
    if (--guards === 0 && realExit) {
      process.exit = realExit;
      realExit = undefined;
    }
  };
}
