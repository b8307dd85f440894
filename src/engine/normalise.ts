/**
 * Normalises Datastream messages into domain events. The room name decides the family; the
 * payload is validated with zod (unknown extra fields are allowed, missing or mistyped required
 * fields are not). A bad frame throws ENGINE_BAD_FRAME, which the engine counts and reports.
 */
import { z } from 'zod';
import { ChainpilotError, decimal, type UnixMs } from '../core/index.js';
import type { StreamMessage } from './feed-port.js';
import type { DomainEvent, LiquidityTokenAmount, SafetySignalKind } from './events.js';

const num = z.number().finite();
const intString = z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative()]);
const tokenRec = z.looseObject({
  mint: z.string().min(1),
  name: z.string().optional(),
  symbol: z.string().optional(),
  decimals: z.number().int().min(0).max(18).optional(),
});
const poolRec = z.looseObject({ market: z.string().optional(), poolId: z.string().optional() });
const tokenPools = z.looseObject({
  token: tokenRec,
  pools: z.array(poolRec).optional(),
  riskScore: num.optional(),
  curvePercentage: num.optional(),
  graduationTx: z.string().nullish(),
  graduationTime: num.nullish(),
});
const mintOnly = z
  .looseObject({ token: tokenRec.optional(), mint: z.string().min(1).optional() })
  .refine((d) => d.token !== undefined || d.mint !== undefined, { message: 'needs token.mint or mint' });
const priceRec = z.looseObject({
  token: z.string().optional(),
  price: num.positive(),
  price_quote: num.positive().optional(),
  priceSol: num.positive().optional(),
  pool: z.string().optional(),
  market: z.string().optional(),
  timestamp: num.optional(),
  liquidity: z.union([num, z.looseObject({ usd: num })]).optional(),
  solReserveLamports: intString.optional(),
  tokenReserveRaw: intString.optional(),
  feeBps: z.number().int().min(0).max(10_000).optional(),
});
const liqEvent = z.looseObject({
  tx: z.string(),
  type: z.enum(['add_liquidity', 'remove_liquidity']),
  pool: z.string(),
  wallet: z.string(),
  time: num,
  slot: z.number().int(),
  tokens: z.array(z.looseObject({ address: z.string(), amountRaw: intString, decimals: z.number().int().min(0) })),
  confirmed: z.boolean().optional(),
});
const tradeRec = z.looseObject({
  type: z.enum(['buy', 'sell']),
  token: z.union([z.string(), tokenRec]).optional(),
  mint: z.string().optional(),
  wallet: z.string().optional(),
  tx: z.string().optional(),
  amount: z.union([z.string(), num]).optional(),
  priceUsd: num.optional(),
  volume: num.optional(),
  time: num.optional(),
  timestamp: num.optional(),
});
const safetyRec = z.looseObject({
  current: num.optional(),
  previous: num.nullish(),
  total: num.optional(),
  percentage: num.optional(),
  previousPercentage: num.nullish(),
  top10Percentage: num.optional(),
  totalBundlerPercentage: num.optional(),
  totalSniperPercentage: num.optional(),
  totalInsiderPercentage: num.optional(),
  previousTotalPercentage: num.nullish(),
  previousTotalBundlerPercentage: num.nullish(),
});
const record = z.record(z.string(), z.unknown());
const pricePoint = z.looseObject({ price: num });

const SAFETY: readonly SafetySignalKind[] = ['sniper', 'bundlers', 'insider', 'dev_holding', 'holders', 'top10'];

function bad(room: string, why: string): ChainpilotError {
  return new ChainpilotError('ENGINE_BAD_FRAME', `frame on room "${room}" rejected: ${why}`, {
    retry: 'not_retryable',
    context: { room },
  });
}

function parse<T>(schema: z.ZodType<T>, data: unknown, room: string): T {
  const r = schema.safeParse(data);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw bad(room, `${issue ? `${issue.path.join('.') || 'data'}: ${issue.message}` : 'invalid payload'}`);
  }
  return r.data;
}

/**
 * Fast path for the hottest frame: a price payload whose every known field already has the right
 * type passes without building a zod result (same rules as `priceRec`; anything else goes to zod).
 */
