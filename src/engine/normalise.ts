/**
 * Maps typed stream messages to domain events: one mapper per room family, in a table typed by the
 * client's `FamilyName`, so a family added to the room registry without a mapping does not compile.
 * Payloads were parsed once by the family's guard in the client (room-registry.ts); nothing here
 * re-validates wire data. A message that yields no event (an unknown room; a USD-only price before
 * any SOL/USD rate was seen) throws ENGINE_BAD_FRAME, which the engine counts and reports.
 */
import BigNumber from 'bignumber.js';
import { ChainpilotError, decimal, type UnixMs } from '../core/index.js';
import type { FamilyName } from '../client/datastream/index.js';
import type { StreamMessage } from './feed-port.js';
import type { DomainEvent, LiquidityTokenAmount } from './events.js';

const ROOM_PARTS_MAX = 4_096;

type Mapper<F extends FamilyName> = (msg: StreamMessage & { readonly family: F }, parts: readonly string[]) => DomainEvent[];

function bad(room: string, why: string): ChainpilotError {
  return new ChainpilotError('ENGINE_BAD_FRAME', `frame on room "${room}" rejected: ${why}`, { retry: 'not_retryable', context: { room } });
}

/** `0.`, `0.0`, `0.00`, ...: the prefix of a number below 1e-6 written out (the smallest double is 5e-324). */
const ZERO_POINT: readonly string[] = Array.from({ length: 325 }, (_, k) => `0.${'0'.repeat(k)}`);

/**
 * Exact decimal string of a finite wire number (no exponent notation): the digits of `String(n)`
 * with the decimal point moved, as `decimal(n).toFixed()` gives them, without a BigNumber. Prices
 * in SOL are mostly below 1e-6, so this runs for nearly every price frame: the common case (a
 * positive number with a negative exponent, `d[.ddd]e-x`) is one table prefix and two pieces of
 * `String(n)`; the rest takes the general path.
 */
export function exactString(n: number): string {
  const s = String(n);
  const e = s.indexOf('e');
  if (e < 0) return s;
  if (s.charCodeAt(0) !== 45 && s.charCodeAt(e + 1) === 45) {
    let x = 0;
    for (let i = e + 2; i < s.length; i++) x = x * 10 + s.charCodeAt(i) - 48;
    // one digit before the point in exponent notation: 7.43e-8 is 0.0000000743
    return ZERO_POINT[x - 1]! + s[0]! + (e > 1 ? s.slice(2, e) : '');
  }
  if (!Number.isFinite(n)) return decimal(n, 'price').toFixed(); // throws CORE_INVALID_DECIMAL
  const neg = s.charCodeAt(0) === 45 ? 1 : 0;
  const mantissa = s.slice(neg, e);
  const dot = mantissa.indexOf('.');
  const digits = dot < 0 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
  const point = (dot < 0 ? mantissa.length : dot) + Number(s.slice(e + 1));
  const body =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? digits + '0'.repeat(point - digits.length)
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return neg ? `-${body}` : body;
}

/** Numeric fields of a payload (for stats and volume rooms). */
function numericFields(d: Readonly<Record<string, unknown>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(d)) if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  return out;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The mapper of every family, and the SOL/USD rate it learns from price frames that carry both. */
export interface Normaliser {
  map(msg: StreamMessage): DomainEvent[];
  /** USD per SOL, from the last price frame with both `price` and `price_quote` (0 before). */
  solUsd(): number;
}

