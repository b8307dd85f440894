/**
 * Market-wide activity per (market, launchpad), kept for 48 hours: the lighthouse windows read
 * these instead of a raw market-wide tape, so memory stays bounded. Buckets are one minute wide for
 * the last {@link MINUTE_DETAIL_MS} (or `activityMinuteDetailMs`: the daemon's simulators keep 2 hours,
 * isolated-sim.ts); older ones are merged into one-hour buckets (their unique-wallet
 * sets too), so the 24 h windows cost 48 hourly sets instead of 2 880 per-minute ones. A window
 * that reaches past the minute detail therefore starts on an hour boundary.
 */
import type { TradeRecord } from './model-types.js';

export interface ActivityBucket {
  readonly market: string;
  readonly launchpad: string;
  transactions: number;
  buys: number;
  sells: number;
  volume: number;
  volumeBuys: number;
  volumeSells: number;
  readonly wallets: Set<string>;
  tokensCreated: number;
  migrations: number;
}

export const ACTIVITY_RETENTION_MS = 48 * 3_600_000;
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
/** Minute buckets younger than this stay minute buckets (covers the 5 m, 1 h and 6 h windows and the windows before them). */
export const MINUTE_DETAIL_MS = 12 * HOUR_MS;

/** How long minute buckets stay minute buckets (default {@link MINUTE_DETAIL_MS}); `activityMinuteDetailMs` of the market settings. */
export interface ActivityBucketOptions {
  readonly minuteDetailMs?: number;
}

export interface ActivityBuckets {
  add(trade: TradeRecord, launchpad: string): void;
  /** Counts a launch (on its launchpad) or a migration (on `venue_a-amm`). */
  addLifecycle(kind: 'created' | 'migration', atMs: number, market: string, launchpad: string): void;
  /** Buckets of minutes in `(fromMs, toMs]` (minute start times). */
  between(fromMs: number, toMs: number): ActivityBucket[];
  prune(nowMs: number): void;
}

export function createActivityBuckets(options: ActivityBucketOptions = {}): ActivityBuckets {
  const minuteDetailMs = options.minuteDetailMs ?? MINUTE_DETAIL_MS;
  const minutes = new Map<number, Map<string, ActivityBucket>>();
  const bucket = (atMs: number, market: string, launchpad: string): ActivityBucket => {
    const minute = Math.floor(atMs / MINUTE_MS) * MINUTE_MS;
    let m = minutes.get(minute);
    if (!m) minutes.set(minute, (m = new Map<string, ActivityBucket>()));
    const key = `${market}|${launchpad}`;
    let b = m.get(key);
    if (!b) {
      b = {
        market,
        launchpad,
        transactions: 0,
        buys: 0,
        sells: 0,
        volume: 0,
        volumeBuys: 0,
        volumeSells: 0,
        wallets: new Set(),
        tokensCreated: 0,
        migrations: 0,
      };
      m.set(key, b);
    }
    return b;
  };
  return {
    addLifecycle(kind, atMs, market, launchpad) {
      const b = bucket(atMs, market, launchpad);
      if (kind === 'created') b.tokensCreated += 1;
      else b.migrations += 1;
    },
    add(tr, launchpad) {
      const b = bucket(tr.time, tr.market, launchpad);
      b.transactions += 1;
      b.volume += tr.volumeUsd;
      b.wallets.add(tr.wallet);
      if (tr.side === 'buy') {
        b.buys += 1;
        b.volumeBuys += tr.volumeUsd;
      } else {
        b.sells += 1;
        b.volumeSells += tr.volumeUsd;
      }
    },
    between(fromMs, toMs) {
      const out: ActivityBucket[] = [];
      for (const [minute, m] of minutes) if (minute > fromMs && minute <= toMs) out.push(...m.values());
      return out;
    },
    prune(nowMs) {
      for (const [start, m] of minutes) {
        if (start < nowMs - ACTIVITY_RETENTION_MS) {
          minutes.delete(start);
          continue;
        }
        const hour = Math.floor(start / HOUR_MS) * HOUR_MS;
        if (hour === start || start >= nowMs - minuteDetailMs) continue;
        // Merge this old minute into its hour bucket (kept under the hour's start time).
        minutes.delete(start);
        let h = minutes.get(hour);
        if (!h) minutes.set(hour, (h = new Map<string, ActivityBucket>()));
        for (const [key, b] of m) {
          const into = h.get(key);
          if (!into) {
            h.set(key, b);
            continue;
          }
          into.transactions += b.transactions;
          into.buys += b.buys;
          into.sells += b.sells;
          into.volume += b.volume;
          into.volumeBuys += b.volumeBuys;
          into.volumeSells += b.volumeSells;
          into.tokensCreated += b.tokensCreated;
          into.migrations += b.migrations;
          for (const w of b.wallets) into.wallets.add(w);
        }
      }
    },
  };
}
