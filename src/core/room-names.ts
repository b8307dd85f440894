/**
 * Typed room builders for every room family of the Datastream spec, so that no caller concatenates
 * room strings, and the check of a room name. Each builder returns a branded `Room<F>` naming its
 * family `F` (the client's `PayloadOf` maps it to the payload type); the plain string form stays
 * accepted everywhere. In core, with no import of ours, so that the client, the engine and the
 * strategy API (`chainpilot/strategy`) share one set.
 */
import { ChainpilotError } from './errors.js';

declare const roomPayload: unique symbol;

/** A room name of family `F` (a phantom brand on a plain string; the client's `FamilyName` lists the families). */
export type Room<F extends string = string> = string & { readonly [roomPayload]: F };

/** Curve-alert markets named by the spec. */
export type CurveMarket = 'venue_a' | 'launchpad' | 'venue_c' | 'venue_d-curve';

/** DCA room event types (`dca:{program}:{event}`). */
export type DcaEventRoom = 'opened' | 'filled' | 'closed' | 'deposit' | 'withdraw' | 'collected_fee' | 'position';

const SEGMENT = /^[^\s:]+$/;

function seg(value: string, field: string): string {
  if (!SEGMENT.test(value)) {
    throw new ChainpilotError('STREAM_INVALID_ROOM', `${field}: "${value}" is not a valid room segment; pass a non-empty value without spaces or ':'`, {
      retry: 'not_retryable',
      context: { field },
    });
  }
  return value;
}

/** Longest room name accepted (the longest the builders make is under 200 characters). */
const MAX_ROOM_CHARS = 512;

/**
 * The common case of a valid name, in one pass without allocating (a strategy watches rooms per
 * event): 1 to MAX_ROOM_CHARS printable ASCII characters (so no whitespace) with no empty segment.
 * False sends the name through the full check, which says what is wrong (or accepts it).
 */
function plainRoomName(room: string): boolean {
  const n = room.length;
  if (n === 0 || n > MAX_ROOM_CHARS) return false;
  let prev = 58; // a ':' before the first character: a leading ':' is an empty segment
  for (let i = 0; i < n; i++) {
    const c = room.charCodeAt(i);
    if (c <= 32 || c >= 127 || (c === 58 && prev === 58)) return false;
    prev = c;
  }
  return prev !== 58;
}

/**
 * `room` if it is a name the service can mean: a non-empty string without whitespace whose
 * `:`-separated segments are all non-empty (`'price:token:'`, a mint left out, is refused). The
 * error echoes the value and points at the builders.
 */
export function checkRoomName(room: unknown): string {
  if (typeof room === 'string' && plainRoomName(room)) return room;
  let why: string | undefined;
  if (typeof room !== 'string') why = `is a ${room === null ? 'null' : typeof room}, not a string`;
  else if (room.length === 0) why = 'is empty';
  else if (room.length > MAX_ROOM_CHARS) why = `has ${room.length} characters (at most ${MAX_ROOM_CHARS})`;
  else if (/\s/.test(room)) why = 'contains whitespace';
  else if (room.split(':').includes('')) why = 'has an empty segment (a value left out between or after the colons)';
  if (why === undefined) return room as string;
  const shown = typeof room === 'string' ? JSON.stringify(room.length > 80 ? `${room.slice(0, 77)}...` : room) : String(room);
  throw new ChainpilotError(
    'STREAM_INVALID_ROOM',
    `room ${shown} ${why}; build room names with the rooms builders, e.g. rooms.price(mint) or rooms.holders(mint)`,
    {
      retry: 'not_retryable',
      context: { field: 'room' },
    },
  );
}

function room<F extends string>(...parts: string[]): Room<F> {
  return parts.join(':') as Room<F>;
}

function enrichedSuffix<F extends string>(r: Room<F>, enriched: boolean | undefined): Room<F> {
  return (enriched ? `${r}:enriched` : r) as Room<F>;
}

/** Options shared by the rooms that accept the `:enriched` suffix. */
export interface EnrichOption {
  /** Adds wallet `identity` to events (may arrive late, out of order, or `identityStatus: 'partial'`). */
  readonly enriched?: boolean;
}

