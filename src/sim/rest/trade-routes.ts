/**
 * Trades and liquidity history: `/trades/{token}[/{pool}][/by-wallet/{wallet}|/{pool}/{wallet}]`.
 * Trades-only requests page with a timestamp cursor (exclusive); `events=all|liquidity` page with an
 * opaque cursor bound to the request's scope, that keeps several actions at one timestamp apart.
 */
import { z } from 'zod';
import type { LiquidityRecord, TradeRecord } from '../model/model-types.js';
import { liquidityRow, tokenMeta, tradeRow } from '../views/wire-views.js';
import { badParam, parseQuery, q } from './rest-errors.js';
import type { RestRequest, RestRouter } from './rest-router.js';
import { findTokenOrRetired } from './token-routes.js';

const tradesQuery = z.object({
  events: z.enum(['trades', 'all', 'liquidity']).default('trades'),
  enrich: z.enum(['identity']).optional(),
  limit: q.int(1, 500).default(250),
  sortDirection: z.enum(['DESC', 'ASC']).default('DESC'),
  cursor: z.string().max(500).optional(),
  showMeta: q.bool().default(false),
  hideArb: q.bool().default(false),
});

type Row = { kind: 'trade'; r: TradeRecord } | { kind: 'liq'; r: LiquidityRecord };

function encodeCursor(seq: number, scope: string): string {
  return Buffer.from(JSON.stringify({ v: 1, s: seq, k: scope })).toString('base64url');
}

function decodeCursor(cursor: string, scope: string): number {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; s?: unknown; k?: unknown };
    if (c.v === 1 && typeof c.s === 'number' && c.k === scope) return c.s;
  } catch {
    // fall through to the error below
  }
  throw badParam('cursor', 'send back nextCursor unchanged with the same token, pool, wallet, events and sortDirection');
}

function history(req: RestRequest): unknown {
  const { state, params } = req;
  const f = parseQuery(tradesQuery.loose(), req.query);
  const t = findTokenOrRetired(state, params['token']!);
  if (!t) return { trades: [], hasNextPage: false, nextCursor: null };
  const pool = params['pool'];
  const wallet = params['wallet'];
  const match = (p: string, w: string): boolean => (pool === undefined || p === pool) && (wallet === undefined || w === wallet);
  const rows: Row[] = [];
  if (f.events !== 'liquidity') for (const r of state.tradesByToken.get(t.mint) ?? []) if (match(r.pool, r.wallet)) rows.push({ kind: 'trade', r });
  if (f.events !== 'trades') {
    for (const r of state.liquidityByToken.get(t.mint) ?? []) if (match(r.pool, r.wallet)) rows.push({ kind: 'liq', r });
    rows.sort((a, b) => a.r.seq - b.r.seq);
  }
  const desc = f.sortDirection === 'DESC';
  if (desc) rows.reverse();
  const scope = `${t.mint}|${pool ?? ''}|${wallet ?? ''}|${f.events}|${f.sortDirection}`;
  let start = 0;
  if (f.cursor !== undefined) {
    const numeric = /^\d+$/.test(f.cursor);
    if (f.events === 'trades' || numeric) {
      if (!numeric) throw badParam('cursor', 'trades-only requests take the numeric timestamp from nextCursor');
      const ts = Number(f.cursor);
      start = rows.findIndex((x) => (desc ? x.r.time < ts : x.r.time > ts));
    } else {
      const seq = decodeCursor(f.cursor, scope);
      start = rows.findIndex((x) => (desc ? x.r.seq < seq : x.r.seq > seq));
    }
    if (start < 0) start = rows.length;
  }
  const page = rows.slice(start, start + f.limit);
  const hasNextPage = start + f.limit < rows.length;
  const last = page.at(-1);
  const enrich = f.enrich === 'identity';
  const meta = f.showMeta ? tokenMeta(t) : undefined;
  return {
    trades: page.map((x) =>
      x.kind === 'trade' ? { ...tradeRow(state, x.r, enrich, t), ...(meta ? { tokenMeta: meta } : {}) } : liquidityRow(state, x.r, enrich),
    ),
    hasNextPage,
    nextCursor: hasNextPage && last ? (f.events === 'trades' ? String(last.r.time) : encodeCursor(last.r.seq, scope)) : null,
  };
}

export function addTradeRoutes(r: RestRouter): void {
  r.add('GET', '/trades/:token', history);
  r.add('GET', '/trades/:token/:pool', history);
  r.add('GET', '/trades/:token/by-wallet/:wallet', history);
  r.add('GET', '/trades/:token/:pool/:wallet', history);
}
