/**
 * The deployment schema: one YAML file describes a deployment. Strict (unknown keys are errors);
 * every default lives here; SOL amounts are exact decimals turned into lamports; durations accept
 * milliseconds or "500ms", "30s", "5m", "1h", "1d". Every number and duration is bounded by its
 * entry in limits.ts (CONFIG_LIMITS), so a value the schema accepts runs as the user meant.
 */
import { z } from 'zod';
import { parseSolToLamports, type Lamports } from '../core/index.js';
import { parseDuration } from '../core/duration.js';
import { CONFIG_LIMITS, CONFIG_TEXT_LIMITS, describeRange, type LimitedKey } from './limits.js';
import { paperModelSchema } from './paper-model-schema.js';

/** Milliseconds from a number or a string such as "30s" (kept here for existing importers). */
export { parseDuration };

export const duration = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const ms = parseDuration(v);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `expected a duration such as 500, "500ms", "30s", "5m", "1h" or "1d"; got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return ms;
});

/** SOL as a decimal ("0.25" or 0.25), to lamports. */
export const sol = z.union([z.string(), z.number()]).transform((v, ctx): Lamports => {
  const l = parseSolToLamports(v);
  if (l === undefined) {
    ctx.addIssue({ code: 'custom', message: `expected a non-negative SOL amount with at most 9 decimals, such as "0.5"; got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return l;
});

/** A duration within the key's limits. */
function durationIn(key: LimitedKey): z.ZodType<number, string | number> {
  const l = CONFIG_LIMITS[key];
  return z.union([z.number(), z.string()]).transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined || ms < l.min || ms > l.max) {
      ctx.addIssue({
        code: 'custom',
        message: `expected ${describeRange(l)} (milliseconds, or a whole number with ms, s, m, h or d, such as "30s"); got ${JSON.stringify(v)}`,
      });
      return z.NEVER;
    }
    return ms;
  });
}

