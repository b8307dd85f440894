/** Prices and charts. Chart query times and candle times are Unix seconds; the types say so. */
import { z } from 'zod';
import type { UnixSeconds } from '../../core/index.js';
import { chunk, mapLimited, mergeBatches, seg, type ApiContext, type CallOptions } from '../http/rest-context.js';
import { BATCH_CONCURRENCY, DATA_API_LIMITS } from './limits.js';
import { candleSchema, priceSchema, type ApiObject, type Candle } from './schemas.js';

export type ChartInterval = '1s' | '5s' | '15s' | '1m' | '3m' | '5m' | '15m' | '30m' | '1h' | '2h' | '4h' | '6h' | '8h' | '12h' | '1d' | '3d' | '1w' | '1mn';
const INTERVALS = new Set<string>(['1s', '5s', '15s', '1m', '3m', '5m', '15m', '30m', '1h', '2h', '4h', '6h', '8h', '12h', '1d', '3d', '1w', '1mn']);

/** Unix seconds beyond year 5000: a larger value is a millisecond timestamp passed by mistake. */
const MAX_SECONDS = 95_617_584_000;

export interface ChartQuery {
  readonly type?: ChartInterval;
  /** Unix seconds. */
  readonly timeFrom?: UnixSeconds;
  /** Unix seconds. */
  readonly timeTo?: UnixSeconds;
  /** Default true on the service: drops extreme points; false keeps every raw candle. */
  readonly removeOutliers?: boolean;
  /** Default `usd`. */
  readonly currency?: 'usd' | 'sol' | 'eur';
}

export interface PricesApi {
  getPrice(token: string, opts?: CallOptions): Promise<{ price: number } & ApiObject>;
  /** GET /price/multi; more than 100 tokens are split into requests of 100 and merged. */
  getPrices(tokens: readonly string[], opts?: CallOptions): Promise<unknown>;
  /** POST /price/multi (body `{tokens}`); split at 100 and merged. */
  postPrices(tokens: readonly string[], opts?: CallOptions): Promise<unknown>;
  /** Price time series (body not shown by the spec). */
  getPriceHistory(token: string, opts?: CallOptions): Promise<unknown>;
  /** Price at a Unix-seconds timestamp (body not shown). */
  getPriceAt(token: string, timestamp: UnixSeconds, opts?: CallOptions): Promise<unknown>;
  /** Lowest and highest price between two Unix-seconds times (body not shown). */
  getPriceRange(token: string, timeFrom: UnixSeconds, timeTo: UnixSeconds, opts?: CallOptions): Promise<unknown>;
  /** Candles of a token (all pools), or of one pool when `pool` is given. */
  getChart(token: string, query?: ChartQuery & { readonly pool?: string }, opts?: CallOptions): Promise<Candle[]>;
}

export function createPricesApi(ctx: ApiContext): PricesApi {
  const json = z.unknown();
  const checkTimes = (from: number | undefined, to: number | undefined, fromField: string, toField: string): void => {
    for (const [field, v] of [
      [fromField, from],
      [toField, to],
    ] as const) {
      if (v === undefined) continue;
      if (!Number.isInteger(v) || v < 0) throw ctx.invalid(field, `must be whole Unix seconds, got ${v}`);
      if (v > MAX_SECONDS) throw ctx.invalid(field, `${v} looks like milliseconds; pass Unix seconds (divide by 1000)`);
    }
    if (from !== undefined && to !== undefined && from > to) throw ctx.invalid(fromField, `must not be after ${toField}`);
  };
  return {
    getPrice: (token, o) => ctx.get('/price', { token }, priceSchema, o),
    async getPrices(tokens, o) {
      const parts = chunk(ctx, 'tokens', tokens, DATA_API_LIMITS.multiPrices);
      return mergeBatches(await mapLimited(parts, BATCH_CONCURRENCY, (p) => ctx.get('/price/multi', { tokens: p }, json, o)));
    },
    async postPrices(tokens, o) {
      const parts = chunk(ctx, 'tokens', tokens, DATA_API_LIMITS.multiPrices);
      return mergeBatches(await mapLimited(parts, BATCH_CONCURRENCY, (p) => ctx.post('/price/multi', { tokens: p }, json, o)));
    },
    getPriceHistory: (token, o) => ctx.get('/price/history', { token }, json, o),
    async getPriceAt(token, timestamp, o) {
      // Seconds, not milliseconds: a 13-digit value is almost surely ms and would ask for the far future.
      checkTimes(timestamp, undefined, 'timestamp', 'timestamp');
      return ctx.get('/price/history/timestamp', { token, timestamp }, json, o);
    },
    async getPriceRange(token, timeFrom, timeTo, o) {
      checkTimes(timeFrom, timeTo, 'time_from', 'time_to');
      return ctx.get('/price/history/range', { token, time_from: timeFrom, time_to: timeTo }, json, o);
    },
    async getChart(token, q = {}, o) {
      if (q.type !== undefined && !INTERVALS.has(q.type)) throw ctx.invalid('type', `must be one of ${[...INTERVALS].join(', ')}`);
      checkTimes(q.timeFrom, q.timeTo, 'time_from', 'time_to');
      const path = `/chart/${seg(ctx, 'token', token)}${q.pool !== undefined ? `/${seg(ctx, 'pool', q.pool)}` : ''}`;
      return ctx.get(
        path,
        { type: q.type, time_from: q.timeFrom, time_to: q.timeTo, removeOutliers: q.removeOutliers, currency: q.currency },
        z.array(candleSchema),
        o,
      );
    },
  };
}
