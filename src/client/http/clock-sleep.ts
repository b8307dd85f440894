/** Waiting on the injected clock, so tests control backoff time instead of sleeping. */
import { ChainpilotError, type Clock } from '../../core/index.js';

/** Resolves after `ms` of `clock` time, or rejects with CORE_ABORTED when `signal` aborts first. */
export function clockSleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = (): ChainpilotError =>
      new ChainpilotError('CORE_ABORTED', 'the request was aborted while waiting to retry', { retry: 'not_retryable' });
    if (signal?.aborted) {
      reject(aborted());
      return;
    }
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      reject(aborted());
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
