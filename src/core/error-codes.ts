/**
 * Every error code of chainpilot, with a one-line meaning. Codes are stable and never reused.
 * docs/errors.md documents each one; test/core/error-codes.test.ts checks the two agree.
 *
 * Each area owns one section below; add codes to your own section only.
 */
export const ERROR_CODES = {
  // --- core ---
  CORE_INVALID_UNIT: 'a unit value (lamports, raw amount, bps, time) was out of range or not an integer',
  CORE_INVALID_DECIMAL: 'a decimal amount was not a finite number or had too many decimal places',
  CORE_ABORTED: 'the operation was aborted by its AbortSignal',
  CORE_TIMEOUT: 'the operation did not finish within its timeout',

  // --- client: http, data api, prediction, rpc, swap ---
  HTTP_TIMEOUT: 'an HTTP request did not complete within its timeout (reads are retried; the outcome of a write is unknown)',
  HTTP_NETWORK: 'the connection failed or was reset before a complete response arrived',
  HTTP_RATE_LIMITED: 'the service answered 429 (too many requests) and the retry budget or Retry-After cap was exceeded',
  HTTP_SERVER_ERROR: 'the service answered with a 5xx status',
  HTTP_CLIENT_ERROR: 'the service answered with a 4xx status other than 401, 403, 408 and 429: fix the request',
  HTTP_AUTH_FAILED: 'the service answered 401 or 403: check the API key',
  HTTP_REQUEST_TIMEOUT: 'the service answered 408 (for example a DCA token endpoint timing out server-side)',
  HTTP_INVALID_BODY: 'a response body was empty, not JSON (for example an HTML error page), larger than maxResponseBytes, or not the documented shape',
  HTTP_INVALID_OPTIONS: 'client options were invalid (base URL, timeout, retry budget)',
  API_INVALID_PARAM: 'a token data API parameter was outside its documented range or format',
  API_LIMIT_EXCEEDED: 'a token data API request exceeded a documented limit that cannot be split without changing its meaning',
  API_CURSOR_REPEATED: 'a paginated endpoint returned a cursor it had already returned; iteration stopped instead of looping',
  PREDICTION_INVALID_PARAM: 'a prediction-markets API parameter was outside its documented range or format',
  PREDICTION_NO_PUBLIC_WALLETS: 'wallet analytics were requested for exchange_a, which has no public wallets',
  RPC_ERROR: 'a JSON-RPC response carried an error member (often with HTTP 200)',
  RPC_INVALID_RESPONSE: 'a JSON-RPC response had neither a valid result nor an error, or the result was not the documented shape',
  RPC_INVALID_PARAM: 'a JSON-RPC call was given an invalid parameter (empty list, non-integer lamports, too many items)',
  SWAP_INVALID_REQUEST: 'a swap request field was invalid (amount, slippage, priority fee, wallet or mint)',
  SWAP_INVALID_TRANSACTION: 'the swap service returned no txn, or a txn that is not a decodable Solana transaction',

  // --- client: datastream ---

  // --- engine and strategies ---

  // --- config ---

  // --- executors: paper, live, journal ---

  // --- simulator ---

  // --- runtime and cli ---
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
