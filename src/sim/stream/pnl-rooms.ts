/** Live PnL rooms: `pnl:{wallet}:{token}`, `pnl:{wallet}` (tradeUpdate) and `pnl:{wallet}:summary`. */
import type { MarketState } from '../model/market-state.js';
import type { TokenState, TradeRecord } from '../model/model-types.js';
import { pnlPositionView, walletSummary } from '../views/pnl-views.js';
import type { DatastreamHub } from './datastream-hub.js';

export function publishPnl(state: MarketState, hub: DatastreamHub, t: TokenState, tr: TradeRecord): void {
  const a = `pnl:${tr.wallet}:${t.mint}`;
  const b = `pnl:${tr.wallet}`;
  const s = `pnl:${tr.wallet}:summary`;
  if (!hub.has(a) && !hub.has(b) && !hub.has(s)) return;
  const p = state.pnl.position(tr.wallet, t.mint);
  if (!p) return;
  const update = { type: 'tradeUpdate', wallet: tr.wallet, token: t.mint, tx: tr.tx, side: tr.side, position: pnlPositionView(state, p), timestamp: tr.time };
  if (hub.has(a)) hub.publish(a, update);
  if (hub.has(b)) hub.publish(b, update);
  if (hub.has(s)) hub.publish(s, { type: 'summary', ...walletSummary(state, tr.wallet), timestamp: tr.time });
}
