/**
 * The lighthouse's activity buckets stay bounded: minute buckets older than the minute detail merge
 * into hourly ones (their wallet sets united), buckets older than 48 h go, and the counts a window
 * reads survive the merge. The daemon's simulators keep 2 h of minutes (isolated-sim.ts), so their
 * buckets level off after 2 simulated hours instead of rising until hour 12.
 */
import { describe, expect, it } from 'vitest';
import type { UnixMs } from '../../src/core/index.js';
import { ACTIVITY_RETENTION_MS, createActivityBuckets, HOUR_MS, MINUTE_DETAIL_MS, MINUTE_MS } from '../../src/sim/model/activity-buckets.js';
import type { TradeRecord } from '../../src/sim/model/model-types.js';
import { DAEMON_SIM_MARKET } from '../../src/runtime/embedded/isolated-sim.js';
import { parseMarketSettings } from '../../src/sim/sim-settings.js';

const T0 = 1_700_002_800_000; // on an hour
const MARKETS = ['venue_a', 'venue_b'];

function tradeAt(at: number, i: number): TradeRecord {
  return {
    seq: i,
    tx: `tx${i}`,
    mint: 'm',
    pool: 'p',
    market: MARKETS[i % 2]!,
    wallet: `w${i % 50}`,
    side: i % 3 === 0 ? 'sell' : 'buy',
    solLamports: 1n,
    tokenRaw: 1n,
    walletTokenRaw: 1n,
    walletSolLamports: 1n,
    priceUsd: 1,
    priceSol: 1,
    volumeUsd: 2,
    time: at as UnixMs,
    slot: 0,
    external: false,
  };
}

/** Feeds `hours` of trades (4 a minute, pruned once an hour as the model does); returns the buckets and the last time. */
function run(hours: number, minuteDetailMs?: number): { buckets: ReturnType<typeof createActivityBuckets>; now: number; sizes: number[] } {
  const buckets = createActivityBuckets(minuteDetailMs === undefined ? {} : { minuteDetailMs });
  let i = 0;
  const sizes: number[] = [];
  let now = T0;
  for (let m = 0; m < hours * 60; m++) {
    now = T0 + m * MINUTE_MS;
    for (let k = 0; k < 4; k++) buckets.add(tradeAt(now + k, i++), 'pad');
    if ((m + 1) % 60 === 0) {
      buckets.prune(now + MINUTE_MS);
      sizes.push(buckets.between(0, Number.MAX_SAFE_INTEGER).length);
    }
  }
  return { buckets, now, sizes };
}

describe('activity buckets', () => {
  it('keep minute buckets for the minute detail, then hourly ones, up to 48 h: the count levels off', () => {
    const short = run(60, 2 * HOUR_MS);
    // two markets: 2 h of minutes (120 × 2) and at most 48 hourly buckets (× 2)
    expect(Math.max(...short.sizes)).toBeLessThanOrEqual(2 * (2 * 60 + 49));
    expect(short.sizes.at(-1)).toBe(short.sizes.at(-5)); // flat after 48 h
    // a 12 h detail (the standalone default) rises until hour 12 and sits far higher
    const long = run(60);
    expect(long.sizes[11]!).toBeGreaterThan(4 * short.sizes[11]!);
    expect(MINUTE_DETAIL_MS).toBe(12 * HOUR_MS);
    expect(ACTIVITY_RETENTION_MS).toBe(48 * HOUR_MS);
  });

  it('keep what a window reads across the merge: transactions, volume and unique wallets', () => {
    const a = run(30, 2 * HOUR_MS);
    const b = run(30);
    // the last 24 h from an hour boundary: hourly buckets in one, minute buckets in the other
    const from = T0 + 6 * HOUR_MS - MINUTE_MS;
    const to = a.now;
    const sum = (bs: ReturnType<typeof a.buckets.between>): [number, number, number] => {
      const wallets = new Set<string>();
      let tx = 0;
      let volume = 0;
      for (const x of bs) {
        tx += x.transactions;
        volume += x.volume;
        for (const w of x.wallets) wallets.add(w);
      }
      return [tx, volume, wallets.size];
    };
    expect(sum(a.buckets.between(from, to))).toEqual(sum(b.buckets.between(from, to)));
    expect(sum(a.buckets.between(from, to))[0]).toBe(24 * 60 * 4);
  });

  it('are set to 2 h of minutes in the daemon, and a setting outside 2 h to 48 h is refused', () => {
    expect(parseMarketSettings(DAEMON_SIM_MARKET).activityMinuteDetailMs).toBe(2 * HOUR_MS);
    expect(parseMarketSettings({}).activityMinuteDetailMs).toBe(MINUTE_DETAIL_MS);
    expect(() => parseMarketSettings({ activityMinuteDetailMs: HOUR_MS })).toThrow(/activityMinuteDetailMs/);
  });
});
