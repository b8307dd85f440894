/**
 * The service's extended account queries: getProgramAccountsV2 and getTokenAccountsByOwnerV2
 * (changedSince, excludeZero, cursor pagination up to 10,000 accounts per request, totalCount),
 * with async page iterators, and getTokenAccountsByOwners (auto-chunked at 250 wallets).
 */
import { z } from 'zod';
import { ChainpilotError } from '../../core/index.js';
import type { Commitment } from './commitment.js';
import { contextSchema, keyedAccountSchema } from './rpc-schemas.js';
import type { RpcTransport } from './rpc-transport.js';
import type { AccountsPageV2, RpcCallOptions } from './rpc-types.js';

/** Accounts per V2 request, at most. */
export const V2_PAGE_MAX = 10_000;
/** Wallets per getTokenAccountsByOwners request, at most. */
export const OWNERS_BATCH_MAX = 250;

export interface V2QueryOptions extends RpcCallOptions {
  readonly commitment?: Commitment;
  /** Only accounts changed since this slot. */
  readonly changedSince?: number;
  /** Leave out zero-balance token accounts. */
  readonly excludeZero?: boolean;
  /** Accounts per page, 1..10,000. */
  readonly limit?: number;
  /** Cursor from the previous page. */
  readonly cursor?: string;
  /** Standard account filters (memcmp, dataSize), passed through. */
  readonly filters?: readonly unknown[];
  readonly dataSlice?: { readonly offset: number; readonly length: number };
}

export type TokenAccountFilter = { readonly mint: string } | { readonly programId: string };

export interface V2Queries {
  getProgramAccountsV2(programId: string, opts?: V2QueryOptions): Promise<AccountsPageV2>;
  /** Every page from `opts.cursor` (or the start) to the end. */
  iterateProgramAccountsV2(programId: string, opts?: V2QueryOptions): AsyncGenerator<AccountsPageV2>;
  getTokenAccountsByOwnerV2(owner: string, filter: TokenAccountFilter, opts?: V2QueryOptions): Promise<AccountsPageV2>;
  iterateTokenAccountsByOwnerV2(owner: string, filter: TokenAccountFilter, opts?: V2QueryOptions): AsyncGenerator<AccountsPageV2>;
  /**
   * Token accounts of many wallets for one mint; more than 250 wallets are split into requests of
   * 250 and merged (arrays concatenated, objects keyed by wallet merged). Result shape: not shown
   * by the spec, so it is returned as parsed.
   */
  getTokenAccountsByOwners(wallets: readonly string[], mint: string, opts?: RpcCallOptions): Promise<unknown>;
}

const rawPage = z.unknown();
const contextEnvelope = z.looseObject({ context: contextSchema, value: z.unknown() });
const keyedAccounts = z.array(keyedAccountSchema);

