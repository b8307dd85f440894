/**
 * Market-wide activity in one-minute buckets per (market, launchpad), kept for 48 hours: the
 * lighthouse windows read these instead of a raw market-wide tape, so memory stays bounded.
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

export interface ActivityBuckets {
  add(trade: TradeRecord, launchpad: string): void;
  /** Counts a launch (on its launchpad) or a migration (on `venue_a-amm`). */
  addLifecycle(kind: 'created' | 'migration', atMs: number, market: string, launchpad: string): void;
  /** Buckets of minutes in `(fromMs, toMs]` (minute start times). */
  between(fromMs: number, toMs: number): ActivityBucket[];
  prune(nowMs: number): void;
}

export function createActivityBuckets(): ActivityBuckets {
  const minutes = new Map<number, Map<string, ActivityBucket>>();
  const bucket = (atMs: number, market: string, launchpad: string): ActivityBucket => {
    const minute = Math.floor(atMs / MINUTE_MS) * MINUTE_MS;
    let m = minutes.get(minute);
    if (!m) minutes.set(minute, (m = new Map()));
    const key = `${market}|${launchpad}`;
    let b = m.get(key);
    if (!b) {
      b = { market, launchpad, transactions: 0, buys: 0, sells: 0, volume: 0, volumeBuys: 0, volumeSells: 0, wallets: new Set(), tokensCreated: 0, migrations: 0 };
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
      for (const minute of minutes.keys()) if (minute < nowMs - ACTIVITY_RETENTION_MS) minutes.delete(minute);
    },
  };
}
