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
  STREAM_HANDSHAKE_FAILED:
    'the Datastream server answered the WebSocket upgrade with something other than a valid 101 (a status, a wrong accept key, an extension not offered); the client reconnects with backoff',
  STREAM_BACKFILL_FAILED: 'REST backfill of a room after a gap failed after its retries; events of the gap may be missing',
  STREAM_CONFIRM_FAILED: 'checking held provisional liquidity events against REST history failed; they stay held until the next check or their hold time',
  STREAM_HANDLER_FAILED: 'a subscriber handler of the confirmed liquidity view threw; the view keeps running',

  // --- engine and strategies ---
  ENGINE_BAD_FRAME: "a stream frame did not fit its room's payload or came from an unknown room family; it was counted and skipped",
  ENGINE_POSITION_OVERSOLD: 'a sell fill moved more tokens than the position held (an executor or journal invariant broke)',
  ENGINE_STOPPED: 'an order was placed while the engine was stopping',
  ENGINE_SUBMIT_FAILED: 'the executor refused an intent with an uncoded error before accepting it',
  ENGINE_DATA_UNAVAILABLE: 'ctx.data was used but the deployment has no REST endpoint wired',
  ENGINE_DATA_RATE_LIMITED: 'ctx.data was called faster than its rate limit; retry later or rely on the cache',
  STRATEGY_INVALID_PARAMS: "a strategy's params block does not fit its schema",
  STRATEGY_TOO_MANY_TIMERS: 'a strategy scheduled more timers than the per-strategy bound',
  STRATEGY_TOO_MANY_ROOMS: 'a strategy watched more rooms than the per-strategy bound',
  STRATEGY_BAD_ARGUMENT: 'a strategy called a context method with an argument out of range (a flow window, a bar interval, a tracking ttl)',
  STRATEGY_UNKNOWN: 'the deployment names a strategy that is neither built in nor a loadable file',
  STRATEGY_LOAD_FAILED: 'a user strategy file could not be loaded or does not export a strategy definition',
  RISK_INVALID_AMOUNT: 'denial: the order amount is not a bigint above zero (zero, negative, or a number)',
  RISK_NO_POSITION: 'denial: a sell exceeds the position held and not already being sold',
  RISK_KILL_SWITCH: 'denial: the kill switch is on; no new buys',
  RISK_DAILY_LOSS_HALT: "denial: today's loss reached the daily loss limit; buys halt until the next UTC day",
  RISK_TOKEN_DENIED: 'denial: the token is on the deny list',
  RISK_TOKEN_NOT_ALLOWED: 'denial: an allow list is set and the token is not on it',
  RISK_TRADE_SIZE: 'denial: the buy exceeds the per-trade size limit',
  RISK_INSUFFICIENT_CASH: 'denial: the buy exceeds free cash (cash minus buys in flight)',
  RISK_MAX_OPEN_POSITIONS: 'denial: opening this position would exceed the maximum number of open positions',
  RISK_MAX_EXPOSURE: 'denial: the buy would take total exposure above its limit',
  RISK_TOKEN_LIMIT: 'denial: the buy would take exposure to one token above its limit',
  RISK_COOLDOWN: 'denial: the token was bought too recently',
  RISK_SAFETY_RISK_SCORE: "denial: the token's risk score is above the limit",
  RISK_SAFETY_BUNDLERS: 'denial: the bundler share is above the limit',
  RISK_SAFETY_SNIPERS: 'denial: the sniper share is above the limit',
  RISK_SAFETY_INSIDERS: 'denial: the insider share is above the limit',
  RISK_SAFETY_TOP10: "denial: the top-10 holders' share is above the limit",
  RISK_SAFETY_DEV_HOLDING: "denial: the developer's holding is above the limit",
  RISK_MIN_LIQUIDITY: 'denial: pool liquidity is below the minimum',
  RISK_MIN_HOLDERS: 'denial: the holder count is below the minimum',

  // --- config ---
  CONFIG_INVALID: 'the deployment file has errors; the message lists each with file, line, key and what is allowed',
  CONFIG_UNREADABLE: 'the deployment file could not be read',
  CONFIG_YAML_SYNTAX: 'the deployment file is not valid YAML',

  // --- executors: paper, live, journal ---
  PAPER_NO_PRICE: 'paper executor: no observed price for the token, so no fill can be modelled',
  PAPER_SLIPPAGE_EXCEEDED: "paper executor: the modelled fill is worse than the intent's slippage allows (fee still paid, as on chain)",
  PAPER_STOPPED: 'paper executor: an intent arrived after stop()',
  PAPER_NOT_STARTED: 'paper executor: an intent arrived before start()',
  EXEC_SIGNER_KEY_MISSING: 'the wallet key source (keypair file or environment variable) is missing or unreadable',
  EXEC_SIGNER_KEY_INVALID: 'the wallet key source does not hold a valid 64-byte ed25519 secret key',
  EXEC_SIGNER_FAILED: 'signing produced no signature for our wallet (the transaction has no signer slot for it)',
  EXEC_WALLET_FILE_EXISTS: '`wallet new` refused to overwrite an existing keypair file',
  JOURNAL_NOT_FOUND: 'a state change named an intent id that is not in the journal',
  JOURNAL_BAD_TRANSITION: 'a state change broke the intent state machine (invariant breach: stop and reconcile)',
  JOURNAL_CORRUPT: 'a journal row could not be decoded',
  JOURNAL_SYNC_FAILED:
    "the file system refused to flush the journal's log to disk (fdatasync failed): the journal takes no further write and nothing more is sent; restart on healthy storage",
  JOURNAL_DUPLICATE_SIGNATURE:
    'a signed transaction has the signature of one already journaled (the swap service built identical bytes); rebuild with a newer blockhash',
  LIVE_INVALID_INTENT: 'the intent has an invalid field (amount, mint, decimals, slippage or fee); nothing was sent',
  LIVE_NOT_STARTED: 'submit was called before start() finished reconciling, or after stop()',
  LIVE_SPEND_CAP_TRADE: 'the intent would spend more SOL than the per-trade cap',
  LIVE_SPEND_CAP_DAY: "the intent would take the day's SOL spend over the per-day cap",
  LIVE_BUILD_FAILED: 'the swap service could not build the transaction',
  LIVE_INSPECTION_FEE_PAYER: "the built transaction's fee payer is not our wallet; it was not signed",
  LIVE_INSPECTION_PROGRAM: 'the built transaction calls a program outside the allow list; it was not signed',
  LIVE_INSPECTION_PRIORITY_FEE: "the built transaction's priority fee exceeds the intent's budget; it was not signed",
  LIVE_INSPECTION_SIMULATION: 'simulating the built transaction failed or returned an error; it was not signed',
  LIVE_INSPECTION_OUTFLOW: 'simulation shows more SOL or tokens leaving our wallet than the intent plus fee budget; it was not signed',
  LIVE_INSPECTION_OUTPUT: "simulation shows the output not arriving in our wallet's account; it was not signed",
  LIVE_FAILED_ON_CHAIN: 'the transaction landed and failed on chain (the fee was paid, nothing else moved)',
  LIVE_INTENT_STALE: 'an intent found unfinished at start-up was older than maxIntentAgeMs and was not (re)built',

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
  RUNTIME_LIVE_LIMITS_MISSING:
    'live mode needs explicit risk limits (maxTradeSol, maxOpenPositions, maxExposureSol, dailyLossLimitSol) and executor caps (live.maxTradeSpendSol, live.maxDaySpendSol)',
  RUNTIME_LIVE_NETWORK_MISMATCH:
    "the deployment's network is missing, disagrees with its endpoints, or is not the cluster the RPC reports (getVersion, getGenesisHash)",
  RUNTIME_LIVE_ENDPOINTS_MISSING: 'live mode with remote endpoints needs endpoints.remote.rpcUrl and endpoints.remote.swapUrl',
  CLI_BAD_OPTION: 'a command-line option has an invalid value',
  EXEC_WALLET_FILE_PERMISSIONS: 'the wallet keypair file may be read or written by group or others; run chmod 600 on it',
  CLI_USAGE: 'the command line is not one chainpilot understands (unknown command or option, missing argument)',
  // --- strategy API protections ---
  ENGINE_BUY_IN_FLIGHT: 'denial: this strategy already has an unresolved buy of the token; wait for onFill or onIntentFailed, or pass allowConcurrent: true',
  // --- live path (issue 15) ---
  LIVE_INSPECTION_INSTRUCTION:
    'an instruction of the built transaction moves, delegates, re-assigns or closes an account our wallet owns beyond the intended input and output; it was not signed',
  LIVE_INVALID_SETTINGS: 'a live executor setting is out of range, or needs an RPC method the given port lacks (priorityFee needs getRecentPrioritizationFees)',
  LIVE_INSPECTION_ACCOUNT:
    'simulation shows a token account our wallet owns losing tokens, changing owner, getting a delegate or being closed beyond the intended input and output; it was not signed',
  LIVE_INSPECTION_SIGNERS:
    'the built transaction requires more co-signers than allowed (each costs our wallet a base fee), or a co-signer that has not signed; it was not signed',
  // --- recording, backtest, report, sweep ---
  RECORDING_WRITE_FAILED: 'a recording file could not be written (disk full, permissions); the run goes on without it and the error is logged',
  RECORDING_NOT_FOUND: '--data named no recording file: check the path, directory or glob (files end in .jsonl or .jsonl.gz)',
  RECORDING_INVALID: 'a recording file is not a chainpilot recording: its header is missing or of another format version, or a line is not a record',
  BACKTEST_DATA_MISS: 'a ctx.data look-up in a backtest had no answer in the recording (never a network call); counted, and answered by the data-miss fallback',
  BACKTEST_DIVERGED: '--verify-against: the decision log of the backtest departs from the given one; both sides of the first difference are printed',
  BACKTEST_INVALID_OPTION: 'a backtest, sweep or report option is invalid (time window, --set path or values, walk-forward split, metric)',
  // --- scale-out (queue, Redis journal) ---
  JOURNAL_FENCED: "the wallet's lease was taken over by another worker (or this view is read-only): this writer may not write or send and stops",
  JOURNAL_REDIS_NOT_DURABLE: 'the Redis behind the journal is not durable: it needs appendonly yes and maxmemory-policy noeviction',
  QUEUE_CATCH_UP_TIMEOUT: "the engine's start waited too long for queued or unresolved intents of an earlier run to settle (no worker running?)",
  QUEUE_NO_WALLETS: 'chainpilot worker found no deployment with a wallet key and queued execution to work for',
  QUEUE_BAD_JOB: "a queued job's data could not be decoded into an intent",
  RUNTIME_DAEMON_NO_FILES: 'the daemon was given no deployment files, or a path that does not exist',
  RUNTIME_DAEMON_DUPLICATE_NAME: 'two deployment files given to the daemon use the same deployment name',
  RUNTIME_DEPLOYMENT_FAILED: 'a deployment stopped by itself or failed with an uncoded error; the message says why',
  RUNTIME_DAEMON_UNSAFE_LISTEN: 'the daemon refuses to listen on a non-loopback address without an API token',
  RUNTIME_DAEMON_LISTEN_FAILED: "the daemon's control server could not listen on its address (in use, or not allowed)",
  RUNTIME_DAEMON_BAD_CONFIG: 'the daemon configuration (--listen, server.listen, token) is invalid',
  CLI_API_UNREACHABLE: "the CLI could not reach the daemon's control API; check --url and that the daemon runs",
  CLI_API_REFUSED:
    'the server at --url refused the request without a code this CLI knows (not a chainpilot daemon, or a newer one); the message has the HTTP status and its answer',
  // runtime: deployment handle (runtime issue)
  RUNTIME_ENTRIES_PAUSED: 'denial: new buys are paused (feed policy feed.onLoss: pause-entries, or an operator pause); exits and sells still run',
  RUNTIME_HALTED: 'denial: the deployment is halted after a fatal error or feed.onLoss: halt; no new intents until restart',
  RUNTIME_FEED_LOST: 'the market feed stopped, went stale, disconnected, overflowed or failed a backfill; feed.onLoss decides what happens to entries',
  RUNTIME_INVARIANT_BROKEN: 'applying an execution report failed: an invariant of the portfolio or journal broke; the deployment halts',
  RUNTIME_START_FAILED: 'the deployment could not start; the cause is in the message',
  RUNTIME_HANDLE_STATE: 'a handle method was called in a state that does not allow it (start twice, start after stop)',
  RUNTIME_PROCESS_EXIT: 'user code called process.exit; a strategy cannot end the process',
  LIVE_CHAIN_READ_FAILED: 'a chain read (block height, transaction) kept failing after its bounded retries; the intent is left to start-up reconciliation',
  RUNTIME_FEED_NEVER_OPENED: 'the run ended without the market feed ever delivering a frame (key refused or service unreachable)',
  RUNTIME_STORE_FOREIGN:
    "the store at store.path belongs to another deployment or wallet, or is a live store opened by a paper deployment or the reverse (both are named); point store.path at this deployment's own store",
  RUNTIME_STORE_LOCKED: 'another process (its pid is named) holds the store; stop it first, or give this deployment its own store.path',
  LIVE_INTENT_ID_REPEATED: 'an intent id was submitted that the journal already holds from another run or process; it was rejected, never left pending',

  // --- added by issue 18 (errors you can look up): former plain Errors ---
  CORE_INVALID_ARGUMENT: 'a function was called with an argument outside its domain (a bug in the caller; the message names the argument)',
  HTTP_POOL_CLOSED: 'a request was made through an HTTP connection pool registry after it was closed',
  SIM_REQUEST_TOO_LARGE: "a request body to the simulator's JSON-RPC or swap server exceeded its size limit",
  LEDGER_UNSUPPORTED_TRANSACTION:
    "a transaction sent to the simulator's ledger has no signature or fee payer, or names an address lookup table the ledger does not hold or an index past a table's end",
  SIM_PREDICTION_OFF: 'a prediction-markets view was asked of a simulator whose prediction model has not started',
  LEDGER_MALFORMED_TRANSACTION:
    "transaction bytes sent to the simulator's ledger did not decode (truncated, an unknown version, an account index beyond the keys); refused as an invalid transaction",
  RECORDING_CACHE_CORRUPT: 'a prepared cache file of a recording did not decode (truncated or damaged); it is rebuilt from the recording',

  // --- issue 24 (three houses): add this codes here only ---
  RUNTIME_TELEGRAM_FAILED:
    'the Telegram control could not start its long polling (a wrong telegram.botToken, no route to the Bot API at telegram.baseUrl); the daemon runs on without it: fix the setting and restart the daemon',
  CORE_PART_STOPPED:
    'a long-running part was asked to start after it was stopped (or failed to start); a stopped part does not start again: build a new one. Also the reason a stop gives the start it aborts (a stop during the start)',
  CORE_DRAIN_DEADLINE:
    "a long-running part's drain passed the deadline of its stop (`drainMs`); the part was stopped at once and work still in hand was dropped (its report says what)",
  JOURNAL_SCHEMA_NEWER:
    'a SQLite file (store, journal, paper book) was written by a newer chainpilot than this one (its schema version is higher than this code knows); upgrade, or use another store.path',

  // --- issue 25 (live money safety): add this codes here only ---
  QUEUE_SUBMIT_UNKNOWN:
    'queueing an intent got no answer from Redis (timeout or lost connection): the job may be stored, so the intent stays in flight and is added again (idempotently, by its id) until Redis answers',
  LIVE_EXPIRY_UNPROVEN:
    "a transaction's expiry could not be proven: every history-searching status answer came from a slot before the expiry passed (a lagging RPC node); the intent is left to start-up reconciliation, never rebuilt on such an answer",
  QUEUE_WALLET_HELD:
    'another engine (named in the message) already holds this wallet on Redis: one engine per wallet, so this one was refused at start; stop the other one (a crashed one lets go after its hold expires)',
  LIVE_NO_REFERENCE_PRICE:
    'an intent without a reference price was refused because execution requires one (its least accepted output cannot be derived otherwise)',

  // --- issue 26 (paper predicts live): add this codes here only ---
  BACKTEST_NO_LIVE_DATA: 'calibrate was given no readable live decision log or journal, or none with a live fill to fit the paper model from',

  // --- issue 27 (research): add this codes here only ---
  RECORDING_DOWNLOAD_INTERRUPTED:
    'chainpilot download stopped before the end (aborted, or the service kept failing after the retries); what was fetched is kept and the same command resumes it',
  RECORDING_DOWNLOAD_INVALID:
    'chainpilot download was given an invalid window or selection, or its --out directory holds a partial download made with other options',
  BACKTEST_SPACE_INVALID:
    'a strategy declares a search space (space: in defineStrategy) with values its own parameter schema refuses; the sweep stops before any work',
  BACKTEST_CELL_FAILED: 'a sweep cell threw while it ran (on a worker thread or a `chainpilot worker --sweeps` process); the sweep stops and names the cell',
  BACKTEST_RECORDING_MISMATCH:
    "a sweep worker's copy of the recording does not have the sha256 the sweep names (a different or changed file at that path); the job fails and the sweep stops",

  // --- issue 28 (operating a daemon): add this codes here only ---
  RUNTIME_DAEMON_WEAK_TOKEN:
    'the daemon refused a non-loopback listen address because the API token is weak (short, blank, white space, few distinct characters)',
  ENGINE_MANUAL_REFUSED:
    'a manual action (close, force entry, cancel) was refused before the order flow: no such position, strategy or waiting intent, or a bad amount',
  ENGINE_INTENT_CANCELLED: 'an intent was cancelled by an operator before it left the process (paper: during its latency)',
  ENGINE_STRATEGY_HALTED: 'alert: the error policy halted a strategy (engine.haltAfterErrors); the deployment runs degraded until restarted',

  // --- issue 29 (first hour, input bounds): add this codes here only ---
  CLI_BAD_PATH:
    'a path given on the command line cannot be used (a directory that cannot be created, a file whose directory is missing); the message names the option, the path and why',
  CONFIG_FILE_TOO_LARGE: 'the deployment file is larger than 1 MiB (or endless, like /dev/zero); it is refused after reading at most that much',
  RUNTIME_LIVE_NETWORK_UNREACHABLE:
    "live mode's network check (getVersion, getGenesisHash) failed with transient RPC errors on every one of its bounded retries; nothing was signed, try again",
  HTTP_BODY_TOO_DEEP:
    'a REST, JSON-RPC or swap response nested objects or arrays deeper than maxJsonDepth (64, the same limit as Datastream frames); refused before anything reads it',

  // --- issue 30 (speed): add this codes here only ---

  // --- issue 31 (daemon scale): add this codes here only ---
  SIM_WORKER_FAILED:
    "an embedded simulator's worker thread ended before it served (its heap limit too small to start one, a module that failed to load); once it served, a worker that ends is restarted instead",
  RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED:
    "the daemon's deployments need more memory than its --memory-limit allows (simulators × their heap limit + deployments × 1.5 MB + a 150 MB base); refused at start, or the reload is refused and the running set kept",
  RUNTIME_DAEMON_MEMORY_HIGH:
    "the daemon's RSS reached 90 % of its --memory-limit: /readyz answers 503 with this reason and the daemon notifies once; it clears below 80 %",
  RUNTIME_PAPER_BOOK_WRITE_FAILED:
    "a batch of paper book changes could not be written to the deployment's store (disk full, a damaged file); the deployment halts, and the book on disk keeps every earlier batch",

  // --- issue 38 (the last holes): add this codes here only ---
  HTTP_BODY_BUDGET:
    'a REST, JSON-RPC or swap response body was dropped because the bodies being read at once would pass the in-flight budget (128 MiB across the process); reads are retried with backoff, a write has an unknown outcome',
  // --- issue 42 (lean daemon, operator): add this codes here only ---
  RUNTIME_API_UNAUTHORIZED:
    "the daemon's control API got no bearer token or a wrong one (401), or a dashboard stream or report link came without a fresh ticket; the CLI sends the variable named by --token-env (default CHAINPILOT_API_TOKEN), else <data-dir>/api-token",
  RUNTIME_API_NOT_FOUND: "the daemon's control API has no such deployment or report (404); GET /api/deployments (chainpilot status) lists the deployments",
  RUNTIME_API_BAD_REQUEST: "the daemon's control API refused a request that does not fit its schema (400); the message names the field",
  RUNTIME_API_NOT_RUNNING:
    'the deployment a control API action named is not running (starting, stopped, failed or restarting; 409); retry once chainpilot status shows it running',
  RUNTIME_API_INTERNAL: "the daemon's control API failed with an uncoded error (500); the daemon's log has the cause",
  // --- issue 38 (journal outage): add this codes here only ---
  LIVE_JOURNAL_UNAVAILABLE:
    'the intent journal could not write (a full disk, an I/O error, Redis unreachable): an intent already sent is kept in memory and its write retried, a new intent is refused; the deployment is degraded until the journal accepts every waiting write',
  // --- issue 41 (strategy test kit): add this codes here only ---
  STRATEGY_TEST_BAD_EVENT:
    'an event builder of chainpilot/testing was given a bad value (a SOL amount or price that is not an exact decimal string); the message names the field',
  STRATEGY_TEST_ASSERTION:
    'an assertion helper of chainpilot/testing found no intent, fill or denial matching what the test expects; the message lists what the strategy did',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;
