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
  STREAM_INVALID_OPTIONS: 'a Datastream client option was missing or out of range',
  STREAM_INVALID_ROOM: 'a room name or room builder argument was not valid',
  STREAM_CLOSED: 'the Datastream client was closed; closing is final, create a new client',
  STREAM_AUTH_REFUSED: 'the Datastream server refused the API key repeatedly; the circuit breaker stopped reconnecting',
  STREAM_BACKFILL_FAILED: 'REST backfill of a room after a gap failed after its retries; events of the gap may be missing',
  STREAM_CONFIRM_FAILED: 'checking held provisional liquidity events against REST history failed; they stay held until the next check or their hold time',
  STREAM_HANDLER_FAILED: 'a subscriber handler of the confirmed liquidity view threw; the view keeps running',

  // --- engine and strategies ---
  ENGINE_BAD_FRAME: "a stream frame did not fit its room's payload or came from an unknown room family; it was counted and skipped",
  ENGINE_POSITION_OVERSOLD: "a sell fill moved more tokens than the position held (an executor or journal invariant broke)",
  ENGINE_STOPPED: "an order was placed while the engine was stopping",
  ENGINE_SUBMIT_FAILED: "the executor refused an intent with an uncoded error before accepting it",
  ENGINE_DATA_UNAVAILABLE: "ctx.data was used but the deployment has no REST endpoint wired",
  ENGINE_DATA_RATE_LIMITED: "ctx.data was called faster than its rate limit; retry later or rely on the cache",
  STRATEGY_INVALID_PARAMS: "a strategy's params block does not fit its schema",
  STRATEGY_TOO_MANY_TIMERS: "a strategy scheduled more timers than the per-strategy bound",
  STRATEGY_TOO_MANY_ROOMS: "a strategy watched more rooms than the per-strategy bound",
  STRATEGY_UNKNOWN: "the deployment names a strategy that is neither built in nor a loadable file",
  STRATEGY_LOAD_FAILED: "a user strategy file could not be loaded or does not export a strategy definition",
  RISK_INVALID_AMOUNT: "denial: the order amount is zero or negative",
  RISK_NO_POSITION: "denial: a sell exceeds the position held and not already being sold",
  RISK_KILL_SWITCH: "denial: the kill switch is on; no new buys",
  RISK_DAILY_LOSS_HALT: "denial: today's loss reached the daily loss limit; buys halt until the next UTC day",
  RISK_TOKEN_DENIED: "denial: the token is on the deny list",
  RISK_TOKEN_NOT_ALLOWED: "denial: an allow list is set and the token is not on it",
  RISK_TRADE_SIZE: "denial: the buy exceeds the per-trade size limit",
  RISK_INSUFFICIENT_CASH: "denial: the buy exceeds free cash (cash minus buys in flight)",
  RISK_MAX_OPEN_POSITIONS: "denial: opening this position would exceed the maximum number of open positions",
  RISK_MAX_EXPOSURE: "denial: the buy would take total exposure above its limit",
  RISK_TOKEN_LIMIT: "denial: the buy would take exposure to one token above its limit",
  RISK_COOLDOWN: "denial: the token was bought too recently",
  RISK_SAFETY_RISK_SCORE: "denial: the token's risk score is above the limit",
  RISK_SAFETY_BUNDLERS: "denial: the bundler share is above the limit",
  RISK_SAFETY_SNIPERS: "denial: the sniper share is above the limit",
  RISK_SAFETY_INSIDERS: "denial: the insider share is above the limit",
  RISK_SAFETY_TOP10: "denial: the top-10 holders' share is above the limit",
  RISK_SAFETY_DEV_HOLDING: "denial: the developer's holding is above the limit",
  RISK_MIN_LIQUIDITY: "denial: pool liquidity is below the minimum",
  RISK_MIN_HOLDERS: "denial: the holder count is below the minimum",

  // --- config ---
  CONFIG_INVALID: "the deployment file has errors; the message lists each with file, line, key and what is allowed",
  CONFIG_UNREADABLE: "the deployment file could not be read",
  CONFIG_YAML_SYNTAX: "the deployment file is not valid YAML",

  // --- executors: paper, live, journal ---
  PAPER_NO_PRICE: "paper executor: no observed price for the token, so no fill can be modelled",
  PAPER_SLIPPAGE_EXCEEDED: "paper executor: the modelled fill is worse than the intent's slippage allows (fee still paid, as on chain)",
  PAPER_STOPPED: "paper executor: an intent arrived after stop()",
  PAPER_NOT_STARTED: "paper executor: an intent arrived before start()",
  EXEC_SIGNER_KEY_MISSING: 'the wallet key source (keypair file or environment variable) is missing or unreadable',
  EXEC_SIGNER_KEY_INVALID: 'the wallet key source does not hold a valid 64-byte ed25519 secret key',
  EXEC_SIGNER_FAILED: 'signing produced no signature for our wallet (the transaction has no signer slot for it)',
  EXEC_WALLET_FILE_EXISTS: '`wallet new` refused to overwrite an existing keypair file',
  JOURNAL_NOT_FOUND: 'a state change named an intent id that is not in the journal',
  JOURNAL_BAD_TRANSITION: 'a state change broke the intent state machine (invariant breach: stop and reconcile)',
  JOURNAL_CORRUPT: 'a journal row could not be decoded',
  JOURNAL_DUPLICATE_SIGNATURE: 'a signed transaction has the signature of one already journaled (the swap service built identical bytes); rebuild with a newer blockhash',
  LIVE_INVALID_INTENT: 'the intent has an invalid field (amount, mint, decimals, slippage or fee); nothing was sent',
  LIVE_NOT_STARTED: 'submit was called before start() finished reconciling, or after stop()',
  LIVE_SPEND_CAP_TRADE: 'the intent would spend more SOL than the per-trade cap',
  LIVE_SPEND_CAP_DAY: 'the intent would take the day\'s SOL spend over the per-day cap',
  LIVE_BUILD_FAILED: 'the swap service could not build the transaction',
  LIVE_INSPECTION_FEE_PAYER: 'the built transaction\'s fee payer is not our wallet; it was not signed',
  LIVE_INSPECTION_PROGRAM: 'the built transaction calls a program outside the allow list; it was not signed',
  LIVE_INSPECTION_PRIORITY_FEE: 'the built transaction\'s priority fee exceeds the intent\'s budget; it was not signed',
  LIVE_INSPECTION_SIMULATION: 'simulating the built transaction failed or returned an error; it was not signed',
  LIVE_INSPECTION_OUTFLOW: 'simulation shows more SOL or tokens leaving our wallet than the intent plus fee budget; it was not signed',
  LIVE_INSPECTION_OUTPUT: 'simulation shows the output not arriving in our wallet\'s account; it was not signed',
  LIVE_FAILED_ON_CHAIN: 'the transaction landed and failed on chain (the fee was paid, nothing else moved)',
  LIVE_INTENT_STALE: 'an intent found unfinished at start-up was older than maxIntentAgeMs and was not (re)built',
  LIVE_RETRIES_EXHAUSTED: 'every allowed transaction of the intent expired unseen; the intent ends EXPIRED',

  // --- simulator ---
  SIM_INVALID_SETTINGS: 'a simulator option or market setting is out of range or unknown',
  SIM_UNKNOWN_TOKEN: 'a landed swap or quote named a mint the simulator does not know',
  SIM_POOL_NOT_TRADABLE: 'the token is migrating from its curve to its AMM pool; swaps are refused until it graduates',
  SIM_UNKNOWN_FAULT_PROFILE: 'the faults option names a profile that does not exist',
  SIM_LISTEN_FAILED: 'the simulator could not listen on the requested host and port',
  // ledger, JSON-RPC and swap service (part 2)
  LEDGER_INVALID_AIRDROP: 'an airdrop asked for zero or negative lamports or named an invalid address',
  LEDGER_INVALID_SWAP_REQUEST: 'a /swap body was malformed: a field is missing, of the wrong type or out of range',
  LEDGER_TOKEN_NOT_TRADABLE: 'a /swap named a token the market does not know or that cannot trade now (migrating)',
  LEDGER_INVALID_OPTIONS: 'a ledger knob or fault rate was out of range or unknown (rates 0 to 1, slot counts positive integers)',
  LEDGER_SERVER_START_FAILED: 'the JSON-RPC or swap server could not listen on its host and port',

  // --- runtime and cli ---
  RUNTIME_LIVE_NOT_CONFIRMED: "live mode was not confirmed: pass --live (or set mode: live and pass --confirm with the deployment's name); mode: paper refuses",
  RUNTIME_LIVE_NO_WALLET: 'live mode needs exactly one of wallet.keypairPath or wallet.secretKey',
  RUNTIME_LIVE_LIMITS_MISSING: 'live mode needs explicit risk limits (maxTradeSol, maxOpenPositions, maxExposureSol, dailyLossLimitSol) and executor caps (live.maxTradeSpendSol, live.maxDaySpendSol)',
  RUNTIME_LIVE_NETWORK_MISMATCH: "the deployment's network is missing, disagrees with its endpoints, or is not the cluster the RPC reports (getVersion, getGenesisHash)",
  RUNTIME_LIVE_ENDPOINTS_MISSING: 'live mode with remote endpoints needs endpoints.remote.rpcUrl and endpoints.remote.swapUrl',
  CLI_BAD_OPTION: "a command-line option has an invalid value",

  // --- added by issue 18 (errors you can look up): former plain Errors ---
  CORE_INVALID_ARGUMENT: 'a function was called with an argument outside its domain (a bug in the caller; the message names the argument)',
  HTTP_POOL_CLOSED: 'a request was made through an HTTP connection pool registry after it was closed',
  SIM_REQUEST_TOO_LARGE: "a request body to the simulator's JSON-RPC or swap server exceeded its size limit",
  LEDGER_UNSUPPORTED_TRANSACTION: "a transaction sent to the simulator's ledger uses address lookup tables, or has no signature or fee payer",
  SIM_PREDICTION_OFF: 'a prediction-markets view was asked of a simulator whose prediction model has not started',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
