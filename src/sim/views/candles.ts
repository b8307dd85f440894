/** OHLCV candles built from the trade tape (swaps only; liquidity never counts). */
import type { TradeRecord } from '../model/model-types.js';

export const CANDLE_SECONDS: Readonly<Record<string, number>> = {
  '1s': 1,
  '5s': 5,
  '15s': 15,
  '1m': 60,
  '3m': 180,
  '5m': 300,
  '15m': 900,
  '30m': 1800,
  '1h': 3600,
  '2h': 7200,
  '4h': 14_400,
  '6h': 21_600,
  '8h': 28_800,
  '12h': 43_200,
  '1d': 86_400,
  '3d': 259_200,
  '1w': 604_800,
  '1mn': 2_592_000,
};

export interface Candle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/**
 * Candles of `intervalSec` whose start time is within `[fromSec, toSec]`, oldest first, each built
 * from every trade of its bucket. Buckets without trades are omitted. `price` and `volume` pick the
 * currency.
 */
export function buildCandles(
  trades: readonly TradeRecord[],
  intervalSec: number,
  fromSec: number,
  toSec: number,
  price: (t: TradeRecord) => number,
  volume: (t: TradeRecord) => number,
): Candle[] {
  const out: Candle[] = [];
  let cur: Candle | undefined;
  for (const tr of trades) {
    const bucket = Math.floor(Math.floor(tr.time / 1000) / intervalSec) * intervalSec;
    if (bucket < fromSec || bucket > toSec) continue;
    const p = price(tr);
    if (!cur || cur.time !== bucket) {
      cur = { time: bucket, open: p, high: p, low: p, close: p, volume: 0 };
      out.push(cur);
    }
    if (p > cur.high) cur.high = p;
    if (p < cur.low) cur.low = p;
    cur.close = p;
    cur.volume += volume(tr);
  }
  return out;
}