function isPlainPrice(d: unknown): d is z.infer<typeof priceRec> {
  if (typeof d !== 'object' || d === null || Array.isArray(d)) return false;
  const o = d as Record<string, unknown>;
  return typeof o['price'] === 'number' && Number.isFinite(o['price']) && o['price'] > 0 && optPos(o['price_quote']) && optPos(o['priceSol']) && optOf(o['token'], 'string') && optOf(o['pool'], 'string') && optOf(o['market'], 'string')
    && optOf(o['timestamp'], 'number') && optOf(o['liquidity'], 'number')
    && intStrOf(o['solReserveLamports']) && intStrOf(o['tokenReserveRaw']) && (o['feeBps'] === undefined || (Number.isInteger(o['feeBps']) && (o['feeBps'] as number) >= 0 && (o['feeBps'] as number) <= 10_000));
}

// Module-level helpers (no closures per frame on the hot path).
function optOf(v: unknown, t: 'string' | 'number'): boolean {
  return v === undefined || (typeof v === t && (t === 'string' || Number.isFinite(v)));
}

function optPos(v: unknown): boolean {
  return v === undefined || (typeof v === 'number' && Number.isFinite(v) && v > 0);
}

const DIGITS = /^\d+$/;
function intStrOf(v: unknown): boolean {
  return v === undefined || (typeof v === 'string' && DIGITS.test(v));
}

/** Exact decimal string of a finite wire number (no exponent notation). */
function exactString(n: number): string {
  const s = String(n);
  return s.includes('e') ? decimal(n, 'price').toFixed() : s;
}

function mintOf(d: z.infer<typeof mintOnly>): string {
  return d.token?.mint ?? d.mint ?? '';
}

/** Numeric fields of a payload (for stats and volume rooms). */
function numericFields(d: Record<string, unknown>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(d)) if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  return out;
}

/**
 * Turns one stream message into zero or more domain events (a liquidity frame carries several).
 * Throws ENGINE_BAD_FRAME for a payload that does not fit its room, or an unknown room family.
 */
