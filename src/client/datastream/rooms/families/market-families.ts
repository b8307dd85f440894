/** Price-like rooms (coalesced: a slow consumer sees the latest value) and prediction-market ticks. */
import { isInt, isIntString, isNum, isObj, isStr, optNum, optStr } from '../guards.js';
import type { AggregatedPrice, PredictionTick, PriceUpdate } from '../payloads.js';
import { roomFamily, wholeRoom } from '../room-family.js';

function checkPrice(d: unknown): PriceUpdate | string {
  if (!isObj(d)) return 'data must be an object';
  const price = d.price;
  if (typeof price !== 'number' || !(price > 0) || price === Infinity) return 'price must be a positive number (USD)';
  const q = d.price_quote;
  if (q !== undefined && (typeof q !== 'number' || !(q > 0) || q === Infinity)) return 'price_quote must be a positive number (SOL)';
  const ps = d.priceSol;
  if (ps !== undefined && (typeof ps !== 'number' || !(ps > 0) || ps === Infinity)) return 'priceSol must be a positive number (SOL)';
  if (!optNum(d.time)) return 'time must be Unix ms';
  if (!optNum(d.timestamp)) return 'timestamp must be Unix ms';
  if (!optStr(d.token)) return 'token must be a string';
  if (!optStr(d.pool)) return 'pool must be a string';
  if (!optStr(d.market)) return 'market must be a string';
  const liq = d.liquidity;
  if (liq !== undefined && !isNum(liq) && !(isObj(liq) && isNum(liq.usd))) return 'liquidity must be a number or {usd}';
  if (d.solReserveLamports !== undefined && !(isIntString(d.solReserveLamports) && d.solReserveLamports.charCodeAt(0) !== 45))
    return 'solReserveLamports must be an unsigned integer string';
  if (d.tokenReserveRaw !== undefined && !(isIntString(d.tokenReserveRaw) && d.tokenReserveRaw.charCodeAt(0) !== 45))
    return 'tokenReserveRaw must be an unsigned integer string';
  const fee = d.feeBps;
  if (fee !== undefined && !(isInt(fee) && fee >= 0 && fee <= 10_000)) return 'feeBps must be an integer 0..10000';
  return d as PriceUpdate;
}

/** `price:token:{address}` and `token:{primary}`: primary-pool price, `price` USD and `price_quote` SOL. */
export const priceFamily = roomFamily({
  name: 'price',
  pattern: 'price:token:{address} | token:{primary}',
  example: 'price:token:MintA',
  match: (p) => (p.length === 3 && p[0] === 'price' && p[1] === 'token') || (p.length === 2 && p[0] === 'token'),
  heads: ['price', 'token'],
  delivery: 'coalesced',
  rows: false,
  provisional: false,
  parse: checkPrice,
  scope: wholeRoom,
});

function checkAggregated(d: unknown): AggregatedPrice | string {
  if (!isObj(d)) return 'data must be an object';
  if (!isStr(d.token)) return 'token must be a string';
  if (!isNum(d.timestamp)) return 'timestamp must be Unix ms';
  if (typeof d.price !== 'number' || !(d.price > 0) || d.price === Infinity) return 'price must be a positive number (USD)';
  if (!optStr(d.pool)) return 'pool must be a string';
  const a = d.aggregated;
  if (a !== undefined) {
    if (!isObj(a)) return 'aggregated must be an object';
    if (!optNum(a.median) || !optNum(a.average) || !optNum(a.min) || !optNum(a.max)) return 'aggregated.median/average/min/max must be numbers';
    if (a.poolCount !== undefined && !isInt(a.poolCount)) return 'aggregated.poolCount must be an integer';
  }
  const top = d.topPools;
  if (top !== undefined) {
    if (!Array.isArray(top)) return 'topPools must be an array';
    for (let i = 0; i < top.length; i++) {
      const p: unknown = top[i];
      if (!isObj(p) || !optStr(p.poolId) || !optNum(p.price) || !optNum(p.liquidity) || !optStr(p.market))
        return `topPools[${i}] must have string poolId and market, number price and liquidity`;
    }
  }
  return d as AggregatedPrice;
}

/** `price:aggregated:{token}`: aggregated price across the top 10 pools (USD). */
export const aggregatedPriceFamily = roomFamily({
  name: 'aggregated-price',
  pattern: 'price:aggregated:{token}',
  example: 'price:aggregated:MintA',
  match: (p) => p.length === 3 && p[0] === 'price' && p[1] === 'aggregated',
  heads: ['price'],
  delivery: 'coalesced',
  rows: false,
  provisional: false,
  parse: checkAggregated,
  scope: wholeRoom,
});

/** `stats:{token|pool}:{id}:total` and `volume:{token|pool}:{id}`: open objects. */
export const statsFamily = roomFamily({
  name: 'stats',
  pattern: 'stats:{token|pool}:{id}:total | volume:{token|pool}:{id}',
  example: 'stats:token:MintA:total',
  match: (p) => (p[0] === 'stats' || p[0] === 'volume') && (p[1] === 'token' || p[1] === 'pool') && p.length >= 3,
  heads: ['stats', 'volume'],
  delivery: 'coalesced',
  rows: false,
  provisional: false,
  parse: (d) => (isObj(d) ? d : 'data must be an object'),
  scope: wholeRoom,
});

const tick = (d: unknown): PredictionTick | string => {
  if (!isObj(d)) return 'data must be an object';
  if (!isNum(d.price)) return 'price must be a number';
  if (!optNum(d.timestamp)) return 'timestamp must be Unix ms';
  return d as PredictionTick;
};

/** `pm:market:{exchange}:{tokenId}:prices`: outcome prices. */
export const predictionFamily = roomFamily({
  name: 'prediction',
  pattern: 'pm:market:{exchange}:{tokenId}:prices',
  example: 'pm:market:exchange_b:T1:prices',
  match: (p) => p[0] === 'pm' && p[1] === 'market' && p.length >= 4,
  heads: ['pm'],
  delivery: 'coalesced',
  rows: false,
  provisional: false,
  parse: tick,
  scope: wholeRoom,
});

/** `pm:crypto:{asset}`: oracle ticks of a crypto up/down underlying. */
export const cryptoFamily = roomFamily({
  name: 'crypto',
  pattern: 'pm:crypto:{asset}',
  example: 'pm:crypto:BTC',
  match: (p) => p[0] === 'pm' && p[1] === 'crypto' && p.length >= 3,
  heads: ['pm'],
  delivery: 'coalesced',
  rows: false,
  provisional: false,
  parse: tick,
  scope: wholeRoom,
});
