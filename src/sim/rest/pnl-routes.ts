/** PnL V2 (`/v2/pnl/*`) and the legacy PnL and top-trader routes, all from the FIFO book. */
import { z } from 'zod';
import type { MarketState } from '../model/market-state.js';
import type { PnlPosition } from '../model/pnl-book.js';
import { pnlPositionView, walletSummary, type PnlMode } from '../views/pnl-views.js';
import { identityOf, tradeRow, type JsonObject } from '../views/wire-views.js';
import { badParam, notFound, parseQuery, q } from './rest-errors.js';
import type { RestRequest, RestRouter } from './rest-router.js';

const modeQuery = z.object({ pnlMode: z.enum(['strict', 'adjusted', 'raw']).default('strict') }).loose();
const mode = (req: RestRequest): PnlMode => parseQuery(modeQuery, req.query).pnlMode;

const positionsQuery = z.object({
  pnlMode: z.enum(['strict', 'adjusted', 'raw']).default('strict'),
  holding: q.bool().optional(),
  minPnl: q.num().optional(),
  minRoi: q.num().optional(),
  minInvested: q.num().optional(),
  market: q.list().optional(),
  minLiquidity: q.num().optional(),
  sortBy: z.enum(['total', 'realized', 'unrealized', 'roi', 'lastTrade', 'totalBought']).default('lastTrade'),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
  limit: q.int(1, 500).default(100),
  page: q.int(1, 1e6).default(1),
});

function tokenTraders(state: MarketState, mint: string, m: PnlMode): JsonObject[] {
  return state.pnl
    .tokenPositions(mint)
    .map((p) => pnlPositionView(state, p, m))
    .sort((a, b) => (b['total'] as number) - (a['total'] as number));
}

function legacyTrader(state: MarketState, p: PnlPosition): JsonObject {
  const v = pnlPositionView(state, p);
  return {
    wallet: p.wallet,
    pnl: v['total'],
    position: v['balance'],
    buyUsd: v['totalBought'],
    sellUsd: v['totalSold'],
    counts: { buys: p.buys, sells: p.sells, total: p.buys + p.sells },
    roi: v['roi'],
    timing: { firstTrade: p.firstTrade, lastTrade: p.lastTrade },
  };
}

function leaderboard(state: MarketState, sinceMs: number, onlyKols: boolean, m: PnlMode): JsonObject[] {
  const rows: JsonObject[] = [];
  for (const wallet of state.pnl.wallets()) {
    const w = state.wallets.get(wallet);
    if (onlyKols && w?.role !== 'kol') continue;
    const ps = state.pnl.walletPositions(wallet).filter((p) => p.lastTrade >= sinceMs);
    if (ps.length === 0) continue;
    let total = 0;
    for (const p of ps) total += pnlPositionView(state, p, m)['total'] as number;
    rows.push({ wallet, total, tokens: ps.length, identity: identityOf(state, wallet) });
  }
  return rows.sort((a, b) => (b['total'] as number) - (a['total'] as number)).slice(0, 100);
}

const DAY = 86_400_000;

