/**
 * chainpilot/testing drives a strategy on the real engine and paper executor: domain events in,
 * intents, denials, fills and positions out, time moved by the test only.
 */
import { describe, expect, it } from 'vitest';
import dipBuyer from '../../config/strategies/dip-buyer.js';
import { defineStrategy, rooms, solParam, z } from '../../src/strategies/api.js';
import { testStrategy } from '../../src/testing/index.js';
import { isChainpilotError, lamports } from '../../src/core/index.js';

const MINT = 'Mint1111111111111111111111111111111111111111';

/** Buys `buySol` on every trade it sees, and throws on a sell trade: denials and errors to look at. */
const eager = defineStrategy({
  id: 'eager',
  params: z.strictObject({ buySol: solParam.prefault('0.1') }),
  rooms: () => [rooms.transactions(MINT)],
  onTrade(e, ctx) {
    if (e.side === 'sell') throw new Error('sell trades are not handled');
    ctx.buy({ mint: e.mint, lamports: ctx.params.buySol, reason: `trade of ${e.solLamports ?? 0n} lamports` });
  },
});

describe('chainpilot/testing', () => {
  it('runs the dip buyer from launch to a paper fill and a take-profit exit, on the manual clock', async () => {
    const t = await testStrategy(dipBuyer, { params: { minHolders: 5, buySol: '0.1', watchMs: '10m' } });
    t.send(t.events.launch({ mint: MINT, symbol: 'DIP' }));
    expect(t.rooms()).toEqual(expect.arrayContaining([rooms.price(MINT), rooms.holders(MINT)]));
    t.send(t.events.safety(MINT, 'holders', 20), t.events.price(MINT, '0.0001'));
    t.expectNoIntent();
    t.send(t.events.price(MINT, '0.00007')); // 30 % below the high: a dip
    const buy = t.expectIntent({ side: 'buy', mint: MINT, spendLamports: 100_000_000n });
    expect(buy.reason).toBe('dip with 20 holders');
    expect(t.fills()).toEqual([]); // the paper latency has not passed
    t.advance(250);
    expect(t.expectFill({ side: 'buy' }).intentId).toBe(buy.id);
    expect(t.positions().map((p) => p.mint)).toEqual([MINT]);

    t.send(t.events.price(MINT, '0.0001')); // above 1.25x the entry: the take-profit rule sells it all
    t.expectIntent({ side: 'sell', mint: MINT });
    t.advance(250);
    t.expectFill({ side: 'sell' });
    expect(t.positions()).toEqual([]);
    expect(t.totals().realisedLamports).toBeGreaterThan(0n);
    await t.stop();
  });

  it('fires the strategy timer and leaves the watched rooms only when the clock passes their time', async () => {
    const t = await testStrategy(dipBuyer, { params: { watchMs: '10m' } });
    t.send(t.events.launch({ mint: MINT }));
    t.advance(10 * 60_000 - 1);
    expect(t.rooms()).toContain(rooms.price(MINT));
    t.advance(1);
    expect(t.rooms()).not.toContain(rooms.price(MINT));
    // forgotten by the timer: a dip after it buys nothing
    t.send(t.events.safety(MINT, 'holders', 50), t.events.price(MINT, '0.0001'), t.events.price(MINT, '0.00001'));
    t.expectNoIntent();
    await t.stop();
  });

  it('shows the risk gate denials and the errors a strategy throws, as a run counts them', async () => {
    const t = await testStrategy(eager, { risk: { maxTradeLamports: lamports(50_000_000n) } });
    t.send(t.events.trade({ mint: MINT, side: 'buy', sol: '1.5', wallet: 'W1' }));
    expect(t.expectDenied('RISK_TRADE_SIZE').mint).toBe(MINT);
    t.expectNoIntent();
    t.send(t.events.trade({ mint: MINT, side: 'sell', sol: '0.2' }));
    expect(t.errors()).toBe(1);
    expect(t.halted()).toBeUndefined();
    await t.stop();
  });

  it('routes an event only to a strategy that watches its room', async () => {
    const t = await testStrategy(eager);
    const other = t.events.trade({ mint: 'Other111111111111111111111111111111111111111', side: 'buy', sol: '1' });
    t.send(other);
    expect(t.intents()).toEqual([]);
    expect(t.unwatched()).toEqual([other]);
    t.send(t.events.trade({ mint: MINT, side: 'buy', sol: '1' }));
    expect(t.expectIntent({ side: 'buy', reason: 'trade of 1000000000 lamports' }).spendLamports).toBe(100_000_000n);
    expect(t.unwatched()).toEqual([other]);
    await t.stop();
  });

  it('fails an assertion with STRATEGY_TEST_ASSERTION listing what the strategy did, and a bad event with STRATEGY_TEST_BAD_EVENT naming the field', async () => {
    const t = await testStrategy(eager);
    t.send(t.events.trade({ mint: MINT, side: 'buy', sol: '0.5' }));
    let thrown: unknown;
    try {
      t.expectIntent({ side: 'sell' });
    } catch (e) {
      thrown = e;
    }
    expect(isChainpilotError(thrown, 'STRATEGY_TEST_ASSERTION')).toBe(true);
    expect((thrown as Error).message).toContain(`intents: buy ${MINT} 100000000 lamports (trade of 500000000 lamports)`);
    expect(() => t.events.trade({ mint: MINT, side: 'buy', sol: '0.1234567891' })).toThrow(/sol: expected a SOL amount/);
    expect(() => t.events.price(MINT, '1e-5')).toThrow(/price: expected SOL per whole token as a plain decimal string/);
    const bad = ((): unknown => {
      try {
        return t.events.price(MINT, 'x');
      } catch (e) {
        return e;
      }
    })();
    expect(isChainpilotError(bad, 'STRATEGY_TEST_BAD_EVENT')).toBe(true);
    await t.stop();
  });

  it('checks the parameters as a deployment does', async () => {
    await expect(testStrategy(dipBuyer, { params: { dipBp: 100 } })).rejects.toThrow(/STRATEGY_INVALID_PARAMS|invalid parameters/);
  });

  it('lets an async handler finish with settle(), delivers a gap to the strategy, and prices paper fills from pool reserves', async () => {
    const sniper = defineStrategy({
      id: 'async-sniper',
      params: z.strictObject({}),
      rooms: () => [rooms.graduated()],
      async onGraduated(e, ctx) {
        await Promise.resolve(); // as a handler awaiting a lookup would
        ctx.buy({ mint: e.mint, lamports: lamports(200_000_000n), reason: 'graduated' });
      },
      onGap(g, ctx) {
        ctx.log.info('gap', { rooms: g.rooms.length });
        ctx.buy({ mint: MINT, lamports: lamports(100_000_000n), reason: `gap of ${g.endedAt - g.startedAt} ms` });
      },
    });
    const t = await testStrategy(sniper);
    t.send(t.events.graduated(MINT, { market: 'amm', poolId: 'Pool1' }));
    expect(t.intents()).toEqual([]); // the handler is still awaiting
    await t.settle();
    t.expectIntent({ side: 'buy', reason: 'graduated' });
    t.send(t.events.price(MINT, '0.0001', { solReserveLamports: 50_000_000_000n, tokenReserveRaw: 500_000_000_000_000n, poolFeeBps: 25 }));
    t.advance(250);
    const fill = t.expectFill({ side: 'buy', mint: MINT });
    expect(fill.tokenAmount).toBeGreaterThan(0n);
    expect(fill.tokenAmount).toBeLessThan(2_000_000_000_000n); // 0.2 SOL at 0.0001 would be 2000 tokens: the curve and fees give fewer
    t.send(t.events.gap([rooms.graduated()], 5_000));
    t.expectIntent({ side: 'buy', reason: 'gap of 5000 ms' });
    await t.stop();
  });
});
