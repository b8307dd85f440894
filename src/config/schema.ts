/**
 * The deployment schema: one YAML file describes a deployment. Strict (unknown keys are errors);
 * every default lives here; SOL amounts are exact decimals turned into lamports; durations accept
 * milliseconds or "500ms", "30s", "5m", "1h", "1d".
 */
import { z } from 'zod';
import { toRaw } from '../core/index.js';

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds from a number or a string such as "30s". */
export function parseDuration(v: string | number): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : undefined;
  const m = DURATION.exec(v.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : undefined;
}

export const duration = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const ms = parseDuration(v);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: `expected a duration such as 500, "500ms", "30s", "5m", "1h" or "1d"; got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
  return ms;
});

/** SOL as a decimal ("0.25" or 0.25), to lamports. */
export const sol = z.union([z.string(), z.number()]).transform((v, ctx) => {
  try {
    const l = toRaw(String(v), 9);
    if (l < 0n) throw new Error('negative');
    return l;
  } catch {
    ctx.addIssue({ code: 'custom', message: `expected a non-negative SOL amount with at most 9 decimals, such as "0.5"; got ${JSON.stringify(v)}` });
    return z.NEVER;
  }
});

const bpsInt = z.number().int().min(0).max(10_000);
const pct = z.number().min(0).max(100);
const url = z.url();

export const SECRET_PATHS: readonly (readonly string[])[] = [
  ['endpoints', 'remote', 'apiKey'],
  ['endpoints', 'remote', 'rpcApiKey'],
  ['wallet', 'secretKey'],
  ['notify', 'webhook', 'url'],
  ['notify', 'webhook', 'secret'],
  ['notify', 'telegram', 'botToken'],
];

const simulatorEndpoints = z.strictObject({
  seed: z.number().int().min(0).default(1),
  speed: z.union([z.number().positive(), z.literal('max')]).default(60),
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

const exits = z.strictObject({
  takeProfit: z.array(z.strictObject({ multiple: z.union([z.string(), z.number()]).transform(String).pipe(z.string().regex(/^\d+(\.\d+)?$/, 'expected a price multiple such as "2" or "1.5"')), sellBps: bpsInt.min(1) })).optional(),
  stopLossBps: bpsInt.optional(),
  trailingStopBps: bpsInt.optional(),
  timeStop: duration.optional(),
  exitOnSafety: z.strictObject({
    maxBundlerPct: pct.optional(), maxSniperPct: pct.optional(), maxInsiderPct: pct.optional(), maxTop10Pct: pct.optional(), maxDevHoldingPct: pct.optional(),
  }).optional(),
});

const strategy = z.strictObject({
  /** Unique id in this deployment (defaults to `use`). */
  id: z.string().regex(/^[a-z0-9][a-z0-9-_]*$/, 'expected lowercase letters, digits, "-" or "_"').optional(),
  /** A built-in strategy name, or a path to a .ts/.js file relative to the YAML file. */
  use: z.string().min(1),
  enabled: z.boolean().default(true),
  params: z.record(z.string(), z.unknown()).default({}),
  exits: exits.optional(),
});

const risk = z.strictObject({
  maxTradeSol: sol.optional(),
  maxOpenPositions: z.number().int().min(1).optional(),
  maxExposureSol: sol.optional(),
  maxPerTokenSol: sol.optional(),
  cooldown: duration.optional(),
  dailyLossLimitSol: sol.optional(),
  allowMints: z.array(z.string().min(1)).optional(),
  denyMints: z.array(z.string().min(1)).optional(),
  maxRiskScore: z.number().min(0).optional(),
  maxBundlerPct: pct.optional(),
  maxSniperPct: pct.optional(),
  maxInsiderPct: pct.optional(),
  maxTop10Pct: pct.optional(),
  maxDevHoldingPct: pct.optional(),
  minLiquidityUsd: z.number().min(0).optional(),
  minHolders: z.number().int().min(0).optional(),
  requireSafetyData: z.boolean().default(false),
  killSwitch: z.boolean().default(false),
}).prefault({});

const execution = z.strictObject({
  slippageBps: bpsInt.default(300),
  priorityFeeLamports: z.number().int().min(0).default(100_000),
  defaultDecimals: z.number().int().min(0).max(18).default(6),
}).prefault({});

const paper = z.strictObject({
  startingBalanceSol: sol.prefault('10'),
  latency: duration.default(250),
  extraSlippageBps: bpsInt.default(50),
  defaultPoolFeeBps: bpsInt.default(100),
  networkFeeLamports: z.number().int().min(0).default(5_000),
  priorityFeeCapLamports: z.number().int().min(0).default(1_000_000),
  assumedDepthSol: sol.prefault('100'),
}).prefault({});

const engine = z.strictObject({
  positionPriceRoom: z.enum(['price:token', 'price:aggregated']).default('price:token'),
  haltAfterErrors: z.number().int().min(0).default(10),
  errorWindow: duration.default(60_000),
}).prefault({});

const store = z.strictObject({ path: z.string().min(1).default('./data/chainpilot.db') }).prefault({});

const telemetry = z.strictObject({
  logLevel: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** JSONL decision log path (relative to the working directory); off when absent. */
  decisionLog: z.string().min(1).optional(),
  statusInterval: duration.default(1_000),
}).prefault({});

const base58Address = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'expected a base58 address');

/**
 * Live mode (`chainpilot run FILE --live`). Every cap is optional here so that paper deployments
 * stay valid; the live runtime refuses to start while one is missing (see docs/live.md).
 */
const live = z.strictObject({
  /** Executor cap: largest SOL outflow of one intent (amount plus fee budget). Required for live. */
  maxTradeSpendSol: sol.optional(),
  /** Executor cap: largest SOL outflow of all intents of one UTC day. Required for live. */
  maxDaySpendSol: sol.optional(),
  /** Venue program ids a swap may call besides compute budget, system, token and ATA programs. */
  allowedPrograms: z.array(base58Address).default([]),
  /** Commitment a landing must reach. */
  commitment: z.enum(['confirmed', 'finalized']).default('confirmed'),
  /** With simulator endpoints: SOL airdropped to the wallet when the embedded ledger starts. */
  simulatorFundSol: sol.prefault('10'),
  /** How long a stop waits for in-flight intents to reach an outcome before leaving them to the journal. */
  drainTimeout: duration.default(30_000),
}).prefault({});

/** The runtime's watch over the market feed (docs/runtime.md). */
const feed = z.strictObject({
  /** No frame (pings included) for this long on the run clock: the feed is stale. */
  staleAfter: duration.pipe(z.number().int().min(1_000, 'expected at least 1s')).default(120_000),
  /** What a lost feed (stopped, stale, disconnected, overflowing, failed backfill) does to entries. */
  onLoss: z.enum(['pause-entries', 'halt', 'continue']).default('pause-entries'),
}).prefault({});

/** Clean shutdown (docs/runtime.md). */
const shutdown = z.strictObject({
  /** How long a stop waits (run clock) for in-flight intents to land, fail or expire. */
  drain: duration.default(30_000),
}).prefault({});

const wallet = z.strictObject({ keypairPath: z.string().min(1).optional(), secretKey: z.string().min(1).optional() });

/** One notification event's level: `on` (sent), `quiet` (sent without sound), `off`. */
const notifyLevel = z.enum(['on', 'quiet', 'off']);

/** Notifications (docs/notifications.md). Secrets and the webhook URL are secret paths (`${ENV}`). */
export const notifySchema = z.strictObject({
  webhook: z.strictObject({
    url: url,
    /** Shared secret of the HMAC-SHA256 signature header. */
    secret: z.string().min(16, 'expected a shared secret of at least 16 characters (from ${ENV})'),
    timeout: duration.default(5_000),
    retries: z.number().int().min(0).max(10).default(4),
    retryBase: duration.default(1_000),
    retryMax: duration.default(30_000),
  }).optional(),
  telegram: z.strictObject({
    botToken: z.string().min(1),
    chatId: z.union([z.string().min(1), z.number().int()]).transform(String),
    baseUrl: url.default('https://api.telegram.org'),
    timeout: duration.default(5_000),
    retries: z.number().int().min(0).max(10).default(4),
    retryBase: duration.default(1_000),
    retryMax: duration.default(30_000),
  }).optional(),
  /** Per-channel queue bound: events beyond it are dropped and counted. */
  queueSize: z.number().int().min(1).max(10_000).default(100),
  events: z.strictObject({
    fills: notifyLevel.default('on'),
    intentFailures: notifyLevel.default('on'),
    dailyLossHalt: notifyLevel.default('on'),
    killSwitch: notifyLevel.default('on'),
    feed: notifyLevel.default('on'),
    fatal: notifyLevel.default('on'),
    shutdown: notifyLevel.default('on'),
    dailySummary: notifyLevel.default('on'),
  }).prefault({}),
});

export const deploymentSchema = z.strictObject({
  version: z.literal(1),
  name: z.string().min(1),
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
  feed,
  shutdown,
  notify: notifySchema.optional(),
});

export type NotifyConfig = z.output<typeof notifySchema>;

/** The validated deployment, with every default applied. */
export type Deployment = z.output<typeof deploymentSchema>;
export type DeploymentInput = z.input<typeof deploymentSchema>;
export type StrategyConfig = Deployment['strategies'][number];
