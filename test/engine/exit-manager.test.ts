import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimal, type Decimal, lamports, manualClock, rawAmount, unixMs } from '../../src/core/index.js';
import { createExitManager, type ExitOrder } from '../../src/engine/exits/exit-manager.js';
import { comparePrice, isAbove, keptLevel, looseKeptLevel, multipleLevel, priceLevel, stopLevel, tickLevel } from '../../src/engine/exits/price-levels.js';
import { exactString, PriceTickEvent } from '../../src/engine/events/price-tick.js';
import { priceOf, type Position } from '../../src/engine/market/portfolio.js';

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
  it('works out stop-loss and take-profit levels from an entry in bigints exactly as bignumber.js does (value, text and double)', () => {
    const entries = fc
      .tuple(fc.bigInt({ min: 1n, max: 10n ** 15n }), fc.bigInt({ min: 1n, max: 10n ** 18n }), fc.integer({ min: 0, max: 18 }))
      .map(([l, raw, d]) => priceOf(l, raw, d));
    const multiples = fc.oneof(
      fc.constantFrom('1', '1.5', '2', '10', '0.5', '1.000001'),
      fc.double({ min: 1.0001, max: 1e6, noNaN: true }).map((x) => exactString(x)),
    );
    fc.assert(
      fc.property(entries, fc.integer({ min: 0, max: 10_000 }), multiples, (text, bps, multiple) => {
        const entry = decimal(text);
        const same = (got: { approx: number; exact: Decimal }, want: { approx: number; exact: Decimal }): void => {
          expect(got.approx).toBe(want.approx);
          expect(got.exact.toFixed()).toBe(want.exact.toFixed());
        };
        same(stopLevel(text, bps), priceLevel(entry.times(10_000 - bps).div(10_000)));
        same(multipleLevel(text, multiple), priceLevel(entry.times(multiple)));
      }),
      { numRuns: 5000 },
    );
  });
  it('works out a trailing level from a tick in bigints exactly as bignumber.js does (value, text and double)', () => {
    const prices = fc.oneof(
      fc.double({ min: 1e-15, max: 1e3, noNaN: true, noDefaultInfinity: true }),
      fc.double({ min: 5e-324, max: 1e-15, noNaN: true, noDefaultInfinity: true }),
    );
    fc.assert(
      fc.property(prices, fc.integer({ min: 0, max: 10_000 }), (p, bps) => {
        const text = exactString(p);
        const want = priceLevel(
          decimal(text)
            .times(10_000 - bps)
            .div(10_000),
        );
        const got = keptLevel(tickLevel(text), bps);
        expect(got.approx).toBe(want.approx);
        expect(got.exact.toFixed()).toBe(want.exact.toFixed());
        expect(got.exact.eq(want.exact)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
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

  it('reports the levels it holds: pending take profits, the stop loss, the trailing stop once armed, the time stop due time', () => {
    const clock = manualClock(1_000);
    const exits = createExitManager(
      clock,
      () => ({
        takeProfit: [
          { multiple: '1.5', sellBps: 5_000 },
          { multiple: '2', sellBps: 10_000 },
        ],
        stopLossBps: 1_000,
        trailingStopBps: 2_000,
        timeStopMs: 60_000,
      }),
      () => undefined,
    );
    expect(exits.levels('s1:mintA')).toBeUndefined();
    const p = position(1_000_000n, 1_000); // 0.1 SOL for one whole token
    exits.positionChanged(p);
    const text = (key: string) => {
      const l = exits.levels(key)!;
      return {
        entry: l.entry.toFixed(),
        tp: l.takeProfit.map((t) => `${t.level}:${t.multiple}:${t.price.toFixed()}`),
        stop: l.stopLoss?.toFixed(),
        trail: l.trailing?.toFixed(),
        timeStopAt: l.timeStopAt,
      };
    };
    expect(text(p.key)).toEqual({ entry: '0.1', tp: ['0:1.5:0.15', '1:2:0.2'], stop: '0.09', trail: undefined, timeStopAt: 61_000 });
    // a price above the first take profit fires it and sets a high above entry: the trailing stop arms
    expect(exits.onPrice([p], '0.16').map((o) => o.level)).toEqual([0]);
    expect(text(p.key)).toEqual({ entry: '0.1', tp: ['1:2:0.2'], stop: '0.09', trail: '0.128', timeStopAt: 61_000 });
    // a sell that did not land re-arms its level
    exits.settled(p.key, 0, false);
    expect(text(p.key).tp).toEqual(['0:1.5:0.15', '1:2:0.2']);
    exits.positionChanged({ ...p, tokenRaw: rawAmount(0n) });
    expect(exits.levels(p.key)).toBeUndefined();
  });

  it('keeps a full exit in flight when a partial take profit beside it did not land (no second full exit on the next tick)', () => {
    const clock = manualClock(1_000);
    const exits = createExitManager(
      clock,
      () => ({ takeProfit: [{ multiple: '1.5', sellBps: 5_000 }], trailingStopBps: 2_000 }),
      () => undefined,
    );
    const p = position(1_000_000n, 1_000); // entry 0.1 SOL a token
    exits.positionChanged(p);
    expect(exits.onPrice([p], '0.16').map((o) => o.level)).toEqual([0]); // the partial take profit
    expect(exits.onPrice([p], '0.12').map((o) => [o.level, o.fractionBps])).toEqual([[-1, 10_000]]); // trailing stop: a full exit
    exits.settled(p.key, 0, false); // the take profit was refused while the full exit is in flight
    expect(exits.onPrice([p], '0.11')).toEqual([]); // before: a second full exit of the same position
    exits.settled(p.key, -1, false); // the full exit did not land either: the rules run again
    expect(exits.onPrice([p], '0.11').map((o) => o.level)).toEqual([-1]);
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

describe('level order', () => {
  it('orders two levels exactly, on their doubles when they differ and exactly when the doubles tie', () => {
    // digits past what a double holds: the same double, another decimal
    const beyond = (t: string, more: string): string => (more === '' ? t : t.includes('.') ? t + more : `${t}.${more}`);
    const tail = fc.constantFrom('', '000000000000000000001', '000000000000000000009');
    const text = fc.double({ min: 1e-12, max: 1e4, noNaN: true, noDefaultInfinity: true }).map((n) => exactString(n));
    const level = fc.tuple(text, tail, fc.boolean()).map(([t, more, tick]) => (tick ? tickLevel(beyond(t, more)) : priceLevel(decimal(beyond(t, more)))));
    fc.assert(
      fc.property(level, level, tail, fc.boolean(), (a, b, more, tie) => {
        // `tie`: a level on a's double with other digits beyond it
        const other = tie ? tickLevel(beyond(exactString(a.approx), more)) : b;
        if (tie) expect(other.approx).toBe(a.approx);
        expect(isAbove(a, other)).toBe(a.exact.gt(other.exact));
        expect(isAbove(other, a)).toBe(other.exact.gt(a.exact));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('loose trailing levels', () => {
  it('order a price against the trailing level exactly as the exact level does, on the doubles next to it too, and work the exact level out only that close', () => {
    const highs = fc.double({ min: 1e-12, max: 1e4, noNaN: true, noDefaultInfinity: true });
    fc.assert(
      fc.property(highs, fc.integer({ min: 0, max: 10_000 }), fc.integer({ min: -4, max: 4 }), (high, bps, step) => {
        const h = tickLevel(exactString(high));
        const exact = keptLevel(h, bps);
        const loose = looseKeptLevel(h, bps);
        // the exact level, its nearest double and the doubles `step` ulps away, the float estimate and prices clearly away
        const ulp = (x: number): number => Math.max(Number.MIN_VALUE, Math.abs(x) * Number.EPSILON);
        const candidates = [
          exact.approx,
          exact.approx + step * ulp(exact.approx),
          loose.approx,
          loose.approx + step * ulp(loose.approx),
          exact.approx * (1 + step * 1e-3),
        ].filter((x) => x > 0 && Number.isFinite(x));
        for (const p of candidates) {
          const text = exactString(p);
          expect(
            comparePrice(p, () => decimal(text), loose),
            `${text} vs ${exact.exact.toFixed()}`,
          ).toBe(decimal(text).comparedTo(exact.exact));
        }
        expect(loose.exact.toFixed()).toBe(exact.exact.toFixed());
      }),
      { numRuns: 2_000 },
    );
    // a price far from the level is ordered without the exact level
    let worked = 0;
    const h = tickLevel('0.000000123');
    const far = looseKeptLevel(h, 1_500);
    const probe = Object.create(far) as typeof far;
    Object.defineProperty(probe, 'level', { value: () => (worked++, keptLevel(h, 1_500)) });
    expect(comparePrice(1e-7, () => decimal('0.0000001'), probe)).toBe(-1);
    expect(comparePrice(1.1e-7, () => decimal('0.00000011'), probe)).toBe(1);
    expect(worked).toBe(0);
  });
});

describe('exit rules on price paths', () => {
  /** The rules as first written, all in bignumber.js: what the exit manager must decide, order for order. */
  function reference(entry: Decimal, rules: { stopLossBps: number; trailingStopBps: number; takeProfit: { multiple: string; sellBps: number }[] }) {
    let highest = entry;
    const stopAt = entry.times(10_000 - rules.stopLossBps).div(10_000);
    const takeAt = rules.takeProfit.map((l) => entry.times(l.multiple));
    let trailAt = highest.times(10_000 - rules.trailingStopBps).div(10_000);
    const fired = new Set<number>();
    let exiting = false;
    const full = (reason: string): string[] => {
      if (exiting) return [];
      exiting = true;
      return [reason];
    };
    return {
      onPrice(p: string): string[] {
        const price = decimal(p);
        if (price.gt(highest)) {
          highest = price;
          trailAt = highest.times(10_000 - rules.trailingStopBps).div(10_000);
        }
        if (price.lte(stopAt)) return full('stop');
        if (price.lte(trailAt) && highest.gt(entry)) return full('trail');
        if (exiting) return [];
        const out: string[] = [];
        rules.takeProfit.forEach((l, i) => {
          if (fired.has(i) || exiting) return;
          if (price.gte(takeAt[i]!)) {
            fired.add(i);
            if (l.sellBps >= 10_000) exiting = true;
            out.push(`take ${i}`);
          }
        });
        return out;
      },
      settled(level: number) {
        if (level >= 0) fired.delete(level);
        exiting = false;
      },
    };
  }

  it('decides stop loss, trailing stop and take profit exactly as bignumber.js would, on random paths that touch the levels', () => {
    const step = fc.oneof(
      fc.double({ min: 0.8, max: 1.25, noNaN: true }).map((m) => ({ kind: 'move' as const, m })),
      fc.constantFrom('stop', 'trail', 'take0', 'take1', 'high').map((at) => ({ kind: 'touch' as const, at })),
      fc.boolean().map((landed) => ({ kind: 'settle' as const, landed })),
    );
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1_000_000n, max: 10n ** 12n }),
        fc.bigInt({ min: 1_000n, max: 10n ** 15n }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.array(step, { maxLength: 60 }),
        fc.boolean(),
        (bought, raw, stopLossBps, trailingStopBps, steps, asTicks) => {
          const rules = {
            stopLossBps,
            trailingStopBps,
            takeProfit: [
              { multiple: '1.3', sellBps: 5_000 },
              { multiple: '1.8', sellBps: 10_000 },
            ],
          };
          const exits = createExitManager(
            manualClock(0),
            () => rules,
            () => undefined,
          );
          const p: Position = { ...position(raw, 0), boughtLamports: lamports(bought), boughtRaw: rawAmount(raw), costLamports: lamports(bought) };
          exits.positionChanged(p);
          const entry = decimal(priceOf(bought, raw, 6));
          const ref = reference(entry, rules);
          let price = entry;
          let high = entry;
          // the level of the last exit order placed and not yet settled
          let pending: number | undefined;
          for (const s of steps) {
            if (s.kind === 'settle') {
              // a sell that did not go through re-arms its rule
              if (pending !== undefined && !s.landed) {
                exits.settled(p.key, pending, false);
                ref.settled(pending);
              }
              pending = undefined;
              continue;
            }
            if (s.kind === 'move') price = decimal(exactString(price.toNumber() * s.m));
            else {
              const levels = {
                stop: entry.times(10_000 - stopLossBps).div(10_000),
                trail: high.times(10_000 - trailingStopBps).div(10_000),
                take0: entry.times('1.3'),
                take1: entry.times('1.8'),
                high,
              };
              price = levels[s.at];
            }
            // half the paths are fed price ticks built from the price's double, as the normaliser builds them
            if (asTicks) price = decimal(exactString(price.toNumber()));
            if (price.gt(high)) high = price;
            const text = price.toFixed();
            const got = exits
              .onPrice([p], asTicks ? priceTick(price.toNumber()) : text)
              .map((o) => (o.level >= 0 ? `take ${o.level}` : o.reason.startsWith('stop') ? 'stop' : 'trail'));
            expect(got, `at ${text}`).toEqual(ref.onPrice(text));
            const last = got.at(-1);
            if (last !== undefined) pending = last.startsWith('take') ? Number(last.slice(5)) : -1;
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  describe('a due time stop is placed without waiting for a price tick', () => {
    const setup = () => {
      const clock = manualClock(1_000);
      const fired: ExitOrder[] = [];
      const exits = createExitManager(
        clock,
        () => ({ timeStopMs: 60_000, stopLossBps: 5_000 }),
        (o) => fired.push(o),
      );
      const p = position(1_000_000n, 1_000);
      exits.positionChanged(p);
      const entry = priceOf(p.boughtLamports, p.boughtRaw, p.decimals);
      return { clock, fired, exits, p, entry };
    };

    it('when another exit was in flight as it fell due and that exit did not land', () => {
      const { clock, fired, exits, p, entry } = setup();
      const stopLoss = exits.onPrice([p], exactString(Number(entry) / 4));
      expect(stopLoss.map((o) => o.reason)).toEqual([expect.stringContaining('stop loss')]);
      clock.advance(60_000); // due while the stop loss is in flight: not placed twice
      expect(fired).toEqual([]);
      exits.settled(p.key, -1, false); // the stop-loss sell failed; no tick follows (a dead token)
      clock.advance(0);
      expect(fired.map((o) => o.reason)).toEqual(['time stop after 60000 ms']);
    });

    it('not when the exit in flight closed the position', () => {
      const { clock, fired, exits, p, entry } = setup();
      exits.onPrice([p], exactString(Number(entry) / 4));
      clock.advance(60_000);
      exits.positionChanged({ ...p, tokenRaw: rawAmount(0n) });
      exits.settled(p.key, -1, true);
      clock.advance(120_000);
      expect(fired).toEqual([]);
      expect(clock.pending()).toBe(0);
    });

    it('when a full exit landed but left tokens (more arrived while it was in flight)', () => {
      const { clock, fired, exits, p, entry } = setup();
      exits.onPrice([p], exactString(Number(entry) / 4));
      clock.advance(60_000);
      exits.positionChanged({ ...p, tokenRaw: rawAmount(1_000n) });
      exits.settled(p.key, -1, true);
      clock.advance(0);
      expect(fired.map((o) => o.fractionBps)).toEqual([10_000]);
    });

    it('again after its own sell did not land, with a capped backoff on the run clock', () => {
      const { clock, fired, exits, p } = setup();
      clock.advance(60_000);
      expect(fired).toHaveLength(1);
      const gaps: number[] = [];
      let last = clock.now();
      for (let i = 0; i < 9; i++) {
        exits.settled(p.key, -1, false);
        const before = fired.length;
        for (let step = 0; step < 1_000 && fired.length === before; step++) clock.advance(100);
        gaps.push(clock.now() - last);
        last = clock.now();
      }
      expect(gaps).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000]);
    });

    it('and a price tick places a due retry at once, dropping the retry timer', () => {
      const { clock, fired, exits, p, entry } = setup();
      clock.advance(60_000);
      exits.settled(p.key, -1, false);
      expect(clock.pending()).toBe(1);
      const orders = exits.onPrice([p], exactString(Number(entry)));
      expect(orders.map((o) => o.reason)).toEqual(['time stop after 60000 ms']);
      expect(clock.pending()).toBe(0);
      clock.advance(120_000);
      expect(fired).toHaveLength(1); // only the first, from the timer
    });
  });
});

/** A price tick at `sol` SOL per token, as the normaliser builds it from a wire number. */
function priceTick(sol: number): PriceTickEvent {
  const at = unixMs(0);
  return new PriceTickEvent('price:token:M', at, 'live', 'M', sol, 150, undefined, false, undefined, undefined, undefined, undefined, undefined, undefined, at);
}

describe('exit levels after fills', () => {
  it('keeps the levels through a sell (same buys, same entry) and moves them with a further buy', () => {
    const clock = manualClock(0);
    const rules = { stopLossBps: 2_000, takeProfit: [{ multiple: '2', sellBps: 5_000 }] };
    const exits = createExitManager(
      clock,
      () => rules,
      () => undefined,
    );
    const open = position(1_000_000n, 0);
    exits.positionChanged(open);
    const text = (l: ReturnType<typeof exits.levels>): string[] =>
      l === undefined ? [] : [l.entry.toFixed(), l.stopLoss?.toFixed() ?? '-', ...l.takeProfit.map((t) => t.price.toFixed())];
    const atOpen = text(exits.levels(open.key));
    const levelsAt = (entry: string): string[] => [entry, decimal(entry).times(8_000).div(10_000).toFixed(), decimal(entry).times(2).toFixed()];
    expect(atOpen).toEqual(levelsAt('0.1'));
    // half sold: the entry is the buys' average, so the levels are the same
    exits.positionChanged({ ...open, tokenRaw: rawAmount(500_000n), costLamports: lamports(50_000_000n) });
    expect(text(exits.levels(open.key))).toEqual(atOpen);
    // bought again at twice the price: the average entry and every level move
    exits.positionChanged({ ...open, tokenRaw: rawAmount(1_000_000n), boughtLamports: lamports(200_000_000n), boughtRaw: rawAmount(1_500_000n) });
    const moved = priceOf(200_000_000n, 1_500_000n, 6);
    expect(moved.startsWith('0.1333')).toBe(true);
    expect(text(exits.levels(open.key))).toEqual(levelsAt(moved));
  });
});
