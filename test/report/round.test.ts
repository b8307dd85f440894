/**
 * The report's ratios and fill slippage are computed in bigints (no BigNumber per trade, fill and equity sample): they must
 * be the numbers `Decimal` gave, bit for bit (-0 included), including its double rounding (the
 * quotient to 40 places, then to the ratio's places, both half even) on exact ties and near-ties.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/index.js';
import { ratioHalfEven, readablePrices } from '../../src/research/report/round.js';
import { slippageLamports } from '../../src/research/report/trade-tally.js';

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

describe('slippageLamports', () => {
  const viaDecimalCost = (side: 'buy' | 'sell', sol: bigint, ref: string, price: string): bigint => {
    const r = new Decimal(ref).div(new Decimal(price));
    const cost = side === 'buy' ? new Decimal(sol.toString()).times(new Decimal(1).minus(r)) : new Decimal(sol.toString()).times(r.minus(1));
    return BigInt(cost.integerValue(Decimal.ROUND_HALF_EVEN).toFixed());
  };
  /** A plain decimal string of up to 30 significant digits, from 1e-20 up. */
  const plain = fc
    .tuple(fc.bigInt({ min: 1n, max: 10n ** 30n }), fc.integer({ min: 0, max: 45 }))
    .map(([d, scale]) => new Decimal(d.toString()).shiftedBy(-scale).toFixed());

  it('equals the Decimal formula for buys and sells, exact ties included', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('buy' as const, 'sell' as const),
        fc.bigInt({ min: 0n, max: 10n ** 13n }),
        plain,
        plain,
        (side, sol, ref, price) => slippageLamports(side, sol, ref, price) === viaDecimalCost(side, sol, ref, price),
      ),
      { numRuns: 3000 },
    );
    // half a lamport each way: ties to even
    for (const [side, sol, ref, price] of [
      ['buy', 1n, '0.5', '1'],
      ['buy', 3n, '0.5', '1'],
      ['sell', 1n, '1.5', '1'],
      ['sell', 5n, '1.1', '1'],
      ['buy', 100_000_000n, '0.00000007172104851671658', '0.0000000713535226773875646998843203538472893'],
      ['sell', 7n, '2e-7', '1e-7'],
    ] as const)
      expect(slippageLamports(side, sol, ref, price)).toBe(viaDecimalCost(side, sol, ref, price));
  });
});

describe('readablePrices', () => {
  // the Decimal form it replaced, per number of the text
  const viaDecimal = (text: string): string =>
    text.replace(/\d+\.\d+/g, (n) => {
      const d = new Decimal(n);
      return d.precision(true) > 8 ? d.precision(8, Decimal.ROUND_HALF_EVEN).toFixed() : n;
    });

  it('rounds long prices half-even to 8 significant digits and leaves short ones as written', () => {
    expect(readablePrices('stop loss 0.0000000312345678901234 below entry 0.00000003125 (level 2)')).toBe(
      'stop loss 0.000000031234568 below entry 0.00000003125 (level 2)',
    );
    const cases = [
      '0.0',
      '0.000',
      '100.000',
      '1.500000000000',
      '1234567890.5',
      '99999999.5',
      '0.123456785',
      '0.123456775',
      '12345678.50',
      '0.00000000999999999',
      '7.000000000001',
    ];
    for (const c of cases) expect(readablePrices(`x ${c} y`)).toBe(viaDecimal(`x ${c} y`));
  });

  it('equals Decimal on any plain decimals', () => {
    const digits = fc.stringMatching(/^[0-9]{1,14}$/);
    fc.assert(
      fc.property(digits, digits, fc.nat({ max: 6 }), (whole, frac, zeros) => {
        const text = `take profit at ${whole}.${frac}${'0'.repeat(zeros)} (level 1)`;
        return readablePrices(text) === viaDecimal(text);
      }),
      { numRuns: 3000 },
    );
  });
});