export function normaliseMessage(msg: StreamMessage): DomainEvent[] {
  const { room, data, receivedAt, origin } = msg;
  const parts = room.split(':');
  const head = parts[0] ?? '';

  if (room === 'latest') {
    const d = parse(tokenPools, data, room);
    const pool = d.pools?.[0];
    return [{ room, receivedAt, origin, type: 'launch', mint: d.token.mint, symbol: d.token.symbol ?? '', name: d.token.name ?? '',
      decimals: d.token.decimals, market: pool?.market, poolId: pool?.poolId, riskScore: d.riskScore }];
  }
  if (head === 'graduating') {
    const d = parse(tokenPools, data, room);
    return [{ room, receivedAt, origin, type: 'graduating', mint: d.token.mint, market: parts[1] ?? d.pools?.[0]?.market, curvePercent: d.curvePercentage }];
  }
  if (room === 'graduated') {
    const d = parse(tokenPools, data, room);
    const pool = d.pools?.[0];
    return [{ room, receivedAt, origin, type: 'graduated', mint: d.token.mint, market: pool?.market, poolId: pool?.poolId,
      graduationTx: d.graduationTx ?? undefined, graduationTime: (d.graduationTime ?? undefined) as UnixMs | undefined }];
  }
  if (parts.length === 3 && parts[1] === 'curve') {
    const percent = Number(parts[2]);
    if (!Number.isFinite(percent)) throw bad(room, 'curve percent in the room name is not a number');
    const d = parse(mintOnly, data, room);
    return [{ room, receivedAt, origin, type: 'curve', mint: mintOf(d), market: head, percent }];
  }
  if (head === 'price' || head === 'token') {
    const d = isPlainPrice(data) ? data : parse(priceRec, data, room);
    const aggregated = parts[1] === 'aggregated';
    const mint = d.token ?? parts[parts.length - 1] ?? '';
    const liq = d.liquidity;
    const inSol = d.price_quote ?? d.priceSol;
    return [{ room, receivedAt, origin, type: 'price', mint, price: exactString(inSol ?? d.price), priceUsd: inSol === undefined ? undefined : d.price, aggregated, pool: d.pool, market: d.market,
      liquidityUsd: typeof liq === 'number' ? liq : liq?.usd,
      solReserveLamports: d.solReserveLamports === undefined ? undefined : BigInt(d.solReserveLamports),
      tokenReserveRaw: d.tokenReserveRaw === undefined ? undefined : BigInt(d.tokenReserveRaw),
      poolFeeBps: d.feeBps, at: (d.timestamp ?? receivedAt) as UnixMs }];
  }
  if (head === 'liquidity') {
    const list = parse(z.array(liqEvent), data, room);
    const roomMint = parts[1] !== 'pool' && parts[1] !== 'wallet' ? parts[1] : undefined;
    return list.map((e) => {
      const tokens: LiquidityTokenAmount[] = e.tokens.map((t) => ({ mint: t.address, amountRaw: BigInt(t.amountRaw), decimals: t.decimals }));
      return { room, receivedAt, origin, type: 'liquidity' as const, mint: roomMint ?? tokens[0]?.mint ?? '', kind: e.type === 'add_liquidity' ? 'add' as const : 'remove' as const,
        pool: e.pool, wallet: e.wallet, tx: e.tx, slot: e.slot, tokens, provisional: msg.commitment === 'processed' || (msg.commitment === undefined && origin === 'live' && e.confirmed !== true), at: e.time as UnixMs };
    });
  }
  if (head === 'transaction') {
    const list = Array.isArray(data) ? parse(z.array(tradeRec), data, room) : [parse(tradeRec, data, room)];
    return list.map((d) => {
      const mint = typeof d.token === 'string' ? d.token : d.token?.mint ?? d.mint ?? (parts[1] === 'wallet' ? undefined : parts[1]);
      if (!mint) throw bad(room, 'no token mint in the trade');
      return { room, receivedAt, origin, type: 'trade' as const, mint, side: d.type, wallet: d.wallet, tx: d.tx,
        amount: d.amount === undefined ? undefined : decimal(d.amount, 'amount').toFixed(), priceUsd: d.priceUsd, volumeUsd: d.volume,
        at: (d.time ?? d.timestamp ?? receivedAt) as UnixMs };
    });
  }
  if ((SAFETY as readonly string[]).includes(head) && parts.length === 2) {
    const d = parse(safetyRec, data, room);
    // Room-level value first (the total share of the role or the holder count), then per-wallet fields.
    const current = d.current ?? d.totalBundlerPercentage ?? d.totalSniperPercentage ?? d.totalInsiderPercentage ?? d.top10Percentage ?? d.total ?? d.percentage;
    if (current === undefined) throw bad(room, 'no current value (current, total, percentage, top10Percentage or total<Role>Percentage)');
    const previous = d.previous ?? d.previousTotalPercentage ?? d.previousTotalBundlerPercentage ?? d.previousPercentage ?? undefined;
    return [{ room, receivedAt, origin, type: 'safety', mint: parts[1] ?? '', signal: head as SafetySignalKind, current, previous }];
  }
  if (head === 'stats' || head === 'volume') {
    const d = parse(record, data, room);
    const scope = parts[1] === 'pool' ? 'pool' : 'token';
    return [{ room, receivedAt, origin, type: head, scope, id: parts[2] ?? '', values: numericFields(d) }];
  }
  if (head === 'pnl') {
    const d = parse(record, data, room);
    const third = parts[2];
    const kind = third === 'summary' ? 'summary' : typeof d['type'] === 'string' ? d['type'] : 'update';
    return [{ room, receivedAt, origin, type: 'walletPnl', wallet: parts[1] ?? '', mint: third && third !== 'summary' ? third : undefined, kind, data: d }];
  }
  if (head === 'dca') {
    const d = parse(record, data, room);
    const flow = parts[3] === 'buyers' || parts[3] === 'sellers' ? parts[3] : undefined;
    const order = record.safeParse(d['order']);
    const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    return [{ room, receivedAt, origin, type: 'dca', eventName: str(d['eventName']), mint: flow ? parts[2] : undefined, flow,
      inputMint: str(order.success ? order.data['inputMint'] : d['inputMint']),
      outputMint: str(order.success ? order.data['outputMint'] : d['outputMint']), data: d }];
  }
  if (head === 'pm' && parts[1] === 'crypto') {
    const d = parse(pricePoint, data, room);
    return [{ room, receivedAt, origin, type: 'crypto', asset: parts[2] ?? '', price: d.price }];
  }
  if (head === 'pm' && parts[1] === 'market') {
    const d = parse(pricePoint, data, room);
    return [{ room, receivedAt, origin, type: 'prediction', exchange: parts[2] ?? '', tokenId: parts[3] ?? '', price: d.price }];
  }
  throw bad(room, 'unknown room family');
}
