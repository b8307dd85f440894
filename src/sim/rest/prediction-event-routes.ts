/** Prediction events: `/v1/events` with its envelope and cursor, batch, candles, crypto windows. */
import { z } from 'zod';
import type { PmEvent } from '../model/prediction-model.js';
import { buildPmCandles } from './prediction-market-routes.js';
import { cryptoView, eventView, pmState } from '../views/prediction-views.js';
import { badParam, notFound, parseQuery, q } from './rest-errors.js';
import type { RestRouter } from './rest-router.js';

const eventsQuery = z.object({
  exchange: z.enum(['exchange_a', 'exchange_b', 'xb']).optional(),
  status: z.enum(['active', 'closed', 'all']).default('active'),
  category: z.string().optional(),
  tag: z.string().optional(),
  topic: z.string().optional(),
  marketKind: z.enum(['binary', 'combo']).optional(),
  sort: z.enum(['volume', 'marketCount']).default('volume'),
  order: z.enum(['asc', 'desc']).default('desc'),
  limit: q.int(0, 500).default(100),
  cursor: z.string().regex(/^\d+$/, 'send back the cursor from the previous response').optional(),
  includeMarkets: q.bool().default(true),
});

export const normalizeExchange = (e: string | undefined): string | undefined => (e === 'xb' ? 'exchange_b' : e);

export function addPredictionEventRoutes(r: RestRouter): void {
  r.add('GET', '/v1/events', ({ state, query }) => {
    const f = parseQuery(eventsQuery.loose(), query);
    const pm = pmState(state);
    const exchange = normalizeExchange(f.exchange);
    const topic = f.category ?? f.tag ?? f.topic;
    const rows = pm.events
      .filter((ev) => {
        const v = eventView(pm, ev, false);
        return (
          (!exchange || ev.exchange === exchange) &&
          (!topic || ev.category === topic) &&
          (f.marketKind === undefined || f.marketKind === 'binary') &&
          (f.status === 'all' || v['status'] === f.status)
        );
      })
      .map((ev) => eventView(pm, ev, f.includeMarkets));
    const dir = f.order === 'asc' ? 1 : -1;
    rows.sort((a, b) => ((a[f.sort] as number) - (b[f.sort] as number)) * dir || ((a['id'] as string) < (b['id'] as string) ? -1 : 1));
    const offset = f.cursor === undefined ? 0 : Number(f.cursor);
    const data = rows.slice(offset, offset + f.limit);
    const hasMore = offset + f.limit < rows.length;
    return { count: data.length, data, hasMore, cursor: hasMore ? String(offset + f.limit) : '' };
  });
  r.add('GET', '/v1/events/batch', ({ state, query }) => {
    const ids = (query['ids'] ?? '').split(',').filter((s) => s.length > 0);
    if (ids.length === 0 || ids.length > 100) throw badParam('ids', 'send 1 to 100 comma-separated event ids');
    const pm = pmState(state);
    return { data: pm.events.filter((e) => ids.includes(e.id)).map((e) => eventView(pm, e)) };
  });
  const findEvent = (id: string, events: readonly PmEvent[]): PmEvent => {
    const ev = events.find((e) => e.id === id || e.slug === id);
    if (!ev) throw notFound(`event ${id}`);
    return ev;
  };
  r.add('GET', '/v1/events/:event_id/candlesticks', ({ state, params, query }) => {
    const pm = pmState(state);
    const ev = findEvent(params['event_id']!, pm.events);
    return { event: ev.id, candles: ev.marketIds.map((id) => ({ market: id, candles: buildPmCandles(pm.markets.get(id)!, query['interval'] ?? '1h') })) };
  });
  r.add('GET', '/v1/events/:event_id/crypto', ({ state, params }) => {
    const pm = pmState(state);
    const ev = findEvent(params['event_id']!, pm.events);
    if (!ev.crypto) throw notFound(`crypto window of event ${ev.id}`);
    return cryptoView(ev, state.now);
  });
  r.add('GET', '/v1/crypto/events', ({ state }) => {
    const pm = pmState(state);
    const data = pm.events
      .filter((e) => e.crypto)
      .slice(-12)
      .reverse()
      .map((e) => eventView(pm, e));
    return { count: data.length, data, hasMore: false, cursor: '' };
  });
  r.add('GET', '/v1/crypto/price', ({ state }) => {
    const pm = pmState(state);
    return { asset: 'BTC', symbol: 'BTCUSD', price: pm.btcUsd, timestamp: pm.btcHistory.at(-1)?.time ?? state.now };
  });
  r.add('GET', '/v1/crypto/price-history', ({ state }) => ({
    asset: 'BTC',
    history: pmState(state)
      .btcHistory.slice(-1000)
      .map((h) => ({ time: h.time, price: h.price })),
  }));
  r.add('GET', '/v1/categories', ({ state }) => ({ data: [...new Set(pmState(state).events.map((e) => e.category))].map((c) => ({ id: c, label: c })) }));
  r.add('GET', '/v1/series', () => ({ data: [{ slug: 'btc-up-or-down-5m', title: 'BTC up or down (5 minutes)' }] }));
  r.add('GET', '/v1/sports', () => ({ data: [] }));
}
