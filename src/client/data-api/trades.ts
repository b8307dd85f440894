/**
 * Trades and liquidity history: the four /trades routes, one page at a time or as an async
 * iterator. The cursor is sent back unchanged with the same token, pool, wallet, `events` and
 * `sortDirection`; a numeric Unix-ms cursor is an exclusive initial boundary.
 */
import { ChainpilotError } from '../../core/index.js';
import { checkInt, seg, type ApiContext, type CallOptions } from '../http/rest-context.js';
import { DATA_API_LIMITS } from './limits.js';
import { tradesPageSchema, type TradeRow } from './schemas.js';

/** Which history: token only, token in a pool, a wallet on a token, or a wallet on a token in a pool. */
export interface TradesScope {
  readonly token: string;
  readonly pool?: string;
  readonly wallet?: string;
}

/** `trades` (default: buys and sells), `all` (swaps and liquidity), `liquidity` (adds and removes). */
export type TradesEvents = 'trades' | 'all' | 'liquidity';

/** Opaque string from `nextCursor`, or a Unix-ms timestamp as an exclusive initial boundary. */
export type TradesCursor = string | number;

export interface TradesQuery {
  readonly events?: TradesEvents;
  readonly enrich?: 'identity';
  /** 1..500 (service default 250). */
  readonly limit?: number;
  readonly sortDirection?: 'ASC' | 'DESC';
  readonly cursor?: TradesCursor;
  /** Token metadata on swap rows only. */
  readonly showMeta?: boolean;
  /** Hides arbitrage swaps; liquidity rows stay. */
  readonly hideArb?: boolean;
}

export interface TradesPage {
  readonly trades: TradeRow[];
  readonly hasNextPage: boolean;
  /** Send back unchanged to get the next page; undefined when there is none. */
  readonly nextCursor: TradesCursor | undefined;
}

export interface TradesApi {
  /** One page of `/trades/{token}[/{pool}][/by-wallet/{wallet}|/{wallet}]`. */
  getTradesPage(scope: TradesScope, query?: TradesQuery, opts?: CallOptions): Promise<TradesPage>;
  /** Every page from `query.cursor` (or the start) to the end. */
  iterateTrades(scope: TradesScope, query?: TradesQuery, opts?: CallOptions): AsyncGenerator<TradesPage>;
}

/** The route for a scope. */
export function tradesPath(ctx: ApiContext, scope: TradesScope): string {
  const token = seg(ctx, 'token', scope.token);
  if (scope.pool !== undefined && scope.wallet !== undefined) return `/trades/${token}/${seg(ctx, 'pool', scope.pool)}/${seg(ctx, 'wallet', scope.wallet)}`;
  if (scope.pool !== undefined) return `/trades/${token}/${seg(ctx, 'pool', scope.pool)}`;
  if (scope.wallet !== undefined) return `/trades/${token}/by-wallet/${seg(ctx, 'wallet', scope.wallet)}`;
  return `/trades/${token}`;
}

export function createTradesApi(ctx: ApiContext): TradesApi {
  const getTradesPage = async (scope: TradesScope, q: TradesQuery = {}, o?: CallOptions): Promise<TradesPage> => {
    checkInt(ctx, 'limit', q.limit, 1, DATA_API_LIMITS.tradesPage);
    if (typeof q.cursor === 'number' && (!Number.isSafeInteger(q.cursor) || q.cursor < 0))
      throw ctx.invalid('cursor', 'a numeric cursor must be a Unix-ms timestamp');
    if (q.events !== undefined && !['trades', 'all', 'liquidity'].includes(q.events)) throw ctx.invalid('events', 'must be trades, all or liquidity');
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks a JavaScript caller's value at runtime
    if (q.sortDirection !== undefined && q.sortDirection !== 'ASC' && q.sortDirection !== 'DESC') throw ctx.invalid('sortDirection', 'must be ASC or DESC');
    const page = await ctx.get(
      tradesPath(ctx, scope),
      { events: q.events, enrich: q.enrich, limit: q.limit, sortDirection: q.sortDirection, cursor: q.cursor, showMeta: q.showMeta, hideArb: q.hideArb },
      tradesPageSchema,
      o,
    );
    const next = page.nextCursor === null || page.nextCursor === '' ? undefined : page.nextCursor;
    if (page.hasNextPage && next === undefined) {
      // Stopping here would silently lose history (a backfill gap): say so instead.
      throw new ChainpilotError(
        'HTTP_INVALID_BODY',
        `data-api GET ${tradesPath(ctx, scope)}: hasNextPage is true but nextCursor is missing; the history cannot be continued`,
        {
          retry: 'not_retryable',
          context: { service: 'data-api', endpoint: `GET ${tradesPath(ctx, scope)}`, field: 'nextCursor' },
        },
      );
    }
    return { trades: page.trades, hasNextPage: page.hasNextPage, nextCursor: next };
  };
  return {
    getTradesPage,
    async *iterateTrades(scope, q = {}, o) {
      let cursor = q.cursor;
      const seen = new Set<string>();
      for (;;) {
        const page = await getTradesPage(scope, { ...q, ...(cursor !== undefined ? { cursor } : {}) }, o);
        yield page;
        if (!page.hasNextPage || page.nextCursor === undefined) return;
        const key = `${typeof page.nextCursor}:${String(page.nextCursor)}`;
        if (seen.has(key) || (cursor !== undefined && String(cursor) === String(page.nextCursor))) {
          throw ctx.cursorRepeated(tradesPath(ctx, scope));
        }
        seen.add(key);
        cursor = page.nextCursor;
      }
    },
  };
}
