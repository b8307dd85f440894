/**
 * Recurring-order (DCA) data. Only `/dca/programs` has a documented body; the token endpoints may
 * answer 408 (a typed HTTP_REQUEST_TIMEOUT, retried as a read).
 */
import { z } from 'zod';
import { checkInt, seg, type ApiContext, type CallOptions } from '../http/rest-context.js';
import { paginate } from '../http/paginate.js';
import { dcaProgramsSchema, type DcaProgram } from './schemas.js';

export type DcaStatus = 'active' | 'paused' | 'completed' | 'pending' | 'all';
export type DcaSort = 'volume' | 'deposited' | 'remaining' | 'progress' | 'recent' | 'created' | 'status';

/**
 * Query helpers shared by the DCA routes. The service documents aliases: `dex` and `platform` for
 * `program`, `sort` for `sortBy`; each is sent under the name given (set one name per parameter).
 */
export interface DcaQuery {
  readonly program?: string;
  /** Alias of `program`. */
  readonly dex?: string;
  /** Alias of `program`. */
  readonly platform?: string;
  readonly limit?: number;
  readonly cursor?: string | number;
  readonly sortBy?: DcaSort;
  /** Alias of `sortBy`. */
  readonly sort?: DcaSort;
  readonly status?: DcaStatus;
}

export interface DcaApi {
  getDcaPrograms(opts?: CallOptions): Promise<DcaProgram[]>;
  getDcaWallet(wallet: string, query?: DcaQuery, opts?: CallOptions): Promise<unknown>;
  getDcaWalletOrders(wallet: string, query?: DcaQuery, opts?: CallOptions): Promise<unknown>;
  /** Every page of a wallet's orders, following the cursor. */
  iterateDcaWalletOrders(wallet: string, query?: DcaQuery, opts?: CallOptions): AsyncGenerator;
  getDcaOrder(address: string, opts?: CallOptions): Promise<unknown>;
  getDcaToken(mint: string, query?: DcaQuery, opts?: CallOptions): Promise<unknown>;
  getDcaTokenBuyers(mint: string, query?: DcaQuery, opts?: CallOptions): Promise<unknown>;
  getDcaTokenSellers(mint: string, query?: DcaQuery, opts?: CallOptions): Promise<unknown>;
  getDcaTokenUsers(mint: string, query?: DcaQuery, opts?: CallOptions): Promise<unknown>;
  getDcaPair(inputMint: string, outputMint: string, query?: DcaQuery, opts?: CallOptions): Promise<unknown>;
}

const STATUS = new Set(['active', 'paused', 'completed', 'pending', 'all']);
const SORT = new Set(['volume', 'deposited', 'remaining', 'progress', 'recent', 'created', 'status']);

export function createDcaApi(ctx: ApiContext): DcaApi {
  const json = z.unknown();
  const query = (q: DcaQuery = {}): Record<string, string | number | undefined> => {
    checkInt(ctx, 'limit', q.limit, 1, Number.MAX_SAFE_INTEGER);
    if (q.status !== undefined && !STATUS.has(q.status)) throw ctx.invalid('status', `must be one of ${[...STATUS].join(', ')}`);
    for (const k of ['sortBy', 'sort'] as const) {
      const v = q[k];
      if (v !== undefined && !SORT.has(v)) throw ctx.invalid(k, `must be one of ${[...SORT].join(', ')}`);
    }
    const programs = (['program', 'dex', 'platform'] as const).filter((k) => q[k] !== undefined);
    if (programs.length > 1) throw ctx.invalid(programs[1]!, `is an alias of ${programs[0]!}: set only one of program, dex, platform`);
    if (q.sort !== undefined && q.sortBy !== undefined) throw ctx.invalid('sort', 'is an alias of sortBy: set only one of them');
    return { program: q.program, dex: q.dex, platform: q.platform, limit: q.limit, cursor: q.cursor, sortBy: q.sortBy, sort: q.sort, status: q.status };
  };
  const get = async (path: string, q: DcaQuery | undefined, o: CallOptions | undefined): Promise<unknown> => ctx.get(path, query(q), json, o);
  const walletOrders = async (wallet: string, q?: DcaQuery, o?: CallOptions): Promise<unknown> => get(`/dca/wallet/${seg(ctx, 'wallet', wallet)}/orders`, q, o);
  return {
    getDcaPrograms: async (o) => (await ctx.get('/dca/programs', undefined, dcaProgramsSchema, o)).programs,
    getDcaWallet: async (w, q, o) => get(`/dca/wallet/${seg(ctx, 'wallet', w)}`, q, o),
    getDcaWalletOrders: walletOrders,
    iterateDcaWalletOrders: (w, q = {}, o) =>
      paginate(ctx, `/dca/wallet/${w}/orders`, q.cursor, (cursor) => walletOrders(w, { ...q, ...(cursor !== undefined ? { cursor } : {}) }, o)),
    getDcaOrder: async (a, o) => get(`/dca/order/${seg(ctx, 'address', a)}`, undefined, o),
    getDcaToken: async (m, q, o) => get(`/dca/token/${seg(ctx, 'mint', m)}`, q, o),
    getDcaTokenBuyers: async (m, q, o) => get(`/dca/token/${seg(ctx, 'mint', m)}/buyers`, q, o),
    getDcaTokenSellers: async (m, q, o) => get(`/dca/token/${seg(ctx, 'mint', m)}/sellers`, q, o),
    getDcaTokenUsers: async (m, q, o) => get(`/dca/token/${seg(ctx, 'mint', m)}/users`, q, o),
    getDcaPair: async (i, out, q, o) => get(`/dca/pair/${seg(ctx, 'inputMint', i)}/${seg(ctx, 'outputMint', out)}`, q, o),
  };
}
