/**
 * The token data API client (`{base_url}`, key in the `x-api-key` header): every endpoint group of
 * the spec, limits enforced before sending, batches split and merged, cursor iterators.
 */

import { createHttpClient, sharedHttpOptions, type SharedHttpOptions, readDataApiError } from '../http/index.js';
import { createApiContext } from '../http/rest-context.js';
import { createDcaApi, type DcaApi } from './dca.js';
import { createHoldersApi, type HoldersApi } from './holders.js';
import { createPnlApi, type PnlApi } from './pnl.js';
import { createPricesApi, type PricesApi } from './prices.js';
import { createTokensApi, type TokensApi } from './tokens.js';
import { createTradesApi, type TradesApi } from './trades.js';

/** Timeouts, retries, clock, random, logger, redactor and pools pass through to the HTTP client. */
export interface DataApiClientOptions extends SharedHttpOptions {
  /** `{base_url}`. */
  readonly baseUrl: string;
  readonly apiKey?: string;
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
