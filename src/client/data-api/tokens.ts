/** Tokens and discovery: latest, detail, multi, graduating/graduated, ath, bundlers, trending, volume, top performers, deployer, search, lighthouse. */
import { z } from 'zod';
import type { UnixMs } from '../../core/index.js';
import { checkInt, checkRange, chunk, mapLimited, mergeBatches, seg, type ApiContext, type CallOptions, type Query } from '../http/rest-context.js';
import { BATCH_CONCURRENCY, DATA_API_LIMITS } from './limits.js';
import {
  apiObject,
  athSchema,
  marketActivitySchema,
  searchResponseSchema,
  tokenDetailSchema,
  tokenWithPoolsSchema,
  type ApiObject,
  type MarketActivity,
  type SearchResult,
  type TokenDetail,
  type TokenWithPools,
} from './schemas.js';

export interface GraduatingQuery {
  /** Max 500 (default 100). */
  readonly limit?: number;
  /** Curve percent, default 40. */
  readonly minCurve?: number;
  /** Curve percent, default 100. */
  readonly maxCurve?: number;
  /** Default 20. */
  readonly minHolders?: number;
  readonly markets?: readonly string[];
  /** USD. */
  readonly minLiquidity?: number;
  /** USD. */
  readonly minMarketCap?: number;
  readonly reduceSpam?: boolean;
}

export interface GraduatedQuery {
  /** Max 500. */
  readonly limit?: number;
  readonly page?: number;
  readonly reduceSpam?: boolean;
  readonly markets?: readonly string[];
  /** USD, post-graduation. */
  readonly minLiquidity?: number;
}

export type TopPerformersTimeframe = '5m' | '15m' | '30m' | '1h' | '6h' | '12h' | '24h';

export interface DeployerQuery {
  readonly launchpad?: string;
  readonly uniqueTokens?: boolean;
  readonly format?: 'full';
  readonly page?: number;
  /** With `format: 'full'`, at most 100. */
  readonly limit?: number;
  /** Other pagination parameters (names not shown by the spec), passed through. */
  readonly extra?: Query;
}

export interface SearchQuery {
  /** Symbol, name or address. */
  readonly query?: string;
  readonly launchpad?: readonly string[];
  /** `venue_a` curve, `venue_a-amm` graduated. */
  readonly market?: readonly string[];
  readonly status?: 'graduating' | 'graduated';
  /** 0..100. */
  readonly minCurvePercentage?: number;
  /** 0..100. */
  readonly maxCurvePercentage?: number;
  readonly minGraduatedAt?: UnixMs;
  readonly maxGraduatedAt?: UnixMs;
  readonly hasSocials?: boolean;
  readonly minLiquidity?: number;
  readonly hasImage?: boolean;
  readonly image?: string;
  readonly hasCoinCommunity?: boolean;
  readonly minCommunityMessages?: number;
  readonly maxCommunityMessages?: number;
  /** Includes `communityMessages`. */
  readonly sortBy?: string;
  readonly sortOrder?: 'asc' | 'desc';
  readonly limit?: number;
  /** Same shape as token detail; at most 100 per page. */
  readonly format?: 'full';
  /** Other parameters (for example a page number), passed through. */
  readonly extra?: Query;
}

export interface TokensApi {
  /** The latest 100 tokens. */
  getLatestTokens(opts?: CallOptions): Promise<TokenWithPools[]>;
  getToken(tokenAddress: string, opts?: CallOptions): Promise<TokenDetail>;
  /** POST /tokens/multi; more than 20 addresses are split into requests of 20 and merged. */
  getTokens(tokenAddresses: readonly string[], opts?: CallOptions): Promise<unknown>;
  /** GET /tokens/multi/all; its parameters are not shown by the spec and pass through. */
  getAllTokens(query?: Query, opts?: CallOptions): Promise<unknown>;
  getGraduating(query?: GraduatingQuery, opts?: CallOptions): Promise<unknown>;
  getGraduated(query?: GraduatedQuery, opts?: CallOptions): Promise<unknown>;
  /** All-time high since recording began. */
  getAth(token: string, opts?: CallOptions): Promise<{ highest: number } & ApiObject>;
  /** Top 500 bundler wallets plus statistics. */
  getBundlers(token: string, opts?: CallOptions): Promise<ApiObject>;
  /** GET /tokens/trending[/{timeframe}] (default one hour). */
  getTrending(timeframe?: string, opts?: CallOptions): Promise<unknown>;
  /** GET /tokens/volume[/{timeframe}]. */
  getTopVolume(timeframe?: string, opts?: CallOptions): Promise<unknown>;
  getTopPerformers(timeframe: TopPerformersTimeframe, opts?: CallOptions): Promise<unknown>;
  getDeployerTokens(wallet: string, query?: DeployerQuery, opts?: CallOptions): Promise<unknown>;
  search(query: SearchQuery, opts?: CallOptions): Promise<{ data: SearchResult[] } & ApiObject>;
  getLighthouse(opts?: CallOptions): Promise<MarketActivity[]>;
}

