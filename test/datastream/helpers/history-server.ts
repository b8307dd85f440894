/**
 * A real HTTP server on 127.0.0.1 serving `/trades/{token}[/{pool}][/{wallet}]` and
 * `/trades/{token}/by-wallet/{wallet}` from an in-memory history, with `events`, `sortDirection`,
 * `limit`, an opaque cursor, and a numeric Unix-ms exclusive initial boundary; plus the
 * `BackfillSource` adapter a runtime would write over it (global fetch).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BackfillSource, HistoryPage } from '../../../src/client/datastream/index.js';

export interface HistoryRow {
  readonly time: number;
  readonly type: string;
  readonly pool?: string;
  readonly wallet?: string;
  readonly tokens?: readonly { address: string }[];
  readonly token?: string;
  readonly [k: string]: unknown;
}

export interface HistoryServer {
  readonly baseUrl: string;
  /** Rows in insertion order (the test keeps times non-decreasing). */
  readonly rows: HistoryRow[];
  requests: number;
  close(): Promise<void>;
}

const LIQ = new Set(['add_liquidity', 'remove_liquidity']);

function matches(r: HistoryRow, token: string, pool?: string, wallet?: string): boolean {
  const hasToken = r.token === token || (r.tokens ?? []).some((t) => t.address === token);
  return hasToken && (pool === undefined || r.pool === pool) && (wallet === undefined || r.wallet === wallet);
}

export async function startHistoryServer(): Promise<HistoryServer> {
  const rows: HistoryRow[] = [];
  const srv = createServer((req, res) => {
    hs.requests++;
    const u = new URL(req.url ?? '/', 'http://x');
    const parts = u.pathname.split('/').filter(Boolean).map(decodeURIComponent);
    if (parts[0] !== 'trades' || parts[1] === undefined) {
      res.writeHead(404).end();
      return;
    }
    const token = parts[1];
    let pool: string | undefined;
    let wallet: string | undefined;
    if (parts[2] === 'by-wallet') wallet = parts[3];
    else {
      pool = parts[2];
      wallet = parts[3];
    }
    const events = u.searchParams.get('events') ?? 'trades';
    const asc = u.searchParams.get('sortDirection') === 'ASC';
    const limit = Number(u.searchParams.get('limit') ?? 250);
    const cursor = u.searchParams.get('cursor');
    const ordered = rows
      .map((r, i) => ({ r, i }))
      .filter(({ r }) => matches(r, token, pool, wallet) && (events === 'all' || (events === 'liquidity' ? LIQ.has(r.type) : !LIQ.has(r.type))))
      .sort((a, b) => (asc ? a.r.time - b.r.time || a.i - b.i : b.r.time - a.r.time || b.i - a.i));
    let start = 0;
    if (cursor !== null) {
      if (/^\d+$/.test(cursor)) {
        const t = Number(cursor);
        start = ordered.findIndex(({ r }) => (asc ? r.time > t : r.time < t));
        if (start < 0) start = ordered.length;
      } else {
        // opaque: base64 of the position, so several actions at one timestamp are never skipped
        start = Number(Buffer.from(cursor, 'base64url').toString('utf8').split('@')[1]);
      }
    }
    const page = ordered.slice(start, start + limit).map(({ r }) => r);
    const hasNextPage = start + limit < ordered.length;
    const body = { trades: page, hasNextPage, nextCursor: hasNextPage ? Buffer.from(`pos@${start + limit}`).toString('base64url') : null };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const hs: HistoryServer = {
    baseUrl: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    rows,
    requests: 0,
    close: () => new Promise<void>((r) => srv.close(() => r())),
  };
  return hs;
}

/** The adapter a runtime writes over its REST client: here, plain fetch. */
export function httpBackfillSource(baseUrl: string): BackfillSource {
  return {
    async fetchHistoryPage(q, signal) {
      let path = `/trades/${encodeURIComponent(q.token)}`;
      if (q.pool !== undefined) path += `/${encodeURIComponent(q.pool)}`;
      if (q.wallet !== undefined) path += q.pool === undefined ? `/by-wallet/${encodeURIComponent(q.wallet)}` : `/${encodeURIComponent(q.wallet)}`;
      const params = new URLSearchParams({ events: q.events, sortDirection: q.sortDirection.toUpperCase(), limit: String(q.limit) });
      if (q.cursor !== undefined) params.set('cursor', String(q.cursor));
      if (q.enrich) params.set('enrich', q.enrich);
      const res = await fetch(`${baseUrl}${path}?${params.toString()}`, signal ? { signal } : {});
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const body = (await res.json()) as { trades: unknown[]; hasNextPage: boolean; nextCursor: string | null };
      const page: HistoryPage = { rows: body.trades, hasNextPage: body.hasNextPage, ...(body.nextCursor === null ? {} : { nextCursor: body.nextCursor }) };
      return page;
    },
  };
}
