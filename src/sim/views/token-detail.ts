/** Token detail and search-row views. */
import type { MarketState } from '../model/market-state.js';
import type { TokenState } from '../model/model-types.js';
import { curvePct, liquidityUsd, marketCapUsd, priceUsd } from '../model/token-pricing.js';
import { tokenWindows } from './token-stats.js';
import { riskView, tokenMeta, tokenWithPools, type JsonObject } from './wire-views.js';

/** The full token object: token, pools, events (price change per window), risk, buys, sells, txns, holders. */
export function tokenDetail(state: MarketState, t: TokenState): JsonObject {
  const windows = tokenWindows(state, t, state.now);
  const events: JsonObject = {};
  for (const [k, v] of Object.entries(windows)) events[k] = { priceChangePercentage: v.priceChangePercentage };
  return {
    ...tokenWithPools(state, t),
    events,
    risk: riskView(t),
    buys: t.buys,
    sells: t.sells,
    txns: t.buys + t.sells,
    holders: t.holderList.length,
  };
}

export function riskScore(t: TokenState): number {
  return riskView(t)['score'] as number;
}

/** One search result: a flat token summary with its primary pool, lifecycle and community fields. */
export function searchRow(state: MarketState, t: TokenState): JsonObject {
  const solUsd = state.settings.solUsd;
  return {
    ...tokenMeta(t),
    poolAddress: t.amm ? t.amm.poolId : t.curve.poolId,
    market: t.amm ? 'venue_a-amm' : t.launchpad,
    launchpad: t.launchpad,
    deployer: t.deployer,
    status: t.status === 'graduated' ? 'graduated' : 'graduating',
    curvePercentage: curvePct(t),
    priceUsd: priceUsd(t, solUsd),
    liquidityUsd: liquidityUsd(t, solUsd),
    marketCapUsd: marketCapUsd(t, solUsd),
    holders: t.holderList.length,
    buys: t.buys,
    sells: t.sells,
    totalTransactions: t.buys + t.sells,
    volume: (Number(t.volumeLamports) / 1e9) * solUsd,
    graduatedAt: t.status === 'graduated' ? (t.graduatedAt ?? null) : null,
    riskScore: riskScore(t),
    hasCoinCommunity: t.communityMessages > 0,
    communityMessages: t.communityMessages,
  };
}
