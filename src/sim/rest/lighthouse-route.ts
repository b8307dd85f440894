/** GET /lighthouse: market activity per venue over 5m, 1h, 6h and 24h, each with changePct against the previous window. */
import type { MarketState } from '../model/market-state.js';
import { MINUTE_MS } from '../model/activity-buckets.js';
import type { RestRouter } from './rest-router.js';

const WINDOWS: Readonly<Record<string, number>> = { '5m': 300_000, '1h': 3_600_000, '6h': 21_600_000, '24h': 86_400_000 };
const MARKETS: readonly { market: string; label: string; parent?: string; match: (m: string, launchpad: string) => boolean }[] = [
  { market: 'all', label: 'All markets', match: () => true },
  { market: 'venue_a', label: 'Venue A', match: (_m, lp) => lp === 'venue_a' },
  { market: 'venue_a-amm', label: 'Venue A AMM', parent: 'venue_a', match: (m) => m === 'venue_a-amm' },
  { market: 'venue_c', label: 'Venue C', match: (_m, lp) => lp === 'venue_c' },
  { market: 'venue_e-all', label: 'Venue E (all)', match: (_m, lp) => lp === 'venue_d-curve' },
  { market: 'venue_d-curve:sim', label: 'Venue D curve (sim launchpad)', parent: 'venue_e-all', match: (m) => m === 'venue_d-curve' },
];

interface Agg {
  tx: number;
  buys: number;
  sells: number;
  wallets: Set<string>;
  vol: number;
  volBuys: number;
  volSells: number;
  created: number;
  migrations: number;
}

const pct = (cur: number, prev: number): number => (prev === 0 ? 0 : ((cur - prev) / prev) * 100);
const emptyAgg = (): Agg => ({ tx: 0, buys: 0, sells: 0, wallets: new Set(), vol: 0, volBuys: 0, volSells: 0, created: 0, migrations: 0 });

/** Aggregates of the current and previous window for every market, from the minute buckets. */
function aggregateWindow(state: MarketState, ms: number): { cur: Agg[]; prev: Agg[] } {
  const cur = MARKETS.map(emptyAgg);
  const prev = MARKETS.map(emptyAgg);
  const minute = Math.floor(state.now / MINUTE_MS) * MINUTE_MS;
  const from = minute - 2 * ms;
  const mid = minute - ms;
  for (const [side, lo, hi] of [
    [prev, from, mid],
    [cur, mid, minute],
  ] as const) {
    for (const b of state.activity.between(lo, hi)) {
      MARKETS.forEach((m, k) => {
        if (!m.match(b.market, b.launchpad)) return;
        const a = side[k]!;
        a.tx += b.transactions;
        a.buys += b.buys;
        a.sells += b.sells;
        a.vol += b.volume;
        a.volBuys += b.volumeBuys;
        a.volSells += b.volumeSells;
        for (const w of b.wallets) a.wallets.add(w);
        a.created += b.tokensCreated;
        a.migrations += b.migrations;
      });
    }
  }
  return { cur, prev };
}

export function addLighthouseRoute(r: RestRouter): void {
  r.add('GET', '/lighthouse', ({ state }) => {
    const windows = Object.entries(WINDOWS).map(([name, ms]) => ({ name, ...aggregateWindow(state, ms) }));
    return MARKETS.map((m, k) => {
      const stats: Record<string, unknown> = {};
      for (const w of windows) {
        const cur = w.cur[k]!;
        const prev = w.prev[k]!;
        stats[w.name] = {
          transactions: { total: cur.tx, buys: cur.buys, sells: cur.sells, changePct: pct(cur.tx, prev.tx) },
          wallets: { total: cur.wallets.size, changePct: pct(cur.wallets.size, prev.wallets.size) },
          volume: { total: cur.vol, buys: cur.volBuys, sells: cur.volSells, changePct: pct(cur.vol, prev.vol) },
          tokensCreated: { total: cur.created, changePct: pct(cur.created, prev.created) },
          migrations: { total: cur.migrations, changePct: pct(cur.migrations, prev.migrations) },
        };
      }
      return { market: m.market, label: m.label, icon: '', url: '', ...(m.parent ? { parent: m.parent } : {}), stats };
    });
  });
}
