import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constantProductOut, grossForNet, netInForOut } from '../../src/sim/curve-math.js';

describe('constant-product math', () => {
  it('takes the fee from the input and prices the net input exactly', () => {
    const m = constantProductOut(30_000_000_000n, 1_073_000_000_000_000n, 1_000_000_000n, 100);
    expect(m.feeIn).toBe(10_000_000n);
    expect(m.netIn).toBe(990_000_000n);
    expect(m.amountOut).toBe((1_073_000_000_000_000n * 990_000_000n) / (30_000_000_000n + 990_000_000n));
  });

  it('never lets the product of reserves decrease', () => {
    fc.assert(
      fc.property(fc.bigInt(1n, 10n ** 15n), fc.bigInt(1n, 10n ** 18n), fc.bigInt(1n, 10n ** 14n), fc.integer({ min: 0, max: 1000 }), (rin, rout, amt, fee) => {
        const m = constantProductOut(rin, rout, amt, fee);
        expect((rin + m.netIn) * (rout - m.amountOut) >= rin * rout).toBe(true);
        expect(m.amountOut < rout).toBe(true);
      }),
    );
  });

  it('finds the smallest gross input that buys an exact output', () => {
    fc.assert(
      fc.property(fc.bigInt(10n ** 9n, 10n ** 12n), fc.bigInt(10n ** 12n, 10n ** 16n), fc.bigInt(1n, 10n ** 11n), (rin, rout, want) => {
        fc.pre(want < rout);
        const net = netInForOut(rin, rout, want);
        const gross = grossForNet(net, 100);
        expect(constantProductOut(rin, rout, gross, 100).amountOut >= want).toBe(true);
        expect((rout * (net - 1n)) / (rin + net - 1n) < want).toBe(true);
      }),
    );
  });
});
