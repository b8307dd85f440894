/**
 * Trades and liquidity history in the shape the Datastream client's REST backfill reads
 * (`fetchHistoryPage(query, signal)`), built on `getTradesPage`.
 */
import type { BackfillSource, HistoryPage, HistoryQuery } from '../datastream/backfill/backfill-source.js';
import type { TradesApi } from './trades.js';

/** The query and page of the Datastream client's backfill port, which this source implements. */
export type TradesHistoryQuery = HistoryQuery;
export type TradesHistoryPage = HistoryPage;
export type TradesHistorySource = BackfillSource;

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
