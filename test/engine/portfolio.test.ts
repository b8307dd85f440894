import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimal, Decimal, lamports, rawAmount, type UnixMs } from '../../src/core/index.js';
import { exactString, PriceTickEvent } from '../../src/engine/events/price-tick.js';
import type { Fill } from '../../src/engine/orders/execution-port.js';
import { createPortfolio, MAX_CLOSED_POSITIONS, MAX_VENUES, priceOf, valueLamports, valueLamportsOfWire } from '../../src/engine/market/portfolio.js';

const fill = (side: 'buy' | 'sell', mint: string, sol: bigint, tokens: bigint, fee: bigint, at = 0): Fill => ({
  intentId: `i${at}`,
  side,
  mint,
  decimals: 6,
  solAmount: lamports(sol),
  tokenAmount: rawAmount(tokens),
  feeLamports: lamports(fee),
  price: priceOf(sol, tokens, 6),
  filledAt: at as UnixMs,
});

describe('portfolio accounting', () => {
  it('realises profit net of both fees and closes the basis on a full sell', () => {
    const book = createPortfolio(10_000_000_000n);
    book.applyFill('s', fill('buy', 'M', 1_000_000_000n, 5_000_000n, 10_000n));
    const after = book.applyFill('s', fill('sell', 'M', 1_500_000_000n, 5_000_000n, 10_000n, 1));
    expect(after.tokenRaw).toBe(0n);
    expect(after.costLamports).toBe(0n);
    expect(after.realisedLamports).toBe(1_500_000_000n - 10_000n - 1_000_010_000n);
    const t = book.totals();
    expect(t.cashLamports).toBe(10_000_000_000n + after.realisedLamports);
    expect(t.feesLamports).toBe(20_000n);
    expect(t.openPositions).toBe(0);
  });

  it('with a price source, keeps marks of open positions only and reads any other price from the source', () => {
    const market = new Map<string, string>([['M', '0.0002']]);
    const book = createPortfolio(10_000_000_000n, (mint) => market.get(mint));
    book.mark('IDLE', { price: '0.0001' });
    book.mark('M', { price: '0.0002' });
    book.applyFill('s', fill('buy', 'M', 1_000_000_000n, 5_000_000n, 0n));
    const open = book.position('s', 'M')!;
    // valued at the source's price when it opened: 5 tokens at 0.0002 SOL
    expect(book.valueOf(open)).toBe(1_000_000n);
    book.mark('M', { price: '0.0004' });
    expect(book.valueOf(book.position('s', 'M')!)).toBe(2_000_000n);
    expect(book.totals().openPositions).toBe(1);
    const closed = book.applyFill('s', fill('sell', 'M', 2_000_000n, 5_000_000n, 0n, 1));
    market.set('M', '0.0003');
    // closed: the book's own mark is dropped, the source answers again
    expect(book.valueOf({ ...closed, tokenRaw: rawAmount(5_000_000n) })).toBe(1_500_000n);
    // a token never held: its tick was not kept (the source does not know it, so no price)
    expect(book.valueOf({ ...closed, mint: 'IDLE', tokenRaw: rawAmount(5_000_000n) })).toBeUndefined();
  });

  it('remembers the latest closed positions only, keeps the realised PnL of forgotten ones, and opens a forgotten token afresh', () => {
    const book = createPortfolio(1_000_000_000_000n);
    const extra = 5;
    // each round trip realises 1_000 lamports on its own token
    for (let i = 0; i < MAX_CLOSED_POSITIONS + extra; i++) {
      book.applyFill('s', fill('buy', `T${i}`, 1_000_000n, 10n, 0n, 2 * i));
      book.applyFill('s', fill('sell', `T${i}`, 1_001_000n, 10n, 0n, 2 * i + 1));
    }
    // a failed fee on the oldest remembered one makes it the most recently changed
    book.applyFailedFee('s', `T${extra}`, lamports(10n));
    book.applyFill('s', fill('buy', 'LAST', 1_000_000n, 10n, 0n, 1e6));
    book.applyFill('s', fill('sell', 'LAST', 1_001_000n, 10n, 0n, 1e6 + 1));
    for (let i = 0; i < extra; i++) expect(book.position('s', `T${i}`), `T${i}`).toBeUndefined();
    // LAST's close forgot the one changed longest ago: T6, not T5 (its fee moved it to the back)
    expect(book.position('s', `T${extra}`)?.realisedLamports).toBe(990n);
    expect(book.position('s', `T${extra + 1}`)).toBeUndefined();
    expect(book.position('s', `T${extra + 2}`)?.realisedLamports).toBe(1_000n);
    expect(book.position('s', 'LAST')?.realisedLamports).toBe(1_000n);
    expect(book.position('s', `T${MAX_CLOSED_POSITIONS + extra - 1}`)?.tokenRaw).toBe(0n);
    // the totals keep every round trip and fee
    expect(book.totals().realisedLamports).toBe(BigInt(MAX_CLOSED_POSITIONS + extra + 1) * 1_000n - 10n);
    // a forgotten token opens a fresh position; an open one is never forgotten
    const again = book.applyFill('s', fill('buy', 'T0', 1_000_000n, 10n, 0n, 2e6));
    expect(again.realisedLamports).toBe(0n);
    for (let i = 0; i < MAX_CLOSED_POSITIONS + 1; i++) {
      book.applyFill('s', fill('buy', `U${i}`, 1_000_000n, 10n, 0n, 3e6 + 2 * i));
      book.applyFill('s', fill('sell', `U${i}`, 1_000_000n, 10n, 0n, 3e6 + 2 * i + 1));
    }
    expect(book.position('s', 'T0')?.tokenRaw).toBe(10n);
    expect(book.open().map((p) => p.mint)).toEqual(['T0']);
    expect(book.openOn('T0')).toHaveLength(1);
  });

  it('remembers the latest venue moves of tokens it does not hold', () => {
    const book = createPortfolio(10_000_000_000n);
    for (let i = 0; i <= MAX_VENUES; i++) book.relocate(`G${i}`, 'amm', `G${i}-pool`);
    book.relocate('G1', 'amm2', 'G1-pool2'); // moved again: now the latest
    book.relocate('LAST', 'amm', 'LAST-pool'); // forgets G2, the one moved longest ago
    expect(book.applyFill('s', fill('buy', 'G0', 1_000_000n, 10n, 0n)).market).toBeUndefined();
    expect(book.applyFill('s', fill('buy', 'G1', 1_000_000n, 10n, 0n))).toMatchObject({ market: 'amm2', pool: 'G1-pool2' });
    expect(book.applyFill('s', fill('buy', 'G2', 1_000_000n, 10n, 0n)).market).toBeUndefined();
    expect(book.applyFill('s', fill('buy', 'G3', 1_000_000n, 10n, 0n))).toMatchObject({ market: 'amm', pool: 'G3-pool' });
  });

  it('removes cost basis in proportion on a partial sell and keeps the remainder exact', () => {
    const book = createPortfolio(5_000_000_000n);
    book.applyFill('s', fill('buy', 'M', 1_000_000_001n, 3n, 0n));
    const p = book.applyFill('s', fill('sell', 'M', 400_000_000n, 1n, 0n, 1));
    // floor(1_000_000_001 * 1 / 3) = 333_333_333 removed; 666_666_668 stays.
    expect(p.costLamports).toBe(666_666_668n);
    expect(p.realisedLamports).toBe(400_000_000n - 333_333_333n);
  });

  it('marks open positions at the last observed price for unrealised PnL and equity', () => {
    const book = createPortfolio(2_000_000_000n);
    book.applyFill('s', fill('buy', 'M', 1_000_000_000n, 2_000_000n, 0n));
    book.mark('M', '0.75');
    const t = book.totals();
    expect(t.marketValueLamports).toBe(1_500_000_000n);
    expect(t.unrealisedLamports).toBe(500_000_000n);
    expect(t.equityLamports).toBe(2_500_000_000n);
  });

  it('follows a token from its curve to its AMM pool after graduation', () => {
    const book = createPortfolio(2_000_000_000n);
    book.relocate('M', 'venue_a', 'curve-pool');
    book.applyFill('s', fill('buy', 'M', 1_000_000_000n, 2_000_000n, 0n));
    expect(book.position('s', 'M')?.market).toBe('venue_a');
    book.relocate('M', 'venue_a-amm', 'amm-pool');
    expect(book.position('s', 'M')).toMatchObject({ market: 'venue_a-amm', pool: 'amm-pool', tokenRaw: 2_000_000n });
  });

  it('refuses a sell of more tokens than the position holds with a fatal coded error', () => {
    const book = createPortfolio(2_000_000_000n);
    book.applyFill('s', fill('buy', 'M', 1_000n, 10n, 0n));
    expect(() => book.applyFill('s', fill('sell', 'M', 1_000n, 11n, 0n))).toThrow(
      expect.objectContaining({ code: 'ENGINE_POSITION_OVERSOLD', retry: 'fatal' }),
    );
    expect(book.position('s', 'M')?.tokenRaw).toBe(10n);
    expect(book.totals().feesLamports).toBe(0n);
  });

  it('keeps cash + open cost = start + realised, and realised exact, over random fill sequences', () => {
    const op = fc.record({
      strategy: fc.constantFrom('a', 'b'),
      mint: fc.constantFrom('M1', 'M2', 'M3'),
      buy: fc.boolean(),
      sol: fc.bigInt({ min: 1n, max: 5_000_000_000n }),
      tokens: fc.bigInt({ min: 1n, max: 10_000_000_000n }),
      sellBps: fc.integer({ min: 1, max: 10_000 }),
      fee: fc.bigInt({ min: 0n, max: 2_000_000n }),
      price: fc.integer({ min: 1, max: 1_000_000 }),
    });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const start = 1_000_000_000_000n;
        const book = createPortfolio(start);
        let cashFlows = 0n;
        let closedPnl = 0n;
        ops.forEach((o, i) => {
          book.mark(o.mint, (o.price / 1000).toString());
          const held = book.position(o.strategy, o.mint)?.tokenRaw ?? 0n;
          if (o.buy || held === 0n) {
            book.applyFill(o.strategy, fill('buy', o.mint, o.sol, o.tokens, o.fee, i));
            cashFlows -= o.sol + o.fee;
          } else {
            const amount = o.sellBps === 10_000 ? held : (held * BigInt(o.sellBps)) / 10_000n;
            if (amount === 0n) return;
            const before = book.position(o.strategy, o.mint)!;
            const after = book.applyFill(o.strategy, fill('sell', o.mint, o.sol, amount, o.fee, i));
            cashFlows += o.sol - o.fee;
            closedPnl += after.realisedLamports - before.realisedLamports;
          }
        });
        const t = book.totals();
        expect(t.cashLamports).toBe(start + cashFlows);
        expect(t.cashLamports + t.openCostLamports).toBe(start + t.realisedLamports);
        expect(t.realisedLamports).toBe(closedPnl);
        let value = 0n;
        for (const p of book.open()) value += valueLamports(p.tokenRaw, p.decimals, `${ops.filter((o) => o.mint === p.mint).at(-1)!.price / 1000}`);
        expect(t.marketValueLamports).toBe(value);
        expect(t.equityLamports).toBe(t.cashLamports + value);
        expect(t.unrealisedLamports).toBe(value - t.openCostLamports);
      }),
      { numRuns: 300 },
    );
  });

  it('values a position in bigints exactly as bignumber.js does, for every plain decimal price and any raw amount and decimals', () => {
    const slow = (raw: bigint, decimals: number, price: string): bigint =>
      BigInt(
        decimal(price)
          .times(raw.toString())
          .shiftedBy(9 - decimals)
          .integerValue(Decimal.ROUND_DOWN)
          .toFixed(0),
      );
    const price = fc.oneof(
      // what the engine writes: exact strings of wire doubles, from 1e-12 to 1e6 SOL
      fc.double({ min: 1e-12, max: 1e6, noNaN: true, noDefaultInfinity: true }).map((n) => exactString(n)),
      // decimal strings of any length, with or without a point
      fc
        .tuple(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.nat({ max: 40 }))
        .map(([d, scale]) => (scale === 0 ? d.toString() : decimal(d.toString()).shiftedBy(-scale).toFixed())),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n }), fc.integer({ min: 0, max: 18 }), price, (raw, decimals, p) => {
        expect(valueLamports(raw, decimals, p)).toBe(slow(raw, decimals, p));
      }),
      { numRuns: 2_000 },
    );
    // and the bignumber.js path still takes what is not a plain decimal
    expect(valueLamports(3_000_000n, 6, '1.5e-3')).toBe(4_500_000n);
    expect(valueLamports(3_000_000n, 6, decimal('0.0015'))).toBe(4_500_000n);
  });

  it("values a position from a tick's wire number on doubles only where that gives the exact value, and most of the time", () => {
    const raw = fc.bigInt({ min: 0n, max: 2n ** 60n });
    const decimals = fc.integer({ min: 0, max: 18 });
    // any wire double, and doubles picked so that the value lands on or next to a whole lamport (the ties the doubles cannot decide)
    const cases = fc.oneof(
      fc.tuple(raw, decimals, fc.double({ min: 1e-12, max: 1e6, noNaN: true, noDefaultInfinity: true })),
      fc
        .tuple(
          raw.filter((r) => r > 0n),
          decimals,
          fc.bigInt({ min: 0n, max: 10n ** 15n }),
          fc.integer({ min: -2, max: 2 }),
        )
        .map(([r, d, l, ulps]) => {
          const sol = Number(l) / (Number(r) * 10 ** (9 - d));
          return [r, d, sol * (1 + ulps * Number.EPSILON)] as const;
        }),
    );
    fc.assert(
      fc.property(cases, ([r, d, sol]) => {
        const fast = Number.isFinite(sol) ? valueLamportsOfWire(r, d, sol) : undefined;
        if (fast !== undefined) expect(fast).toBe(valueLamports(r, d, exactString(sol)));
      }),
      { numRuns: 5_000 },
    );
    // on what positions hold (up to 1e15 raw units of a 6 to 9 decimals token, priced 1e-12 to 1e-3 SOL, worth up to 100 SOL) the doubles decide nearly always
    const held = fc.tuple(
      fc.bigInt({ min: 1n, max: 10n ** 15n }),
      fc.integer({ min: 6, max: 9 }),
      fc.double({ min: 1e-12, max: 1e-3, noNaN: true, noDefaultInfinity: true }),
    );
    const sample = fc.sample(fc.noBias(held), { numRuns: 4_000, seed: 40 }).filter(([r, d, sol]) => valueLamports(r, d, exactString(sol)) <= 100n * 10n ** 9n);
    expect(sample.length).toBeGreaterThan(1_000);
    expect(sample.filter(([r, d, sol]) => valueLamportsOfWire(r, d, sol) !== undefined).length / sample.length).toBeGreaterThan(0.99);
    // a value on a whole lamport (in doubles 0.3 × 1e9 may fall either side of it) is left to the bigints, and the book gets it exact
    expect(valueLamportsOfWire(1_000_000n, 6, 0.3)).toBeUndefined();
    const book = createPortfolio(0n);
    book.applyFill('s', fill('buy', 'M', 1n, 1_000_000n, 0n, 0));
    book.mark('M', tick('M', 0.3));
    expect(book.valueOf(book.position('s', 'M')!)).toBe(300_000_000n);
    expect(valueLamportsOfWire(-1n, 6, 0.3)).toBeUndefined();
    expect(valueLamportsOfWire(2n ** 60n, 0, 1e6)).toBeUndefined();
  });

  it('keeps its totals equal to a sum over the open positions after every step (marks, fills, failed fees, moves to a new pool)', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('fill' as const),
        strategy: fc.constantFrom('a', 'b'),
        mint: fc.constantFrom('M1', 'M2', 'M3'),
        buy: fc.boolean(),
        sol: fc.bigInt({ min: 1n, max: 5_000_000_000n }),
        tokens: fc.bigInt({ min: 1n, max: 10_000_000_000n }),
        sellBps: fc.integer({ min: 1, max: 10_000 }),
        fee: fc.bigInt({ min: 0n, max: 2_000_000n }),
      }),
      fc.record({ kind: fc.constant('mark' as const), mint: fc.constantFrom('M1', 'M2', 'M3'), price: fc.integer({ min: 1, max: 1_000_000 }) }),
      // a price tick as the normaliser builds it: the book values from its wire number
      fc.record({
        kind: fc.constant('tick' as const),
        mint: fc.constantFrom('M1', 'M2', 'M3'),
        sol: fc.double({ min: 1e-12, max: 10, noNaN: true, noDefaultInfinity: true }),
      }),
      fc.record({
        kind: fc.constant('failed' as const),
        strategy: fc.constantFrom('a', 'b'),
        mint: fc.constantFrom('M1', 'M2', 'M3'),
        fee: fc.bigInt({ min: 0n, max: 2_000_000n }),
      }),
      fc.record({ kind: fc.constant('relocate' as const), mint: fc.constantFrom('M1', 'M2', 'M3') }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const book = createPortfolio(1_000_000_000_000n);
        const prices = new Map<string, string>();
        ops.forEach((o, i) => {
          if (o.kind === 'mark') {
            prices.set(o.mint, (o.price / 1000).toString());
            book.mark(o.mint, (o.price / 1000).toString());
          } else if (o.kind === 'tick') {
            prices.set(o.mint, exactString(o.sol));
            book.mark(o.mint, tick(o.mint, o.sol));
          } else if (o.kind === 'failed') {
            book.applyFailedFee(o.strategy, o.mint, lamports(o.fee));
          } else if (o.kind === 'relocate') {
            book.relocate(o.mint, 'amm', `pool-${i}`);
          } else {
            const held = book.position(o.strategy, o.mint)?.tokenRaw ?? 0n;
            if (o.buy || held === 0n) book.applyFill(o.strategy, fill('buy', o.mint, o.sol, o.tokens, o.fee, i));
            else {
              const amount = o.sellBps === 10_000 ? held : (held * BigInt(o.sellBps)) / 10_000n;
              if (amount > 0n) book.applyFill(o.strategy, fill('sell', o.mint, o.sol, amount, o.fee, i));
            }
          }
          const t = book.totals();
          const open = book.open();
          const cost = open.reduce((sum, p) => sum + p.costLamports, 0n);
          const value = open.reduce((sum, p) => {
            const price = prices.get(p.mint);
            return sum + (price === undefined ? p.costLamports : valueLamports(p.tokenRaw, p.decimals, price));
          }, 0n);
          expect(t.openPositions).toBe(open.length);
          expect(t.openCostLamports).toBe(cost);
          expect(t.marketValueLamports).toBe(value);
          expect(t.unrealisedLamports).toBe(value - cost);
          expect(t.equityLamports).toBe(t.cashLamports + value);
          expect(book.equityLamports()).toBe(t.equityLamports);
          expect(book.openCount()).toBe(t.openPositions);
        });
      }),
      { numRuns: 300 },
    );
  });
});

