/**
 * The testing example of docs/strategies.md ("Testing a strategy"): checked against the guide by
 * test/docs/doc-examples.test.ts, compiled by the typecheck, and run by test/docs/strategy-testing.test.ts.
 */
// #region doc
import { describe, expect, it } from 'vitest';
import { testStrategy } from '../../../src/testing/index.js';
import dipBuyer from './dip-buyer.js';

const MINT = 'Mint1111111111111111111111111111111111111111';

describe('dip-buyer', () => {
  it('buys a dip once enough wallets hold the token, and takes its profit', async () => {
    const t = await testStrategy(dipBuyer, { params: { buySol: '0.1', minHolders: 5 } });
    t.send(t.events.launch({ mint: MINT })); // it watches the token's price and holders
    t.send(t.events.safety(MINT, 'holders', 20), t.events.price(MINT, '0.0001'));
    t.expectNoIntent(); // no dip yet
    t.send(t.events.price(MINT, '0.00007')); // 30 % below the high
    t.expectIntent({ side: 'buy', mint: MINT, spendLamports: 100_000_000n });
    t.advance(250); // the paper latency passes on the manual clock: the real paper executor fills
    t.expectFill({ side: 'buy', mint: MINT });
    t.send(t.events.price(MINT, '0.0001')); // past 1.25x the entry: the take-profit rule sells
    t.expectIntent({ side: 'sell', mint: MINT });
    t.advance(250);
    expect(t.positions()).toEqual([]);
    expect(t.totals().realisedLamports).toBeGreaterThan(0n);
    await t.stop();
  });
});
// #endregion doc
