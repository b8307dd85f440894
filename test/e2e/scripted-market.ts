/**
 * A small seeded market script for engine tests until the embedded simulator is merged: tokens
 * launch on constant-product bonding curves, random traders move reserves, milestones, safety
 * signals and graduations fire, some tokens are dumped. It pushes frames into a fake feed on a
 * manual clock; the feed drops frames of rooms nobody joined, as the Datastream does.
 */
import { seededRandom, type ManualClock } from '../../src/core/index.js';
import type { FakeFeed } from '../engine/fake-feed.js';

const SOL = 1_000_000_000n;
const CURVE_TARGET = 85n * SOL;

interface Tok {
  mint: string;
  sol: bigint;
  token: bigint;
  realSol: bigint;
  graduated: boolean;
  pool: string;
  holders: number;
  top10: number;
  bundlers: number;
  dev: number;
  milestones: Set<number>;
  diesAt: number;
  dumpAt: number | undefined;
}

export interface ScriptedMarket {
  /** Runs the market for `ms` of clock time, one step per `stepMs`. */
  run(ms: number, stepMs?: number): void;
  /** SOL per whole token of a mint now (exact string), for checks. */
  priceOf(mint: string): string | undefined;
  readonly launched: number;
  readonly graduated: number;
}

export function scriptedMarket(feed: FakeFeed, clock: ManualClock, seed: number): ScriptedMarket {
  const rnd = seededRandom(seed);
  const tokens: Tok[] = [];
  let n = 0;
  let graduated = 0;
  const priceStr = (t: Tok): string => (Number(t.sol) / 1e9 / (Number(t.token) / 1e6)).toPrecision(12);

  const launch = (): void => {
    const mint = `Tok${String(n++).padStart(4, '0')}${'x'.repeat(28)}`;
    const t: Tok = {
      mint,
      sol: 30n * SOL,
      token: 1_073_000_000_000_000n,
      realSol: 0n,
      graduated: false,
      pool: `${mint}-curve`,
      holders: 1,
      top10: rnd.int(15, 70),
      bundlers: rnd.int(0, 50),
      dev: rnd.int(0, 20),
      milestones: new Set(),
      diesAt: clock.now() + rnd.int(10, 40) * 60_000,
      dumpAt: rnd.chance(0.25) ? clock.now() + rnd.int(2, 20) * 60_000 : undefined,
    };
    tokens.push(t);
    feed.push('latest', { token: { mint, symbol: `T${n}`, name: `Token ${n}`, decimals: 6 }, pools: [{ market: 'venue_a', poolId: t.pool }] });
  };

  const trade = (t: Tok, buy: boolean, lamportsIn: bigint): void => {
    if (buy) {
      const out = (t.token * lamportsIn) / (t.sol + lamportsIn);
      t.sol += lamportsIn;
      t.token -= out;
      if (!t.graduated) t.realSol += lamportsIn;
      t.holders += rnd.chance(0.7) ? 1 : 0;
    } else {
      const tokensIn = (t.token * lamportsIn) / t.sol;
      const out = (t.sol * tokensIn) / (t.token + tokensIn);
      if (out >= t.sol - SOL) return;
      t.sol -= out;
      t.token += tokensIn;
      if (!t.graduated) t.realSol = t.realSol > out ? t.realSol - out : 0n;
    }
  };

  let live: Tok[] = tokens;
  const step = (): void => {
    const now = clock.now();
    if (rnd.chance(0.06)) launch();
    live = tokens.filter((t) => now <= t.diesAt);
    for (const t of live) {
      const trades = rnd.int(0, 3);
      for (let i = 0; i < trades; i++) trade(t, rnd.chance(t.graduated ? 0.5 : 0.58), BigInt(rnd.int(50, 2_000)) * 1_000_000n);
      if (t.dumpAt !== undefined && now >= t.dumpAt) {
        t.dumpAt = undefined;
        trade(t, false, (t.sol * 7n) / 10n);
      }
      if (!t.graduated) {
        const pct = Number((t.realSol * 100n) / CURVE_TARGET);
        for (const m of [25, 50, 75]) {
          if (pct >= m && !t.milestones.has(m)) {
            t.milestones.add(m);
            feed.push(`venue_a:curve:${m}`, { token: { mint: t.mint }, pools: [{ market: 'venue_a', poolId: t.pool }] });
          }
        }
        if (t.realSol >= CURVE_TARGET) {
          t.graduated = true;
          graduated++;
          t.pool = `${t.mint}-amm`;
          feed.push('graduated', {
            token: { mint: t.mint },
            pools: [{ market: 'venue_a-amm', poolId: t.pool }],
            graduationTx: `grad-${t.mint}`,
            graduationTime: now,
          });
        }
      }
      if (feed.wants(`price:token:${t.mint}`))
        feed.push(`price:token:${t.mint}`, {
          token: t.mint,
          price: Number(priceStr(t)) * 150,
          price_quote: Number(priceStr(t)),
          pool: t.pool,
          market: t.graduated ? 'venue_a-amm' : 'venue_a',
          timestamp: now,
          solReserveLamports: t.sol.toString(),
          tokenReserveRaw: t.token.toString(),
          feeBps: 100,
        });
      if (rnd.chance(0.1)) {
        t.top10 = Math.max(5, Math.min(95, t.top10 + rnd.int(-3, 3)));
        t.bundlers = Math.max(0, Math.min(90, t.bundlers + rnd.int(-2, 4)));
        feed.push(`holders:${t.mint}`, { total: t.holders });
        feed.push(`top10:${t.mint}`, { totalPercentage: t.top10 });
        feed.push(`bundlers:${t.mint}`, { totalBundlerPercentage: t.bundlers });
        feed.push(`sniper:${t.mint}`, { totalSniperPercentage: rnd.int(0, 30) });
        feed.push(`dev_holding:${t.mint}`, { percentage: t.dev });
      }
    }
  };

  return {
    run(ms, stepMs = 1_000) {
      const end = clock.now() + ms;
      while (clock.now() < end) {
        step();
        clock.advance(stepMs);
      }
    },
    priceOf: (mint) => {
      const t = tokens.find((x) => x.mint === mint);
      return t ? priceStr(t) : undefined;
    },
    get launched() {
      return n;
    },
    get graduated() {
      return graduated;
    },
  };
}