export function addPnlRoutes(r: RestRouter): void {
  r.add('GET', '/v2/pnl/wallets/:wallet', (req) => walletSummary(req.state, req.params['wallet']!, mode(req)));
  r.add('GET', '/v2/pnl/wallets/:wallet/positions', ({ state, params, query }) => {
    const f = parseQuery(positionsQuery.loose(), query);
    const rows = state.pnl
      .walletPositions(params['wallet']!)
      .map((p) => pnlPositionView(state, p, f.pnlMode))
      .filter(
        (v) =>
          (f.holding === undefined || v['holding'] === f.holding) &&
          (f.minPnl === undefined || (v['total'] as number) >= f.minPnl) &&
          (f.minRoi === undefined || (v['roi'] as number) >= f.minRoi) &&
          (f.minInvested === undefined || (v['totalBought'] as number) >= f.minInvested) &&
          (f.market === undefined || f.market.includes(marketOf(state, v['token'] as string))),
      );
    const dir = f.sortOrder === 'asc' ? 1 : -1;
    const key = (v: JsonObject): number => (f.sortBy === 'lastTrade' ? ((v['timing'] as JsonObject)['lastTrade'] as number) : (v[f.sortBy] as number));
    rows.sort((a, b) => (key(a) - key(b)) * dir);
    return { wallet: params['wallet'], pnlMode: f.pnlMode, total: rows.length, page: f.page, positions: rows.slice((f.page - 1) * f.limit, f.page * f.limit) };
  });
  r.add('GET', '/v2/pnl/wallets/:wallet/tokens/:token', (req) => {
    const p = req.state.pnl.position(req.params['wallet']!, req.params['token']!);
    if (!p) throw notFound(`position of ${req.params['wallet']!} in ${req.params['token']!}`);
    return pnlPositionView(req.state, p, mode(req));
  });
  r.add('GET', '/v2/pnl/wallets/:wallet/history', ({ state, params }) => ({
    wallet: params['wallet'],
    trades: state.pnl
      .walletPositions(params['wallet']!)
      .flatMap((p) => (state.tradesByToken.get(p.mint) ?? []).filter((t) => t.wallet === params['wallet']))
      .sort((a, b) => b.seq - a.seq)
      .slice(0, 500)
      .map((t) => tradeRow(state, t, false)),
  }));
  for (const sub of ['performance', 'highlights', 'risk', 'chart']) {
    r.add('GET', `/v2/pnl/wallets/:wallet/${sub}`, (req) => {
      const s = walletSummary(req.state, req.params['wallet']!, mode(req));
      if (sub !== 'chart') return { ...s, view: sub };
      const ps = req.state.pnl.walletPositions(req.params['wallet']!).sort((a, b) => a.lastTrade - b.lastTrade);
      let cum = 0;
      return {
        wallet: req.params['wallet'],
        points: ps.map((p) => ({ time: p.lastTrade, pnl: (cum += pnlPositionView(req.state, p, mode(req))['realized'] as number) })),
      };
    });
  }
  r.add('GET', '/v2/pnl/tokens/:token/traders', (req) => ({
    token: req.params['token'],
    pnlMode: mode(req),
    traders: tokenTraders(req.state, req.params['token']!, mode(req)).slice(0, 100),
  }));
  r.add('GET', '/v2/pnl/tokens/:token/first-buyers', ({ state, params, query }) => {
    const f = parseQuery(
      z.object({ sort: z.enum(['first_trade']).optional(), direction: z.enum(['asc', 'desc']).default('asc'), limit: q.int(1, 500).default(100) }).loose(),
      query,
    );
    const rows = state.pnl
      .tokenPositions(params['token']!)
      .filter((p) => p.firstBuy !== undefined)
      .sort((a, b) => (a.firstBuy! - b.firstBuy!) * (f.direction === 'asc' ? 1 : -1));
    return { token: params['token'], buyers: rows.slice(0, f.limit).map((p) => pnlPositionView(state, p)) };
  });
  r.add('GET', '/v2/pnl/leaderboard/top', ({ state, query }) => {
    const f = parseQuery(
      z.object({ window: z.enum(['1', '7', '30', '90']).default('7'), pnlMode: z.enum(['strict', 'adjusted', 'raw']).default('strict') }).loose(),
      query,
    );
    return { window: Number(f.window), leaderboard: leaderboard(state, state.now - Number(f.window) * DAY, false, f.pnlMode) };
  });
  r.add('GET', '/v2/pnl/leaderboard/kols', (req) => ({ leaderboard: leaderboard(req.state, 0, true, mode(req)) }));
  r.add('GET', '/v2/pnl/leaderboard/kols/period', ({ state, query }) => {
    const f = parseQuery(
      z
        .object({
          period: z.enum(['1d', '7d', '30d', '90d']).optional(),
          start: q.int(0, Number.MAX_SAFE_INTEGER).optional(),
          end: q.int(0, Number.MAX_SAFE_INTEGER).optional(),
        })
        .loose(),
      query,
    );
    const since = f.start ?? state.now - Number((f.period ?? '7d').replace('d', '')) * DAY;
    return { since, leaderboard: leaderboard(state, since, true, 'strict') };
  });
  r.add('GET', '/v2/pnl/leaderboard/kols/calendar', ({ state }) => ({
    month: new Date(state.now).toISOString().slice(0, 7),
    leaderboard: leaderboard(state, state.now - 30 * DAY, true, 'strict'),
  }));
  r.add('GET', '/v2/pnl/leaderboard/kols/date', ({ state }) => ({
    date: new Date(state.now).toISOString().slice(0, 10),
    leaderboard: leaderboard(state, Math.floor(state.now / DAY) * DAY, true, 'strict'),
  }));
  addBatchRoutes(r);
  // Wallet portfolio chart: the service returns a chart even with a single data point (`chartData`
  // of {date, value, timestamp, pnlPercentage}, the cumulative realised PnL in USD; `pnl` over 24 h and 30 d).
  r.add('GET', '/wallet/:wallet/chart', ({ state, params }) => {
    const ps = state.pnl.walletPositions(params['wallet']!).sort((a, b) => a.lastTrade - b.lastTrade);
    let cum = 0;
    const points = ps.map((p) => ({ at: p.lastTrade, value: (cum += pnlPositionView(state, p)['realized'] as number) }));
    if (points.length === 0) points.push({ at: state.now, value: 0 });
    const chartData = points.map((p) => ({ date: new Date(p.at).toISOString().slice(0, 10), value: p.value, timestamp: p.at, pnlPercentage: 0 }));
    const since = (ms: number): { value: number; percentage: number } => {
      const before = points.filter((p) => p.at <= state.now - ms).at(-1)?.value ?? 0;
      return { value: cum - before, percentage: 0 };
    };
    return { chartData, pnl: { '24h': since(DAY), '30d': since(30 * DAY) } };
  });
  r.add('GET', '/pnl/:wallet', ({ state, params }) => walletSummary(state, params['wallet']!));
  r.add('GET', '/pnl/:wallet/:token', ({ state, params }) => {
    const p = state.pnl.position(params['wallet']!, params['token']!);
    if (!p) throw notFound(`position of ${params['wallet']!} in ${params['token']!}`);
    return pnlPositionView(state, p);
  });
  r.add('GET', '/first-buyers/:token', ({ state, params }) =>
    state.pnl
      .tokenPositions(params['token']!)
      .filter((p) => p.firstBuy !== undefined)
      .sort((a, b) => a.firstBuy! - b.firstBuy!)
      .slice(0, 100)
      .map((p) => pnlPositionView(state, p)),
  );
  const top = ({ state, params }: RestRequest): unknown => {
    const page = Number(params['page'] ?? '1');
    if (!Number.isInteger(page) || page < 1) throw badParam('page', 'pages start at 1');
    return leaderboard(state, 0, false, 'strict').slice((page - 1) * 100, page * 100);
  };
  r.add('GET', '/top-traders/all', top);
  r.add('GET', '/top-traders/all/:page', top);
  r.add('GET', '/top-traders/:token', ({ state, params }) =>
    state.pnl
      .tokenPositions(params['token']!)
      .map((p) => legacyTrader(state, p))
      .sort((a, b) => (b['pnl'] as number) - (a['pnl'] as number))
      .slice(0, 100),
  );
}

