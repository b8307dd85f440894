import { describe, expect, it } from 'vitest';
import { manualClock, seededRandom, type ManualClock, lamports } from '../../src/core/index.js';
import type { ExecutionSink, Executor } from '../../src/engine/orders/execution-port.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { createEngine } from '../../src/engine/engine.js';
import type { MarketView } from '../../src/engine/market/market-view.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { BUILTIN_STRATEGIES } from '../../src/strategies/builtin.js';
import { fakeFeed } from '../engine/fake-feed.js';

const SOL = 1_000_000_000n;

/** An executor that refuses every intent (a venue that is down): the strategy hears onIntentFailed. */
function refusingExecutor(clock: ManualClock): Executor {
  let sink: ExecutionSink | undefined;
  return {
    start: async (s) => void (sink = s),
    submit: async (intent) => sink?.({ type: 'rejected', intentId: intent.id, at: clock.now(), code: 'TEST_REFUSED', reason: 'refused by the test executor' }),
    stop: async () => undefined,
  };
}

function run(name: string, params: Record<string, unknown>, o: { refuse?: boolean } = {}) {
  const clock = manualClock(1_767_225_600_000);
  const feed = fakeFeed(clock);
  const log = memoryDecisionLog();
  const ref: { market?: MarketView } = {};
  const engine = createEngine({
    feed,
    executor: o.refuse ? refusingExecutor(clock) : createPaperExecutor({ clock, market: { get: (m) => ref.market?.get(m) }, latencyMs: 100 }),
    clock,
    random: seededRandom(1),
    strategies: [instantiateStrategy(BUILTIN_STRATEGIES[name]!, params)],
    risk: {},
    startingCashLamports: 10n * SOL,
    execution: { slippageBps: 1_000, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    decisions: log.sink,
  });
  ref.market = engine.market;
  const intents = () =>
    log.lines.map((l) => JSON.parse(l) as { kind: string; side?: string; mint?: string; reason?: string }).filter((e) => e.kind === 'intent');
  return { clock, feed, engine, intents };
}

describe('built-in strategies', () => {
  it('graduation-sniper buys on the first AMM price after a graduation and not on graduations it filters out', async () => {
    const t = run('graduation-sniper', { buySol: '0.2', markets: ['venue_a-amm'] });
    await t.engine.start();
    t.feed.push('graduated', { token: { mint: 'G' }, pools: [{ market: 'venue_a-amm', poolId: 'AMM' }], graduationTx: 'tx', graduationTime: 1 });
    t.feed.push('graduated', { token: { mint: 'X' }, pools: [{ market: 'other-amm', poolId: 'P2' }] });
    expect(t.feed.joined()).toEqual(['graduated', 'price:token:G']);
    t.clock.advance(2_000);
    t.feed.push('price:token:G', { price: 0.0002 * 150, price_quote: 0.0002, pool: 'AMM' });
    expect(t.intents()).toMatchObject([{ side: 'buy', mint: 'G' }]);
    t.clock.advance(100);
    expect(t.engine.portfolio.open()[0]).toMatchObject({ mint: 'G', pool: 'AMM' });
  });

  it('curve-momentum buys after confirmMs only when the holder and safety filters pass', async () => {
    const t = run('curve-momentum', { milestonePct: 50, confirmMs: 3_000, minHolders: 10, maxTop10Pct: 40 });
    await t.engine.start();
    for (const mint of ['OK', 'CONCENTRATED']) {
      t.feed.push('venue_a:curve:50', { token: { mint }, pools: [] });
      t.feed.push(`price:token:${mint}`, { price: 0.00005 * 150, price_quote: 0.00005 });
      t.feed.push(`holders:${mint}`, { total: 25 });
      t.feed.push(`top10:${mint}`, { top10Percentage: mint === 'OK' ? 30 : 70 });
    }
    t.clock.advance(2_999);
    expect(t.intents()).toEqual([]);
    t.clock.advance(1);
    expect(t.intents()).toMatchObject([{ side: 'buy', mint: 'OK' }]);
    expect(t.feed.joined()).not.toContain('top10:CONCENTRATED');
  });

  it('graduation-sniper and curve-momentum leave the rooms of a buy that never filled', async () => {
    const sniper = run('graduation-sniper', { buySol: '0.2' }, { refuse: true });
    await sniper.engine.start();
    sniper.feed.push('graduated', { token: { mint: 'G' }, pools: [{ market: 'venue_a-amm', poolId: 'AMM' }] });
    sniper.feed.push('price:token:G', { price: 0.0002 * 150, price_quote: 0.0002, pool: 'AMM' });
    await Promise.resolve();
    expect(sniper.intents()).toMatchObject([{ side: 'buy', mint: 'G' }]);
    expect(sniper.feed.joined()).toEqual(['graduated']);

    const momentum = run('curve-momentum', { milestonePct: 50, confirmMs: 1_000, minHolders: 0 }, { refuse: true });
    await momentum.engine.start();
    momentum.feed.push('venue_a:curve:50', { token: { mint: 'C' }, pools: [] });
    momentum.feed.push('price:token:C', { price: 0.00005 * 150, price_quote: 0.00005 });
    expect(momentum.feed.joined()).toContain('holders:C');
    momentum.clock.advance(1_000);
    await Promise.resolve();
    expect(momentum.intents()).toMatchObject([{ side: 'buy', mint: 'C' }]);
    expect(momentum.feed.joined()).toEqual(['venue_a:curve:50']);
  });

  it('copy-trader mirrors a followed wallet buying and then selling', async () => {
    const t = run('copy-trader', { wallets: ['W1'], copySol: '0.1' });
    await t.engine.start();
    expect(t.feed.joined()).toEqual(['pnl:W1']);
    t.feed.push('pnl:W1', { type: 'tradeUpdate', wallet: 'W1', token: 'C', side: 'buy' });
    t.feed.push('price:token:C', { price: 0.0001 * 150, price_quote: 0.0001 });
    t.clock.advance(100);
    expect(t.engine.portfolio.open()).toHaveLength(1);
    t.feed.push('pnl:W1', { type: 'tradeUpdate', wallet: 'W1', token: 'C', side: 'sell' });
    t.clock.advance(100);
    expect(t.engine.portfolio.open()).toHaveLength(0);
    expect(t.intents().map((i) => i.reason)).toEqual(['copy buy of W1', 'copy sell of W1']);
  });

  it('dca-flow buys a token after enough new DCA buy orders within its window', async () => {
    const sol = 'So11111111111111111111111111111111111111112';
    const t = run('dca-flow', { minOrders: 3, windowMs: 60_000 });
    await t.engine.start();
    const open = (mint: string) => t.feed.push('dca:dca_program_a:opened', { eventName: 'opened', order: { inputMint: sol, outputMint: mint } });
    open('D');
    t.clock.advance(61_000);
    open('D');
    open('D');
    t.feed.push('price:token:D', { price: 0.001 * 150, price_quote: 0.001 });
    expect(t.intents()).toEqual([]);
    open('D');
    t.feed.push('price:token:D', { price: 0.001 * 150, price_quote: 0.001 });
    expect(t.intents()).toMatchObject([{ side: 'buy', mint: 'D' }]);
  });

  it('graduation-sniper rides out a storm of graduations without halting: it skips what it cannot watch and releases every room it no longer needs', async () => {
    const t = run('graduation-sniper', { buySol: '0.2', maxWatching: 50 });
    await t.engine.start();
    for (let i = 0; i < 5_000; i++) t.feed.push('graduated', { token: { mint: `S${i}` }, pools: [{ market: 'venue_a-amm', poolId: `P${i}` }] });
    expect(t.feed.joined()).toHaveLength(1 + 50);
    expect(t.engine.stats.summary().strategyErrors).toBe(0);
    // The entry delay passes with no price: every waiting room is released.
    t.clock.advance(30_000);
    expect(t.feed.joined()).toEqual(['graduated']);
    expect(t.engine.haltedStrategies()).toEqual([]);
    // The strategy still trades after the storm.
    t.feed.push('graduated', { token: { mint: 'AFTER' }, pools: [{ market: 'venue_a-amm', poolId: 'PA' }] });
    t.feed.push('price:token:AFTER', { price: 0.0002 * 150, price_quote: 0.0002, pool: 'PA' });
    expect(t.intents()).toMatchObject([{ side: 'buy', mint: 'AFTER' }]);
  });

  it('curve-momentum, copy-trader and dca-flow stay under the room bound in a burst and release what they stopped watching', async () => {
    const momentum = run('curve-momentum', { milestonePct: 50, confirmMs: 1_000, maxWatching: 20 });
    await momentum.engine.start();
    for (let i = 0; i < 2_000; i++) momentum.feed.push('venue_a:curve:50', { token: { mint: `C${i}` }, pools: [] });
    expect(momentum.feed.joined()).toHaveLength(1 + 20 * 6);
    momentum.clock.advance(1_000);
    expect(momentum.feed.joined()).toEqual(['venue_a:curve:50']);
    expect(momentum.engine.stats.summary().strategyErrors).toBe(0);

    const copy = run('copy-trader', { wallets: ['W1'], maxWatching: 10, maxWaitMs: 5_000 });
    await copy.engine.start();
    for (let i = 0; i < 2_000; i++) copy.feed.push('pnl:W1', { type: 'tradeUpdate', wallet: 'W1', token: `T${i}`, side: 'buy' });
    expect(copy.feed.joined()).toHaveLength(1 + 10);
    copy.clock.advance(5_000);
    expect(copy.feed.joined()).toEqual(['pnl:W1']);
    expect(copy.engine.stats.summary().strategyErrors).toBe(0);

    const sol = 'So11111111111111111111111111111111111111112';
    const dca = run('dca-flow', { minOrders: 1, maxWatching: 10, maxWaitMs: 5_000 });
    await dca.engine.start();
    for (let i = 0; i < 2_000; i++) dca.feed.push('dca:dca_program_a:opened', { eventName: 'opened', order: { inputMint: sol, outputMint: `D${i}` } });
    expect(dca.feed.joined()).toHaveLength(1 + 10);
    dca.clock.advance(5_000);
    expect(dca.feed.joined()).toEqual(['dca:dca_program_a:opened']);
    expect(dca.engine.stats.summary().strategyErrors).toBe(0);
  });
});

describe('dca-flow memory', () => {
  it('counts at most MAX_COUNTED tokens at once, forgetting those with no order in the window first', async () => {
    const { dcaFlow, MAX_COUNTED } = await import('../../src/strategies/dca-flow/index.js');
    const params = dcaFlow.params.parse({ minOrders: 3, windowMs: 60_000 });
    const state = dcaFlow.initialState!(params);
    let now = 0;
    const watched: string[] = [];
    type Ctx = Parameters<NonNullable<typeof dcaFlow.onDca>>[1];
    type Event = Parameters<NonNullable<typeof dcaFlow.onDca>>[0];
    // only what onDca reads: the strategy sees no more of the context
    const ctx = {
      params,
      state,
      clock: { now: () => now },
      position: () => undefined,
      watch: (r: string) => watched.push(r),
      schedule: () => undefined,
    } as unknown as Ctx;
    const order = (mint: string) =>
      void dcaFlow.onDca!({ type: 'dca', eventName: 'opened', inputMint: params.quoteMint, outputMint: mint } as unknown as Event, ctx);
    order('KEEP');
    order('KEEP');
    for (let i = 0; i < MAX_COUNTED - 2; i++) order(`OLD${i}`); // one order each, never enough
    now = 120_000; // past the window: every token counted so far is stale
    order('KEEP'); // its third order, but the first two left the window: counted afresh
    for (let i = 0; i < 5_000; i++) order(`NEW${i}`);
    expect(state.opened.size).toBeLessThanOrEqual(MAX_COUNTED);
    expect([...state.opened.keys()].some((m) => m.startsWith('OLD'))).toBe(false); // the stale went first
    expect(state.opened.get('KEEP')).toEqual([120_000]);
    // a token still trades after the flood
    order('LATE');
    order('LATE');
    order('LATE');
    expect(watched).toEqual(['price:token:LATE']);
  });
});