/** A SOL amount within the key's limits, in lamports. */
function solIn(key: LimitedKey): z.ZodType<Lamports, string | number> {
  const l = CONFIG_LIMITS[key];
  const minL = BigInt(Math.round(l.min * 1e9));
  const maxL = BigInt(l.max) * 1_000_000_000n;
  return z.union([z.string(), z.number()]).transform((v, ctx): Lamports => {
    const lamports = parseSolToLamports(v);
    if (lamports === undefined || lamports < minL || lamports > maxL) {
      ctx.addIssue({ code: 'custom', message: `expected ${describeRange(l)}; got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return lamports;
  });
}

/**
 * The names the runtime reads for the SOL keys users write: the YAML says SOL (`risk.maxTradeSol:
 * "0.2"`), the value inside is lamports, so its name says lamports (`risk.maxTradeLamports`).
 * effective-config.ts maps them back when it prints the deployment as YAML.
 */
export const SOL_KEY_NAMES = {
  risk: {
    maxTradeSol: 'maxTradeLamports',
    maxExposureSol: 'maxExposureLamports',
    maxPerTokenSol: 'maxPerTokenLamports',
    dailyLossLimitSol: 'dailyLossLimitLamports',
  },
  paper: { startingBalanceSol: 'startingBalanceLamports', assumedDepthSol: 'assumedDepthLamports' },
  live: { maxTradeSpendSol: 'maxTradeSpendLamports', maxDaySpendSol: 'maxDaySpendLamports', simulatorFundSol: 'simulatorFundLamports' },
} as const;

type Renamed<T, M> = { [K in keyof T as K extends keyof M ? (M[K] extends string ? M[K] : K) : K]: T[K] };

/** `o` with the keys of `names` renamed, in the same order. */
function renameKeys<T extends object, M extends Readonly<Record<string, string>>>(o: T, names: M): Renamed<T, M> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [names[k] ?? k, v])) as Renamed<T, M>;
}

/** An integer within the key's limits. */
const intIn = (key: LimitedKey): z.ZodNumber => z.number().int().min(CONFIG_LIMITS[key].min).max(CONFIG_LIMITS[key].max);
/** A finite number within the key's limits. */
const numIn = (key: LimitedKey): z.ZodNumber => z.number().min(CONFIG_LIMITS[key].min).max(CONFIG_LIMITS[key].max);
const url = z.url();

export const SECRET_PATHS: readonly (readonly string[])[] = [
  ['endpoints', 'remote', 'apiKey'],
  ['endpoints', 'remote', 'rpcApiKey'],
  ['wallet', 'secretKey'],
  ['execution', 'queue', 'url'],
  ['notify', 'webhook', 'url'],
  ['notify', 'webhook', 'secret'],
  ['notify', 'telegram', 'botToken'],
];

const simulatorEndpoints = z.strictObject({
  seed: intIn('endpoints.simulator.seed').default(1),
  speed: z.union([numIn('endpoints.simulator.speed'), z.literal('max')]).default(60),
});

const remoteEndpoints = z.strictObject({
  baseUrl: url,
  predictionUrl: url.optional(),
  datastreamUrl: z.string().regex(/^wss?:\/\//, 'expected a ws:// or wss:// URL without the key'),
  rpcUrl: url.optional(),
  swapUrl: url.optional(),
  apiKey: z.string().min(1),
  rpcApiKey: z.string().min(1).optional(),
});

const endpoints = z
  .strictObject({ simulator: simulatorEndpoints.optional(), remote: remoteEndpoints.optional() })
  .refine((e) => !(e.simulator && e.remote), { message: 'set either endpoints.simulator or endpoints.remote, not both' })
  .prefault({});

/** A take-profit price multiple (decimal string or number) above the key's minimum, kept as a string. */
function multipleIn(key: LimitedKey): z.ZodType<string, string | number> {
  const l = CONFIG_LIMITS[key];
  return z.union([z.string(), z.number()]).transform((v, ctx) => {
    const text = String(v).trim();
    const n = Number(text);
    if (!/^\d+(\.\d+)?$/.test(text) || !(n > l.min && n <= l.max)) {
      ctx.addIssue({ code: 'custom', message: `expected ${describeRange(l)}; got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return text;
  });
}

const exits = z.strictObject({
  takeProfit: z
    .array(z.strictObject({ multiple: multipleIn('strategies[].exits.takeProfit[].multiple'), sellBps: intIn('strategies[].exits.takeProfit[].sellBps') }))
    .optional(),
  stopLossBps: intIn('strategies[].exits.stopLossBps').optional(),
  trailingStopBps: intIn('strategies[].exits.trailingStopBps').optional(),
  timeStop: durationIn('strategies[].exits.timeStop').optional(),
  exitOnSafety: z
    .strictObject({
      maxBundlerPct: numIn('strategies[].exits.exitOnSafety.maxBundlerPct').optional(),
      maxSniperPct: numIn('strategies[].exits.exitOnSafety.maxSniperPct').optional(),
      maxInsiderPct: numIn('strategies[].exits.exitOnSafety.maxInsiderPct').optional(),
      maxTop10Pct: numIn('strategies[].exits.exitOnSafety.maxTop10Pct').optional(),
      maxDevHoldingPct: numIn('strategies[].exits.exitOnSafety.maxDevHoldingPct').optional(),
    })
    .optional(),
});

const strategy = z.strictObject({
  /** Unique id in this deployment (defaults to `use`). */
  id: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-_]*$/, 'expected lowercase letters, digits, "-" or "_"')
    .max(CONFIG_TEXT_LIMITS.nameChars)
    .optional(),
  /** A built-in strategy name, or a path to a .ts/.js file relative to the YAML file. */
  use: z.string().min(1),
  enabled: z.boolean().default(true),
  params: z.record(z.string(), z.unknown()).default({}),
  exits: exits.optional(),
});

const risk = z
  .strictObject({
    maxTradeSol: solIn('risk.maxTradeSol').optional(),
    maxOpenPositions: intIn('risk.maxOpenPositions').optional(),
    maxExposureSol: solIn('risk.maxExposureSol').optional(),
    maxPerTokenSol: solIn('risk.maxPerTokenSol').optional(),
    cooldown: durationIn('risk.cooldown').optional(),
    dailyLossLimitSol: solIn('risk.dailyLossLimitSol').optional(),
    allowMints: z.array(z.string().min(1)).optional(),
    denyMints: z.array(z.string().min(1)).optional(),
    maxRiskScore: numIn('risk.maxRiskScore').optional(),
    maxBundlerPct: numIn('risk.maxBundlerPct').optional(),
    maxSniperPct: numIn('risk.maxSniperPct').optional(),
    maxInsiderPct: numIn('risk.maxInsiderPct').optional(),
    maxTop10Pct: numIn('risk.maxTop10Pct').optional(),
    maxDevHoldingPct: numIn('risk.maxDevHoldingPct').optional(),
    minLiquidityUsd: numIn('risk.minLiquidityUsd').optional(),
    minHolders: intIn('risk.minHolders').optional(),
    requireSafetyData: z.boolean().default(false),
    killSwitch: z.boolean().default(false),
    /** Start of the risk day (daily-loss limit), "HH:MM" in UTC. */
    dayBoundary: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected a UTC time of day "HH:MM", such as "00:00" or "13:30"')
      .default('00:00'),
  })
  .transform((r) => renameKeys(r, SOL_KEY_NAMES.risk))
  .prefault({});

/**
 * Scale-out (docs/scale-out.md): intents leave as BullMQ jobs on one queue per wallet; workers
 * (`chainpilot worker`) execute them. Off when absent.
 */
const queue = z.strictObject({
  /** Redis URL; a password in it is a secret (redacted, `\${ENV}` allowed). */
  url: z.string().regex(/^rediss?:\/\//, 'expected a redis:// or rediss:// URL'),
  /** Prefix of every chainpilot key on that Redis (queues, journals, report streams). */
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, 'expected letters, digits, "-" or "_"')
    .default('chainpilot'),
  /** The wallet's address, when the engine's host does not hold its key (default: from `wallet`). */
  wallet: z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'expected a base58 address')
    .optional(),
  /** How long a start waits for an earlier run's queued and unresolved intents to settle. */
  catchUpTimeout: durationIn('execution.queue.catchUpTimeout').default(120_000),
  /**
   * Jobs of the wallet running at once, all in the one worker that holds the wallet's lease (sends
   * kept in decision order): the queue's global concurrency and each worker's concurrency.
   */
  concurrency: intIn('execution.queue.concurrency').default(32), // = DEFAULT_WALLET_CONCURRENCY (executors/queue/queue-names.ts; the config layer does not import executors)
});

