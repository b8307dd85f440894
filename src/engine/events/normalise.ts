/**
 * Maps typed stream messages to domain events: one mapper per room family, in a table typed by the
 * client's `FamilyName`, so a family added to the room registry without a mapping does not compile.
 * Payloads were parsed once by the family's guard in the client (room-registry.ts); nothing here
 * re-validates wire data. A message that yields no event (an unknown room; a USD-only price before
 * any SOL/USD rate was seen) throws ENGINE_BAD_FRAME, which the engine counts and reports.
 */
import BigNumber from 'bignumber.js';
import { ChainpilotError, decimal, type Lamports, type UnixMs } from '../../core/index.js';
import type { FamilyName } from '../../client/datastream/index.js';
import type { StreamMessage } from './feed-port.js';
import type { DomainEvent, LiquidityTokenAmount } from './events.js';
import { exactString, PriceTickEvent } from './price-tick.js';
import { plainDecimalParts, pow10 } from '../../core/exact-ratio.js';

const ROOM_PARTS_MAX = 4_096;

/** A family's mapping: one event (most families), or one per row (row families). */
type Mapper<F extends FamilyName> = (msg: StreamMessage & { readonly family: F }, parts: readonly string[]) => DomainEvent | DomainEvent[];

function bad(room: string, why: string): ChainpilotError {
  return new ChainpilotError('ENGINE_BAD_FRAME', `frame on room "${room}" rejected: ${why}`, { retry: 'not_retryable', context: { room } });
}

export { exactString } from './price-tick.js';

/** Numeric fields of a payload (for stats and volume rooms). */
function numericFields(d: Readonly<Record<string, unknown>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(d)) if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  return out;
}

/**
 * SOL as sent (a number or decimal string) in lamports, to the nearest lamport (half to even): the
 * wire's double of 0.1 SOL is 100000000 lamports. In bigints (every swap passes here); a negative or
 * non-decimal amount is a bad frame.
 */
