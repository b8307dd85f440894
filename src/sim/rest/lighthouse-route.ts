/** GET /lighthouse: market activity per venue over 5m, 1h, 6h and 24h, each with changePct against the previous window. */
import type { MarketState } from '../model/market-state.js';
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

interface Agg { tx: number; buys: number; sells: number; wallets: Set<string>; vol: number; volBuys: number; volSells: number; created: number; migrations: number }

const pct = (cur: number, prev: number): number => (prev === 0 ? 0 : ((cur - prev) / prev) * 100);

function aggregate(state: MarketState, from: number, to: number, match: (m: string, lp: string) => boolean): Agg {
  const a: Agg = { tx: 0, buys: 0, sells: 0, wallets: new Set(), vol: 0, volBuys: 0, volSells: 0, created: 0, migrations: 0 };
  const tape = state.tape;
  let lo = 0;
  let hi = tape.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tape[mid]!.time <= from) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < tape.length && tape[i]!.time <= to; i++) {
    const tr = tape[i]!;
    const lp = state.tokens.get(tr.mint)?.launchpad ?? '';
    if (!match(tr.market, lp)) continue;
    a.tx += 1;
    a.wallets.add(tr.wallet);
    a.vol += tr.volumeUsd;
    if (tr.side === 'buy') {
      a.buys += 1;
      a.volBuys += tr.volumeUsd;
    } else {
      a.sells += 1;
      a.volSells += tr.volumeUsd;
    }
  }
  for (const t of state.launched) {
    if (t.createdAt > from && t.createdAt <= to && match(t.launchpad, t.launchpad)) a.created += 1;
    if (t.status === 'graduated' && t.graduatedAt! > from && t.graduatedAt! <= to && match('venue_a-amm', t.launchpad)) a.migrations += 1;
  }
  return a;
}

export function addLighthouseRoute(r: RestRouter): void {
  r.add('GET', '/lighthouse', ({ state }) =>
    MARKETS.map((m) => {
      const stats: Record<string, unknown> = {};
      for (const [name, ms] of Object.entries(WINDOWS)) {
        const cur = aggregate(state, state.now - ms, state.now, m.match);
        const prev = aggregate(state, state.now - 2 * ms, state.now - ms, m.match);
        stats[name] = {
          transactions: { total: cur.tx, buys: cur.buys, sells: cur.sells, changePct: pct(cur.tx, prev.tx) },
          wallets: { total: cur.wallets.size, changePct: pct(cur.wallets.size, prev.wallets.size) },
          volume: { total: cur.vol, buys: cur.volBuys, sells: cur.volSells, changePct: pct(cur.vol, prev.vol) },
          tokensCreated: { total: cur.created, changePct: pct(cur.created, prev.created) },
          migrations: { total: cur.migrations, changePct: pct(cur.migrations, prev.migrations) },
        };
      }
      return { market: m.market, label: m.label, icon: '', url: '', ...(m.parent ? { parent: m.parent } : {}), stats };
    }),
  );
}
