/**
 * One call builds every request/response client of the service from one options object: shared
 * keep-alive pools, one redactor that knows every key, one clock and seeded jitter source.
 */
import { createRedactor, seededRandom, type Clock, type Logger, type Random, type Redactor } from '../core/index.js';
import { createDataApiClient, type DataApiClient } from './data-api/index.js';
import { createPoolRegistry, type HttpTelemetry, type RetryOptions } from './http/index.js';
import { createPredictionClient, type PredictionClient } from './prediction/index.js';
import { createRpcClient, type RpcClient } from './rpc/index.js';
import { createSwapClient, type SwapClient } from './swap/index.js';

export interface ServiceEndpoint {
  /** Base URL of the interface (without any key). */
  readonly url: string;
  /** Key for this interface; defaults to `apiKey` for the token data and prediction APIs. */
  readonly apiKey?: string;
  /** Overrides the shared timeout. */
  readonly timeoutMs?: number;
}

export interface ServiceClientsOptions {
  /** `{base_url}`: token data API. */
  readonly dataApi?: ServiceEndpoint;
  /** `{prediction_url}`: prediction-markets API. */
  readonly prediction?: ServiceEndpoint;
  /** `{rpc_url}`: JSON-RPC (its own key, sent as `api_key`). */
  readonly rpc?: ServiceEndpoint;
  /** `{swap_url}`: swap service (authentication not shown by the spec: a key is sent only if given). */
  readonly swap?: ServiceEndpoint;
  /** The token data API key, shared with the prediction API. */
  readonly apiKey?: string;
  /** Per-attempt timeout for every client (default 10 000 ms). */
  readonly timeoutMs?: number;
  /** Retry budget for reads. */
  readonly retry?: RetryOptions;
  readonly clock?: Clock;
  /** Jitter source (default seeded); each client gets its own fork. */
  readonly random?: Random;
  readonly logger?: Logger;
  /** The process redactor; every key is registered with it. */
  readonly redactor?: Redactor;
  /** Sockets per origin (default 16). */
  readonly connectionsPerOrigin?: number;
  /** Observer of every client's requests and retries (metrics); nothing is measured without one. */
  readonly telemetry?: HttpTelemetry;
}

type Has<O, K extends keyof O> = O[K] extends ServiceEndpoint ? true : false;

/** The clients for the endpoints that were configured. */
export interface ServiceClients<O extends ServiceClientsOptions = ServiceClientsOptions> {
  readonly dataApi: Has<O, 'dataApi'> extends true ? DataApiClient : DataApiClient | undefined;
  readonly prediction: Has<O, 'prediction'> extends true ? PredictionClient : PredictionClient | undefined;
  readonly rpc: Has<O, 'rpc'> extends true ? RpcClient : RpcClient | undefined;
  readonly swap: Has<O, 'swap'> extends true ? SwapClient : SwapClient | undefined;
  /** The redactor that knows every configured key. */
  readonly redactor: Redactor;
  /** Closes every pool. Final. */
  close(): Promise<void>;
}

/** Builds a client for each configured endpoint. */
export function createServiceClients<const O extends ServiceClientsOptions>(options: O): ServiceClients<O> {
  const redactor = options.redactor ?? createRedactor();
  const random = options.random ?? seededRandom('chainpilot-client');
  const pools = createPoolRegistry(options.connectionsPerOrigin !== undefined ? { connections: options.connectionsPerOrigin } : {});
  const common = (label: string, ep: ServiceEndpoint) => ({
    redactor,
    pools,
    random: random.fork(label),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    ...((ep.timeoutMs ?? options.timeoutMs) !== undefined ? { timeoutMs: ep.timeoutMs ?? options.timeoutMs } : {}),
  });
  const keyOf = (ep: ServiceEndpoint, shared: string | undefined): { apiKey?: string } => {
    const k = ep.apiKey ?? shared;
    return k ? { apiKey: k } : {};
  };
  const d = options.dataApi;
  const p = options.prediction;
  const r = options.rpc;
  const s = options.swap;
  const clients = {
    dataApi: d ? createDataApiClient({ baseUrl: d.url, ...keyOf(d, options.apiKey), ...common('data-api', d) }) : undefined,
    prediction: p ? createPredictionClient({ baseUrl: p.url, ...keyOf(p, options.apiKey), ...common('prediction', p) }) : undefined,
    rpc: r ? createRpcClient({ url: r.url, ...keyOf(r, undefined), ...common('rpc', r) }) : undefined,
    swap: s
      ? createSwapClient({
          url: s.url,
          ...keyOf(s, undefined),
          redactor,
          pools,
          ...(options.clock ? { clock: options.clock } : {}),
          ...(options.logger ? { logger: options.logger } : {}),
          ...(options.telemetry ? { telemetry: options.telemetry } : {}),
          ...((s.timeoutMs ?? options.timeoutMs) !== undefined ? { timeoutMs: s.timeoutMs ?? options.timeoutMs } : {}),
        })
      : undefined,
  };
  return {
    ...clients,
    redactor,
    close: () => pools.close(),
  } as ServiceClients<O>;
}