/** Builds the V2 query methods on a transport. */
export function createV2Queries(rpc: RpcTransport): V2Queries {
  const config = (o: V2QueryOptions | undefined, method: string): Record<string, unknown> => {
    if (o?.limit !== undefined && (!Number.isInteger(o.limit) || o.limit < 1 || o.limit > V2_PAGE_MAX)) {
      throw new ChainpilotError('RPC_INVALID_PARAM', `${method}: limit must be an integer from 1 to ${V2_PAGE_MAX}, got ${o.limit}`, {
        retry: 'not_retryable',
        context: { method, field: 'limit' },
      });
    }
    const out: Record<string, unknown> = { encoding: 'base64' };
    if (o?.commitment) out['commitment'] = o.commitment;
    if (o?.changedSince !== undefined) out['changedSince'] = o.changedSince;
    if (o?.excludeZero !== undefined) out['excludeZero'] = o.excludeZero;
    if (o?.limit !== undefined) out['limit'] = o.limit;
    if (o?.cursor !== undefined) out['cursor'] = o.cursor;
    if (o?.filters) out['filters'] = [...o.filters];
    if (o?.dataSlice) out['dataSlice'] = { ...o.dataSlice };
    return out;
  };
  const page = async (method: string, params: unknown[], signal: AbortSignal | undefined): Promise<AccountsPageV2> =>
    parsePageV2(method, await rpc.call(method, params, rawPage, { kind: 'read', signal }));

  async function* iterate(first: (cursor: string | undefined) => Promise<AccountsPageV2>, start: string | undefined): AsyncGenerator<AccountsPageV2> {
    let cursor = start;
    const seen = new Set<string>();
    for (;;) {
      const p = await first(cursor);
      yield p;
      if (p.cursor === undefined || p.accounts.length === 0) return;
      if (seen.has(p.cursor)) {
        throw new ChainpilotError('RPC_INVALID_RESPONSE', 'V2 account pagination returned a cursor it had already returned; stopping to avoid a loop', {
          retry: 'not_retryable',
          context: { method: 'v2-iterate' },
        });
      }
      seen.add(p.cursor);
      cursor = p.cursor;
    }
  }

  const q: V2Queries = {
    getProgramAccountsV2: async (programId, o) => page('getProgramAccountsV2', [programId, config(o, 'getProgramAccountsV2')], o?.signal),
    iterateProgramAccountsV2: (programId, o) =>
      iterate((cursor) => q.getProgramAccountsV2(programId, { ...o, ...(cursor !== undefined ? { cursor } : {}) }), o?.cursor),
    getTokenAccountsByOwnerV2: async (owner, filter, o) =>
      page('getTokenAccountsByOwnerV2', [owner, { ...filter }, config(o, 'getTokenAccountsByOwnerV2')], o?.signal),
    iterateTokenAccountsByOwnerV2: (owner, filter, o) =>
      iterate((cursor) => q.getTokenAccountsByOwnerV2(owner, filter, { ...o, ...(cursor !== undefined ? { cursor } : {}) }), o?.cursor),
    async getTokenAccountsByOwners(wallets, mint, o) {
      if (wallets.length === 0) {
        throw new ChainpilotError('RPC_INVALID_PARAM', 'getTokenAccountsByOwners: wallets must not be empty', {
          retry: 'not_retryable',
          context: { method: 'getTokenAccountsByOwners', field: 'wallets' },
        });
      }
      const chunks: string[][] = [];
      for (let i = 0; i < wallets.length; i += OWNERS_BATCH_MAX) chunks.push(wallets.slice(i, i + OWNERS_BATCH_MAX));
      const results = await Promise.all(chunks.map((c) => rpc.call('getTokenAccountsByOwners', [c, mint], rawPage, { kind: 'read', signal: o?.signal })));
      return mergeResults(results);
    },
  };
  return q;
}

/** Normalises a V2 page: a bare array, `{accounts, cursor|paginationKey, totalCount}`, or either inside `{context, value}`. */
export function parsePageV2(method: string, result: unknown): AccountsPageV2 {
  let body: unknown = result;
  const ctx = contextEnvelope.safeParse(result);
  if (ctx.success) body = ctx.data.value;
  const list = Array.isArray(body) ? body : isRecord(body) ? (body['accounts'] ?? body['value']) : undefined;
  const accounts = keyedAccounts.safeParse(list);
  if (!accounts.success) {
    throw new ChainpilotError('RPC_INVALID_RESPONSE', `${method}: expected a list of {pubkey, account} (${accounts.error.issues[0]?.message ?? 'invalid'})`, {
      retry: 'not_retryable',
      context: { method },
    });
  }
  const meta = isRecord(body) ? body : {};
  const next = meta['cursor'] ?? meta['paginationKey'];
  const total = meta['totalCount'];
  return {
    accounts: accounts.data,
    ...(typeof next === 'string' && next !== '' ? { cursor: next } : {}),
    ...(typeof total === 'number' ? { totalCount: total } : {}),
    raw: result,
  };
}

/**
 * Merges the answers of the chunks of one owners batch: arrays concatenated in chunk order, objects
 * merged key by key at every depth (so `{context, value: [...]}` keeps every chunk's `value`), and
 * other values from the last chunk (for example `context.slot`).
 */
export function mergeResults(results: unknown[]): unknown {
  if (results.length === 1) return results[0];
  return results.reduce((acc, r) => mergeTwo(acc, r));
}

function mergeTwo(a: unknown, b: unknown): unknown {
  if (Array.isArray(a) && Array.isArray(b)) return [...(a as unknown[]), ...(b as unknown[])];
  if (isRecord(a) && isRecord(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? mergeTwo(out[k], v) : v;
    return out;
  }
  return b;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
