/**
 * Prediction wallet analytics (exchange_b only; exchange_a has no public wallets): overview,
 * positions, closed positions, FIFO PnL, trades, activity, and the leaderboards built from them.
 * Every simulated fill buys outcome 0; a resolved market pays 1 or 0 per share.
 */
import { z } from 'zod';
import type { MarketState } from '../model/market-state.js';
import type { PmMarket } from '../model/prediction-model.js';
import { pmState } from '../views/prediction-views.js';
import { badParam, parseQuery } from './rest-errors.js';
import type { RestRouter } from './rest-router.js';

interface PmPosition {
  market: string;
  title: string;
  shares: number;
  cost: number;
  value: number;
  pnl: number;
  closed: boolean;
  trades: number;
  lastTrade: number;
}

function positions(state: MarketState, wallet: string): PmPosition[] {
  const out: PmPosition[] = [];
  for (const m of pmState(state).markets.values()) {
    if (m.exchange !== 'exchange_b') continue;
    const mine = m.trades.filter((t) => t.wallet === wallet);
    if (mine.length === 0) continue;
    const shares = mine.reduce((a, t) => a + t.size, 0);
    const cost = mine.reduce((a, t) => a + t.size * t.price, 0);
    const value = shares * m.p;
    out.push({
      market: m.id,
      title: m.title,
      shares,
      cost,
      value,
      pnl: value - cost,
      closed: m.status === 'closed',
      trades: mine.length,
      lastTrade: mine.at(-1)!.time,
    });
  }
  return out;
}

function wallets(markets: Iterable<PmMarket>): Set<string> {
  const set = new Set<string>();
  for (const m of markets) if (m.exchange === 'exchange_b') for (const t of m.trades) set.add(t.wallet);
  return set;
}

const exchangeQuery = z.object({ exchange: z.enum(['exchange_a', 'exchange_b', 'xb']).default('exchange_b') }).loose();

export function addPredictionAccountRoutes(r: RestRouter): void {
  const account =
    (view: (state: MarketState, wallet: string) => unknown) =>
    ({ state, params, query }: { state: MarketState; params: Readonly<Record<string, string>>; query: Readonly<Record<string, string>> }): unknown => {
      if (parseQuery(exchangeQuery, query).exchange === 'exchange_a') throw badParam('exchange', 'exchange_a has no public wallets; use exchange_b');
      return view(state, params['address']!);
    };
  r.add(
    'GET',
    '/v1/accounts/:address/overview',
    account((state, w) => {
      const ps = positions(state, w);
      return {
        address: w,
        exchange: 'exchange_b',
        positions: ps.filter((p) => !p.closed).length,
        closedPositions: ps.filter((p) => p.closed).length,
        volume: ps.reduce((a, p) => a + p.cost, 0),
        pnl: ps.reduce((a, p) => a + p.pnl, 0),
      };
    }),
  );
  r.add(
    'GET',
    '/v1/accounts/:address/positions',
    account((state, w) => ({ data: positions(state, w).filter((p) => !p.closed) })),
  );
  r.add(
    'GET',
    '/v1/accounts/:address/closed-positions',
    account((state, w) => ({ data: positions(state, w).filter((p) => p.closed) })),
  );
  r.add(
    'GET',
    '/v1/accounts/:address/pnl',
    account((state, w) => {
      const ps = positions(state, w);
      return {
        address: w,
        realized: ps.filter((p) => p.closed).reduce((a, p) => a + p.pnl, 0),
        unrealized: ps.filter((p) => !p.closed).reduce((a, p) => a + p.pnl, 0),
        method: 'fifo',
      };
    }),
  );
  r.add(
    'GET',
    '/v1/accounts/:address/pnl/chart',
    account((state, w) => {
      let cum = 0;
      return {
        address: w,
        points: positions(state, w)
          .sort((a, b) => a.lastTrade - b.lastTrade)
          .map((p) => ({ time: p.lastTrade, pnl: (cum += p.pnl) })),
      };
    }),
  );
  const fills = (state: MarketState, w: string): unknown => ({
    data: [...pmState(state).markets.values()]
      .filter((m) => m.exchange === 'exchange_b')
      .flatMap((m) => m.trades.filter((t) => t.wallet === w).map((t) => ({ market: m.id, side: 'buy', ...t })))
      .sort((a, b) => b.time - a.time),
  });
  r.add('GET', '/v1/accounts/:address/trades', account(fills));
  r.add('GET', '/v1/accounts/:address/activity', account(fills));
  const board = (state: MarketState, markets: Iterable<PmMarket>, by: 'pnl' | 'volume'): unknown => {
    const list = [...markets];
    const rows = [...wallets(list)].map((w) => {
      const ps = positions(state, w).filter((p) => list.some((m) => m.id === p.market));
      return { address: w, pnl: ps.reduce((a, p) => a + p.pnl, 0), volume: ps.reduce((a, p) => a + p.cost, 0), trades: ps.reduce((a, p) => a + p.trades, 0) };
    });
    return { data: rows.sort((a, b) => b[by] - a[by]).slice(0, 100) };
  };
  r.add('GET', '/v1/leaderboard/pnl', ({ state }) => board(state, pmState(state).markets.values(), 'pnl'));
  r.add('GET', '/v1/leaderboard/traders', ({ state }) => board(state, pmState(state).markets.values(), 'volume'));
  const eventMarkets = (state: MarketState, id: string): PmMarket[] => [...pmState(state).markets.values()].filter((m) => m.eventId === id);
  r.add('GET', '/v1/events/:event_id/leaderboard/pnl', ({ state, params }) => board(state, eventMarkets(state, params['event_id']!), 'pnl'));
  r.add('GET', '/v1/events/:event_id/leaderboard/traders', ({ state, params }) => board(state, eventMarkets(state, params['event_id']!), 'volume'));
  r.add('GET', '/v1/crypto/traders', ({ state }) => {
    const pm = pmState(state);
    const crypto = new Set(pm.events.filter((e) => e.crypto).map((e) => e.id));
    return board(
      state,
      [...pm.markets.values()].filter((m) => crypto.has(m.eventId)),
      'volume',
    );
  });
}
