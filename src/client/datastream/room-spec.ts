/**
 * What the client knows about a room from its name alone: the payload family (which guard checks
 * it), whether it is price-like (coalesced, latest value wins) or an event room (bounded queue,
 * deduplicated), and which REST history scope backfills it after a gap.
 */

export type RoomFamily =
  | 'token-launch'
  | 'token-graduated'
  | 'token-object'
  | 'liquidity'
  | 'transaction'
  | 'safety'
  | 'price'
  | 'aggregated-price'
  | 'stats'
  | 'pnl'
  | 'dca'
  | 'prediction'
  | 'unknown';

/** The REST history scope that backfills a room (`/trades/{token}[/{pool}][/{wallet}]`). */
export interface BackfillScope {
  readonly token: string;
  readonly pool?: string;
  readonly wallet?: string;
  readonly events: 'all' | 'liquidity';
  /** For `events: 'all'` on a swap room: keep only swap rows. */
  readonly swapsOnly: boolean;
}

export interface RoomSpec {
  readonly room: string;
  readonly family: RoomFamily;
  /** Payload is an array of events (liquidity and transaction rooms). */
  readonly isArray: boolean;
  /** Price-like: a slow consumer sees only the latest value. */
  readonly coalesce: boolean;
  /** Events are deduplicated across overlapping rooms. */
  readonly dedup: boolean;
  /** Live events are provisional (processed commitment). */
  readonly provisional: boolean;
  readonly backfill?: BackfillScope;
}

/** Classifies a room name. Unknown rooms are accepted as open-object event rooms. */
export function roomSpec(room: string): RoomSpec {
  const parts = room.split(':');
  const enriched = parts[parts.length - 1] === 'enriched';
  const p = enriched ? parts.slice(0, -1) : parts;
  const head = p[0] ?? '';
  const base = { room, isArray: false, coalesce: false, dedup: false, provisional: false };
  switch (head) {
    case 'latest':
      return p.length === 1 ? { ...base, family: 'token-launch', dedup: true } : { ...base, family: 'unknown' };
    case 'graduated':
      return p.length === 1 ? { ...base, family: 'token-graduated', dedup: true } : { ...base, family: 'unknown' };
    case 'graduating':
      return { ...base, family: 'token-object' };
    case 'liquidity':
      return { ...base, family: 'liquidity', isArray: true, dedup: true, provisional: true, ...liquidityScope(p) };
    case 'transaction':
      return { ...base, family: 'transaction', isArray: true, dedup: true, ...swapScope(p) };
    case 'sniper':
    case 'bundlers':
    case 'insider':
    case 'dev_holding':
    case 'holders':
    case 'top10':
      return { ...base, family: 'safety', dedup: true };
    case 'price':
      return p[1] === 'aggregated' ? { ...base, family: 'aggregated-price', coalesce: true } : { ...base, family: 'price', coalesce: true };
    case 'token':
      return { ...base, family: 'price', coalesce: true };
    case 'stats':
    case 'volume':
      return { ...base, family: 'stats', coalesce: true };
    case 'pnl':
      return p[2] === 'summary' ? { ...base, family: 'pnl', coalesce: true } : { ...base, family: 'pnl', dedup: true };
    case 'dca':
      return { ...base, family: 'dca', dedup: true };
    case 'pm':
      return { ...base, family: 'prediction', coalesce: true };
    default:
      return p.length >= 3 && p[1] === 'curve' ? { ...base, family: 'token-object', dedup: true } : { ...base, family: 'unknown' };
  }
}

function liquidityScope(p: readonly string[]): { backfill?: BackfillScope } {
  // liquidity:pool:{pool} and liquidity:wallet:{wallet} have no token: REST history cannot scope them.
  if (p[1] === 'pool' || p[1] === 'wallet' || p[1] === undefined) return {};
  return { backfill: scope(p[1], p[2], p[3], 'liquidity', false) };
}

function swapScope(p: readonly string[]): { backfill?: BackfillScope } {
  if (p[1] === undefined) return {};
  return { backfill: scope(p[1], p[2], p[3], 'all', true) };
}

function scope(token: string, pool: string | undefined, wallet: string | undefined, events: 'all' | 'liquidity', swapsOnly: boolean): BackfillScope {
  return {
    token,
    ...(pool === undefined ? {} : { pool }),
    ...(wallet === undefined ? {} : { wallet }),
    events,
    swapsOnly,
  };
}