const execution = z
  .strictObject({
    slippageBps: intIn('execution.slippageBps').default(300),
    priorityFeeLamports: intIn('execution.priorityFeeLamports').default(100_000),
    defaultDecimals: intIn('execution.defaultDecimals').default(6),
    // Live rebuild policy (docs/executor.md); paper and backtests ignore it.
    /** Rebuilds allowed after a transaction expired unseen (transactions per intent = retries + 1). */
    retries: intIn('execution.retries').default(2),
    /** Slippage added per rebuild and its ceiling; off when absent (rebuilds keep the intent's slippage). */
    slippageRamp: z.strictObject({ stepBps: intIn('execution.slippageRamp.stepBps'), maxBps: intIn('execution.slippageRamp.maxBps') }).optional(),
    /** Priority fee from getRecentPrioritizationFees at a percentile, capped; off when absent (the fixed priorityFeeLamports). */
    priorityFee: z
      .strictObject({
        percentile: numIn('execution.priorityFee.percentile'),
        capLamports: intIn('execution.priorityFee.capLamports').optional(),
        computeUnits: intIn('execution.priorityFee.computeUnits').default(200_000),
      })
      .optional(),
    /** `simulate`: instruction checks plus the RPC simulation; `static`: instruction checks only. */
    inspection: z.enum(['simulate', 'static']).default('simulate'),
    queue: queue.optional(),
  })
  .superRefine((e, ctx) => {
    if (e.slippageRamp && e.slippageRamp.maxBps < e.slippageBps) {
      ctx.addIssue({
        code: 'custom',
        path: ['slippageRamp', 'maxBps'],
        message: `must be at least execution.slippageBps (${e.slippageBps}), or the ramp never widens anything; raise it or remove slippageRamp`,
      });
    }
    if (e.priorityFee?.capLamports !== undefined && e.priorityFee.capLamports > e.priorityFeeLamports) {
      ctx.addIssue({
        code: 'custom',
        path: ['priorityFee', 'capLamports'],
        message: `must be at most execution.priorityFeeLamports (${e.priorityFeeLamports}), the budget spend caps and inspection count; lower it or raise priorityFeeLamports`,
      });
    }
  })
  .prefault({});

