/**
 * Callers of `whenOpen`: each waits for the next open, and is rejected when the connection stops
 * (the breaker tripped), the client closes, or its own signal aborts first.
 *
 * State: the waiters, the error the connection stopped with, and `closed`.
 */
import { ChainpilotError } from '../../../core/index.js';

export interface OpenWaiters {
  /** Resolves at once when `openNow`, else at the next open; rejects when stopped, closed or aborted first. */
  wait(openNow: boolean, signal?: AbortSignal): Promise<void>;
  /** A socket opened: every waiter resolves. */
  opened(): void;
  /** The connection stopped for good: every waiter, and every later one, is rejected with `error`. */
  stopped(error: ChainpilotError): void;
  /** Final: every waiter, and every later one, is rejected with STREAM_CLOSED. */
  close(): void;
}

interface Waiter {
  resolve(): void;
  reject(e: Error): void;
}

export function createOpenWaiters(): OpenWaiters {
  const waiters = new Set<Waiter>();
  let stoppedError: ChainpilotError | undefined;
  let closed = false;

  const rejectAll = (e: Error): void => {
    for (const w of waiters) w.reject(e);
    waiters.clear();
  };

  return {
    wait(openNow, signal) {
      if (openNow) return Promise.resolve();
      if (closed) return Promise.reject(new ChainpilotError('STREAM_CLOSED', 'whenOpen: the Datastream client is closed', { retry: 'not_retryable' }));
      if (stoppedError) return Promise.reject(stoppedError);
      return new Promise((resolve, reject) => {
        const w: Waiter = {
          resolve: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
          reject: (e: Error) => {
            signal?.removeEventListener('abort', onAbort);
            reject(e);
          },
        };
        const onAbort = (): void => {
          waiters.delete(w);
          reject(new ChainpilotError('CORE_ABORTED', 'whenOpen was aborted', { retry: 'not_retryable' }));
        };
        if (signal?.aborted) {
          onAbort();
          return;
        }
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.add(w);
      });
    },
    opened() {
      for (const w of waiters) w.resolve();
      waiters.clear();
    },
    stopped(error) {
      stoppedError = error;
      rejectAll(error);
    },
    close() {
      closed = true;
      rejectAll(new ChainpilotError('STREAM_CLOSED', 'the Datastream client was closed', { retry: 'not_retryable' }));
    },
  };
}
