/** Documented limits of the token data API, enforced before a request is sent. */
export const DATA_API_LIMITS = {
  /** POST /tokens/multi. */
  multiTokens: 20,
  /** GET and POST /price/multi. */
  multiPrices: 100,
  /** /tokens/multi/graduating and /graduated `limit`. */
  graduationList: 500,
  /** /search and /deployer with `format=full`, per page. */
  fullFormatPage: 100,
  /** trades `limit`. */
  tradesPage: 500,
  /** /tokens/{token}/holders/paginated `limit`. */
  holdersPage: 5000,
  /** POST /v2/pnl/wallets/{wallet}/positions/batch tokens. */
  pnlWalletPositionsBatch: 100,
  /** POST /v2/pnl/tokens/{token}/positions/batch wallets. */
  pnlTokenPositionsBatch: 200,
  /** POST /v2/pnl/positions/batch wallet-token pairs. */
  pnlPairsBatch: 200,
  /** POST /v2/pnl/wallets/batch wallets. */
  pnlWalletsBatch: 100,
} as const;

/** Split batches run with at most this many requests in flight (429 means reduce concurrency). */
export const BATCH_CONCURRENCY = 4;
