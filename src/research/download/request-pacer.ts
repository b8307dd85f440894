/**
 * Politeness for a download: requests spaced at most `perSec` a second; every 429 the HTTP client
 * meets (and retries after its Retry-After) doubles the spacing, down to an eighth of the rate
 * (the spec: "429 means reduce concurrency"); a call that still fails with a retryable error after
 * the client's own retries waits (its Retry-After, else 2, 4, 8... s, at most 60 s) and is tried
 * again, up to `attempts` times, before the download stops (resumable).
 */
import { ChainpilotError, isChainpilotError } from '../../core/index.js';

export interface RequestPacer {
  /** Runs `call` in its turn, retrying it after retryable failures. */
  run<T>(what: string, call: () => Promise<T>): Promise<T>;
  /** The HTTP client met a 429 (its telemetry's retry hook). */
  rateLimited(): void;
  stats(): { readonly requests: number; readonly rateLimited: number; readonly waits: number; readonly intervalMs: number };
}

export interface PacerOptions {
  readonly perSec: number;
  /** Tries of one call after the client's own retries (default 5). */
  readonly attempts?: number;
  /** First wait after a failed call without Retry-After (default 2000 ms, doubling). */
  readonly backoffMs?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Monotonic milliseconds (default `performance.now`). */
  readonly now?: () => number;
  readonly signal?: AbortSignal;
}

const sleepMs = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function createRequestPacer(o: PacerOptions): RequestPacer {
  const baseMs = 1000 / o.perSec;
  let intervalMs = baseMs;
  let nextAt = 0;
  let requests = 0;
  let rateLimited = 0;
  let waits = 0;
  const sleep = o.sleep ?? sleepMs;
  const clock = o.now ?? (() => performance.now());
  const interrupted = (what: string, cause?: unknown): ChainpilotError =>
    new ChainpilotError(
      'RECORDING_DOWNLOAD_INTERRUPTED',
      `download stopped at ${what}${cause instanceof Error ? `: ${cause.message}` : ''}; what was fetched is kept: run the same command again to resume`,
      { retry: 'retryable', cause, context: { what } },
    );
  return {
    async run(what, call) {
      const attempts = o.attempts ?? 5;
      for (let attempt = 1; ; attempt++) {
        if (o.signal?.aborted) throw interrupted(what, o.signal.reason);
        const now = clock();
        if (nextAt > now) await sleep(nextAt - now);
        nextAt = Math.max(now, nextAt) + intervalMs;
        requests++;
        try {
          return await call();
        } catch (e) {
          if (!isChainpilotError(e) || !e.retryable || attempt >= attempts) {
            if (isChainpilotError(e) && e.retryable) throw interrupted(what, e);
            throw e;
          }
          const after = e.context['retryAfterMs'];
          waits++;
          await sleep(typeof after === 'number' ? after : Math.min(60_000, (o.backoffMs ?? 2000) * 2 ** (attempt - 1)));
        }
      }
    },
    rateLimited() {
      rateLimited++;
      intervalMs = Math.min(baseMs * 8, intervalMs * 2);
    },
    stats: () => ({ requests, rateLimited, waits, intervalMs }),
  };
}
