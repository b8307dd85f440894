/** How a non-2xx HTTP status maps to an error code, a retry class, and whether a read retries. */
import type { ErrorCode, RetryClass } from '../../core/index.js';

export interface StatusClass {
  readonly code: ErrorCode;
  /** Retry class of the thrown error. */
  readonly retry: RetryClass;
  /** True when the HTTP layer retries it (reads only). */
  readonly retriable: boolean;
  /** What to do about it, for the message. */
  readonly advice: string;
}

/**
 * 429, 5xx and 408 are transient: reads retry; on a write the outcome is unknown. 401/403 need a
 * key fix; every other status needs a request fix.
 */
export function classifyStatus(status: number, isWrite: boolean): StatusClass {
  const transient = (code: ErrorCode, advice: string): StatusClass => ({ code, retry: isWrite ? 'unknown_outcome' : 'retryable', retriable: !isWrite, advice });
  if (status === 429) return transient('HTTP_RATE_LIMITED', 'too many requests; reduce concurrency');
  if (status >= 500) return transient('HTTP_SERVER_ERROR', 'the service failed; retry later');
  if (status === 408) return transient('HTTP_REQUEST_TIMEOUT', 'the service timed out; retry later');
  if (status === 401 || status === 403)
    return { code: 'HTTP_AUTH_FAILED', retry: 'not_retryable', retriable: false, advice: 'check the API key configured for this service' };
  return { code: 'HTTP_CLIENT_ERROR', retry: 'not_retryable', retriable: false, advice: 'fix the request parameters' };
}
