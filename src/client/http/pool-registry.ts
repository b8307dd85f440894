/** One undici connection pool per origin, shared by every client built from the same registry. */
import { Pool } from 'undici';
import { ChainpilotError } from '../../core/errors.js';

/** Keep-alive pools keyed by origin (`scheme://host:port`). */
export interface PoolRegistry {
  /** The pool for `origin`, created on first use. */
  get(origin: string): Pool;
  /** Closes every pool (in-flight requests finish first). Final. */
  close(): Promise<void>;
}

export interface PoolRegistryOptions {
  /** Sockets per origin (default 16). */
  readonly connections?: number;
  /** How long an idle keep-alive socket stays open (default 30 s). */
  readonly keepAliveTimeoutMs?: number;
}

/** Creates an empty registry. */
export function createPoolRegistry(options: PoolRegistryOptions = {}): PoolRegistry {
  const pools = new Map<string, Pool>();
  let closed = false;
  return {
    get(origin) {
      if (closed) throw new ChainpilotError('HTTP_POOL_CLOSED', `the HTTP pool registry is closed; no new request to ${origin}`, { retry: 'not_retryable' });
      let pool = pools.get(origin);
      if (!pool) {
        pool = new Pool(origin, {
          connections: options.connections ?? 16,
          keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
          pipelining: 1,
        });
        pools.set(origin, pool);
      }
      return pool;
    },
    async close() {
      closed = true;
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((p) => p.close()));
    },
  };
}
