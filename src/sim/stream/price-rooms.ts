/** Price, statistics and volume rooms of a token and its pools, published after each trade (room names built only for families someone joined). */
import type { AggregatedPrice, PriceUpdate } from '../../client/datastream/index.js';
import type { MarketState } from '../model/market-state.js';
import type { TokenState, TradeRecord } from '../model/model-types.js';
import { liquidityUsd, marketCapUsd, priceSol } from '../model/token-pricing.js';
import { tokenStats } from '../views/token-stats.js';
import type { DatastreamHub } from './datastream-hub.js';

export function publishPriceRooms(state: MarketState, hub: DatastreamHub, t: TokenState, tr: TradeRecord): void {
  const solUsd = state.settings.solUsd;
  // the service's shape: `price` in USD, `price_quote` in SOL, `time` in Unix ms
  const price = (): PriceUpdate => ({
    token: t.mint,
    pool: tr.pool,
    market: tr.market,
    price: tr.priceUsd,
    price_quote: priceSol(t),
    liquidity: liquidityUsd(t, solUsd),
    marketCap: marketCapUsd(t, solUsd),
    time: tr.time,
  });
  const hasPrice = hub.hasFamily('price');
  if (hasPrice) {
    const room = `price:token:${t.mint}`;
    if (hub.has(room)) hub.publish(room, price());
  }
  if (hub.hasFamily('token')) for (const room of [`token:${t.mint}`, `token:${tr.pool}`]) if (hub.has(room)) hub.publish(room, price());
  const agg = hasPrice ? `price:aggregated:${t.mint}` : '';
  if (hasPrice && hub.has(agg)) {
    const liq = liquidityUsd(t, solUsd);
    const msg: AggregatedPrice = {
      token: t.mint,
      timestamp: tr.time,
      price: tr.priceUsd,
      pool: tr.pool,
      aggregated: { median: tr.priceUsd, average: tr.priceUsd, min: tr.priceUsd, max: tr.priceUsd, poolCount: 1 },
      topPools: [{ poolId: tr.pool, price: tr.priceUsd, liquidity: liq, market: tr.market }],
    };
    hub.publish(agg, msg);
  }
  if (hub.hasFamily('stats'))
    for (const room of [`stats:token:${t.mint}:total`, `stats:pool:${tr.pool}:total`]) if (hub.has(room)) hub.publish(room, tokenStats(state, t, tr.time));
  if (!hub.hasFamily('volume')) return;
  const vol = (): unknown => ({
    token: t.mint,
    pool: tr.pool,
    side: tr.side,
    volume: tr.volumeUsd,
    volumeSol: Number(tr.solLamports) / 1e9,
    totalVolume: (Number(t.volumeLamports) / 1e9) * solUsd,
    timestamp: tr.time,
  });
  for (const room of [`volume:token:${t.mint}`, `volume:pool:${tr.pool}`]) if (hub.has(room)) hub.publish(room, vol());
}
