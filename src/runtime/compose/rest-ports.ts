/**
 * The REST side of a running deployment: the read-only look-ups strategies get as `ctx.data`, and
 * the history source the Datastream client backfills gaps from. Both go through the client's HTTP
 * layer (keep-alive pool, retries with backoff on 429/5xx, key redaction).
 */
import { ChainpilotError, type Clock, type Random, type Redactor } from '../../core/index.js';
import { createHttpClient, createPoolRegistry, readDataApiError, type HttpTelemetry } from '../../client/http/index.js';
import { createDataApiClient } from '../../client/data-api/data-api-client.js';
import { createTradesHistorySource } from '../../client/data-api/trades-history-source.js';
import type { BackfillSource } from '../../client/datastream/index.js';
import type { DataPort } from '../../engine/strategy/data-lookup.js';

export interface RestPorts {
  /** Read-only GETs for `ctx.data` (never a write: strategies cannot trade through it). */
  readonly data: DataPort;
  /** Trades and liquidity history for the Datastream client's gap backfill. */
  readonly backfill: BackfillSource;
  /** Requests in flight (look-ups and backfill pages). */
  inFlight(): number;
  close(): Promise<void>;
}

/** Builds the REST ports for `{base_url}` with the token data API key; `telemetry` observes both clients' requests and retries. */
export function createRestPorts(options: {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly redactor: Redactor;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly telemetry?: HttpTelemetry;
}): RestPorts {
  const auth = { kind: 'header' as const, name: 'x-api-key', value: options.apiKey };
  // One keep-alive pool to {base_url}, shared by the look-ups and the typed client's backfill.
  // Retry backoff and Retry-After read the run clock, so they last simulated time under the simulator.
  const pools = createPoolRegistry();
  const shared = {
    redactor: options.redactor,
    pools,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.random ? { random: options.random } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
  };
  const http = createHttpClient({ baseUrl: options.baseUrl, service: 'data-api', auth, errorBody: readDataApiError, ...shared });
  const api = createDataApiClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, ...shared });
  let inFlight = 0;
  const counted = <T>(p: Promise<T>): Promise<T> => {
    inFlight++;
    return p.finally(() => {
      inFlight--;
    });
  };
  const history = createTradesHistorySource(api);
  const backfill: BackfillSource = { fetchHistoryPage: (q, signal) => counted(history.fetchHistoryPage(q, signal)) };
  return {
    data: {
      get: (path, query, signal) => {
        if (!path.startsWith('/')) {
          return Promise.reject(
            new ChainpilotError('API_INVALID_PARAM', `ctx.data.get("${path}"): paths start with "/", e.g. "/tokens/<mint>"`, {
              retry: 'not_retryable',
              context: { field: 'path' },
            }),
          );
        }
        return counted(http.json({ method: 'GET', path, kind: 'read', ...(query ? { query } : {}), ...(signal ? { signal } : {}) }));
      },
    },
    backfill,
    inFlight: () => inFlight,
    // Clients do not close pools they were given: the registry is the owner.
    close: () => pools.close(),
  };
}