function solToLamports(sol: number | string, room: string): Lamports {
  const parts = plainDecimalParts(typeof sol === 'number' ? exactString(sol) : sol.trim());
  if (parts === undefined) {
    if (typeof sol === 'number' && sol < 0) throw bad(room, `solVolume ${String(sol)} is negative`);
    // an exponent or a sign in a string: the general parser (throws CORE_INVALID_DECIMAL for non-numbers)
    const l = decimal(sol, 'solVolume').shiftedBy(9).integerValue(BigNumber.ROUND_HALF_EVEN);
    if (l.isNegative() && !l.isZero()) throw bad(room, `solVolume ${String(sol)} is negative`);
    return BigInt(l.toFixed(0)) as Lamports;
  }
  const { digits, scale } = parts;
  if (scale <= 9) return (digits * pow10(9 - scale)) as Lamports;
  const den = pow10(scale - 9);
  const q = digits / den;
  const twice = (digits - q * den) * 2n;
  return (twice > den || (twice === den && (q & 1n) === 1n) ? q + 1n : q) as Lamports;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The mapper of every family, and the SOL/USD rate it learns from price frames that carry both. */
export interface Normaliser {
  /** The message's events: one, or an array of one per row (row families); the hot path, no wrapping array. */
  events(msg: StreamMessage): DomainEvent | readonly DomainEvent[];
  /** The message's events as an array. */
  map(msg: StreamMessage): DomainEvent[];
  /** USD per SOL, from the last price frame with both `price` and `price_quote` (0 before). */
  solUsd(): number;
}

/** The mapper of every room family. */
type MapperTable = { readonly [F in FamilyName]: Mapper<F> };

const DIGITS = /^[0-9]{1,40}$/;

/** A launch pool's `curve` virtual reserves, when both are whole numbers above zero (anything else: none). */
function curveOf(curve: unknown): { curveSolLamports?: bigint; curveTokenRaw?: bigint } {
  if (typeof curve !== 'object' || curve === null) return {};
  const { virtualSolReserves: sol, virtualTokenReserves: token } = curve as { virtualSolReserves?: unknown; virtualTokenReserves?: unknown };
  if (typeof sol !== 'string' || typeof token !== 'string' || !DIGITS.test(sol) || !DIGITS.test(token)) return {};
  const s = BigInt(sol);
  const t = BigInt(token);
  return s > 0n && t > 0n ? { curveSolLamports: s, curveTokenRaw: t } : {};
}

/**
 * The families whose events depend on the message alone: every family but the two price families,
 * which read (and learn) the normaliser's SOL/USD rate.
 */
const STATELESS: Omit<MapperTable, 'price' | 'aggregated-price'> = {
  launch: ({ room, receivedAt, origin, data: d }) => {
    const pool = d.pools?.[0];
    return {
      room,
      receivedAt,
      origin,
      type: 'launch',
      mint: d.token.mint,
      symbol: d.token.symbol ?? '',
      name: d.token.name ?? '',
      decimals: d.token.decimals,
      market: pool?.market,
      poolId: pool?.poolId,
      riskScore: d.riskScore,
      ...curveOf(pool?.['curve']),
    };
  },
  graduating: ({ room, receivedAt, origin, data: d }, parts) => ({
    room,
    receivedAt,
    origin,
    type: 'graduating',
    mint: d.token.mint,
    market: parts[1] ?? d.pools?.[0]?.market,
    curvePercent: d.curvePercentage,
  }),
  graduated: ({ room, receivedAt, origin, data: d }) => {
    const pool = d.pools?.[0];
    return {
      room,
      receivedAt,
      origin,
      type: 'graduated',
      mint: d.token.mint,
      market: pool?.market,
      poolId: pool?.poolId,
      graduationTx: d.graduationTx ?? undefined,
      graduationTime: (d.graduationTime ?? undefined) as UnixMs | undefined,
    };
  },
  curve: ({ room, receivedAt, origin, data: d }, parts) => ({
    room,
    receivedAt,
    origin,
    type: 'curve',
    mint: d.token?.mint ?? d.mint ?? '',
    market: parts[0] ?? '',
    percent: Number(parts[2]),
  }),
  liquidity: (msg, parts) => {
    const { room, receivedAt, origin } = msg;
    const roomMint = parts[1] !== 'pool' && parts[1] !== 'wallet' ? parts[1] : undefined;
    return msg.data.map((e) => {
      const tokens: LiquidityTokenAmount[] = e.tokens.map((t) => ({ mint: t.address, amountRaw: BigInt(t.amountRaw), decimals: t.decimals }));
      return {
        room,
        receivedAt,
        origin,
        type: 'liquidity' as const,
        mint: roomMint ?? tokens[0]?.mint ?? '',
        kind: e.type === 'add_liquidity' ? ('add' as const) : ('remove' as const),
        pool: e.pool,
        wallet: e.wallet,
        tx: e.tx,
        slot: e.slot,
        tokens,
        provisional: msg.commitment === 'processed',
        at: e.time as UnixMs,
      };
    });
  },
  transaction: ({ room, receivedAt, origin, data }) =>
    data.map((t) => ({
      room,
      receivedAt,
      origin,
      type: 'trade' as const,
      mint: t.mint,
      side: t.side,
      wallet: t.wallet,
      tx: t.tx,
      amount: t.amount === undefined ? undefined : decimal(t.amount, 'amount').toFixed(),
      priceUsd: t.priceUsd,
      volumeUsd: t.volumeUsd,
      solLamports: t.solVolume === undefined ? undefined : solToLamports(t.solVolume, room),
      at: (t.time ?? receivedAt) as UnixMs,
    })),
  safety: ({ room, receivedAt, origin, data: s }, parts) => ({
    room,
    receivedAt,
    origin,
    type: 'safety',
    mint: parts[1] ?? '',
    signal: s.role,
    current: s.figure,
    previous: s.previousFigure,
  }),
  stats: ({ room, receivedAt, origin, data }, parts) => ({
    room,
    receivedAt,
    origin,
    type: parts[0] === 'volume' ? 'volume' : 'stats',
    scope: parts[1] === 'pool' ? 'pool' : 'token',
    id: parts[2] ?? '',
    values: numericFields(data),
  }),
  pnl: ({ room, receivedAt, origin, data: d }, parts) => {
    const third = parts[2];
    const kind = third === 'summary' ? 'summary' : (d.type ?? 'update');
    return [{ room, receivedAt, origin, type: 'walletPnl', wallet: parts[1] ?? '', mint: third && third !== 'summary' ? third : undefined, kind, data: d }];
  },
  dca: ({ room, receivedAt, origin, data: d }, parts) => {
    const flow = parts[3] === 'buyers' || parts[3] === 'sellers' ? parts[3] : undefined;
    const order = d.order;
    return {
      room,
      receivedAt,
      origin,
      type: 'dca',
      eventName: d.eventName,
      mint: flow ? parts[2] : undefined,
      flow,
      inputMint: str(order ? order['inputMint'] : d['inputMint']),
      outputMint: str(order ? order['outputMint'] : d['outputMint']),
      data: d,
    };
  },
  prediction: ({ room, receivedAt, origin, data: d }, parts) => ({
    room,
    receivedAt,
    origin,
    type: 'prediction',
    exchange: parts[2] ?? '',
    tokenId: parts[3] ?? '',
    price: d.price,
  }),
  crypto: ({ room, receivedAt, origin, data: d }, parts) => ({ room, receivedAt, origin, type: 'crypto', asset: parts[2] ?? '', price: d.price }),
  unknown: ({ room }) => {
    throw bad(room, 'no domain event for this room (unknown room family)');
  },
};

export function createNormaliser(): Normaliser {
  let solUsd = 0;
  /** Room name split on `:` (without `:enriched`), per room: every message of a room needs it. Bounded. */
  const roomParts = new Map<string, readonly string[]>();

  const mappers: MapperTable = {
    ...STATELESS,
    price: ({ room, receivedAt, origin, data: d }, parts) => {
      const inSol = d.price_quote ?? d.priceSol;
      if (inSol !== undefined) solUsd = d.price / inSol;
      const liq = d.liquidity;
      return new PriceTickEvent(
        room,
        receivedAt,
        origin,
        d.token ?? parts[parts.length - 1] ?? '',
        solSource(room, inSol),
        solUsd,
        d.price,
        false,
        d.pool,
        d.market,
        typeof liq === 'number' ? liq : liq?.usd,
        d.solReserveLamports === undefined ? undefined : BigInt(d.solReserveLamports),
        d.tokenReserveRaw === undefined ? undefined : BigInt(d.tokenReserveRaw),
        d.feeBps,
        (d.time ?? d.timestamp ?? receivedAt) as UnixMs,
      );
    },
    'aggregated-price': ({ room, receivedAt, origin, data: d }) => {
      const inSol = typeof d.price_quote === 'number' ? d.price_quote : undefined;
      return new PriceTickEvent(
        room,
        receivedAt,
        origin,
        d.token,
        solSource(room, inSol),
        solUsd,
        d.price,
        true,
        d.pool,
        undefined,
        undefined,
        undefined,
        undefined,
        undefined,
        d.timestamp as UnixMs,
      );
    },
  };

  /**
   * The frame's SOL price, or NaN when it priced in USD only (the tick then divides by the SOL/USD
   * rate learnt so far, which it keeps). Throws when there is neither.
   */
  const solSource = (room: string, inSol: number | undefined): number => {
    if (inSol !== undefined) return inSol;
    if (solUsd > 0) return Number.NaN;
    throw bad(room, 'a USD-only price before any SOL/USD rate was seen (no price_quote yet on a price:token room)');
  };

  const events = (msg: StreamMessage): DomainEvent | DomainEvent[] => {
    let parts = roomParts.get(msg.room);
    if (parts === undefined) {
      const p = msg.room.split(':');
      if (p[p.length - 1] === 'enriched') p.pop();
      if (roomParts.size >= ROOM_PARTS_MAX) roomParts.clear();
      roomParts.set(msg.room, (parts = p));
    }
    return (mappers[msg.family] as Mapper<FamilyName>)(msg, parts);
  };

  return {
    events,
    map(msg) {
      const r = events(msg);
      return Array.isArray(r) ? r : [r];
    },
    solUsd: () => solUsd,
  };
}
