/** Prediction-market wire shapes: events, markets, orderbooks (derived from the outcome price). */
import type { MarketState } from '../model/market-state.js';
import type { PmEvent, PmMarket, PredictionState } from '../model/prediction-model.js';
import type { JsonObject } from './wire-views.js';
import { ChainpilotError } from '../../core/errors.js';

const iso = (ms: number): string => new Date(ms).toISOString();

export function pmState(state: MarketState): PredictionState {
  if (!state.prediction)
    throw new ChainpilotError('SIM_PREDICTION_OFF', 'the prediction model has not started; start the simulator before serving prediction markets', {
      retry: 'not_retryable',
    });
  return state.prediction;
}

export function marketView(m: PmMarket, ev: PmEvent | undefined): JsonObject {
  const crypto = ev?.crypto !== undefined;
  return {
    exchange: m.exchange,
    id: m.id,
    slug: m.slug,
    title: m.title,
    status: m.status === 'open' ? 'active' : 'closed',
    marketKind: 'binary',
    hasDepth: m.status === 'open',
    isTradable: m.status === 'open',
    pricingMode: 'orderbook',
    outcomes: [
      { label: crypto ? 'Up' : 'Yes', price: m.p },
      { label: crypto ? 'Down' : 'No', price: Math.round((1 - m.p) * 1000) / 1000 },
    ],
    volume: m.volume,
    clobTokenIds: [...m.tokenIds],
    eventId: m.eventId,
    eventSlug: ev?.slug,
    eventTitle: ev?.title,
    category: ev?.category,
    createdAt: iso(m.createdAt),
    closeDate: ev ? iso(ev.endAt) : undefined,
    tradeCount24h: m.trades.length,
    url: `https://pm.sim.invalid/${m.exchange}/${m.slug}`,
  };
}

export function eventView(pm: PredictionState, ev: PmEvent, withMarkets = true): JsonObject {
  const markets = ev.marketIds.map((id) => pm.markets.get(id)!);
  const open = markets.some((m) => m.status === 'open');
  const now = pm.btcHistory.at(-1)?.time ?? ev.createdAt;
  return {
    exchange: ev.exchange,
    id: ev.id,
    slug: ev.slug,
    title: ev.title,
    ticker: ev.id,
    category: ev.category,
    marketCount: markets.length,
    marketKind: 'binary',
    comboEnabled: false,
    comboGroups: [],
    negRisk: false,
    createdAt: iso(ev.createdAt),
    updatedAt: iso(now),
    startDate: iso(ev.crypto?.windowStart ?? ev.createdAt),
    endDate: iso(ev.endAt),
    description: `${ev.title} (simulated)`,
    icon: '',
    image: '',
    resolutionSource: ev.crypto ? 'sim oracle BTC/USD' : 'sim',
    tags: [ev.category],
    url: `https://pm.sim.invalid/${ev.exchange}/${ev.slug}`,
    openInterest: markets.reduce((a, m) => a + m.volume * 0.3, 0),
    volume: markets.reduce((a, m) => a + m.volume, 0),
    volume24h: markets.reduce((a, m) => a + m.volume, 0),
    status: open ? 'active' : 'closed',
    cryptoUpDown: ev.crypto ? cryptoView(ev, now) : null,
    markets: withMarkets ? markets.map((m) => marketView(m, ev)) : [],
  };
}

export function cryptoView(ev: PmEvent, now: number): JsonObject | null {
  const c = ev.crypto;
  if (!c) return null;
  const phase = c.finalPrice !== undefined ? 'resolved' : now < c.windowStart ? 'upcoming' : 'live';
  return {
    asset: 'BTC',
    interval: '5m',
    phase,
    symbol: 'BTCUSD',
    variant: 'up_down',
    priceToBeat: c.priceToBeat,
    finalPrice: c.finalPrice ?? null,
    resolutionSource: 'sim oracle BTC/USD',
    result: c.finalPrice === undefined ? null : c.finalPrice >= c.priceToBeat ? 'up' : 'down',
    seriesSlug: 'btc-up-or-down-5m',
    seriesTitle: 'BTC up or down (5 minutes)',
    windowStart: iso(c.windowStart),
    windowEnd: iso(c.windowEnd),
  };
}

/** A symmetric book around the outcome price, ten levels each side. */
export function orderbookView(m: PmMarket): JsonObject {
  const bids: JsonObject[] = [];
  const asks: JsonObject[] = [];
  for (let i = 1; i <= 10; i++) {
    const bid = Math.round((m.p - i * 0.01) * 1000) / 1000;
    const ask = Math.round((m.p + i * 0.01) * 1000) / 1000;
    if (bid > 0) bids.push({ price: bid, size: 100 * i });
    if (ask < 1) asks.push({ price: ask, size: 100 * i });
  }
  return { market: m.id, tokenId: m.tokenIds[0], bids, asks };
}
