/** Prediction markets: lists, search, one market, trades, candles, price, midpoint, spread, books. */
import { z } from 'zod';
import type { MarketState } from '../model/market-state.js';
import type { PmMarket } from '../model/prediction-model.js';
import { marketView, orderbookView, pmState } from '../views/prediction-views.js';
import { badParam, notFound, parseQuery, q } from './rest-errors.js';
import type { RestRouter } from './rest-router.js';

const INTERVAL_MS: Readonly<Record<string, number>> = { '1m': 60_000, '5m': 300_000, '15m': 900_000, '1h': 3_600_000, '4h': 14_400_000, '1d': 86_400_000 };

export function buildPmCandles(m: PmMarket, interval: string): { time: number; open: number; high: number; low: number; close: number; volume: number }[] {
  const ms = Object.hasOwn(INTERVAL_MS, interval) ? INTERVAL_MS[interval] : undefined;
  if (ms === undefined) throw badParam('interval', `use one of ${Object.keys(INTERVAL_MS).join(', ')}`);
  const out: { time: number; open: number; high: number; low: number; close: number; volume: number }[] = [];
  for (const t of m.trades) {
    const b = Math.floor(t.time / ms) * (ms / 1000);
    let c = out.at(-1);
    if (!c || c.time !== b) out.push((c = { time: b, open: t.price, high: t.price, low: t.price, close: t.price, volume: 0 }));
    c.high = Math.max(c.high, t.price);
    c.low = Math.min(c.low, t.price);
    c.close = t.price;
    c.volume += t.size;
  }
  return out;
}

function find(state: MarketState, id: string): PmMarket {
  const pm = pmState(state);
  const m = pm.markets.get(id) ?? [...pm.markets.values()].find((x) => x.slug === id || x.tokenIds.includes(id));
  if (!m) throw notFound(`market ${id}`);
  return m;
}

const view = (state: MarketState, m: PmMarket): unknown =>
  marketView(
    m,
    pmState(state).events.find((e) => e.id === m.eventId),
  );
const listQuery = z
  .object({ exchange: z.enum(['exchange_a', 'exchange_b', 'xb']).optional(), limit: q.int(1, 500).default(50), q: z.string().optional() })
  .loose();

function list(state: MarketState, query: Record<string, string>, order: (a: PmMarket, b: PmMarket) => number): unknown {
  const f = parseQuery(listQuery, query);
  const ex = f.exchange === 'xb' ? 'exchange_b' : f.exchange;
  const text = f.q?.toLowerCase();
  const rows = [...pmState(state).markets.values()].filter((m) => (!ex || m.exchange === ex) && (!text || m.title.toLowerCase().includes(text))).sort(order);
  return { count: Math.min(rows.length, f.limit), data: rows.slice(0, f.limit).map((m) => view(state, m)) };
}

export function addPredictionMarketRoutes(r: RestRouter): void {
  r.add('GET', '/v1/markets/trending', ({ state, query }) => list(state, query, (a, b) => b.trades.length - a.trades.length));
  r.add('GET', '/v1/markets/new', ({ state, query }) => list(state, query, (a, b) => b.createdAt - a.createdAt));
  r.add('GET', '/v1/markets/search', ({ state, query }) => {
    if (!query['q']) throw badParam('q', 'send the text to search for');
    return list(state, query, (a, b) => b.volume - a.volume);
  });
  r.add('GET', '/v1/browse', ({ state, query }) => list(state, query, (a, b) => b.volume - a.volume));
  const batch = ({ state, query, body }: { state: MarketState; query: Record<string, string>; body: unknown }): unknown => {
    // POST body: {ids: [...]} (what the client sends) or a bare array; GET: ids=a,b
    const fromBody = Array.isArray(body)
      ? body
      : typeof body === 'object' && body !== null && Array.isArray((body as { ids?: unknown }).ids)
        ? (body as { ids: unknown[] }).ids
        : undefined;
    const ids = fromBody ? fromBody.map(String) : (query['ids'] ?? '').split(',').filter((s) => s.length > 0);
    if (ids.length === 0 || ids.length > 100) throw badParam('ids', 'send 1 to 100 market ids');
    const pm = pmState(state);
    return {
      data: ids
        .map((id) => pm.markets.get(id))
        .filter((m): m is PmMarket => !!m)
        .map((m) => view(state, m)),
    };
  };
  r.add('GET', '/v1/markets/batch', batch);
  r.add('POST', '/v1/markets/batch', batch);
  r.add('GET', '/v1/markets/trades', ({ state }) => ({
    data: [...pmState(state).markets.values()]
      .flatMap((m) => m.trades.slice(-50).map((t) => ({ market: m.id, exchange: m.exchange, ...t })))
      .sort((a, b) => b.time - a.time)
      .slice(0, 200),
  }));
  r.add('GET', '/v1/markets/books', ({ state, query }) => ({
    data: (query['ids'] ?? '')
      .split(',')
      .filter((s) => s)
      .map((id) => orderbookView(find(state, id))),
  }));
  r.add('GET', '/v1/markets/candlesticks/batch', ({ state, query }) => ({
    data: (query['ids'] ?? '')
      .split(',')
      .filter((s) => s)
      .map((id) => ({ market: id, candles: buildPmCandles(find(state, id), query['interval'] ?? '1h') })),
  }));
  r.add('GET', '/v1/markets/slug/:slug', ({ state, params }) => view(state, find(state, params['slug']!)));
  r.add('GET', '/v1/markets/:ticker', ({ state, params }) => view(state, find(state, params['ticker']!)));
  r.add('GET', '/v1/markets/:ticker/trades', ({ state, params }) => ({ data: find(state, params['ticker']!).trades.slice(-500).reverse() }));
  r.add('GET', '/v1/markets/:ticker/candlesticks', ({ state, params, query }) => ({
    market: params['ticker'],
    candles: buildPmCandles(find(state, params['ticker']!), query['interval'] ?? '1h'),
  }));
  r.add('GET', '/v1/markets/:ticker/price', ({ state, params }) => ({ market: params['ticker'], price: find(state, params['ticker']!).p }));
  r.add('GET', '/v1/markets/:ticker/midpoint', ({ state, params }) => ({ market: params['ticker'], midpoint: find(state, params['ticker']!).p }));
  r.add('GET', '/v1/markets/:ticker/spread', ({ state, params }) => {
    const b = orderbookView(find(state, params['ticker']!));
    const bid = (b['bids'] as { price: number }[])[0]?.price ?? 0;
    const ask = (b['asks'] as { price: number }[])[0]?.price ?? 1;
    return { market: params['ticker'], bid, ask, spread: Math.round((ask - bid) * 1000) / 1000 };
  });
  r.add('GET', '/v1/markets/:ticker/orderbook', ({ state, params }) => orderbookView(find(state, params['ticker']!)));
  r.add('GET', '/v1/markets/:ticker/quote', ({ state, params, query }) => {
    const size = Number(query['size'] ?? '100');
    if (!Number.isFinite(size) || size <= 0) throw badParam('size', 'send a positive size');
    const asks = orderbookView(find(state, params['ticker']!))['asks'] as { price: number; size: number }[];
    let left = size;
    let cost = 0;
    const ladder: { price: number; size: number }[] = [];
    for (const a of asks) {
      if (left <= 0) break;
      const take = Math.min(left, a.size);
      ladder.push({ price: a.price, size: take });
      cost += take * a.price;
      left -= take;
    }
    return { market: params['ticker'], size, filled: size - left, vwap: size - left > 0 ? cost / (size - left) : null, ladder };
  });
}
