import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { UnixMs } from '../../src/core/index.js';
import { createPnlBook } from '../../src/sim/model/pnl-book.js';

const at = (n: number): UnixMs => n as UnixMs;

describe('FIFO PnL book', () => {
  it('consumes the oldest lots first and prorates a partial lot exactly', () => {
    const book = createPnlBook();
    book.record('w', 'm', 'buy', 1_000n, 100n, at(1));
    book.record('w', 'm', 'buy', 3_000n, 100n, at(2));
    const p = book.record('w', 'm', 'sell', 2_500n, 150n, at(3));
    // cost = whole first lot (1000) + half of the second (1500)
    expect(p.realizedLamports).toBe(0n);
    expect(p.balanceRaw).toBe(50n);
    expect(p.costBasisLamports).toBe(1_500n);
    expect(p.lots).toEqual([{ raw: 50n, costLamports: 1_500n }]);
    expect(p).toMatchObject({ buys: 2, sells: 1, firstBuy: 1, lastBuy: 2, firstSell: 3, lastSell: 3, firstTrade: 1, lastTrade: 3 });
  });

  it('conserves lamports: realized PnL is the proceeds minus the cost of exactly the lots sold', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.bigInt(1n, 10n ** 12n), fc.bigInt(1n, 10n ** 9n)), { minLength: 1, maxLength: 40 }), (ops) => {
        const book = createPnlBook();
        book.record('w', 'm', 'buy', 5_000n, 1_000n, at(0));
        let bought = 5_000n;
        let sold = 0n;
        let balance = 1_000n;
        for (const [isBuy, sol, raw] of ops) {
          if (isBuy) {
            book.record('w', 'm', 'buy', sol, raw, at(1));
            bought += sol;
            balance += raw;
          } else if (balance > 0n) {
            const q = raw > balance ? balance : raw;
            book.record('w', 'm', 'sell', sol, q, at(2));
            sold += sol;
            balance -= q;
          }
        }
        const p = book.position('w', 'm')!;
        expect(p.balanceRaw).toBe(balance);
        // every lamport bought is either still in the cost basis or was matched against proceeds
        expect(p.realizedLamports).toBe(sold - (bought - p.costBasisLamports));
        expect(p.costBasisLamports >= 0n).toBe(true);
      }),
    );
  });
});