/** Builders for every room family. */
export const rooms = {
  /** New tokens and pools. */
  latest: (): Room<'launch'> => 'latest' as Room<'launch'>,
  /** Tokens approaching curve completion (payload fields not shown by the spec). */
  graduating: (): Room<'graduating'> => 'graduating' as Room<'graduating'>,
  /** Tokens of `market` with at least `sol` SOL in the curve. */
  graduatingWith: (market: string, sol: number): Room<'graduating'> => room('graduating', seg(market, 'market'), String(positive(sol, 'sol'))),
  /** Just-graduated tokens. */
  graduated: (): Room<'graduated'> => 'graduated' as Room<'graduated'>,
  /** Token reaches `pct` percent of its curve on `market`. */
  curve: (market: CurveMarket, pct: number): Room<'curve'> => room(market, 'curve', String(percent(pct))),
  /** Liquidity of a token, optionally narrowed to a pool and a wallet. Payload: an array of events. */
  liquidity: (mint: string, scope: { pool?: string; wallet?: string } & EnrichOption = {}): Room<'liquidity'> => {
    const parts = ['liquidity', seg(mint, 'mint')];
    if (scope.wallet !== undefined && scope.pool === undefined) {
      throw new ChainpilotError(
        'STREAM_INVALID_ROOM',
        'wallet: a token liquidity room scoped to a wallet also needs a pool; use rooms.liquidityWallet(wallet) for a provider across pools',
        {
          retry: 'not_retryable',
          context: { field: 'wallet' },
        },
      );
    }
    if (scope.pool !== undefined) parts.push(seg(scope.pool, 'pool'));
    if (scope.wallet !== undefined) parts.push(seg(scope.wallet, 'wallet'));
    return enrichedSuffix(room(...parts), scope.enriched);
  },
  /** All liquidity actions in one pool. */
  liquidityPool: (pool: string, opts: EnrichOption = {}): Room<'liquidity'> => enrichedSuffix(room('liquidity', 'pool', seg(pool, 'pool')), opts.enriched),
  /** One provider across pools and tokens. */
  liquidityWallet: (wallet: string, opts: EnrichOption = {}): Room<'liquidity'> =>
    enrichedSuffix(room('liquidity', 'wallet', seg(wallet, 'wallet')), opts.enriched),
  /** Swaps of a token (liquidity is separate), optionally narrowed to a pool and a wallet. */
  transactions: (token: string, scope: { pool?: string; wallet?: string } & EnrichOption = {}): Room<'transaction'> => {
    const parts = ['transaction', seg(token, 'token')];
    if (scope.pool !== undefined) parts.push(seg(scope.pool, 'pool'));
    if (scope.wallet !== undefined) parts.push(seg(scope.wallet, 'wallet'));
    return enrichedSuffix(room(...parts), scope.enriched);
  },
  sniper: (token: string): Room<'safety'> => room('sniper', seg(token, 'token')),
  bundlers: (token: string): Room<'safety'> => room('bundlers', seg(token, 'token')),
  insider: (token: string): Room<'safety'> => room('insider', seg(token, 'token')),
  devHolding: (token: string): Room<'safety'> => room('dev_holding', seg(token, 'token')),
  holders: (token: string): Room<'safety'> => room('holders', seg(token, 'token')),
  top10: (token: string): Room<'safety'> => room('top10', seg(token, 'token')),
  /** Primary-pool price with automatic primary-pool rotation. */
  price: (token: string): Room<'price'> => room('price', 'token', seg(token, 'token')),
  /** Primary-pool price, the `token:{primary}` family. */
  tokenPrice: (primary: string): Room<'price'> => room('token', seg(primary, 'primary')),
  /** Aggregated price across the top 10 valid pools. */
  aggregatedPrice: (token: string): Room<'aggregated-price'> => room('price', 'aggregated', seg(token, 'token')),
  tokenStats: (token: string): Room<'stats'> => room('stats', 'token', seg(token, 'token'), 'total'),
  poolStats: (pool: string): Room<'stats'> => room('stats', 'pool', seg(pool, 'pool'), 'total'),
  tokenVolume: (token: string): Room<'stats'> => room('volume', 'token', seg(token, 'token')),
  poolVolume: (pool: string): Room<'stats'> => room('volume', 'pool', seg(pool, 'pool')),
  /** Live PnL of one wallet on one token (`tradeUpdate`, `balanceUpdate`). */
  pnl: (wallet: string, token: string): Room<'pnl'> => room('pnl', seg(wallet, 'wallet'), seg(token, 'token')),
  pnlWallet: (wallet: string): Room<'pnl'> => room('pnl', seg(wallet, 'wallet')),
  pnlSummary: (wallet: string): Room<'pnl'> => room('pnl', seg(wallet, 'wallet'), 'summary'),
  /** Every event of a DCA program, or one event type. */
  dca: (program: string, event?: DcaEventRoom): Room<'dca'> =>
    event === undefined ? room('dca', seg(program, 'program')) : room('dca', seg(program, 'program'), event),
  dcaBuyers: (program: string, mint: string): Room<'dca'> => room('dca', seg(program, 'program'), seg(mint, 'mint'), 'buyers'),
  dcaSellers: (program: string, mint: string): Room<'dca'> => room('dca', seg(program, 'program'), seg(mint, 'mint'), 'sellers'),
  dcaWallet: (program: string, wallet: string): Room<'dca'> => room('dca', seg(program, 'program'), 'wallet', seg(wallet, 'wallet')),
  dcaAccount: (program: string, dcaAddress: string): Room<'dca'> => room('dca', seg(program, 'program'), seg(dcaAddress, 'dcaAddress')),
  /** Oracle underlying ticks for crypto up/down windows. */
  pmCrypto: (asset: string): Room<'crypto'> => room('pm', 'crypto', seg(asset, 'asset')),
  /** Outcome price updates of one prediction-market outcome token. */
  pmMarketPrices: (exchange: string, tokenId: string): Room<'prediction'> => room('pm', 'market', seg(exchange, 'exchange'), seg(tokenId, 'tokenId'), 'prices'),
} as const;

function positive(n: number, field: string): number {
  if (!Number.isFinite(n) || n <= 0) {
    throw new ChainpilotError('STREAM_INVALID_ROOM', `${field}: ${n} must be a positive number`, { retry: 'not_retryable', context: { field } });
  }
  return n;
}

function percent(n: number): number {
  if (!Number.isInteger(n) || n < 0 || n > 100) {
    throw new ChainpilotError('STREAM_INVALID_ROOM', `pct: ${n} must be an integer from 0 to 100`, { retry: 'not_retryable', context: { field: 'pct' } });
  }
  return n;
}
