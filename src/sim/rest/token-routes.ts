/** Token records: latest, detail, multi, lifecycle lists, ath, bundlers, deployer. */
import { z } from 'zod';
import { fromRaw } from '../../core/index.js';
import type { MarketState } from '../model/market-state.js';
import type { TokenState } from '../model/model-types.js';
import { pctOfSupply, roleBalance } from '../model/holdings.js';
import { curvePct, liquidityUsd, marketCapUsd } from '../model/token-pricing.js';
import { tokenDetail } from '../views/token-detail.js';
import { tokenWithPools } from '../views/wire-views.js';
import { badParam, notFound, parseQuery, q } from './rest-errors.js';
import type { RestRouter } from './rest-router.js';

export function findToken(state: MarketState, mint: string): TokenState {
  const t = state.tokens.get(mint) ?? state.tokens.get(state.poolToMint.get(mint) ?? '');
  if (!t) throw notFound(state.retired.has(mint) ? `token ${mint} (retired: it stopped trading more than tokenRetentionMs ago)` : `token ${mint}`);
  return t;
}

/** Like findToken, but undefined for a retired token: history routes then answer an empty page. */
export function findTokenOrRetired(state: MarketState, mint: string): TokenState | undefined {
  if (state.retired.has(mint) && !state.tokens.has(mint)) return undefined;
  return findToken(state, mint);
}

/** Tokens newest first. */
export function newestFirst(state: MarketState): TokenState[] {
  return [...state.launched].reverse();
}

const graduatingQuery = z.object({
  limit: q.int(1, 500).default(100),
  minCurve: q.num().min(0).max(100).default(40),
  maxCurve: q.num().min(0).max(100).default(100),
  minHolders: q.int(0, 1e9).default(20),
  markets: q.list().optional(),
  minLiquidity: q.num().optional(),
  minMarketCap: q.num().optional(),
  reduceSpam: q.bool().optional(),
});
const graduatedQuery = z.object({
  limit: q.int(1, 500).default(100),
  page: q.int(1, 1e6).default(1),
  markets: q.list().optional(),
  minLiquidity: q.num().optional(),
  reduceSpam: q.bool().optional(),
});
const deployerQuery = z.object({
  launchpad: q.list().optional(),
  uniqueTokens: q.bool().optional(),
  format: z.enum(['full']).optional(),
  page: q.int(1, 1e6).default(1),
  limit: q.int(1, 100).default(100),
});

/** A spam token: no image and no socials (dropped by `reduceSpam=true`). */
export function isSpam(t: TokenState): boolean {
  return t.image === '' && !t.hasSocials;
}

export function addTokenRoutes(r: RestRouter): void {
  r.add('GET', '/tokens/latest', ({ state }) =>
    newestFirst(state)
      .slice(0, 100)
      .map((t) => tokenWithPools(state, t)),
  );
  r.add('GET', '/tokens/multi/all', ({ state, query }) => {
    const { limit } = parseQuery(z.object({ limit: q.int(1, 500).default(100) }).loose(), query);
    return newestFirst(state)
      .slice(0, limit)
      .map((t) => tokenWithPools(state, t));
  });
  r.add('POST', '/tokens/multi', ({ state, body }) => {
    const parsed = z.array(z.string().min(1)).min(1).max(20).safeParse(body);
    if (!parsed.success) throw badParam('body', 'send a JSON array of 1 to 20 token addresses');
    const out: Record<string, unknown> = {};
    for (const mint of parsed.data) {
      const t = state.tokens.get(mint);
      if (t) out[mint] = tokenDetail(state, t);
    }
    return out;
  });
  r.add('GET', '/tokens/multi/graduating', ({ state, query }) => {
    const f = parseQuery(graduatingQuery.loose(), query);
    if (f.minCurve > f.maxCurve) throw badParam('minCurve', 'must not exceed maxCurve');
    const solUsd = state.settings.solUsd;
    return newestFirst(state)
      .filter((t) => t.status === 'curve')
      .filter((t) => {
        const pct = curvePct(t);
        return (
          pct >= f.minCurve &&
          pct <= f.maxCurve &&
          t.holderList.length >= f.minHolders &&
          (!f.markets || f.markets.includes(t.launchpad)) &&
          (f.minLiquidity === undefined || liquidityUsd(t, solUsd) >= f.minLiquidity) &&
          (f.minMarketCap === undefined || marketCapUsd(t, solUsd) >= f.minMarketCap) &&
          (!f.reduceSpam || !isSpam(t))
        );
      })
      .sort((a, b) => curvePct(b) - curvePct(a))
      .slice(0, f.limit)
      .map((t) => ({ ...tokenWithPools(state, t), curvePercentage: curvePct(t) }));
  });
  r.add('GET', '/tokens/multi/graduated', ({ state, query }) => {
    const f = parseQuery(graduatedQuery.loose(), query);
    const solUsd = state.settings.solUsd;
    return state.launched
      .filter(
        (t) =>
          t.status === 'graduated' &&
          (!f.markets || f.markets.includes(t.launchpad) || f.markets.includes('venue_a-amm')) &&
          (f.minLiquidity === undefined || liquidityUsd(t, solUsd) >= f.minLiquidity) &&
          (!f.reduceSpam || !isSpam(t)),
      )
      .sort((a, b) => (b.graduatedAt ?? 0) - (a.graduatedAt ?? 0))
      .slice((f.page - 1) * f.limit, f.page * f.limit)
      .map((t) => ({ ...tokenWithPools(state, t), graduationTx: t.graduationTx ?? null, graduationTime: t.graduatedAt ?? null }));
  });
  r.add('GET', '/tokens/:token', ({ state, params }) => tokenDetail(state, findToken(state, params['token']!)));
  r.add('GET', '/tokens/:token/ath', ({ state, params }) => {
    const t = findToken(state, params['token']!);
    return { token: t.mint, highest: t.athPriceUsd };
  });
  r.add('GET', '/tokens/:token/bundlers', ({ state, params }) => {
    const t = findToken(state, params['token']!);
    const all = roleBalance(t, 'bundler');
    const wallets = all.wallets
      .map((w) => ({
        wallet: w,
        amount: fromRaw(t.balances.get(w) ?? 0n, t.decimals),
        amountRaw: (t.balances.get(w) ?? 0n).toString(),
        percentage: pctOfSupply(t, t.balances.get(w) ?? 0n),
      }))
      .sort((a, b) => b.percentage - a.percentage)
      .slice(0, 500);
    return { token: t.mint, total: all.wallets.length, totalBundlerPercentage: pctOfSupply(t, all.raw), totalBalance: fromRaw(all.raw, t.decimals), wallets };
  });
  r.add('GET', '/deployer/:wallet', ({ state, params, query }) => {
    const f = parseQuery(deployerQuery.loose(), query);
    let list = newestFirst(state).filter((t) => t.deployer === params['wallet'] && (!f.launchpad || f.launchpad.includes(t.launchpad)));
    if (f.uniqueTokens) {
      const seen = new Set<string>();
      list = list.filter((t) => !seen.has(t.symbol) && seen.add(t.symbol));
    }
    const page = list.slice((f.page - 1) * f.limit, f.page * f.limit);
    return {
      total: list.length,
      page: f.page,
      hasMore: f.page * f.limit < list.length,
      data: page.map((t) => (f.format === 'full' ? tokenDetail(state, t) : tokenWithPools(state, t))),
    };
  });
}
