/**
 * A small prediction-market model: a few binary events per exchange whose outcome prices random-walk
 * with seeded trades, and a BTC up/down window series driven by a random-walk underlying.
 */
import type { UnixMs } from '../../core/index.js';
import { simAddress } from '../sim-ids.js';
import { emit, type MarketState } from './market-state.js';

export interface PmTrade {
  readonly time: UnixMs;
  readonly price: number;
  readonly size: number;
  readonly outcomeIndex: number;
  readonly wallet: string;
}

export interface PmMarket {
  readonly exchange: 'exchange_a' | 'exchange_b';
  readonly id: string;
  readonly slug: string;
  readonly title: string;
  readonly eventId: string;
  status: 'open' | 'closed';
  /** Outcome 0 is `Yes`/`Up`; its price is `p`, outcome 1 is `1 - p`. */
  p: number;
  readonly tokenIds: readonly [string, string];
  volume: number;
  readonly trades: PmTrade[];
  readonly createdAt: UnixMs;
}

export interface PmEvent {
  readonly exchange: 'exchange_a' | 'exchange_b';
  readonly id: string;
  readonly slug: string;
  readonly title: string;
  readonly category: string;
  readonly createdAt: UnixMs;
  readonly endAt: UnixMs;
  readonly marketIds: string[];
  readonly crypto?: { readonly windowStart: UnixMs; readonly windowEnd: UnixMs; readonly priceToBeat: number; finalPrice?: number };
}

export interface PredictionState {
  readonly events: PmEvent[];
  readonly markets: Map<string, PmMarket>;
  btcUsd: number;
  readonly btcHistory: { time: UnixMs; price: number }[];
  nextTickAt: UnixMs;
  nextWindowAt: UnixMs;
  /** Prediction traders (exchange_b wallets are public; exchange_a has no public wallets). */
  readonly traders: readonly string[];
  /** Events made so far, forgotten ones included (numbers ids). */
  made: number;
}

const TOPICS = ['Will the launchpad ship v2', 'Will SOL close above 200', 'Will the fee switch pass', 'Will the index rebalance'];

export function createPrediction(state: MarketState, at: UnixMs): PredictionState {
  const traders = Array.from({ length: 40 }, () => simAddress(state.random));
  const pm: PredictionState = { events: [], markets: new Map(), btcUsd: 95_000, btcHistory: [], nextTickAt: at, nextWindowAt: at, traders, made: 0 };
  for (let i = 0; i < state.settings.predictionEvents; i++) {
    const exchange = i % 2 === 0 ? 'exchange_b' : 'exchange_a';
    addEvent(state, pm, exchange, TOPICS[i % TOPICS.length]!, 'politics', at, (at + 30 * 86_400_000) as UnixMs, 2);
  }
  return pm;
}

function addEvent(
  state: MarketState,
  pm: PredictionState,
  exchange: PmEvent['exchange'],
  title: string,
  category: string,
  at: UnixMs,
  endAt: UnixMs,
  marketCount: number,
  crypto?: PmEvent['crypto'],
): PmEvent {
  const r = state.random;
  pm.made += 1;
  const id = `${exchange === 'exchange_a' ? 'EVA' : 'evb'}-${pm.made}`;
  const ev: PmEvent = {
    exchange,
    id,
    slug: slugify(title) + `-${pm.made}`,
    title,
    category,
    createdAt: at,
    endAt,
    marketIds: [],
    ...(crypto ? { crypto } : {}),
  };
  for (let m = 0; m < marketCount; m++) {
    const mid = `${id}-M${m + 1}`;
    const market: PmMarket = {
      exchange,
      id: mid,
      slug: `${ev.slug}-m${m + 1}`,
      title: marketCount > 1 ? `${title} (line ${m + 1})` : title,
      eventId: id,
      status: 'open',
      p: crypto ? 0.5 : 0.2 + r.next() * 0.6,
      tokenIds: [simAddress(r), simAddress(r)],
      volume: 0,
      trades: [],
      createdAt: at,
    };
    pm.markets.set(mid, market);
    ev.marketIds.push(mid);
  }
  pm.events.push(ev);
  return ev;
}

/** Advances prices, the underlying and the up/down windows to `at`. */
export function stepPrediction(state: MarketState, at: UnixMs): void {
  const r = state.random;
  const pm = (state.prediction ??= createPrediction(state, at));
  while (pm.nextTickAt <= at) {
    pm.btcUsd = Math.round(pm.btcUsd * (1 + (r.next() - 0.5) * 0.0008) * 100) / 100;
    pm.btcHistory.push({ time: pm.nextTickAt, price: pm.btcUsd });
    if (pm.btcHistory.length > 20_000) pm.btcHistory.splice(0, 5_000);
    emit(state, { kind: 'pm_crypto', asset: 'BTC', price: pm.btcUsd, at: pm.nextTickAt });
    pm.nextTickAt = (pm.nextTickAt + 1000) as UnixMs;
  }
  if (pm.nextWindowAt <= at) {
    for (const ev of pm.events) {
      if (!ev.crypto || ev.crypto.finalPrice !== undefined || ev.crypto.windowEnd > at) continue;
      ev.crypto.finalPrice = pm.btcUsd;
      for (const id of ev.marketIds) {
        const m = pm.markets.get(id)!;
        m.status = 'closed';
        m.p = pm.btcUsd >= ev.crypto.priceToBeat ? 1 : 0;
      }
    }
    forgetSettled(pm, state.settings.maxSettledPredictionEvents);
    const len = state.settings.cryptoWindowMs;
    const start = (Math.floor(at / len) * len) as UnixMs;
    addEvent(state, pm, 'exchange_b', `BTC up or down ${new Date(start).toISOString().slice(0, 16)}`, 'crypto', at, (start + len) as UnixMs, 1, {
      windowStart: start,
      windowEnd: (start + len) as UnixMs,
      priceToBeat: pm.btcUsd,
    });
    pm.nextWindowAt = (start + len) as UnixMs;
  }
  for (const m of pm.markets.values()) {
    if (m.status !== 'open' || !r.chance(0.03)) continue;
    const ev = pm.events.find((e) => e.id === m.eventId);
    const drift = ev?.crypto ? ((pm.btcUsd - ev.crypto.priceToBeat) / ev.crypto.priceToBeat) * 50 : 0;
    m.p = Math.min(0.99, Math.max(0.01, Math.round((m.p + (r.next() - 0.5) * 0.04 + drift * 0.01) * 1000) / 1000));
    const size = r.int(5, 500);
    m.volume += size * m.p;
    m.trades.push({ time: at, price: m.p, size, outcomeIndex: 0, wallet: r.pick(pm.traders) });
    if (m.trades.length > 5_000) m.trades.splice(0, 1_000);
    emit(state, { kind: 'pm_price', exchange: m.exchange, tokenId: m.tokenIds[0], price: m.p, at });
  }
}

/** Settled events beyond `max` (`maxSettledPredictionEvents`) leave with their markets (closed markets draw no randomness). */
function forgetSettled(pm: PredictionState, max: number): void {
  let settled = 0;
  for (const ev of pm.events) if (ev.crypto?.finalPrice !== undefined) settled++;
  if (settled <= max) return;
  let drop = settled - max;
  const kept = pm.events.filter((ev) => {
    if (drop === 0 || ev.crypto?.finalPrice === undefined) return true;
    drop--;
    for (const id of ev.marketIds) pm.markets.delete(id);
    return false;
  });
  pm.events.splice(0, pm.events.length, ...kept);
}

function slugify(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
