/**
 * The client's observer port: how a holder (the daemon's /metrics) learns the latency, outcome and
 * retries of requests without the client knowing about metrics. Optional everywhere: without an
 * observer nothing is measured and nothing is allocated. An observer that throws is ignored (a
 * request never fails because of its telemetry).
 */
import { isChainpilotError, type ErrorCode } from '../../core/index.js';

/** `ok`, the code of the error the caller got, or `unknown` for an error without a code. */
export type RequestOutcome = 'ok' | 'unknown' | ErrorCode;

export interface HttpTelemetry {
  /**
   * One call ended. `api` is the client's service label (`data-api`, `prediction`, `swap`, `rpc`);
   * `method` the JSON-RPC method for `rpc` (`batch` for a batch), the HTTP method otherwise;
   * `seconds` the real time the caller waited (retries and their waits included), measured with
   * the process's monotonic timer (`performance.now`), not the run clock.
   */
  request?(api: string, method: string, seconds: number, outcome: RequestOutcome): void;
  /** A read is about to be retried after an HTTP `status` (undefined: a timeout or a network error). */
  retry?(api: string, status: number | undefined): void;
}

/** Calls `fn`, ignoring what an observer throws. */
export function observeSafely(fn: () => void): void {
  try {
    fn();
  } catch {
    // an observer must not break a request
  }
}

/** The outcome of a call that threw `e`. */
export function outcomeOf(e: unknown): RequestOutcome {
  return isChainpilotError(e) ? e.code : 'unknown';
}
