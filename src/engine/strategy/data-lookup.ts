/**
 * Read-only REST look-ups for strategies: a cache with a TTL on the engine clock, in-flight
 * de-duplication and a token-bucket rate limit. Over the limit a call fails fast with
 * ENGINE_DATA_RATE_LIMITED (retryable), so a strategy loop cannot flood the service.
 */
import { BoundedMap, ChainpilotError, type Clock } from '../../core/index.js';
import type { StrategyData } from './strategy-api.js';

/** The narrow port the runtime implements with the REST client. */
export interface DataPort {
  get(path: string, query: Readonly<Record<string, string | number | boolean>> | undefined, signal?: AbortSignal): Promise<unknown>;
}

export interface DataLookupOptions {
  readonly ttlMs: number;
  readonly maxEntries: number;
  /** Sustained requests per second, and burst size. */
  readonly ratePerSecond: number;
  readonly burst: number;
}

export const DEFAULT_DATA_LOOKUP: DataLookupOptions = { ttlMs: 10_000, maxEntries: 1_000, ratePerSecond: 5, burst: 10 };

export function createDataLookup(port: DataPort | undefined, clock: Clock, options: DataLookupOptions = DEFAULT_DATA_LOOKUP): StrategyData {
  const cache = new BoundedMap<string, { at: number; value: Promise<unknown> }>(options.maxEntries);
  let tokens = options.burst;
  let refilledAt = clock.now() as number;
  return {
    get(path, query, signal) {
      if (!port) {
        return Promise.reject(
          new ChainpilotError('ENGINE_DATA_UNAVAILABLE', 'ctx.data is not available in this deployment: configure endpoints to enable REST look-ups', {
            retry: 'not_retryable',
          }),
        );
      }
      const key = `${path}?${
        query
          ? Object.keys(query)
              .sort()
              .map((k) => `${k}=${String(query[k])}`)
              .join('&')
          : ''
      }`;
      const now = clock.now() as number;
      const hit = cache.get(key);
      if (hit && now - hit.at < options.ttlMs) return hit.value;
      tokens = Math.min(options.burst, tokens + ((now - refilledAt) / 1000) * options.ratePerSecond);
      refilledAt = now;
      if (tokens < 1) {
        return Promise.reject(
          new ChainpilotError(
            'ENGINE_DATA_RATE_LIMITED',
            `ctx.data.get("${path}") exceeds ${options.ratePerSecond} requests/s; call less often or rely on the cache`,
            { retry: 'retryable', context: { path } },
          ),
        );
      }
      tokens -= 1;
      const value = port.get(path, query, signal);
      cache.set(key, { at: now, value });
      // Failed look-ups are not cached.
      value.catch(() => {
        if (cache.get(key)?.value === value) cache.delete(key);
      });
      return value;
    },
  };
}