const paper = z
  .strictObject({
    startingBalanceSol: solIn('paper.startingBalanceSol').prefault('10'),
    latency: durationIn('paper.latency').default(250),
    /** An operator's intent (manual close, forced entry) waits this long before its latency, so that a cancel can catch it; 0: no hold. */
    manualHold: durationIn('paper.manualHold').default(0),
    /** The paper book forgets closed positions and unfilled intents older than this (run clock; their PnL stays in the totals); absent: keeps all. */
    bookRetention: durationIn('paper.bookRetention').optional(),
    extraSlippageBps: intIn('paper.extraSlippageBps').default(50),
    defaultPoolFeeBps: intIn('paper.defaultPoolFeeBps').default(100),
    networkFeeLamports: intIn('paper.networkFeeLamports').default(5_000),
    priorityFeeCapLamports: intIn('paper.priorityFeeCapLamports').default(1_000_000),
    assumedDepthSol: solIn('paper.assumedDepthSol').prefault('100'),
    /**
     * The fill model calibrated from live runs (`chainpilot calibrate`, docs/backtesting.md); absent:
     * the fixed model above. Present, it replaces the latency and fees and adds rent, our own price
     * impact and failures at the live rates.
     */
    model: paperModelSchema,
    /**
     * A file holding the `paper.model` block (what `chainpilot calibrate --out` writes: a `paper:` /
     * `model:` document, or a bare `model:` block), relative to the deployment file; the loader reads it
     * into `model`. Set one of `model` and `modelFile`.
     */
    modelFile: z.string().min(1).optional(),
  })
  .superRefine((p, ctx) => {
    // A negative extra slippage gives back cost the model charged beyond what live paid; past the pool
    // fee it would pay more than the pool itself (the fill model also caps it per fill at the pool's fee).
    const floor = -p.defaultPoolFeeBps;
    const check = (value: number | undefined, path: (string | number)[], name: string): void => {
      if (value === undefined || value >= floor) return;
      ctx.addIssue({
        code: 'custom',
        path,
        message: `${value} would let a paper fill beat the pool: a negative ${name} gives back at most the pool fee paper charges (paper.defaultPoolFeeBps ${p.defaultPoolFeeBps}); use ${floor} or more`,
      });
    };
    check(p.extraSlippageBps, ['extraSlippageBps'], 'paper.extraSlippageBps');
    check(p.model?.extraSlippageBps, ['model', 'extraSlippageBps'], 'paper.model.extraSlippageBps');
    check(p.model?.graduatedExtraSlippageBps, ['model', 'graduatedExtraSlippageBps'], 'paper.model.graduatedExtraSlippageBps');
  })
  .transform((p) => renameKeys(p, SOL_KEY_NAMES.paper))
  .prefault({});

