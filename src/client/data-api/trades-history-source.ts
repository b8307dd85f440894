/**
 * Trades and liquidity history in the shape the Datastream client's REST backfill reads
 * (`fetchHistoryPage(query, signal)`), built on `getTradesPage`. Structural: no import of the
 * Datastream folder is needed to satisfy its port.
 */
import type { TradesApi, TradesCursor } from './trades.js';

export interface TradesHistoryQuery {
  readonly token: string;
  readonly pool?: string;
  readonly wallet?: string;
  readonly events: 'all' | 'liquidity';
  /** The previous page's `nextCursor`, unchanged; or a Unix-ms exclusive boundary for the first page. */
  readonly cursor?: string | number;
  readonly sortDirection: 'asc' | 'desc';
  /** 1..500. */
  readonly limit: number;
  readonly enrich?: 'identity';
}

export interface TradesHistoryPage {
  readonly rows: readonly unknown[];
  readonly hasNextPage: boolean;
  readonly nextCursor?: TradesCursor;
}

export interface TradesHistorySource {
  fetchHistoryPage(q: TradesHistoryQuery, signal?: AbortSignal): Promise<TradesHistoryPage>;
}

/** Adapts the data API client's `getTradesPage` to a backfill history source. */
export function createTradesHistorySource(api: Pick<TradesApi, 'getTradesPage'>): TradesHistorySource {
  return {
    async fetchHistoryPage(q, signal) {
      const page = await api.getTradesPage(
        { token: q.token, ...(q.pool !== undefined ? { pool: q.pool } : {}), ...(q.wallet !== undefined ? { wallet: q.wallet } : {}) },
        {
          events: q.events,
          sortDirection: q.sortDirection === 'asc' ? 'ASC' : 'DESC',
          limit: q.limit,
          ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
          ...(q.enrich ? { enrich: q.enrich } : {}),
        },
        signal ? { signal } : undefined,
      );
      return { rows: page.trades, hasNextPage: page.hasNextPage, ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}) };
    },
  };
}