function marketOf(state: MarketState, mint: string): string {
  const t = state.tokens.get(mint);
  return t?.amm ? 'venue_a-amm' : (t?.launchpad ?? '');
}

function addBatchRoutes(r: RestRouter): void {
  r.add('POST', '/v2/pnl/wallets/:wallet/positions/batch', ({ state, params, body }) => {
    const b = z.object({ tokens: z.array(z.string()).min(1).max(100) }).safeParse(body);
    if (!b.success) throw badParam('body.tokens', 'send {"tokens": [...]} with 1 to 100 tokens');
    const found: JsonObject[] = [];
    const notFoundList: string[] = [];
    for (const m of b.data.tokens) {
      const p = state.pnl.position(params['wallet']!, m);
      if (p) found.push(pnlPositionView(state, p));
      else notFoundList.push(m);
    }
    return { positions: found, notFound: notFoundList };
  });
  r.add('POST', '/v2/pnl/tokens/:token/positions/batch', ({ state, params, body }) => {
    const b = z.object({ wallets: z.array(z.string()).min(1).max(200) }).safeParse(body);
    if (!b.success) throw badParam('body.wallets', 'send {"wallets": [...]} with 1 to 200 wallets');
    const found: JsonObject[] = [];
    const missing: string[] = [];
    for (const w of b.data.wallets) {
      const p = state.pnl.position(w, params['token']!);
      if (p) found.push(pnlPositionView(state, p));
      else missing.push(w);
    }
    return { positions: found, notFound: missing };
  });
  r.add('POST', '/v2/pnl/positions/batch', ({ state, body }) => {
    const b = z
      .object({
        pairs: z
          .array(z.object({ wallet: z.string(), token: z.string() }))
          .min(1)
          .max(200),
      })
      .safeParse(body);
    if (!b.success) throw badParam('body.pairs', 'send {"pairs": [{"wallet", "token"}, ...]} with 1 to 200 pairs');
    const found: JsonObject[] = [];
    const missing: { wallet: string; token: string }[] = [];
    for (const pr of b.data.pairs) {
      const p = state.pnl.position(pr.wallet, pr.token);
      if (p) found.push(pnlPositionView(state, p));
      else missing.push(pr);
    }
    return { positions: found, notFound: missing };
  });
  r.add('POST', '/v2/pnl/wallets/batch', ({ state, body }) => {
    const b = z.object({ wallets: z.array(z.string()).min(1) }).safeParse(body);
    if (!b.success) throw badParam('body.wallets', 'send {"wallets": [...]} with at least one wallet');
    const list = b.data.wallets.slice(0, 100);
    const valid = list.filter((w) => /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(w));
    const invalid = list.filter((w) => !valid.includes(w));
    const known = valid.filter((w) => state.pnl.walletPositions(w).length > 0);
    return {
      wallets: known.map((w) => walletSummary(state, w)),
      notFound: valid.filter((w) => !known.includes(w)),
      invalid,
      ...(b.data.wallets.length > 100 ? { truncated: { limit: 100, received: b.data.wallets.length, ignored: b.data.wallets.slice(100) } } : {}),
    };
  });
}
