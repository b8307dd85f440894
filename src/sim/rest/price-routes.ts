/** Prices and charts: live price, multi price, price history and candles from the trade tape. */
import { z } from 'zod';
import type { MarketState } from '../model/market-state.js';
import type { TokenState, TradeRecord } from '../model/model-types.js';
import { liquidityUsd, marketCapUsd, priceSol, priceUsd } from '../model/token-pricing.js';
import { buildCandles, CANDLE_SECONDS } from '../views/candles.js';
import { badParam, parseQuery, q } from './rest-errors.js';
import type { RestRouter } from './rest-router.js';
import { findToken, findTokenOrRetired } from './token-routes.js';

const chartQuery = z.object({
  type: z.enum(Object.keys(CANDLE_SECONDS) as [string, ...string[]]).default('1m'),
  time_from: q.int(0, Number.MAX_SAFE_INTEGER).optional(),
  time_to: q.int(0, Number.MAX_SAFE_INTEGER).optional(),
  removeOutliers: q.bool().default(true),
  currency: z.enum(['usd', 'sol', 'eur']).default('usd'),
});
const MAX_MULTI = 100;

function livePrice(state: MarketState, t: TokenState): Record<string, unknown> {
  const solUsd = state.settings.solUsd;
  return {
    price: priceUsd(t, solUsd),
    priceQuote: priceSol(t),
    liquidity: liquidityUsd(t, solUsd),
    marketCap: marketCapUsd(t, solUsd),
    lastUpdated: state.tradesByToken.get(t.mint)?.at(-1)?.time ?? t.createdAt,
  };
}

function multi(state: MarketState, mints: readonly string[]): Record<string, unknown> {
  if (mints.length === 0 || mints.length > MAX_MULTI) throw badParam('tokens', `send 1 to ${MAX_MULTI} token addresses`);
  const out: Record<string, unknown> = {};
  for (const m of mints) {
    const t = state.tokens.get(m);
    if (t) out[m] = livePrice(state, t);
  }
  return out;
}

export function addPriceRoutes(r: RestRouter): void {
  const tokenParam = z.object({ token: z.string().min(1) }).loose();
  r.add('GET', '/price', ({ state, query }) => livePrice(state, findToken(state, parseQuery(tokenParam, query).token)));
  r.add('GET', '/price/multi', ({ state, query }) => multi(state, parseQuery(z.object({ tokens: q.list() }).loose(), query).tokens));
  r.add('POST', '/price/multi', ({ state, body }) => {
    const b = z.object({ tokens: z.array(z.string()) }).safeParse(body);
    if (!b.success) throw badParam('body.tokens', 'send {"tokens": [address, ...]}');
    return multi(state, b.data.tokens);
  });
  r.add('GET', '/price/history', ({ state, query }) => {
    const mint = parseQuery(tokenParam, query).token;
    const t = findTokenOrRetired(state, mint);
    if (!t) return { token: mint, history: [] };
    const rows = state.tradesByToken.get(t.mint) ?? [];
    return { token: t.mint, history: rows.slice(-1000).map((tr) => ({ time: Math.floor(tr.time / 1000), price: tr.priceUsd })) };
  });
  r.add('GET', '/price/history/timestamp', ({ state, query }) => {
    const f = parseQuery(z.object({ token: z.string().min(1), timestamp: q.int(0, Number.MAX_SAFE_INTEGER) }).loose(), query);
    const t = findToken(state, f.token);
    let hit: TradeRecord | undefined;
    for (const tr of state.tradesByToken.get(t.mint) ?? []) {
      if (tr.time > f.timestamp * 1000) break;
      hit = tr;
    }
    return { token: t.mint, timestamp: f.timestamp, price: hit?.priceUsd ?? null, priceTime: hit ? Math.floor(hit.time / 1000) : null };
  });
  r.add('GET', '/price/history/range', ({ state, query }) => {
    const f = parseQuery(
      z.object({ token: z.string().min(1), time_from: q.int(0, Number.MAX_SAFE_INTEGER), time_to: q.int(0, Number.MAX_SAFE_INTEGER) }).loose(),
      query,
    );
    const t = findToken(state, f.token);
    let low: TradeRecord | undefined;
    let high: TradeRecord | undefined;
    for (const tr of state.tradesByToken.get(t.mint) ?? []) {
      const s = Math.floor(tr.time / 1000);
      if (s < f.time_from || s > f.time_to) continue;
      if (!low || tr.priceUsd < low.priceUsd) low = tr;
      if (!high || tr.priceUsd > high.priceUsd) high = tr;
    }
    return {
      token: t.mint,
      lowest: low ? { price: low.priceUsd, time: Math.floor(low.time / 1000) } : null,
      highest: high ? { price: high.priceUsd, time: Math.floor(high.time / 1000) } : null,
    };
  });
  const chart = ({ state, params, query }: Parameters<Parameters<RestRouter['add']>[2]>[0]): unknown => {
    const f = parseQuery(chartQuery.loose(), query);
    const t = findTokenOrRetired(state, params['token']!);
    if (!t) return [];
    const nowSec = Math.floor(state.now / 1000);
    const from = f.time_from ?? 0;
    const to = f.time_to ?? nowSec;
    if (from > to) throw badParam('time_from', 'must not be after time_to');
    const pool = params['pool'];
    const rows = (state.tradesByToken.get(t.mint) ?? []).filter((tr) => pool === undefined || tr.pool === pool);
    const eur = state.settings.eurPerUsd;
    const price =
      f.currency === 'sol'
        ? (tr: TradeRecord) => tr.priceSol
        : f.currency === 'eur'
          ? (tr: TradeRecord) => tr.priceUsd * eur
          : (tr: TradeRecord) => tr.priceUsd;
    const volume =
      f.currency === 'sol'
        ? (tr: TradeRecord) => Number(tr.solLamports) / 1e9
        : f.currency === 'eur'
          ? (tr: TradeRecord) => tr.volumeUsd * eur
          : (tr: TradeRecord) => tr.volumeUsd;
    return buildCandles(rows, CANDLE_SECONDS[f.type]!, from, to, price, volume);
  };
  r.add('GET', '/chart/:token', chart);
  r.add('GET', '/chart/:token/:pool', chart);
}
