/**
 * The retry policy of reads: an attempt that failed retriably (429, 408, 5xx, timeouts, resets) is
 * tried again after capped exponential backoff with full jitter, or the server's Retry-After when it
 * asks for longer, within a budget of attempts and of time since the first attempt. A Retry-After
 * beyond `maxRetryAfterMs` is not waited for. Writes are never retriable, so they are sent once.
 * The error finally thrown carries the number of attempts.
 *
 * State: none between requests; each request's loop holds its attempt count and start time.
 */
import { backoffWithJitter, ChainpilotError, type Clock, type Logger, type Random, type Redactor } from '../../core/index.js';
import { clockSleep } from '../../core/clock.js';
import type { HttpRequest, HttpResponse, RetryOptions } from './http-client.js';
import type { Attempt } from './http-failure.js';
import { observeSafely, type HttpTelemetry } from './http-telemetry.js';

/** `RetryOptions` with its defaults. */
export type RetryPolicy = Readonly<Required<RetryOptions>>;

export function resolveRetryPolicy(o: RetryOptions | undefined): RetryPolicy {
  return {
    maxAttempts: Math.max(1, Math.floor(o?.maxAttempts ?? 4)),
    baseDelayMs: o?.baseDelayMs ?? 250,
    maxDelayMs: o?.maxDelayMs ?? 5_000,
    maxElapsedMs: o?.maxElapsedMs ?? 30_000,
    maxRetryAfterMs: o?.maxRetryAfterMs ?? 60_000,
  };
}

export interface RetryContext {
  readonly service: string;
  /** For the waits and the time budget. */
  readonly clock: Clock;
  /** Jitter source. */
  readonly random: Random;
  readonly redactor: Redactor;
  /** Debug line per retry. */
  readonly logger: Logger | undefined;
  /** Told of each retry (with the status, when there was one). */
  readonly telemetry: HttpTelemetry | undefined;
}

/** `attemptOnce` repeated by `policy` until it answers, fails for good, or the budget is spent. */
export function withRetries(
  attemptOnce: (req: HttpRequest) => Promise<HttpResponse | Attempt>,
  policy: RetryPolicy,
  ctx: RetryContext,
): (req: HttpRequest) => Promise<HttpResponse> {
  const { service, clock, random, redactor, logger, telemetry } = ctx;
  const onRetry = telemetry?.retry?.bind(telemetry);
  return async (req) => {
    const started = clock.now();
    for (let attempt = 0; ; attempt++) {
      const outcome = await attemptOnce(req);
      if (!('error' in outcome)) return outcome;
      const { error } = outcome;
      const attempts = attempt + 1;
      const withAttempts = (): ChainpilotError =>
        new ChainpilotError(error.code, error.message, { retry: error.retry, context: { ...error.context, attempts } });
      if (!outcome.retriable || attempts >= policy.maxAttempts) throw withAttempts();
      if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs > policy.maxRetryAfterMs) throw withAttempts();
      const jitter = backoffWithJitter(attempt, policy.baseDelayMs, policy.maxDelayMs, () => random.next());
      const waitMs = Math.max(jitter, outcome.retryAfterMs ?? 0);
      if (clock.now() + waitMs - started > policy.maxElapsedMs) throw withAttempts();
      if (onRetry) {
        const status = error.context['status'];
        observeSafely(() => onRetry(service, typeof status === 'number' ? status : undefined));
      }
      logger?.debug(
        { service, endpoint: error.context['endpoint'], code: error.code, attempt: attempts, waitMs },
        redactor.redact(`retrying ${service} read after ${error.code}`),
      );
      await clockSleep(clock, waitMs, req.signal);
    }
  };
}
