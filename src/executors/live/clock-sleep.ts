/** Sleeping on the injected clock, so tests drive time instead of waiting for it. */
import { ChainpilotError } from '../../core/errors.js';
import type { Clock } from '../../core/clock.js';

/** Resolves after `ms` of `clock` time; rejects with CORE_ABORTED when `signal` aborts first. */
export function clockSleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = (): ChainpilotError => new ChainpilotError('CORE_ABORTED', 'sleep was aborted', { retry: 'not_retryable' });
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