const engine = z
  .strictObject({
    positionPriceRoom: z.enum(['price:token', 'price:aggregated']).default('price:token'),
    haltAfterErrors: intIn('engine.haltAfterErrors').default(10),
    errorWindow: durationIn('engine.errorWindow').default(60_000),
    /** The market view forgets a token not observed for this long (the events' time); held tokens stay. */
    marketRetention: durationIn('engine.marketRetention').default(3_600_000),
  })
  .prefault({});

const store = z.strictObject({ path: z.string().min(1).default('./data/chainpilot.db') }).prefault({});

const telemetry = z
  .strictObject({
    logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'silent']).default('info'),
    /** JSONL decision log path (relative to the working directory); off when absent. */
    decisionLog: z.string().min(1).optional(),
    statusInterval: durationIn('telemetry.statusInterval').default(1_000),
  })
  .prefault({});

/** Recording of the run's Datastream and ctx.data answers (docs/backtesting.md); off when absent. */
const record = z.strictObject({
  dir: z.string().min(1).default('./recordings'),
  gzip: z.boolean().default(true),
  /** New file after this many uncompressed bytes (default 256 MiB). */
  rotateBytes: intIn('record.rotateBytes').default(256 * 1024 * 1024),
  /** New file after this much run-clock time. */
  rotateEvery: durationIn('record.rotateEvery').default(86_400_000),
});

const base58Address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'expected a base58 address');

/**
 * Live mode (`chainpilot run FILE --live`). Every cap is optional here so that paper deployments
 * stay valid; the live runtime refuses to start while one is missing (see docs/live.md).
 */
const live = z
  .strictObject({
    /** Executor cap: largest SOL outflow of one intent (amount plus fee budget). Required for live. */
    maxTradeSpendSol: solIn('live.maxTradeSpendSol').optional(),
    /** Executor cap: largest SOL outflow of all intents of one UTC day. Required for live. */
    maxDaySpendSol: solIn('live.maxDaySpendSol').optional(),
    /** Venue program ids a swap may call besides compute budget, system, token and ATA programs. */
    allowedPrograms: z.array(base58Address).default([]),
    /** Commitment a landing must reach. */
    commitment: z.enum(['confirmed', 'finalized']).default('confirmed'),
    /** With simulator endpoints: SOL airdropped to the wallet when the embedded ledger starts. */
    simulatorFundSol: solIn('live.simulatorFundSol').prefault('10'),
    /** How long a stop waits for in-flight intents to reach an outcome before leaving them to the journal. */
    drainTimeout: durationIn('live.drainTimeout').default(30_000),
    /** Interval of the signature status poll of a sent transaction (in process and in queue workers). */
    statusPoll: durationIn('live.statusPoll').default(400),
  })
  .transform((l) => renameKeys(l, SOL_KEY_NAMES.live))
  .prefault({});

/** The runtime's watch over the market feed (docs/runtime.md). */
const feed = z
  .strictObject({
    /** No frame (pings included) for this long on the run clock: the feed is stale. */
    staleAfter: durationIn('feed.staleAfter').default(120_000),
    /** What a lost feed (stopped, stale, disconnected, overflowing, failed backfill) does to entries. */
    onLoss: z.enum(['pause-entries', 'halt', 'continue']).default('pause-entries'),
  })
  .prefault({});

/** Clean shutdown (docs/runtime.md). */
const shutdown = z
  .strictObject({
    /** How long a stop waits (run clock) for in-flight intents to land, fail or expire. */
    drain: durationIn('shutdown.drain').default(30_000),
  })
  .prefault({});

const wallet = z.strictObject({ keypairPath: z.string().min(1).optional(), secretKey: z.string().min(1).optional() });

/** One notification event's level: `on` (sent), `quiet` (sent without sound), `off`. */
const notifyLevel = z.enum(['on', 'quiet', 'off']);

