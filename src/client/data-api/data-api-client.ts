/**
 * The token data API client (`{base_url}`, key in the `x-api-key` header): every endpoint group of
 * the spec, limits enforced before sending, batches split and merged, cursor iterators.
 */
import type { Clock, Logger, Random, Redactor } from '../../core/index.js';
import { createHttpClient, sharedHttpOptions, readDataApiError, type PoolRegistry, type RetryOptions } from '../http/index.js';
import { createApiContext } from '../http/rest-context.js';
import { createDcaApi, type DcaApi } from './dca.js';
import { createHoldersApi, type HoldersApi } from './holders.js';
import { createPnlApi, type PnlApi } from './pnl.js';
import { createPricesApi, type PricesApi } from './prices.js';
import { createTokensApi, type TokensApi } from './tokens.js';
import { createTradesApi, type TradesApi } from './trades.js';

export interface DataApiClientOptions {
  /** `{base_url}`. */
  readonly baseUrl: string;
  readonly apiKey?: string;
  readonly timeoutMs?: number;
  readonly retry?: RetryOptions;
  readonly clock?: Clock;
  readonly random?: Random;
  readonly logger?: Logger;
  readonly redactor?: Redactor;
  readonly pools?: PoolRegistry;
}

export interface DataApiClient extends TokensApi, PricesApi, TradesApi, HoldersApi, DcaApi, PnlApi {
  close(): Promise<void>;
}

/** Creates the token data API client. */
export function createDataApiClient(options: DataApiClientOptions): DataApiClient {
  const http = createHttpClient({
    baseUrl: options.baseUrl,
    service: 'data-api',
    ...(options.apiKey ? { auth: { kind: 'header' as const, name: 'x-api-key', value: options.apiKey } } : {}),
    ...sharedHttpOptions(options),
    errorBody: readDataApiError,
  });
  const ctx = createApiContext(http, { invalid: 'API_INVALID_PARAM', limit: 'API_LIMIT_EXCEEDED' }, 'data-api');
  return {
    ...createTokensApi(ctx),
    ...createPricesApi(ctx),
    ...createTradesApi(ctx),
    ...createHoldersApi(ctx),
    ...createDcaApi(ctx),
    ...createPnlApi(ctx),
    close: () => http.close(),
  };
}
