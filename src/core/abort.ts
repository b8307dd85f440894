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

/**
 * Capped exponential backoff, the one formula of the project: `min(cap, base * 2^attempt)`
 * (attempt 0 waits `base`). Wait it out on the run's clock (`clockSleep`, `clock.setTimeout`).
 */
export function cappedBackoff(attempt: number, baseMs: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
}

/** Capped exponential backoff with full jitter: uniform in [0, {@link cappedBackoff}). */
export function backoffWithJitter(attempt: number, baseMs: number, capMs: number, random: () => number): number {
  return Math.floor(random() * cappedBackoff(attempt, baseMs, capMs));
}

/**
 * Settles as `work` does, or rejects with `signal`'s reason once it aborts, whichever is first: a
 * step of a start that a stop aborts stops being waited for (the work itself goes on, abandoned).
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
