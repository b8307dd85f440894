/**
 * Request and response bodies of the daemon's control API, as zod schemas. The routes declare
 * them (fastify validates requests with them and types the handlers' answers by them), tests parse
 * responses with them, and `/api/openapi.json` is generated from the routes, so the three cannot
 * drift. Amounts are exact: lamports and raw token amounts travel as
 * decimal integer strings.
 */
import { z } from 'zod';
import { isAddressText } from '../core/address-text.js';

const amount = z
  .string()
  .regex(/^-?\d+$/)
  .describe('exact integer amount as a decimal string');
const ms = z.number().int().describe('Unix milliseconds on the run clock');
const cause = z.object({ code: z.string(), message: z.string() }).nullable();

export const slotState = z.enum(['created', 'starting', 'running', 'paused', 'halted', 'killed', 'stopping', 'stopped', 'failed', 'degraded', 'restarting']);

export const feedHealthBody = z.object({
  state: z.string(),
  connected: z.boolean(),
  lastFrameAt: ms.nullable(),
  lastFrameAgeMs: z.number().nullable(),
  framesPerSec: z.number(),
  frames: z.number().int(),
  gaps: z.number().int(),
  reconnects: z.number().int(),
  rejected: z.number().int(),
  rejectedByFamily: z.record(z.string(), z.object({ count: z.number().int(), sample: z.string() })),
  dropped: z.number().int(),
  backfillFailures: z.number().int(),
});

export const deploymentSummaryBody = z.object({
  name: z.string(),
  file: z.string(),
  mode: z.enum(['paper', 'live', 'backtest']),
  state: slotState,
  cause,
  ready: z.boolean(),
  restarts: z.number().int(),
  equityLamports: amount.nullable(),
  openPositions: z.number().int().nullable(),
});

const price = z
  .string()
  .regex(/^\d+(\.\d+)?$/)
  .describe('exact price in SOL per whole token as a decimal string');

export const positionExitsBody = z
  .object({
    entryPrice: price.describe('average entry price the levels are measured from'),
    takeProfit: z
      .array(z.object({ level: z.number().int().min(1), multiple: z.string(), price }))
      .describe('take-profit levels not yet fired: 1-based level, multiple of entry, price (entry × multiple)'),
    stopLossPrice: price.nullable().describe('entry × (1 − stopLossBps / 10 000); null without a stop loss'),
    trailingStopPrice: price.nullable().describe('high since entry × (1 − trailingStopBps / 10 000) while armed (high above entry); null otherwise'),
    timeStopAt: ms.nullable().describe('when the time stop is due; null without one'),
  })
  .describe("the exit levels the engine holds for the position (the strategy's exit rules)");

export const positionBody = z.object({
  strategyId: z.string(),
  mint: z.string(),
  tokenRaw: amount,
  decimals: z.number().int(),
  costLamports: amount,
  valueLamports: amount.nullable(),
  unrealisedLamports: amount.nullable(),
  realisedLamports: amount,
  openedAt: ms,
  exits: positionExitsBody.nullable().describe('null when the engine tracks no exit rules for the position'),
});

export const riskBody = z.object({
  dayStartedAt: ms,
  dayStartEquityLamports: amount,
  dailyLossLamports: amount,
  dailyLossLimitLamports: amount.nullable(),
  dailyHalted: z.boolean(),
  killed: z.boolean(),
  killReason: z.string().nullable(),
  exposureLamports: amount,
  maxExposureLamports: amount.nullable(),
});

export const intentBody = z.object({
  id: z.string(),
  strategyId: z.string(),
  side: z.enum(['buy', 'sell']),
  mint: z.string(),
  amountIn: amount,
  createdAt: ms,
  reason: z.string(),
  state: z.string(),
});

/** What a summary's numbers cover: a paper book or live journal resumed by a restart keeps its PnL, while counters restart. */
export const summaryScope = z
  .object({
    counts: z.literal('since-start').describe('events, frames, intents, fills, denials, trades, wins, strategyErrors: since `startedAt` of this run'),
    pnl: z.literal('book').describe('realised, unrealised, fees, equity, open positions: the whole book, earlier runs kept by the store included'),
    maxDrawdown: z.literal('since-start').describe('maxDrawdownLamports: from the equity seen since `startedAt`'),
  })
  .describe('the scope of each group of numbers in the summary');

export const summaryBody = z.object({
  scope: summaryScope,
  startedAt: ms.nullable(),
  endedAt: ms,
  events: z.number().int(),
  frames: z.number().int(),
  badFrames: z.number().int(),
  intents: z.number().int(),
  fills: z.number().int(),
  denials: z.number().int(),
  trades: z.number().int(),
  wins: z.number().int(),
  winRate: z.number(),
  realisedLamports: amount,
  unrealisedLamports: amount,
  feesLamports: amount,
  equityLamports: amount,
  maxDrawdownLamports: amount,
  openPositions: z.number().int(),
  strategyErrors: z.number().int(),
});

