/**
 * The report's ratios are computed in bigints (no BigNumber per trade and equity sample): they must
 * be the numbers `Decimal` gave, bit for bit (-0 included), including its double rounding (the
 * quotient to 40 places, then to the ratio's places, both half even) on exact ties and near-ties.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/index.js';
import { ratioHalfEven } from '../../src/research/report/round.js';

const viaDecimal = (a: bigint, b: bigint, places: number): number =>
  b === 0n ? 0 : new Decimal(a.toString()).div(b.toString()).decimalPlaces(places, Decimal.ROUND_HALF_EVEN).toNumber();

describe('ratioHalfEven', () => {
  it('equals Decimal on ties, near-ties, signs and zero', () => {
    const cases: [bigint, bigint][] = [
      [1n, 2_000_000n], // 0.0000005: a tie, to even (0)
      [3n, 2_000_000n], // 0.0000015: a tie, to even (0.000002)
      [-1n, 2_000_000n], // -0
      [-1n, 1_000_000_000n],
      [0n, 5n],
      [-7n, -3n],
      [10n ** 40n + 1n, 2n * 10n ** 46n], // above a tie only past 40 places: Decimal's first rounding makes it a tie
      [2n * 10n ** 46n + 1n, 4n * 10n ** 52n],
      [12_345n, 0n],
    ];
    for (const [a, b] of cases) for (const places of [0, 2, 6]) expect(Object.is(ratioHalfEven(a, b, places), viaDecimal(a, b, places))).toBe(true);
  });

  it('equals Decimal on any amounts', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 22n), max: 10n ** 22n }),
        fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }),
        fc.constantFrom(0, 2, 6),
        (a, b, places) => Object.is(ratioHalfEven(a, b, places), viaDecimal(a, b, places)),
      ),
      { numRuns: 3000 },
    );
  });
});
