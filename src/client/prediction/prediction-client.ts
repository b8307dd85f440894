/**
 * The prediction-markets API client (`{prediction_url}`, same `x-api-key` as the token data API):
 * every /v1 route of the spec, the `exchange` parameter, the /v1/events envelope with its cursor
 * iterator, and wallet analytics for exchange_b only.
 */
import { z } from 'zod';
import { ChainpilotError } from '../../core/index.js';
import { createApiContext, checkInt, seg, type CallOptions, type Query } from '../http/rest-context.js';
import { paginate } from '../http/paginate.js';
import { createHttpClient, sharedHttpOptions, type SharedHttpOptions, readPredictionError } from '../http/index.js';
import { eventsPageSchema, predictionMarketSchema, type EventsPage, type PredictionMarket } from './prediction-schemas.js';

/** `exchange_a`, `exchange_b` or its alias `xb`; omitted means both where supported. */
export type Exchange = 'exchange_a' | 'exchange_b' | 'xb';

/** Query of most routes: `exchange` plus parameters the spec does not name, passed through. */
export interface PredictionQuery {
  readonly exchange?: Exchange;
  readonly extra?: Query;
}

export interface EventsQuery extends PredictionQuery {
  /** `combo` for combo-builder events. */
  readonly marketKind?: string;
  /** 0..500 (default 100). */
  readonly limit?: number;
  readonly cursor?: string;
}

export type AccountView = 'overview' | 'positions' | 'closed-positions' | 'pnl' | 'pnl/chart' | 'trades' | 'activity';
export type MarketView = 'trades' | 'candlesticks' | 'price' | 'midpoint' | 'spread' | 'orderbook' | 'quote';

/** Timeouts, retries, clock, random, logger, redactor and pools pass through to the HTTP client. */
/** Body of POST /v1/markets/batch: `{ids}` (or a bare array of ids). */
export type MarketsBatchBody = { readonly ids: readonly string[] } | readonly string[];

export interface PredictionClientOptions extends SharedHttpOptions {
  /** `{prediction_url}`. */
  readonly baseUrl: string;
  readonly apiKey?: string;
}

