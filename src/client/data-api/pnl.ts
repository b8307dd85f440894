/**
 * PnL V2 (wallet, token, leaderboards, batches), the deprecated legacy routes, and the wallet chart.
 * Batches over their documented limits are split into compliant requests and merged.
 */
import { z } from 'zod';
import { chunk, mapLimited, mergeBatches, seg, type ApiContext, type CallOptions, type Query } from '../http/rest-context.js';
import { BATCH_CONCURRENCY, DATA_API_LIMITS } from './limits.js';
import { paginate } from '../http/paginate.js';

/** `strict` (default), `adjusted` or `raw`. */
export type PnlMode = 'strict' | 'adjusted' | 'raw';

/** Query of PnL V2 routes: `pnlMode` plus any other parameter (not shown by the spec), passed through. */
export interface PnlQuery {
  readonly pnlMode?: PnlMode;
  readonly extra?: Query;
}

/** Call options of the batch and legacy PnL routes: `pnlMode` is sent as a query parameter. */
export interface PnlCallOptions extends CallOptions {
  readonly pnlMode?: PnlMode;
}

export type WalletPnlView = 'positions' | 'history' | 'performance' | 'highlights' | 'risk' | 'chart';

export interface WalletTokenPair {
  readonly wallet: string;
  readonly token: string;
}

export interface PnlApi {
  /** GET /v2/pnl/wallets/{wallet}. */
  getWalletPnl(wallet: string, query?: PnlQuery, opts?: CallOptions): Promise<unknown>;
  /** GET /v2/pnl/wallets/{wallet}/{positions|history|performance|highlights|risk|chart}. */
  getWalletPnlView(wallet: string, view: WalletPnlView, query?: PnlQuery, opts?: CallOptions): Promise<unknown>;
  /** Pages of /v2/pnl/wallets/{wallet}/positions while the response carries a cursor. */
  iterateWalletPositions(wallet: string, query?: PnlQuery & { readonly cursor?: string | number }, opts?: CallOptions): AsyncGenerator;
  getWalletTokenPnl(wallet: string, token: string, query?: PnlQuery, opts?: CallOptions): Promise<unknown>;
  getTokenTraders(token: string, query?: PnlQuery, opts?: CallOptions): Promise<unknown>;
  /** Earliest first (`sort` omitted or `first_trade`, `direction=asc`). */
  getTokenFirstBuyers(token: string, query?: PnlQuery, opts?: CallOptions): Promise<unknown>;
  /** Windows of 1, 7, 30 or 90 days. */
  getLeaderboardTop(query?: PnlQuery & { readonly window?: 1 | 7 | 30 | 90 }, opts?: CallOptions): Promise<unknown>;
  getKolLeaderboard(query?: PnlQuery, opts?: CallOptions): Promise<unknown>;
  /** Either `period` (`7d`, `30d`, ...) or `start` and `end`. */
  getKolLeaderboardPeriod(
    range: { readonly period: string } | { readonly start: string; readonly end: string },
    query?: PnlQuery,
    opts?: CallOptions,
  ): Promise<unknown>;
  getKolCalendar(query?: PnlQuery, opts?: CallOptions): Promise<unknown>;
  getKolDate(query?: PnlQuery, opts?: CallOptions): Promise<unknown>;
  /** POST /v2/pnl/wallets/{wallet}/positions/batch; split by 100 tokens. */
  getWalletPositionsBatch(wallet: string, tokens: readonly string[], opts?: PnlCallOptions): Promise<unknown>;
  /** POST /v2/pnl/tokens/{token}/positions/batch; split by 200 wallets. */
  getTokenPositionsBatch(token: string, wallets: readonly string[], opts?: PnlCallOptions): Promise<unknown>;
  /** POST /v2/pnl/positions/batch; split by 200 pairs; unmatched pairs come back in `notFound`. */
  getPositionsBatch(pairs: readonly WalletTokenPair[], opts?: PnlCallOptions): Promise<unknown>;
  /** POST /v2/pnl/wallets/batch; split by 100 wallets (`notFound`, `invalid` merged). */
  getWalletsBatch(wallets: readonly string[], opts?: PnlCallOptions): Promise<unknown>;
  /** @deprecated use getWalletPnl / getWalletPnlView(wallet, 'positions'). GET /pnl/{wallet}. */
  getLegacyWalletPnl(wallet: string, opts?: PnlCallOptions): Promise<unknown>;
  /** @deprecated use getWalletTokenPnl. GET /pnl/{wallet}/{token}. */
  getLegacyWalletTokenPnl(wallet: string, token: string, opts?: PnlCallOptions): Promise<unknown>;
  /** @deprecated use getTokenFirstBuyers. GET /first-buyers/{token}. */
  getLegacyFirstBuyers(token: string, opts?: PnlCallOptions): Promise<unknown>;
  /** @deprecated use getLeaderboardTop. GET /top-traders/all[/{page}]. */
  getLegacyTopTraders(page?: number, opts?: PnlCallOptions): Promise<unknown>;
  /** @deprecated use getTokenTraders. GET /top-traders/{token}. */
  getLegacyTokenTopTraders(token: string, opts?: PnlCallOptions): Promise<unknown>;
  /** GET /wallet/{wallet}/chart (a chart even with one data point). */
  getWalletChart(wallet: string, query?: Query, opts?: CallOptions): Promise<unknown>;
}

const VIEWS = new Set(['positions', 'history', 'performance', 'highlights', 'risk', 'chart']);
const MODES = new Set(['strict', 'adjusted', 'raw']);

