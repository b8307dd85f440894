/**
 * Wire schemas of the token data API, as far as the spec documents them. Every object is loose:
 * undocumented fields pass through untouched. Time fields carry their unit in the type.
 */
import { z } from 'zod';
import type { UnixMs, UnixSeconds } from '../../core/index.js';

const ms = z
  .number()
  .int()
  .nonnegative()
  .transform((v) => v as UnixMs);
const seconds = z
  .number()
  .int()
  .nonnegative()
  .transform((v) => v as UnixSeconds);
const decimalString = z.string().regex(/^-?\d+(\.\d+)?$/, 'expected an exact decimal string');
const integerString = z.string().regex(/^\d+$/, 'expected an integer string');

/** Any JSON object (shape not documented beyond being an object). */
export const apiObject = z.record(z.string(), z.unknown());
/** Any JSON array. */
export const apiArray = z.array(z.unknown());

export const poolSchema = z.looseObject({
  market: z.string().optional(),
  poolId: z.string().optional(),
  deployer: z.string().optional(),
  liquidity: z.looseObject({ usd: z.number().optional() }).optional(),
  creation: z.looseObject({ creator: z.string().optional(), created_tx: z.string().optional(), created_time: z.number().optional() }).optional(),
  tokenProgram: z.string().optional(),
  isMayhemMode: z.boolean().optional(),
});

export const tokenInfoSchema = z.looseObject({
  name: z.string().optional(),
  symbol: z.string().optional(),
  mint: z.string(),
});

/** A token with its pools (first pool is the primary). */
export const tokenWithPoolsSchema = z.looseObject({
  token: tokenInfoSchema,
  pools: z.array(poolSchema).default([]),
  risk: apiObject.optional(),
});

/** Token detail: token, pools, events, risk, buys, sells, txns, holders. */
export const tokenDetailSchema = tokenWithPoolsSchema.extend({
  events: z.unknown().optional(),
  buys: z.number().optional(),
  sells: z.number().optional(),
  txns: z.number().optional(),
  holders: z.number().optional(),
});

export const searchResultSchema = z.looseObject({
  riskScore: z.number().optional(),
  graduatedAt: ms.nullable().optional(),
  communityMessages: z.number().int().optional(),
  hasCoinCommunity: z.boolean().optional(),
});
export const searchResponseSchema = z.looseObject({ data: z.array(searchResultSchema) });

const windowStats = z.looseObject({
  transactions: z.looseObject({ total: z.number(), buys: z.number(), sells: z.number(), changePct: z.number() }),
  wallets: z.looseObject({ total: z.number(), changePct: z.number() }),
  volume: z.looseObject({ total: z.number(), buys: z.number(), sells: z.number(), changePct: z.number() }),
  tokensCreated: z.looseObject({ total: z.number(), changePct: z.number() }),
  migrations: z.looseObject({ total: z.number(), changePct: z.number() }),
});
export const marketActivitySchema = z.looseObject({
  market: z.string(),
  label: z.string(),
  icon: z.string().optional(),
  url: z.string().optional(),
  parent: z.string().optional(),
  stats: z.looseObject({ '5m': windowStats, '1h': windowStats, '6h': windowStats, '24h': windowStats }),
});

export const priceSchema = z.looseObject({ price: z.number() });
export const athSchema = z.looseObject({ highest: z.number() });

/** An OHLCV candle; `time` is Unix seconds. */
export const candleSchema = z.looseObject({
  time: seconds,
  open: z.number(),
  high: z.number(),
  low: z.number(),
  close: z.number(),
  volume: z.number(),
});

export const liquidityTokenSchema = z.looseObject({
  address: z.string(),
  amount: decimalString,
  amountRaw: integerString,
  decimals: z.number().int(),
  feeAmountRaw: integerString.optional(),
  transferredAmountRaw: integerString.optional(),
});

/** A liquidity addition or removal; `time` is Unix ms. */
export const liquidityRowSchema = z.looseObject({
  tx: z.string(),
  type: z.enum(['add_liquidity', 'remove_liquidity']),
  program: z.string(),
  programId: z.string(),
  instruction: z.string(),
  pool: z.string(),
  wallet: z.string(),
  time: ms,
  slot: z.number().int(),
  amountBasis: z.string(),
  tokens: z.array(liquidityTokenSchema),
  identity: apiObject.nullable().optional(),
  identityStatus: z.string().optional(),
});

/** A swap row: documented fields only; the rest passes through. */
export const swapRowSchema = z.looseObject({
  type: z.enum(['buy', 'sell']),
  amount: z.union([z.number(), z.string()]).optional(),
  priceUsd: z.union([z.number(), z.string()]).optional(),
  volume: z.union([z.number(), z.string()]).optional(),
  identity: apiObject.nullable().optional(),
});

const KNOWN_ROW_TYPES = new Set(['add_liquidity', 'remove_liquidity', 'buy', 'sell']);

/** A row of unknown type (kept, never dropped). */
export const otherRowSchema = z
  .looseObject({ type: z.string().optional() })
  .refine((r) => !KNOWN_ROW_TYPES.has(r.type ?? ''), 'is a known row type that does not match its documented shape');

export const tradeRowSchema = z.union([liquidityRowSchema, swapRowSchema, otherRowSchema]);

export const tradesPageSchema = z.looseObject({
  trades: z.array(tradeRowSchema),
  hasNextPage: z.boolean(),
  nextCursor: z.union([z.string(), z.number()]).nullable().optional(),
});

export const holdersPageSchema = z.looseObject({
  cursor: z.union([z.string(), z.number()]).nullable().optional(),
  nextCursor: z.union([z.string(), z.number()]).nullable().optional(),
});

export const dcaProgramsSchema = z.looseObject({
  programs: z.array(z.looseObject({ id: z.string(), label: z.string(), programId: z.string() })),
});

export type TokenPool = z.infer<typeof poolSchema>;
export type TokenWithPools = z.infer<typeof tokenWithPoolsSchema>;
export type TokenDetail = z.infer<typeof tokenDetailSchema>;
export type SearchResult = z.infer<typeof searchResultSchema>;
export type MarketActivity = z.infer<typeof marketActivitySchema>;
export type Candle = z.infer<typeof candleSchema>;
export type LiquidityRow = z.infer<typeof liquidityRowSchema>;
export type SwapRow = z.infer<typeof swapRowSchema>;
export type TradeRow = z.infer<typeof tradeRowSchema>;
export type ApiObject = z.infer<typeof apiObject>;
export type DcaProgram = z.infer<typeof dcaProgramsSchema>['programs'][number];

/** True for liquidity rows (`add_liquidity` / `remove_liquidity`). */
export function isLiquidityRow(row: TradeRow): row is LiquidityRow {
  return row.type === 'add_liquidity' || row.type === 'remove_liquidity';
}