const TOP_PERFORMER_TIMEFRAMES = new Set(['5m', '15m', '30m', '1h', '6h', '12h', '24h']);

export function createTokensApi(ctx: ApiContext): TokensApi {
  const json = z.unknown();
  return {
    getLatestTokens: (o) => ctx.get('/tokens/latest', undefined, z.array(tokenWithPoolsSchema), o),
    getToken: async (t, o) => ctx.get(`/tokens/${seg(ctx, 'tokenAddress', t)}`, undefined, tokenDetailSchema, o),
    async getTokens(addresses, o) {
      const parts = chunk(ctx, 'tokenAddresses', addresses, DATA_API_LIMITS.multiTokens);
      return mergeBatches(await mapLimited(parts, BATCH_CONCURRENCY, (part) => ctx.post('/tokens/multi', part, json, o)));
    },
    getAllTokens: (q, o) => ctx.get('/tokens/multi/all', q, json, o),
    async getGraduating(q = {}, o) {
      checkInt(ctx, 'limit', q.limit, 1, DATA_API_LIMITS.graduationList);
      checkRange(ctx, 'minCurve', q.minCurve, 0, 100);
      checkRange(ctx, 'maxCurve', q.maxCurve, 0, 100);
      if (q.minCurve !== undefined && q.maxCurve !== undefined && q.minCurve > q.maxCurve) throw ctx.invalid('minCurve', 'must not exceed maxCurve');
      return ctx.get('/tokens/multi/graduating', { ...q }, json, o);
    },
    async getGraduated(q = {}, o) {
      checkInt(ctx, 'limit', q.limit, 1, DATA_API_LIMITS.graduationList);
      checkInt(ctx, 'page', q.page, 0, Number.MAX_SAFE_INTEGER);
      return ctx.get('/tokens/multi/graduated', { ...q }, json, o);
    },
    getAth: async (t, o) => ctx.get(`/tokens/${seg(ctx, 'token', t)}/ath`, undefined, athSchema, o),
    getBundlers: async (t, o) => ctx.get(`/tokens/${seg(ctx, 'token', t)}/bundlers`, undefined, apiObject, o),
    getTrending: async (tf, o) => ctx.get(tf ? `/tokens/trending/${seg(ctx, 'timeframe', tf)}` : '/tokens/trending', undefined, json, o),
    getTopVolume: async (tf, o) => ctx.get(tf ? `/tokens/volume/${seg(ctx, 'timeframe', tf)}` : '/tokens/volume', undefined, json, o),
    async getTopPerformers(tf, o) {
      if (!TOP_PERFORMER_TIMEFRAMES.has(tf)) throw ctx.invalid('timeframe', `must be one of ${[...TOP_PERFORMER_TIMEFRAMES].join(', ')}`);
      return ctx.get(`/top-performers/${tf}`, undefined, json, o);
    },
    async getDeployerTokens(wallet, q = {}, o) {
      if (q.format === 'full') checkInt(ctx, 'limit', q.limit, 1, DATA_API_LIMITS.fullFormatPage);
      const { extra, ...rest } = q;
      return ctx.get(`/deployer/${seg(ctx, 'wallet', wallet)}`, { ...extra, ...rest }, json, o);
    },
    async search(q, o) {
      checkRange(ctx, 'minCurvePercentage', q.minCurvePercentage, 0, 100);
      checkRange(ctx, 'maxCurvePercentage', q.maxCurvePercentage, 0, 100);
      checkInt(ctx, 'minCommunityMessages', q.minCommunityMessages, 0, Number.MAX_SAFE_INTEGER);
      checkInt(ctx, 'maxCommunityMessages', q.maxCommunityMessages, 0, Number.MAX_SAFE_INTEGER);
      checkInt(ctx, 'minGraduatedAt', q.minGraduatedAt, 0, Number.MAX_SAFE_INTEGER);
      checkInt(ctx, 'maxGraduatedAt', q.maxGraduatedAt, 0, Number.MAX_SAFE_INTEGER);
      if (q.format === 'full') checkInt(ctx, 'limit', q.limit, 1, DATA_API_LIMITS.fullFormatPage);
      else checkInt(ctx, 'limit', q.limit, 1, Number.MAX_SAFE_INTEGER);
      const { extra, ...rest } = q;
      return ctx.get('/search', { ...extra, ...rest }, searchResponseSchema, o);
    },
    getLighthouse: (o) => ctx.get('/lighthouse', undefined, z.array(marketActivitySchema), o),
  };
}
