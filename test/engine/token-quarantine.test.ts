/**
 * A token whose events keep throwing is quarantined, not the strategy (issue 41: 10 errors from one
 * token in 60 ms used to halt the strategy for every token). Errors across many tokens still halt it.
 * And ctx.watch refuses a room name with a value left out, echoing it.
 */
import { describe, expect, it } from 'vitest';
import { manualClock, seededRandom, lamports } from '../../src/core/index.js';
import { memoryDecisionLog } from '../../src/engine/logs/decision-log.js';
import { createEngine } from '../../src/engine/engine.js';
import type { MarketView } from '../../src/engine/market/market-view.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { defineStrategy, rooms, solParam, z } from '../../src/strategies/api.js';
import { fakeFeed } from './fake-feed.js';

const SOL = 1_000_000_000n;

/** Buys every launched token, except that the launch of "BAD" throws (a bug that one token trips). */
const params = z.strictObject({ buySol: solParam.prefault('0.1') });
const picky = defineStrategy<z.output<typeof params>, Record<string, never>>({
  id: 'picky',
  params,
  rooms: () => [rooms.latest()],
  initialState: () => ({}),
  onLaunch(e, ctx) {
    if (e.mint.startsWith('BAD')) throw new Error(`cannot read ${e.mint}`);
    ctx.buy({ mint: e.mint, lamports: ctx.params.buySol, reason: 'launch' });
  },
});

/** Concatenates a room name with a value left out: `price:token:` (the mint forgotten). */
const careless = defineStrategy<z.output<typeof params>, Record<string, never>>({
  id: 'careless',
  params,
  rooms: () => [rooms.latest()],
  initialState: () => ({}),
  onLaunch(_e, ctx) {
    ctx.watch('price:token:');
  },
});

function run(def: typeof picky = picky) {
  const clock = manualClock(1_767_225_600_000);
  const feed = fakeFeed(clock);
  const log = memoryDecisionLog();
  const ref: { market?: MarketView } = {};
  const engine = createEngine({
    feed,
    executor: createPaperExecutor({ clock, market: { get: (m) => ref.market?.get(m) }, latencyMs: 100 }),
    clock,
    random: seededRandom(1),
    strategies: [instantiateStrategy(def, {})],
    risk: {},
    startingCashLamports: 10n * SOL,
    execution: { slippageBps: 1_000, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
    decisions: log.sink,
    errorPolicy: { maxErrors: 10, windowMs: 60_000 },
  });
  ref.market = engine.market;
  const buys = (): string[] =>
    log.lines
      .map((l) => JSON.parse(l) as { kind: string; side?: string; mint?: string })
      .filter((e) => e.kind === 'intent' && e.side === 'buy')
      .map((e) => e.mint ?? '');
  return { clock, feed, engine, buys };
}

describe('a throwing token', () => {
  it('is quarantined after 3 errors: its later events are not delivered, the strategy keeps trading the others and is not halted', async () => {
    const t = run();
    await t.engine.start();
    // 10 errors from one token within 60 ms: this halted the whole strategy before
    for (let i = 0; i < 10; i++) {
      t.feed.push('latest', { token: { mint: 'BAD' }, pools: [] });
      t.clock.advance(6);
    }
    expect(t.engine.haltedStrategies()).toEqual([]);
    const s = t.engine.stats.summary();
    expect(s.strategyErrors).toBe(3); // the 4th to 10th launches of BAD never reached the handler
    expect(s.tokensQuarantined).toBe(1);
    expect(t.engine.stats.recentErrors.at(-1)).toMatchObject({ where: 'picky.quarantine', error: 'token BAD quarantined' });
    t.feed.push('latest', { token: { mint: 'GOOD' }, pools: [] });
    expect(t.buys()).toEqual(['GOOD']);
  });

  it("halts the strategy when errors come from many tokens (a bug that is not one token's)", async () => {
    const t = run();
    await t.engine.start();
    for (let i = 0; i < 10; i++) t.feed.push('latest', { token: { mint: `BAD${i}` }, pools: [] });
    expect(t.engine.haltedStrategies()).toMatchObject([{ strategyId: 'picky', message: expect.stringMatching(/halted after 10 errors/) }]);
    expect(t.engine.stats.summary().tokensQuarantined).toBe(0);
  });

  it('ctx.watch refuses a room name with a value left out, echoing it, and joins nothing', async () => {
    const t = run(careless);
    await t.engine.start();
    t.feed.push('latest', { token: { mint: 'M1' }, pools: [] });
    expect(t.engine.stats.recentErrors.at(-1)).toMatchObject({
      where: 'careless.onLaunch',
      error: expect.stringContaining('room "price:token:" has an empty segment'),
    });
    expect(t.feed.joined()).toEqual(['latest']);
  });
});