export interface PredictionClient {
  getTrendingMarkets(query?: PredictionQuery & { readonly limit?: number }, opts?: CallOptions): Promise<unknown>;
  getNewMarkets(query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  searchMarkets(q: string, query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  browse(query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  getEvents(query?: EventsQuery, opts?: CallOptions): Promise<EventsPage>;
  /** Every /v1/events page from `query.cursor` (or the start) while `hasMore`. */
  iterateEvents(query?: EventsQuery, opts?: CallOptions): AsyncGenerator<EventsPage>;
  getEventsBatch(query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  getTaxonomy(kind: 'categories' | 'series' | 'sports', query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  getMarket(ticker: string, query?: PredictionQuery, opts?: CallOptions): Promise<PredictionMarket>;
  getMarketBySlug(slug: string, query?: PredictionQuery, opts?: CallOptions): Promise<PredictionMarket>;
  /** GET /v1/markets/batch. */
  getMarketsBatch(query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  /**
   * POST /v1/markets/batch (a read). The spec does not show the body; chainpilot sends
   * `{"ids": [...]}` with 1 to 100 market ids (tickers or ids), the shape the simulator serves and
   * `docs/client.md` documents (a bare array is accepted too and sent as given).
   */
  postMarketsBatch(body: MarketsBatchBody, query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  /** GET /v1/markets/{ticker}/{trades|candlesticks|price|midpoint|spread|orderbook|quote}. */
  getMarketView(ticker: string, view: MarketView, query?: PredictionQuery & { readonly interval?: string }, opts?: CallOptions): Promise<unknown>;
  /** Cross-market trades. */
  getTrades(query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  getCandlesticksBatch(query?: PredictionQuery & { readonly interval?: string }, opts?: CallOptions): Promise<unknown>;
  getEventCandlesticks(eventId: string, query?: PredictionQuery & { readonly interval?: string }, opts?: CallOptions): Promise<unknown>;
  getBooks(query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  getCryptoEvents(query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  getCryptoPrice(query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  getCryptoPriceHistory(query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  /** Price-to-beat and final price of a crypto up/down window. */
  getEventCrypto(eventId: string, query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  getCryptoTraders(query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  /** Wallet analytics (exchange_b only: asking for exchange_a fails without a request). */
  getAccount(address: string, view: AccountView, query?: PredictionQuery, opts?: CallOptions): Promise<unknown>;
  /** /v1/leaderboard/{pnl|traders}, or the event-scoped variant under /v1/events/{eventId}/. */
  getLeaderboard(kind: 'pnl' | 'traders', query?: PredictionQuery & { readonly eventId?: string }, opts?: CallOptions): Promise<unknown>;
  close(): Promise<void>;
}

const EXCHANGES = new Set(['exchange_a', 'exchange_b', 'xb']);
const ACCOUNT_VIEWS = new Set(['overview', 'positions', 'closed-positions', 'pnl', 'pnl/chart', 'trades', 'activity']);
const MARKET_VIEWS = new Set(['trades', 'candlesticks', 'price', 'midpoint', 'spread', 'orderbook', 'quote']);

/** Creates the prediction-markets client. */
export function createPredictionClient(options: PredictionClientOptions): PredictionClient {
  const http = createHttpClient({
    baseUrl: options.baseUrl,
    service: 'prediction',
    ...(options.apiKey ? { auth: { kind: 'header' as const, name: 'x-api-key', value: options.apiKey } } : {}),
    ...sharedHttpOptions(options),
    errorBody: readPredictionError,
  });
  const ctx = createApiContext(http, { invalid: 'PREDICTION_INVALID_PARAM', limit: 'PREDICTION_INVALID_PARAM' }, 'prediction');
  const json = z.unknown();
  const q = (p: PredictionQuery = {}, more: Query = {}): Query => {
    if (p.exchange !== undefined && !EXCHANGES.has(p.exchange)) throw ctx.invalid('exchange', 'must be exchange_a, exchange_b or xb');
    return { ...p.extra, ...more, exchange: p.exchange };
  };
  const get = async (path: string, p?: PredictionQuery, o?: CallOptions, more: Query = {}): Promise<unknown> => ctx.get(path, q(p, more), json, o);
  const getEvents = async (p: EventsQuery = {}, o?: CallOptions): Promise<EventsPage> => {
    checkInt(ctx, 'limit', p.limit, 0, 500);
    return ctx.get('/v1/events', q(p, { marketKind: p.marketKind, limit: p.limit, cursor: p.cursor }), eventsPageSchema, o);
  };
  return {
    getTrendingMarkets: async (p = {}, o) => {
      checkInt(ctx, 'limit', p.limit, 0, Number.MAX_SAFE_INTEGER);
      return get('/v1/markets/trending', p, o, { limit: p.limit });
    },
    getNewMarkets: (p, o) => get('/v1/markets/new', p, o),
    searchMarkets: async (text, p, o) => {
      if (typeof text !== 'string' || text.trim() === '') throw ctx.invalid('q', 'must be a non-empty search text');
      return get('/v1/markets/search', p, o, { q: text });
    },
    browse: (p, o) => get('/v1/browse', p, o),
    getEvents,
    iterateEvents: (p = {}, o) =>
      paginate(ctx, '/v1/events', p.cursor, (cursor) => getEvents({ ...p, ...(cursor !== undefined ? { cursor: String(cursor) } : {}) }, o)),
    getEventsBatch: (p, o) => get('/v1/events/batch', p, o),
    getTaxonomy: async (kind, p, o) => {
      if (!['categories', 'series', 'sports'].includes(kind)) throw ctx.invalid('kind', 'must be categories, series or sports');
      return get(`/v1/${kind}`, p, o);
    },
    getMarket: async (t, p, o) => ctx.get(`/v1/markets/${seg(ctx, 'ticker', t)}`, q(p), predictionMarketSchema, o),
    getMarketBySlug: async (s, p, o) => ctx.get(`/v1/markets/slug/${seg(ctx, 'slug', s)}`, q(p), predictionMarketSchema, o),
    getMarketsBatch: (p, o) => get('/v1/markets/batch', p, o),
    postMarketsBatch: async (body, p, o) => {
      const ids = Array.isArray(body) ? body : (body as { ids?: unknown }).ids;
      if (!Array.isArray(ids) || ids.length === 0 || ids.length > 100 || !ids.every((i) => typeof i === 'string' && i.length > 0)) {
        throw ctx.invalid('ids', 'send 1 to 100 market ids as {ids: [...]}');
      }
      return ctx.post('/v1/markets/batch', body, json, { ...o, query: q(p) });
    },
    getMarketView: async (t, view, p = {}, o) => {
      if (!MARKET_VIEWS.has(view)) throw ctx.invalid('view', `must be one of ${[...MARKET_VIEWS].join(', ')}`);
      return get(`/v1/markets/${seg(ctx, 'ticker', t)}/${view}`, p, o, { interval: p.interval });
    },
    getTrades: (p, o) => get('/v1/markets/trades', p, o),
    getCandlesticksBatch: (p = {}, o) => get('/v1/markets/candlesticks/batch', p, o, { interval: p.interval }),
    getEventCandlesticks: async (id, p = {}, o) => get(`/v1/events/${seg(ctx, 'eventId', id)}/candlesticks`, p, o, { interval: p.interval }),
    getBooks: (p, o) => get('/v1/markets/books', p, o),
    getCryptoEvents: (p, o) => get('/v1/crypto/events', p, o),
    getCryptoPrice: (p, o) => get('/v1/crypto/price', p, o),
    getCryptoPriceHistory: (p, o) => get('/v1/crypto/price-history', p, o),
    getEventCrypto: async (id, p, o) => get(`/v1/events/${seg(ctx, 'eventId', id)}/crypto`, p, o),
    getCryptoTraders: (p, o) => get('/v1/crypto/traders', p, o),
    async getAccount(address, view, p = {}, o) {
      if (p.exchange === 'exchange_a') {
        throw new ChainpilotError(
          'PREDICTION_NO_PUBLIC_WALLETS',
          'prediction: exchange_a has no public wallets; wallet analytics exist for exchange_b (or xb) only',
          {
            retry: 'not_retryable',
            context: { service: 'prediction', field: 'exchange' },
          },
        );
      }
      if (!ACCOUNT_VIEWS.has(view)) throw ctx.invalid('view', `must be one of ${[...ACCOUNT_VIEWS].join(', ')}`);
      return get(`/v1/accounts/${seg(ctx, 'address', address)}/${view}`, p, o);
    },
    async getLeaderboard(kind, p = {}, o) {
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks a JavaScript caller's value at runtime
      if (kind !== 'pnl' && kind !== 'traders') throw ctx.invalid('kind', 'must be pnl or traders');
      const base = p.eventId !== undefined ? `/v1/events/${seg(ctx, 'eventId', p.eventId)}` : '/v1';
      return get(`${base}/leaderboard/${kind}`, p, o);
    },
    close: () => http.close(),
  };
}