/** Notifications (docs/notifications.md). Secrets and the webhook URL are secret paths (`${ENV}`). */
export const notifySchema = z.strictObject({
  webhook: z
    .strictObject({
      url: url,
      /** Shared secret of the HMAC-SHA256 signature header. */
      secret: z.string().min(16, 'expected a shared secret of at least 16 characters (from ${ENV})'),
      timeout: durationIn('notify.webhook.timeout').default(5_000),
      retries: intIn('notify.webhook.retries').default(4),
      retryBase: durationIn('notify.webhook.retryBase').default(1_000),
      retryMax: durationIn('notify.webhook.retryMax').default(30_000),
    })
    .optional(),
  telegram: z
    .strictObject({
      botToken: z.string().min(1),
      chatId: z.union([z.string().min(1), intIn('notify.telegram.chatId')]).transform(String),
      baseUrl: url.default('https://api.telegram.org'),
      timeout: durationIn('notify.telegram.timeout').default(5_000),
      retries: intIn('notify.telegram.retries').default(4),
      retryBase: durationIn('notify.telegram.retryBase').default(1_000),
      retryMax: durationIn('notify.telegram.retryMax').default(30_000),
      /**
       * Daemon-wide file only: answer commands (/status, /pause, /forceexit, ...) by sender: from the
       * users in `allowUserIds` (in a private chat with the bot, or in one of the chats `chatId` and
       * `allowChatIds`), and in a private chat whose id is `chatId` or in `allowChatIds`. A group
       * chat's id alone authorises no one in it.
       */
      control: z.boolean().default(false),
      allowChatIds: z
        .array(z.string().regex(/^-?\d{1,16}$/, 'a Telegram chat id: digits, with a leading - for groups'))
        .max(50)
        .default([]),
      allowUserIds: z
        .array(z.string().regex(/^[1-9]\d{0,15}$/, 'a Telegram user id, as a string: positive digits ("123456789")'))
        .max(50)
        .default([]),
    })
    .optional(),
  /** Per-channel queue bound: events beyond it are dropped and counted. */
  queueSize: intIn('notify.queueSize').default(100),
  events: z
    .strictObject({
      fills: notifyLevel.default('on'),
      intentFailures: notifyLevel.default('on'),
      dailyLossHalt: notifyLevel.default('on'),
      killSwitch: notifyLevel.default('on'),
      feed: notifyLevel.default('on'),
      fatal: notifyLevel.default('on'),
      shutdown: notifyLevel.default('on'),
      dailySummary: notifyLevel.default('on'),
      memory: notifyLevel.default('on'),
    })
    .prefault({}),
});

export const deploymentSchema = z.strictObject({
  version: z.literal(1),
  name: z
    .string()
    .min(1)
    .max(CONFIG_TEXT_LIMITS.nameChars)
    // eslint-disable-next-line no-control-regex -- the name is printed on every log line: no control characters
    .regex(/^[^\u0000-\u001f\u007f]*$/, 'expected printable characters (no line breaks or control characters)'),
  /** `live` lets `chainpilot run FILE --confirm NAME` trade without `--live`; `paper` makes `run` refuse. */
  mode: z.enum(['paper', 'live']).optional(),
  /** The cluster the deployment trades on; live mode checks it against the RPC before starting. */
  network: z.enum(['simulator', 'mainnet-beta', 'devnet', 'testnet']).optional(),
  endpoints,
  wallet: wallet.optional(),
  strategies: z.array(strategy).min(1, 'declare at least one strategy'),
  risk,
  execution,
  paper,
  live,
  engine,
  store,
  telemetry,
  record: record.optional(),
  feed,
  shutdown,
  notify: notifySchema.optional(),
});

export type NotifyConfig = z.output<typeof notifySchema>;

/** The validated deployment, with every default applied. */
export type Deployment = z.output<typeof deploymentSchema>;
export type DeploymentInput = z.input<typeof deploymentSchema>;
export type StrategyConfig = Deployment['strategies'][number];