export const deploymentDetailBody = deploymentSummaryBody.extend({
  reasons: z.array(z.string()),
  feed: feedHealthBody.nullable(),
  summary: summaryBody.nullable(),
  positions: z.array(positionBody),
  pending: z.array(intentBody),
  risk: riskBody.nullable(),
  denialsByCode: z.record(z.string(), z.number().int()),
});

export const deploymentListBody = z.object({ deployments: z.array(deploymentSummaryBody) });

/** A decision-log entry as the engine wrote it (intent, denied, fill, unfilled), with its daemon sequence number. */
export const decisionEntryBody = z.object({ seq: z.number().int(), deployment: z.string(), entry: z.record(z.string(), z.unknown()) });

export const pageBody = z.object({
  entries: z.array(decisionEntryBody),
  next: z.number().int().describe('pass as `after` to get the following page'),
  truncated: z.boolean().describe('true when entries after `after` fell out of the bounded history'),
});

export const pageQuery = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export const intentsBody = z.object({ pending: z.array(intentBody), recent: z.array(decisionEntryBody) });

export const actionBody = z.object({ reason: z.string().max(500).optional() }).default({});
export const actionResultBody = z.object({ name: z.string(), state: slotState, killed: z.boolean().nullable() });

export const readyBody = z.object({
  ready: z.boolean(),
  /** Why the daemon as a whole is not ready (`RUNTIME_DAEMON_MEMORY_HIGH: ...`); empty when nothing daemon-wide stands in the way. */
  reasons: z.array(z.string()).optional(),
  deployments: z.array(z.object({ name: z.string(), state: slotState, ready: z.boolean(), reasons: z.array(z.string()) })),
});

export const reloadBody = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(z.string()),
  unchanged: z.array(z.string()),
  invalid: z.array(z.object({ file: z.string(), code: z.string(), message: z.string(), kept: z.string().optional() })),
});

export const errorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

export const healthBody = z.object({ status: z.literal('ok'), uptimeSeconds: z.number() });

const who = z.string().min(1).max(100).describe('who asks (journaled with the decision); default `api`');
const why = z.string().max(500).describe('why (journaled with the decision)');
const notAnAddress = 'mint must be a token mint address: base58 text of 32 bytes (such as So11111111111111111111111111111111111111112)';
/** A token mint: base58 of exactly 32 bytes (the pattern documents it; the refinement checks the byte count). */
const mint = z
  .string()
  .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, { message: notAnAddress, abort: true })
  .refine(isAddressText, { message: notAnAddress })
  .describe('token mint address (base58, 32 bytes)');

/** POST /api/deployments/{name}/positions/close: sell all (default) or a share of a position. */
export const closeBody = z.strictObject({
  mint,
  strategyId: z.string().min(1).max(100).optional().describe('the strategy holding it; needed when several do'),
  fractionBps: z.number().int().min(1).max(10_000).default(10_000).describe('share to sell, in basis points (10000 = all)'),
  reason: why.optional(),
  by: who.optional(),
});

/** POST /api/deployments/{name}/entries: a forced buy, through the admission check and the risk gate. */
export const enterBody = z.strictObject({
  mint,
  spendLamports: z
    .string()
    .regex(/^[1-9]\d{0,18}$/)
    .describe('lamports of SOL to spend, a positive decimal integer string'),
  strategyId: z.string().min(1).max(100).optional().describe('the strategy whose exit rules the position gets; needed when there are several'),
  reason: why.optional(),
  by: who.optional(),
});

/** POST /api/deployments/{name}/intents/{id}/cancel. */
export const cancelBody = z.strictObject({ reason: why.optional(), by: who.optional() }).default({});

/** GET /api/deployments/{name}/config. */
export const configBody = z.object({
  name: z.string(),
  file: z.string(),
  yaml: z.string().describe('the effective configuration, every default applied, secret fields and values redacted'),
});

/** A manual action that was placed; a denial answers 409 with the denial's code (errorBody). */
export const manualResultBody = z.object({
  name: z.string(),
  action: z.enum(['close', 'enter', 'cancel']),
  intentId: z.string().describe('the intent placed (close, enter) or cancelled (cancel)'),
  waitsForPrice: z
    .literal(true)
    .optional()
    .describe(
      'enter only: the deployment had observed no price of the token; it joined its price room and the fill waits for the first price (paper: up to 10 s of run clock, then PAPER_NO_PRICE)',
    ),
});
