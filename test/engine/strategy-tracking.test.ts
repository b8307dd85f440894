/**
 * `ctx.track(mint, { rooms, ttlMs, state })`: per-token state and rooms end together, on expiry
 * (manual clock), on a fill or a failed intent (after the handler saw them), or on untrack.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isChainpilotError, lamports, manualClock, seededRandom } from '../../src/core/index.js';
import { createEngine } from '../../src/engine/engine.js';
import type { MarketView } from '../../src/engine/market/market-view.js';
import { defineStrategy, type StrategyContext } from '../../src/engine/strategy/strategy-api.js';
import { instantiateStrategy } from '../../src/engine/strategy/strategy-instance.js';
import { createPaperExecutor } from '../../src/executors/paper/paper-executor.js';
import { fakeFeed } from './fake-feed.js';
import { priceFrame, wire } from './wire.js';

interface Candidate {
  buys: number;
}

function setup() {
  const clock = manualClock(1_700_000_000_000);
  const feed = fakeFeed(clock);
  let ctx: StrategyContext | undefined;
  const seenAtHandler: string[] = [];
  const probe = defineStrategy({
    id: 'tracker',
    params: z.strictObject({}),
    onStart: (c) => void (ctx = c as StrategyContext),
    onFill: (f, c) => void seenAtHandler.push(`fill ${f.mint} ${c.tracked<Candidate>(f.mint)?.state.buys ?? 'gone'}`),
    onIntentFailed: (f, c) => void seenAtHandler.push(`failed ${f.mint} ${c.tracked<Candidate>(f.mint)?.state.buys ?? 'gone'}`),
  });
  const ref: { market?: MarketView } = {};
  const engine = createEngine({
    feed,
    executor: createPaperExecutor({ clock, market: { get: (m) => ref.market?.get(m) }, latencyMs: 100 }),
    clock,
    random: seededRandom(1),
    strategies: [instantiateStrategy(probe, {})],
    risk: {},
    startingCashLamports: 10_000_000_000n,
    execution: { slippageBps: 2_000, priorityFeeLamports: lamports(0n), defaultDecimals: 6 },
  });
  ref.market = engine.market;
  const price = (mint: string, p: number) => engine.ingest(wire(`price:token:${mint}`, priceFrame(p, { pool: `${mint}-curve` }), clock.now()));
  return { clock, feed, engine, price, seenAtHandler, ctx: () => ctx! };
}

describe('ctx.track', () => {
  it('joins the rooms and keeps the state until ttlMs, then leaves them together; tracking again re-arms it', async () => {
    const t = setup();
    await t.engine.start();
    const ctx = t.ctx();
    ctx.watch('holders:A'); // watched on its own: tracking does not own it
    const tr = ctx.track<Candidate>('A', { rooms: ['transaction:A', 'holders:A'], ttlMs: 60_000, state: { buys: 0 } });
    tr.state.buys++;
    expect(ctx.tracked<Candidate>('A')).toMatchObject({ mint: 'A', since: 1_700_000_000_000, expiresAt: 1_700_000_060_000, state: { buys: 1 } });
    expect(t.feed.joined()).toEqual(expect.arrayContaining(['transaction:A', 'holders:A']));
    t.clock.advance(50_000);
    ctx.track('A', { rooms: ['dev_holding:A'], ttlMs: 60_000 }); // re-armed to 110 s, one more room, same state
    expect(ctx.tracked<Candidate>('A')?.state.buys).toBe(1);
    t.clock.advance(59_999);
    expect(ctx.tracked('A')).toBeDefined();
    t.clock.advance(1);
    expect(ctx.tracked('A')).toBeUndefined();
    expect(t.feed.joined()).not.toContain('transaction:A');
    expect(t.feed.joined()).not.toContain('dev_holding:A');
    expect(t.feed.joined()).toContain('holders:A');
    ctx.track('B', { rooms: ['transaction:B'], ttlMs: 1_000 });
    ctx.untrack('B');
    expect(t.feed.joined()).not.toContain('transaction:B');
    await t.engine.stop();
  });

  it('ends on a fill or a failed intent of the token, after onFill / onIntentFailed read the state', async () => {
    const t = setup();
    await t.engine.start();
    const ctx = t.ctx();
    t.price('A', 0.001);
    ctx.track<Candidate>('A', { rooms: ['transaction:A'], ttlMs: 600_000, state: { buys: 1 } });
    ctx.track<Candidate>('N', { rooms: ['transaction:N'], ttlMs: 600_000, state: { buys: 2 } });
    ctx.track<Candidate>('K', { ttlMs: 600_000, state: { buys: 3 } });
    expect(ctx.buy({ mint: 'A', lamports: 100_000_000n, reason: 'fills' }).ok).toBe(true);
    expect(ctx.buy({ mint: 'N', lamports: 100_000_000n, reason: 'no price: fails' }).ok).toBe(true);
    t.clock.advance(200);
    await Promise.resolve();
    expect(t.seenAtHandler).toEqual(['fill A 1']);
    t.clock.advance(10_000); // the paper executor waits 10 s for a price of N, then fails the buy
    await Promise.resolve();
    expect(t.seenAtHandler).toEqual(['fill A 1', 'failed N 2']);
    expect(ctx.tracked('A')).toBeUndefined();
    expect(ctx.tracked('N')).toBeUndefined();
    expect(ctx.tracked('K')).toBeDefined(); // no intent on it
    expect(t.feed.joined().filter((r) => r.startsWith('transaction:'))).toEqual([]);
    await t.engine.stop();
  });

  it('refuses a ttl outside 1 ms to 7 days with STRATEGY_BAD_ARGUMENT naming the field', async () => {
    const t = setup();
    await t.engine.start();
    let caught: unknown;
    try {
      t.ctx().track('A', { ttlMs: 0 });
    } catch (e) {
      caught = e;
    }
    expect(isChainpilotError(caught, 'STRATEGY_BAD_ARGUMENT')).toBe(true);
    expect((caught as Error).message).toMatch(/ctx\.track ttlMs: got 0; pass an integer number of milliseconds from 1 to 604800000/);
    await t.engine.stop();
  });
});