/** A price tick of `mint` at `sol` SOL per token, as the normaliser builds it. */
function tick(mint: string, sol: number): PriceTickEvent {
  const at = 0 as UnixMs;
  return new PriceTickEvent(
    `price:token:${mint}`,
    at,
    'live',
    mint,
    sol,
    150,
    undefined,
    false,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    undefined,
    at,
  );
}

describe('portfolio open positions by token', () => {
  it('answers openOn with the positions as they are after every fill, fee and relocation, and never changes a list a caller holds', () => {
    const book = createPortfolio(10_000_000_000n);
    expect(book.openOn('M')).toEqual([]);
    book.applyFill('a', fill('buy', 'M', 1_000_000_000n, 5_000_000n, 0n));
    const first = book.openOn('M');
    expect(first.map((p) => [p.strategyId, p.tokenRaw])).toEqual([['a', 5_000_000n]]);
    expect(book.openOn('M')).toBe(first); // asked again with nothing changed: the same answer
    book.applyFill('b', fill('buy', 'M', 1_000_000_000n, 4_000_000n, 0n, 1));
    book.applyFill('a', fill('sell', 'M', 500_000_000n, 2_000_000n, 0n, 2));
    expect(book.openOn('M').map((p) => [p.strategyId, p.tokenRaw])).toEqual([
      ['a', 3_000_000n],
      ['b', 4_000_000n],
    ]);
    expect(first.map((p) => p.tokenRaw)).toEqual([5_000_000n]);
    book.applyFailedFee('b', 'M', lamports(5_000n));
    expect(book.openOn('M')[1]!.feesLamports).toBe(5_000n);
    book.relocate('M', 'venue_a-amm', 'PoolB');
    expect(book.openOn('M').map((p) => p.pool)).toEqual(['PoolB', 'PoolB']);
    book.applyFill('a', fill('sell', 'M', 500_000_000n, 3_000_000n, 0n, 3));
    expect(book.openOn('M').map((p) => p.strategyId)).toEqual(['b']);
    book.applyFill('b', fill('sell', 'M', 500_000_000n, 4_000_000n, 0n, 4));
    expect(book.openOn('M')).toEqual([]);
  });
});
