/** Discovery: search, top performers, trending and volume lists. */
import { z } from 'zod';
import type { TokenState } from '../model/model-types.js';
import { curvePct, liquidityUsd, marketCapUsd } from '../model/token-pricing.js';
import { tokenDetail, searchRow } from '../views/token-detail.js';
import { STAT_WINDOWS, tokenWindow, type WindowStat } from '../views/token-stats.js';
import type { MarketState } from '../model/market-state.js';
import { tokenWithPools } from '../views/wire-views.js';
import { badParam, parseQuery, q } from './rest-errors.js';
import type { RestRouter } from './rest-router.js';
import { newestFirst } from './token-routes.js';

const SORT_KEYS = [
  'createdAt',
  'marketCapUsd',
  'liquidityUsd',
  'volume',
  'holders',
  'curvePercentage',
  'communityMessages',
  'graduatedAt',
  'priceUsd',
] as const;

const searchQuery = z.object({
  query: z.string().max(100).optional(),
  launchpad: q.list().optional(),
  market: q.list().optional(),
  status: z.enum(['graduating', 'graduated']).optional(),
  minCurvePercentage: q.num().min(0).max(100).optional(),
  maxCurvePercentage: q.num().min(0).max(100).optional(),
  minGraduatedAt: q.int(0, Number.MAX_SAFE_INTEGER).optional(),
  maxGraduatedAt: q.int(0, Number.MAX_SAFE_INTEGER).optional(),
  hasSocials: q.bool().optional(),
  minLiquidity: q.num().optional(),
  hasImage: q.bool().optional(),
  image: z.string().optional(),
  hasCoinCommunity: q.bool().optional(),
  minCommunityMessages: q.int(0, 1e9).optional(),
  maxCommunityMessages: q.int(0, 1e9).optional(),
  sortBy: z.enum(SORT_KEYS).default('createdAt'),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
  limit: q.int(1, 500).default(100),
  page: q.int(1, 1e6).default(1),
  format: z.enum(['full']).optional(),
});

const TIMEFRAMES = ['5m', '15m', '30m', '1h', '6h', '12h', '24h'] as const;

export function addDiscoveryRoutes(r: RestRouter): void {
  r.add('GET', '/search', ({ state, query }) => {
    const f = parseQuery(searchQuery.loose(), query);
    if (f.format === 'full' && f.limit > 100) throw badParam('limit', 'format=full allows at most 100 per page');
    const text = f.query?.toLowerCase();
    const solUsd = state.settings.solUsd;
    const rows = state.launched.filter((t) => {
      const market = t.amm ? 'venue_a-amm' : t.launchpad;
      const pct = curvePct(t);
      const grad = t.status === 'graduated' ? t.graduatedAt : undefined;
      return (
        (!text || t.symbol.toLowerCase().includes(text) || t.name.toLowerCase().includes(text) || t.mint === f.query) &&
        (!f.launchpad || f.launchpad.includes(t.launchpad)) &&
        (!f.market || f.market.includes(market)) &&
        (!f.status || (f.status === 'graduated') === (t.status === 'graduated')) &&
        (f.minCurvePercentage === undefined || pct >= f.minCurvePercentage) &&
        (f.maxCurvePercentage === undefined || pct <= f.maxCurvePercentage) &&
        (f.minGraduatedAt === undefined || (grad !== undefined && grad >= f.minGraduatedAt)) &&
        (f.maxGraduatedAt === undefined || (grad !== undefined && grad <= f.maxGraduatedAt)) &&
        (f.hasSocials === undefined || t.hasSocials === f.hasSocials) &&
        (f.minLiquidity === undefined || liquidityUsd(t, solUsd) >= f.minLiquidity) &&
        (f.hasImage === undefined || (t.image !== '') === f.hasImage) &&
        (f.image === undefined || t.image === f.image) &&
        (f.hasCoinCommunity === undefined || t.communityMessages > 0 === f.hasCoinCommunity) &&
        (f.minCommunityMessages === undefined || t.communityMessages >= f.minCommunityMessages) &&
        (f.maxCommunityMessages === undefined || t.communityMessages <= f.maxCommunityMessages)
      );
    });
    const key = (t: TokenState): number => {
      switch (f.sortBy) {
        case 'marketCapUsd':
        case 'priceUsd':
          return marketCapUsd(t, solUsd);
        case 'liquidityUsd':
          return liquidityUsd(t, solUsd);
        case 'volume':
          return Number(t.volumeLamports);
        case 'holders':
          return t.holderList.length;
        case 'curvePercentage':
          return curvePct(t);
        case 'communityMessages':
          return t.communityMessages;
        case 'graduatedAt':
          return t.graduatedAt ?? 0;
        case 'createdAt':
          return t.createdAt;
      }
    };
    const dir = f.sortOrder === 'asc' ? 1 : -1;
    const sorted = rows.map((t) => ({ t, k: key(t) })).sort((a, b) => (a.k - b.k) * dir || (a.t.createdAt - b.t.createdAt) * dir);
    const page = sorted.slice((f.page - 1) * f.limit, f.page * f.limit).map(({ t }) => (f.format === 'full' ? tokenDetail(state, t) : searchRow(state, t)));
    return { status: 'success', data: page, total: rows.length, page: f.page, hasMore: f.page * f.limit < rows.length };
  });
  r.add('GET', '/top-performers/:timeframe', ({ state, params }) => {
    const tf = z.enum(TIMEFRAMES).safeParse(params['timeframe']);
    if (!tf.success) throw badParam('timeframe', `use one of ${TIMEFRAMES.join(', ')}`);
    const dayStart = Math.floor(state.now / 86_400_000) * 86_400_000;
    return state.launched
      .filter((t) => t.createdAt >= dayStart)
      .map((t) => ({ t, change: windowOf(state, t, tf.data).priceChangePercentage }))
      .sort((a, b) => b.change - a.change)
      .slice(0, 100)
      .map(({ t, change }) => ({ ...tokenWithPools(state, t), priceChangePercentage: change }));
  });
  const ranked =
    (by: 'transactions' | 'volume', tfDefault: string) =>
    ({ state, params }: Parameters<Parameters<RestRouter['add']>[2]>[0]) => {
      const tf = params['timeframe'] ?? tfDefault;
      if (!Object.hasOwn(STAT_WINDOWS, tf)) throw badParam('timeframe', `use one of ${Object.keys(STAT_WINDOWS).join(', ')}`);
      return newestFirst(state)
        .filter((t) => state.now - (state.tradesByToken.get(t.mint)?.at(-1)?.time ?? 0) < STAT_WINDOWS[tf]!)
        .map((t) => ({ t, w: windowOf(state, t, tf) }))
        .sort((a, b) => b.w[by] - a.w[by])
        .slice(0, 100)
        .map(({ t, w }) => ({ ...tokenWithPools(state, t), [by]: w[by], timeframe: tf }));
    };
  r.add('GET', '/tokens/trending', ranked('transactions', '1h'));
  r.add('GET', '/tokens/trending/:timeframe', ranked('transactions', '1h'));
  r.add('GET', '/tokens/volume', ranked('volume', '24h'));
  r.add('GET', '/tokens/volume/:timeframe', ranked('volume', '24h'));
}

function windowOf(state: MarketState, t: TokenState, tf: string): WindowStat {
  return tokenWindow(state, t, state.now, STAT_WINDOWS[tf] ?? 0);
}
