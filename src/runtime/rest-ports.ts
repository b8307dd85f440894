/**
 * The REST side of a running deployment: the read-only look-ups strategies get as `ctx.data`, and
 * the history source the Datastream client backfills gaps from. Both go through the client's HTTP
 * layer (keep-alive pool, retries with backoff on 429/5xx, key redaction).
 */
import { ChainpilotError, type Redactor } from '../core/index.js';
import { createHttpClient, createPoolRegistry, readDataApiError } from '../client/http/index.js';
import { createDataApiClient } from '../client/data-api/data-api-client.js';
import { createTradesHistorySource } from '../client/data-api/trades-history-source.js';
import type { BackfillSource } from '../client/datastream/index.js';
import type { DataPort } from '../engine/data-lookup.js';

export interface RestPorts {
  /** Read-only GETs for `ctx.data` (never a write: strategies cannot trade through it). */
  readonly data: DataPort;
  /** Trades and liquidity history for the Datastream client's gap backfill. */
  readonly backfill: BackfillSource;
  close(): Promise<void>;
}

/** Builds the REST ports for `{base_url}` with the token data API key. */
export function createRestPorts(options: { readonly baseUrl: string; readonly apiKey: string; readonly redactor: Redactor }): RestPorts {
  const auth = { kind: 'header' as const, name: 'x-api-key', value: options.apiKey };
  // One keep-alive pool to {base_url}, shared by the look-ups and the typed client's backfill.
  const pools = createPoolRegistry();
  const http = createHttpClient({ baseUrl: options.baseUrl, service: 'data-api', auth, redactor: options.redactor, errorBody: readDataApiError, pools });
  const api = createDataApiClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, redactor: options.redactor, pools });
  return {
    data: {
      get: (path, query, signal) => {
        if (!path.startsWith('/')) {
          return Promise.reject(new ChainpilotError('API_INVALID_PARAM', `ctx.data.get("${path}"): paths start with "/", e.g. "/tokens/<mint>"`, { retry: 'not_retryable', context: { field: 'path' } }));
        }
        return http.json({ method: 'GET', path, kind: 'read', ...(query ? { query } : {}), ...(signal ? { signal } : {}) });
      },
    },
    backfill: createTradesHistorySource(api),
    // Clients do not close pools they were given: the registry is the owner.
    close: () => pools.close(),
  };
}
