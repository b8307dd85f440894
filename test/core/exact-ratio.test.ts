import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Decimal, decimal } from '../../src/core/decimal.js';
import { compareScaled, plainDecimalParts, quotientFloor, quotientString } from '../../src/core/exact-ratio.js';
import { exactString } from '../../src/engine/events/price-tick.js';

const amount = fc.bigInt({ min: 0n, max: 2n ** 70n });
const positive = fc.bigInt({ min: 1n, max: 2n ** 70n });
const shift = fc.integer({ min: -30, max: 30 });
const plain = fc.oneof(
  fc.double({ min: 1e-15, max: 1e9, noNaN: true, noDefaultInfinity: true }).map((n) => exactString(n)),
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 45 })).map(([d, s]) => decimal(d.toString()).shiftedBy(-s).toFixed()),
);

describe('exact ratios in bigints', () => {
  it('writes a quotient digit for digit as Decimal.div (40 places, half even) then shiftedBy then toFixed', () => {
    fc.assert(
      fc.property(amount, positive, shift, (n, d, k) => {
        expect(quotientString(n, d, k)).toBe(new Decimal(n.toString()).div(d.toString()).shiftedBy(k).toFixed());
      }),
      { numRuns: 3_000 },
    );
    // ties at the 40th place round to even, as bignumber.js does
    expect(quotientString(1n, 2n * 10n ** 40n, 0)).toBe(new Decimal(1).div((2n * 10n ** 40n).toString()).toFixed());
    expect(quotientString(3n, 2n * 10n ** 40n, 0)).toBe(new Decimal(3).div((2n * 10n ** 40n).toString()).toFixed());
    expect(quotientString(0n, 7n, -3)).toBe('0');
  });

  it('floors a quotient as Decimal.div then shiftedBy then integerValue(ROUND_DOWN)', () => {
    fc.assert(
      fc.property(amount, positive, shift, (n, d, k) => {
        expect(quotientFloor(n, d, k)).toBe(BigInt(new Decimal(n.toString()).div(d.toString()).shiftedBy(k).integerValue(Decimal.ROUND_DOWN).toFixed(0)));
      }),
      { numRuns: 3_000 },
    );
  });

  it('reads plain decimals only, and compares scaled ones exactly', () => {
    expect(plainDecimalParts('0.000123')).toEqual({ digits: 123n, scale: 6 });
    expect(plainDecimalParts('42')).toEqual({ digits: 42n, scale: 0 });
    for (const bad of ['', '-1', '1e-8', '.5', '5.', '1.2.3', ' 1', 'NaN']) expect(plainDecimalParts(bad), bad).toBeUndefined();
    fc.assert(
      fc.property(plain, plain, fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 20_000 }), (a, b, ka, kb) => {
        const exact = decimal(a).times(ka).comparedTo(decimal(b).times(kb));
        expect(compareScaled(plainDecimalParts(a)!, BigInt(ka), plainDecimalParts(b)!, BigInt(kb))).toBe(exact);
      }),
      { numRuns: 3_000 },
    );
  });
});