export function createNormaliser(): Normaliser {
  let solUsd = 0;
  /** Room name split on `:` (without `:enriched`), per room: every message of a room needs it. Bounded. */
  const roomParts = new Map<string, readonly string[]>();

  const mappers: { readonly [F in FamilyName]: Mapper<F> } = {
    launch: ({ room, receivedAt, origin, data: d }) => {
      const pool = d.pools?.[0];
      return [
        {
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
        },
      ];
    },
    graduating: ({ room, receivedAt, origin, data: d }, parts) => [
      { room, receivedAt, origin, type: 'graduating', mint: d.token.mint, market: parts[1] ?? d.pools?.[0]?.market, curvePercent: d.curvePercentage },
    ],
    graduated: ({ room, receivedAt, origin, data: d }) => {
      const pool = d.pools?.[0];
      return [
        {
          room,
          receivedAt,
          origin,
          type: 'graduated',
          mint: d.token.mint,
          market: pool?.market,
          poolId: pool?.poolId,
          graduationTx: d.graduationTx ?? undefined,
          graduationTime: (d.graduationTime ?? undefined) as UnixMs | undefined,
        },
      ];
    },
    curve: ({ room, receivedAt, origin, data: d }, parts) => [
      { room, receivedAt, origin, type: 'curve', mint: d.token?.mint ?? d.mint ?? '', market: parts[0] ?? '', percent: Number(parts[2]) },
    ],
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
        at: (t.time ?? receivedAt) as UnixMs,
      })),
    safety: ({ room, receivedAt, origin, data: s }, parts) => [
      { room, receivedAt, origin, type: 'safety', mint: parts[1] ?? '', signal: s.role, current: s.figure, previous: s.previousFigure },
    ],
    price: ({ room, receivedAt, origin, data: d }, parts) => {
      const inSol = d.price_quote ?? d.priceSol;
      if (inSol !== undefined) solUsd = d.price / inSol;
      const liq = d.liquidity;
      return [
        {
          room,
          receivedAt,
          origin,
          type: 'price',
          mint: d.token ?? parts[parts.length - 1] ?? '',
          price: solPrice(room, d.price, inSol),
          priceUsd: d.price,
          aggregated: false,
          pool: d.pool,
          market: d.market,
          liquidityUsd: typeof liq === 'number' ? liq : liq?.usd,
          solReserveLamports: d.solReserveLamports === undefined ? undefined : BigInt(d.solReserveLamports),
          tokenReserveRaw: d.tokenReserveRaw === undefined ? undefined : BigInt(d.tokenReserveRaw),
          poolFeeBps: d.feeBps,
          at: (d.time ?? d.timestamp ?? receivedAt) as UnixMs,
        },
      ];
    },
    'aggregated-price': ({ room, receivedAt, origin, data: d }) => {
      const inSol = typeof d.price_quote === 'number' ? d.price_quote : undefined;
      return [
        {
          room,
          receivedAt,
          origin,
          type: 'price',
          mint: d.token,
          price: solPrice(room, d.price, inSol),
          priceUsd: d.price,
          aggregated: true,
          pool: d.pool,
          market: undefined,
          liquidityUsd: undefined,
          solReserveLamports: undefined,
          tokenReserveRaw: undefined,
          poolFeeBps: undefined,
          at: d.timestamp as UnixMs,
        },
      ];
    },
    stats: ({ room, receivedAt, origin, data }, parts) => [
      {
        room,
        receivedAt,
        origin,
        type: parts[0] === 'volume' ? 'volume' : 'stats',
        scope: parts[1] === 'pool' ? 'pool' : 'token',
        id: parts[2] ?? '',
        values: numericFields(data),
      },
    ],
    pnl: ({ room, receivedAt, origin, data: d }, parts) => {
      const third = parts[2];
      const kind = third === 'summary' ? 'summary' : (d.type ?? 'update');
      return [{ room, receivedAt, origin, type: 'walletPnl', wallet: parts[1] ?? '', mint: third && third !== 'summary' ? third : undefined, kind, data: d }];
    },
    dca: ({ room, receivedAt, origin, data: d }, parts) => {
      const flow = parts[3] === 'buyers' || parts[3] === 'sellers' ? parts[3] : undefined;
      const order = d.order;
      return [
        {
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
        },
      ];
    },
    prediction: ({ room, receivedAt, origin, data: d }, parts) => [
      { room, receivedAt, origin, type: 'prediction', exchange: parts[2] ?? '', tokenId: parts[3] ?? '', price: d.price },
    ],
    crypto: ({ room, receivedAt, origin, data: d }, parts) => [{ room, receivedAt, origin, type: 'crypto', asset: parts[2] ?? '', price: d.price }],
    unknown: ({ room }) => {
      throw bad(room, 'no domain event for this room (unknown room family)');
    },
  };

  /** SOL per token: the frame's SOL price, else USD over the learnt SOL/USD rate. */
  const solPrice = (room: string, usd: number, inSol: number | undefined): string => {
    if (inSol !== undefined) return exactString(inSol);
    if (solUsd > 0) return new BigNumber(usd).div(solUsd).decimalPlaces(18, BigNumber.ROUND_HALF_EVEN).toFixed();
    throw bad(room, 'a USD-only price before any SOL/USD rate was seen (no price_quote yet on a price:token room)');
  };

  return {
    map(msg) {
      let parts = roomParts.get(msg.room);
      if (parts === undefined) {
        const p = msg.room.split(':');
        if (p[p.length - 1] === 'enriched') p.pop();
        if (roomParts.size >= ROOM_PARTS_MAX) roomParts.clear();
        roomParts.set(msg.room, (parts = p));
      }
      return (mappers[msg.family] as Mapper<FamilyName>)(msg, parts);
    },
    solUsd: () => solUsd,
  };
}