export function createPnlApi(ctx: ApiContext): PnlApi {
  const json = z.unknown();
  const q = (p: PnlQuery = {}, more: Query = {}): Query => {
    if (p.pnlMode !== undefined && !MODES.has(p.pnlMode)) throw ctx.invalid('pnlMode', 'must be strict, adjusted or raw');
    return { ...p.extra, ...more, pnlMode: p.pnlMode };
  };
  const wallet = (w: string): string => `/v2/pnl/wallets/${seg(ctx, 'wallet', w)}`;
  /** `pnlMode` of the batch and legacy routes, checked, as a query (undefined when not set). */
  const modeQuery = (o?: PnlCallOptions): Query | undefined => (o?.pnlMode === undefined ? undefined : q({ pnlMode: o.pnlMode }));
  const batch = async <T>(
    path: string,
    field: string,
    items: readonly T[],
    size: number,
    body: (part: T[]) => unknown,
    o?: PnlCallOptions,
  ): Promise<unknown> => {
    const query = modeQuery(o);
    const opts = { ...(o?.signal ? { signal: o.signal } : {}), ...(query ? { query } : {}) };
    return mergeBatches(await mapLimited(chunk(ctx, field, items, size), BATCH_CONCURRENCY, (part) => ctx.post(path, body(part), json, opts)));
  };
  const view = async (w: string, v: WalletPnlView, p?: PnlQuery, o?: CallOptions, more: Query = {}): Promise<unknown> => {
    if (!VIEWS.has(v)) throw ctx.invalid('view', `must be one of ${[...VIEWS].join(', ')}`);
    return ctx.get(`${wallet(w)}/${v}`, q(p, more), json, o);
  };
  return {
    getWalletPnl: async (w, p, o) => ctx.get(wallet(w), q(p), json, o),
    getWalletPnlView: view,
    iterateWalletPositions: (w, p = {}, o) =>
      paginate(ctx, `/v2/pnl/wallets/${w}/positions`, p.cursor, (cursor) => view(w, 'positions', p, o, cursor !== undefined ? { cursor } : {})),
    getWalletTokenPnl: async (w, t, p, o) => ctx.get(`${wallet(w)}/tokens/${seg(ctx, 'token', t)}`, q(p), json, o),
    getTokenTraders: async (t, p, o) => ctx.get(`/v2/pnl/tokens/${seg(ctx, 'token', t)}/traders`, q(p), json, o),
    getTokenFirstBuyers: async (t, p, o) => ctx.get(`/v2/pnl/tokens/${seg(ctx, 'token', t)}/first-buyers`, q(p), json, o),
    async getLeaderboardTop(p = {}, o) {
      if (p.window !== undefined && ![1, 7, 30, 90].includes(p.window)) throw ctx.invalid('window', 'must be 1, 7, 30 or 90 days');
      return ctx.get('/v2/pnl/leaderboard/top', q(p, { window: p.window }), json, o);
    },
    getKolLeaderboard: async (p, o) => ctx.get('/v2/pnl/leaderboard/kols', q(p), json, o),
    getKolLeaderboardPeriod: async (range, p, o) => ctx.get('/v2/pnl/leaderboard/kols/period', q(p, { ...range }), json, o),
    getKolCalendar: async (p, o) => ctx.get('/v2/pnl/leaderboard/kols/calendar', q(p), json, o),
    getKolDate: async (p, o) => ctx.get('/v2/pnl/leaderboard/kols/date', q(p), json, o),
    getWalletPositionsBatch: async (w, tokens, o) =>
      batch(`${wallet(w)}/positions/batch`, 'tokens', tokens, DATA_API_LIMITS.pnlWalletPositionsBatch, (part) => ({ tokens: part }), o),
    getTokenPositionsBatch: async (t, wallets, o) =>
      batch(
        `/v2/pnl/tokens/${seg(ctx, 'token', t)}/positions/batch`,
        'wallets',
        wallets,
        DATA_API_LIMITS.pnlTokenPositionsBatch,
        (part) => ({ wallets: part }),
        o,
      ),
    getPositionsBatch: (pairs, o) => batch('/v2/pnl/positions/batch', 'pairs', pairs, DATA_API_LIMITS.pnlPairsBatch, (part) => ({ pairs: part }), o),
    getWalletsBatch: (wallets, o) => batch('/v2/pnl/wallets/batch', 'wallets', wallets, DATA_API_LIMITS.pnlWalletsBatch, (part) => ({ wallets: part }), o),
    /* eslint-disable @typescript-eslint/no-deprecated -- the client still serves the legacy endpoints it marks deprecated */
    getLegacyWalletPnl: async (w, o) => ctx.get(`/pnl/${seg(ctx, 'wallet', w)}`, modeQuery(o), json, o),
    getLegacyWalletTokenPnl: async (w, t, o) => ctx.get(`/pnl/${seg(ctx, 'wallet', w)}/${seg(ctx, 'token', t)}`, modeQuery(o), json, o),
    getLegacyFirstBuyers: async (t, o) => ctx.get(`/first-buyers/${seg(ctx, 'token', t)}`, modeQuery(o), json, o),
    getLegacyTopTraders: async (page, o) => ctx.get(page === undefined ? '/top-traders/all' : `/top-traders/all/${Math.trunc(page)}`, modeQuery(o), json, o),
    getLegacyTokenTopTraders: async (t, o) => ctx.get(`/top-traders/${seg(ctx, 'token', t)}`, modeQuery(o), json, o),
    /* eslint-enable @typescript-eslint/no-deprecated */
    getWalletChart: async (w, p, o) => ctx.get(`/wallet/${seg(ctx, 'wallet', w)}/chart`, p, json, o),
  };
}
