/** Trade statistics of a token over windows, from its own trade tape. */
import type { UnixMs } from '../../core/index.js';
import type { MarketState } from '../model/market-state.js';
import type { TokenState } from '../model/model-types.js';
import type { JsonObject } from './wire-views.js';

export const STAT_WINDOWS: Readonly<Record<string, number>> = {
  '1m': 60_000,
  '5m': 300_000,
  '15m': 900_000,
  '30m': 1_800_000,
  '1h': 3_600_000,
  '6h': 21_600_000,
  '12h': 43_200_000,
  '24h': 86_400_000,
};

export interface WindowStat {
  buys: number;
  sells: number;
  transactions: number;
  volume: number;
  wallets: number;
  priceChangePercentage: number;
}

/** Trade statistics of one token over the `ms` before `now`. */
export function tokenWindow(state: MarketState, t: TokenState, now: UnixMs, ms: number): WindowStat {
  const rows = state.tradesByToken.get(t.mint) ?? [];
  let buys = 0;
  let sells = 0;
  let volume = 0;
  let first: number | undefined;
  const wallets = new Set<string>();
  for (let i = rows.length - 1; i >= 0; i--) {
    const tr = rows[i]!;
    if (tr.time <= now - ms) break;
    if (tr.side === 'buy') buys += 1;
    else sells += 1;
    volume += tr.volumeUsd;
    wallets.add(tr.wallet);
    first = tr.priceUsd;
  }
  const last = rows[rows.length - 1]?.priceUsd;
  const priceChangePercentage = first !== undefined && last !== undefined && first > 0 ? ((last - first) / first) * 100 : 0;
  return { buys, sells, transactions: buys + sells, volume, wallets: wallets.size, priceChangePercentage };
}

/** Per-window trade statistics (`1m` ... `24h`) of a token at `now`. */
export function tokenWindows(state: MarketState, t: TokenState, now: UnixMs): Record<string, WindowStat> {
  const windows: Record<string, WindowStat> = {};
  for (const [name, ms] of Object.entries(STAT_WINDOWS)) windows[name] = tokenWindow(state, t, now, ms);
  return windows;
}

/** `{buys, sells, txns, volume, ..., windows: {1m: {...}}}` for a token at `now`. */
export function tokenStats(state: MarketState, t: TokenState, now: UnixMs): JsonObject {
  const windows = tokenWindows(state, t, now) as unknown as JsonObject;
  return {
    token: t.mint,
    buys: t.buys,
    sells: t.sells,
    txns: t.buys + t.sells,
    volume: (Number(t.volumeLamports) / 1e9) * state.settings.solUsd,
    volumeSol: Number(t.volumeLamports) / 1e9,
    holders: t.holderList.length,
    windows,
    timestamp: now,
  };
}
