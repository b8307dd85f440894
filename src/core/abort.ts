/** AbortSignal helpers: every async call takes a signal and cleans up in `finally`. */
import { longTimeout } from './clock.js';
import { ChainpilotError } from './errors.js';

/** Throws CORE_ABORTED when `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) {
    throw new ChainpilotError('CORE_ABORTED', `${what} was aborted`, { retry: 'not_retryable', cause: signal.reason });
  }
}

/**
 * Resolves after `ms` (any length), or rejects with CORE_ABORTED when `signal` aborts first.
 * The timer is always cleared.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ChainpilotError('CORE_ABORTED', 'sleep was aborted', { retry: 'not_retryable' }));
      return;
    }
    const onAbort = (): void => {
      cancel();
      reject(new ChainpilotError('CORE_ABORTED', 'sleep was aborted', { retry: 'not_retryable' }));
    };
    const cancel = longTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Capped exponential backoff with full jitter: uniform in [0, min(cap, base * 2^attempt)]. */
export function backoffWithJitter(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}
