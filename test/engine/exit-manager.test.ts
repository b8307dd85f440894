import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimal, lamports, manualClock, rawAmount, unixMs } from '../../src/core/index.js';
import { comparePrice, createExitManager, priceLevel, type ExitOrder } from '../../src/engine/exit-manager.js';
import { exactString } from '../../src/engine/price-tick.js';
import type { Position } from '../../src/engine/portfolio.js';

const position = (tokenRaw: bigint, openedAt: number): Position => ({
  key: 's1:mintA',
  strategyId: 's1',
  mint: 'mintA',
  decimals: 6,
  tokenRaw: rawAmount(tokenRaw),
  costLamports: lamports(100_000_000n),
  boughtLamports: lamports(100_000_000n),
  boughtRaw: rawAmount(tokenRaw),
  realisedLamports: 0n,
  feesLamports: lamports(5_000n),
  openedAt: unixMs(openedAt),
  updatedAt: unixMs(openedAt),
  market: 'venue_a',
  pool: 'poolA',
});

describe('exit manager', () => {
  it('arms a time stop for a new position and fires it once when due', () => {
    const clock = manualClock(1_000);
    const fired: ExitOrder[] = [];
    const exits = createExitManager(
      clock,
      () => ({ timeStopMs: 60_000 }),
      (o) => fired.push(o),
    );
    exits.positionChanged(position(1_000_000n, 1_000));
    expect(clock.pending()).toBe(1);
    clock.advance(60_000);
    expect(fired.map((o) => o.mint)).toEqual(['mintA']);
  });

  it('arms nothing for a fill that lands after stop (the executor drains in-flight intents after the engine stopped)', () => {
    const clock = manualClock(1_000);
    const fired: ExitOrder[] = [];
    const exits = createExitManager(
      clock,
      () => ({ timeStopMs: 60_000 }),
      (o) => fired.push(o),
    );
    exits.stop();
    exits.positionChanged(position(1_000_000n, 1_000));
    expect(clock.pending()).toBe(0);
    expect(exits.size()).toBe(0);
    clock.advance(120_000);
    expect(fired).toEqual([]);
  });
});

describe('exit levels', () => {
  it('compares a price with a level exactly, whether the doubles can tell them apart or not', () => {
    const entries = fc.double({ min: 1e-12, max: 1e4, noNaN: true, noDefaultInfinity: true }).map((n) => decimal(exactString(n)));
    // a level as the exit rules make them (entry x (1 - bps/10000), entry x multiple), and prices on, next to and far from it
    const cases = fc.tuple(
      entries,
      fc.integer({ min: 1, max: 9_999 }),
      fc.constantFrom('1.3', '1.8', '2', '1.0000000000001'),
      fc.integer({ min: -3, max: 3 }),
      fc.boolean(),
    );
    fc.assert(
      fc.property(cases, ([entry, bps, multiple, step, useStop]) => {
        const exact = useStop ? entry.times(10_000 - bps).div(10_000) : entry.times(multiple);
        const at = priceLevel(exact);
        // the level itself, its neighbours in the last digit, and doubles around it
        const candidates = [
          exact.toFixed(),
          exact.plus(decimal(10).pow(-exact.decimalPlaces()!).times(step)).toFixed(),
          exactString(at.approx),
          exactString(at.approx * (1 + step * 1e-13)),
          exactString(at.approx * (1 + step * 1e-3)),
        ];
        for (const p of candidates) {
          expect(comparePrice(Number(p), () => decimal(p), at)).toBe(decimal(p).comparedTo(exact));
        }
      }),
      { numRuns: 1_000 },
    );
  });
});
