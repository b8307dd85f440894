/** Holders: plain (top 100, with enrich), paginated (cursor, up to 5000 per page), top, multi, chart. */
import { z } from 'zod';
import { checkInt, seg, type ApiContext, type CallOptions, type Query } from '../http/rest-context.js';
import { DATA_API_LIMITS } from './limits.js';
import { paginate } from '../http/paginate.js';
import { apiObject, type ApiObject } from './schemas.js';

export type HoldersEnrich = 'identity' | 'walletPnl' | 'identity,walletPnl' | 'all' | '*';

export interface HoldersPageQuery {
  /** 1..5000. */
  readonly limit?: number;
  readonly cursor?: string | number;
}

export interface HoldersApi {
  /** Top 100 holders and the total holder count; `enrich` adds identity and/or PnL per holder. */
  getHolders(token: string, query?: { readonly enrich?: HoldersEnrich }, opts?: CallOptions): Promise<ApiObject>;
  /** One page of all holders by amount, descending. */
  getHoldersPage(token: string, query?: HoldersPageQuery, opts?: CallOptions): Promise<ApiObject>;
  /** Every holders page from `query.cursor` (or the start) to the end. */
  iterateHolders(token: string, query?: HoldersPageQuery, opts?: CallOptions): AsyncGenerator<ApiObject>;
  /** Top holders by balance, known wallets such as pools excluded. */
  getTopHolders(token: string, opts?: CallOptions): Promise<unknown>;
  /** Holder counts for many tokens (parameters not shown by the spec; passed through). */
  getHoldersMulti(query?: Query, opts?: CallOptions): Promise<unknown>;
  /** Historical holder chart (parameters not shown; passed through). */
  getHoldersChart(query?: Query, opts?: CallOptions): Promise<unknown>;
}

const ENRICH = new Set(['identity', 'walletPnl', 'identity,walletPnl', 'all', '*']);

export function createHoldersApi(ctx: ApiContext): HoldersApi {
  const json = z.unknown();
  const getHoldersPage = async (token: string, q: HoldersPageQuery = {}, o?: CallOptions): Promise<ApiObject> => {
    checkInt(ctx, 'limit', q.limit, 1, DATA_API_LIMITS.holdersPage);
    return ctx.get(`/tokens/${seg(ctx, 'tokenAddress', token)}/holders/paginated`, { limit: q.limit, cursor: q.cursor }, apiObject, o);
  };
  return {
    async getHolders(token, q = {}, o) {
      if (q.enrich !== undefined && !ENRICH.has(q.enrich)) throw ctx.invalid('enrich', `must be one of ${[...ENRICH].join(', ')}`);
      return ctx.get(`/tokens/${seg(ctx, 'tokenAddress', token)}/holders`, { enrich: q.enrich }, apiObject, o);
    },
    getHoldersPage,
    iterateHolders: (token, q = {}, o) =>
      paginate(ctx, `/tokens/${token}/holders/paginated`, q.cursor, (cursor) =>
        getHoldersPage(token, { ...q, ...(cursor !== undefined ? { cursor } : {}) }, o),
      ),
    getTopHolders: async (token, o) => ctx.get(`/tokens/${seg(ctx, 'token', token)}/holders/top`, undefined, json, o),
    getHoldersMulti: (q, o) => ctx.get('/holders/multi', q, json, o),
    getHoldersChart: (q, o) => ctx.get('/holders/chart', q, json, o),
  };
}
