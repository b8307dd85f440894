import { describe, expect, it } from 'vitest';
import { manualClock, seededRandom } from '../../src/core/index.js';
import { constantProductOut } from '../../src/sim/curve-math.js';
import { createMarketModel, type MarketModel } from '../../src/sim/model/market-model.js';
import type { SimEvent } from '../../src/sim/model/model-types.js';
import { parseMarketSettings } from '../../src/sim/sim-settings.js';
import { isChainpilotError } from '../../src/core/index.js';
import { T0 } from './sim-helpers.js';

function run(seed: number, ms: number, market = {}): { model: MarketModel; events: SimEvent[] } {
  const clock = manualClock(T0);
  const model = createMarketModel({ settings: parseMarketSettings(market), clock, random: seededRandom(seed) });
  const events: SimEvent[] = [];
  model.onEvent((e) => events.push(e));
  model.start();
  clock.advance(ms);
  model.stop();
  return { model, events };
}

const summary = (events: SimEvent[]): string[] =>
  events.map((e) => (e.kind === 'trade' ? `${e.trade.tx}:${e.trade.solLamports}:${e.trade.tokenRaw}` : `${e.kind}`));

describe('market model', () => {
  it('produces the same events, in the same order, from the same seed', () => {
    const a = run(42, 120_000);
    const b = run(42, 120_000);
    const c = run(43, 120_000);
    expect(summary(a.events).length).toBeGreaterThan(100);
    expect(summary(a.events)).toEqual(summary(b.events));
    expect(summary(a.events)).not.toEqual(summary(c.events));
  });

  it('launches hundreds of tokens and graduates tens of them in one simulated hour at default settings', () => {
    const { model, events } = run(1, 3_600_000);
    const launched = events.filter((e) => e.kind === 'launched').length;
    const graduated = events.filter((e) => e.kind === 'graduated').length;
    expect(launched).toBeGreaterThanOrEqual(200);
    expect(launched).toBeLessThanOrEqual(450);
    expect(graduated).toBeGreaterThanOrEqual(10);
    expect(graduated).toBeLessThan(launched / 2);
    expect(events.filter((e) => e.kind === 'trade').length).toBeGreaterThan(10_000);
    for (const t of model.state.launched.filter((x) => x.status === 'graduated')) {
      expect(t.curve.realToken).toBe(0n);
      const deposit = model.state.liquidityByToken.get(t.mint)![0]!;
      expect(deposit).toMatchObject({ type: 'add_liquidity', tx: t.graduationTx, tokenRaw: t.supplyRaw - t.curve.initialRealToken });
      expect(t.graduatedAt! - t.createdAt).toBeGreaterThan(0);
    }
  });

  it('quotes exact constant-product output and applies a landed swap by exactly its amounts', () => {
    const { model } = run(5, 30_000);
    const t = model.state.launched.find((x) => x.status === 'curve')!;
    const pool = model.pool(t.mint)!;
    const q = model.quote(t.mint, 'buy', 1_000_000_000n)!;
    expect(q.amountOut).toBe(constantProductOut(pool.solReserveLamports, pool.tokenReserveRaw, 1_000_000_000n, pool.feeBps).amountOut);
    const tapeBefore = model.state.tradesByToken.get(t.mint)!.length;
    model.applyLandedSwap({
      mint: t.mint,
      wallet: 'UserWa11et1111111111111111111111111111111111',
      side: 'buy',
      solLamports: 990_000_000n,
      tokenRaw: q.amountOut,
      signature: 'sigX',
      slot: 1,
      at: model.state.now,
    });
    const after = model.pool(t.mint)!;
    expect(after.solReserveLamports - pool.solReserveLamports).toBe(990_000_000n);
    expect(pool.tokenReserveRaw - after.tokenReserveRaw).toBe(q.amountOut);
    const rows = model.state.tradesByToken.get(t.mint)!;
    expect(rows.length).toBe(tapeBefore + 1);
    expect(rows.at(-1)).toMatchObject({ tx: 'sigX', side: 'buy', external: true, tokenRaw: q.amountOut });
    expect(t.balances.get('UserWa11et1111111111111111111111111111111111')).toBe(q.amountOut);
  });

  it('graduates a token whose curve a landed swap completes, refusing swaps while it migrates', () => {
    const clock = manualClock(T0);
    const model = createMarketModel({ settings: parseMarketSettings({ runnerShare: 0 }), clock, random: seededRandom(4) });
    const graduated: string[] = [];
    model.onEvent((e) => e.kind === 'graduated' && graduated.push(e.token.mint));
    model.start();
    clock.advance(20_000);
    const t = model.state.launched.find((x) => x.status === 'curve')!;
    const left = t.curve.realToken;
    model.applyLandedSwap({
      mint: t.mint,
      wallet: 'Whale',
      side: 'buy',
      solLamports: 90_000_000_000n,
      tokenRaw: left,
      signature: 'sigW',
      slot: 1,
      at: model.state.now,
    });
    expect(model.pool(t.mint)!.tradable).toBe(false);
    expect(model.quote(t.mint, 'buy', 1_000_000n)).toBeUndefined();
    expect(() =>
      model.applyLandedSwap({ mint: t.mint, wallet: 'w', side: 'buy', solLamports: 1n, tokenRaw: 1n, signature: 's', slot: 1, at: model.state.now }),
    ).toThrow(expect.objectContaining({ code: 'SIM_POOL_NOT_TRADABLE' }) as Error);
    clock.advance(3_000);
    expect(graduated).toContain(t.mint);
    expect(model.pool(t.mint)).toMatchObject({ kind: 'amm', market: 'venue_a-amm', tradable: true, feeBps: 25 });
  });

  it('retires old trade rows and long-dead tokens so a long run stays bounded', () => {
    const { model, events } = run(2, 3_600_000 + 400, { tradeRetentionMs: 600_000, tokenRetentionMs: 600_000 });
    const launches = events.filter((e) => e.kind === 'launched').map((e) => e.token);
    const retired = launches.filter((t) => !model.state.tokens.has(t.mint));
    expect(retired.length).toBeGreaterThan(0);
    for (const t of retired.slice(0, 20)) {
      expect(t.diedAt! < model.state.now - 600_000).toBe(true);
      expect(model.pool(t.mint)).toBeUndefined();
      expect(model.state.tradesByToken.has(t.mint)).toBe(false);
      expect(model.state.pnl.tokenPositions(t.mint)).toEqual([]);
    }
    // rows older than the horizon survive only as a token's last 50
    const horizon = model.state.now - 400 - 600_000;
    for (const rows of model.state.tradesByToken.values()) expect(rows.filter((r) => r.time < horizon).length).toBeLessThanOrEqual(50);
    expect([...model.state.tradesByToken.values()].some((rows) => rows.length > 50)).toBe(true);
  });

  it('prunes trade rows every tradePruneEveryMs: pruned every 10 minutes, 10 minutes of retention hold at most 20 minutes of rows; hourly, older rows stay until the hour', () => {
    // 25 simulated minutes: no hour crossed since the start, so the hourly default has pruned nothing
    // yet; every 10 minutes, the prune at minute 20 left nothing older than minute 10
    const ms = 25 * 60_000;
    const olderThan = (model: MarketModel, ageMs: number): number => {
      const cut = model.state.now - ageMs;
      let n = 0;
      for (const rows of model.state.tradesByToken.values()) n += rows.slice(0, -50).filter((r) => r.time < cut).length;
      return n;
    };
    const often = run(3, ms, { tradeRetentionMs: 600_000, tradePruneEveryMs: 600_000 }).model;
    expect(olderThan(often, 20 * 60_000)).toBe(0);
    const hourly = run(3, ms, { tradeRetentionMs: 600_000 }).model;
    expect(olderThan(hourly, 20 * 60_000)).toBeGreaterThan(0);
    expect(() => parseMarketSettings({ tradePruneEveryMs: 1_000 })).toThrow(expect.objectContaining({ code: 'SIM_INVALID_SETTINGS' }) as Error);
  }, 90_000);

  it('refuses a landed swap on an unknown mint with a coded error', () => {
    const { model } = run(5, 1_000);
    expect(() => model.applyLandedSwap({ mint: 'nope', wallet: 'w', side: 'buy', solLamports: 1n, tokenRaw: 1n, signature: 's', slot: 1, at: T0 })).toThrow(
      expect.objectContaining({ code: 'SIM_UNKNOWN_TOKEN' }) as Error,
    );
    try {
      model.applyLandedSwap({ mint: 'nope', wallet: 'w', side: 'buy', solLamports: 1n, tokenRaw: 1n, signature: 's', slot: 1, at: T0 });
    } catch (e) {
      expect(isChainpilotError(e, 'SIM_UNKNOWN_TOKEN')).toBe(true);
    }
  });

  it('tells listeners about each launch with its mint and decimals', () => {
    const clock = manualClock(T0);
    const model = createMarketModel({ settings: parseMarketSettings({}), clock, random: seededRandom(3) });
    const seen: string[] = [];
    model.onTokenLaunched((t) => seen.push(`${t.mint}/${t.decimals}`));
    model.start();
    clock.advance(120_000);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual([...model.tokens()].map((t) => `${t.mint}/${t.decimals}`));
  });

  it('fires each curve milestone once, on the first trade that reaches it', () => {
    const { events } = run(9, 600_000);
    const seen = new Set<string>();
    for (const e of events) {
      if (e.kind !== 'milestone') continue;
      const key = `${e.token.mint}:${e.pct}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
    expect(seen.size).toBeGreaterThan(10);
  });
});
