import { describe, expect, it } from 'vitest';
import type { UnixMs } from '../../src/core/units.js';
import type { DomainEvent } from '../../src/engine/events/events.js';
import { createMarketView } from '../../src/engine/market/market-view.js';
import { PriceTickEvent } from '../../src/engine/events/price-tick.js';

const at = 1_700_000_000_000 as UnixMs;
const base = { room: 'price:token:M', receivedAt: at, origin: 'live' as const };

function price(p: string, o: { priceUsd?: number; liquidityUsd?: number; pool?: string; mint?: string; receivedAt?: number } = {}): DomainEvent {
  return {
    ...base,
    receivedAt: (o.receivedAt ?? at) as UnixMs,
    type: 'price',
    mint: o.mint ?? 'M',
    price: p,
    priceUsd: o.priceUsd,
    aggregated: false,
    pool: o.pool,
    market: undefined,
    liquidityUsd: o.liquidityUsd,
    solReserveLamports: undefined,
    tokenReserveRaw: undefined,
    poolFeeBps: undefined,
    at,
  };
}

describe('market view', () => {
  it("estimates the pool's SOL depth from the last tick with USD liquidity and USD price, and forgets it on a new pool or graduation", () => {
    const view = createMarketView();
    view.observe(price('0.0000001', { priceUsd: 0.000015, liquidityUsd: 9_000, pool: 'P1' }));
    // 150 USD per SOL; half of 9,000 USD of liquidity is 30 SOL
    expect(view.get('M')?.depthLamports).toBe(30_000_000_000n);
    // a tick without liquidity keeps the estimate; a new one replaces it
    view.observe(price('0.0000002', { pool: 'P1' }));
    expect(view.get('M')?.depthLamports).toBe(30_000_000_000n);
    view.observe(price('0.0000002', { priceUsd: 0.00003, liquidityUsd: 3_000, pool: 'P1' }));
    expect(view.get('M')?.depthLamports).toBe(10_000_000_000n);
    view.observe(price('0.0000002', { pool: 'P2' }));
    expect(view.get('M')?.depthLamports).toBeUndefined();
    view.observe(price('0.0000002', { priceUsd: 0.00003, liquidityUsd: 3_000, pool: 'P2' }));
    expect(view.get('M')?.depthLamports).toBe(10_000_000_000n);
    view.observe({ ...base, type: 'graduated', mint: 'M', market: 'amm', poolId: 'P3', graduationTx: undefined, graduationTime: undefined });
    expect(view.get('M')?.depthLamports).toBeUndefined();
    expect(view.get('M')).toMatchObject({ graduated: true, pool: 'P3', market: 'amm', curvePercent: 100 });
  });

  it('keeps the latest value of each safety signal apart', () => {
    const view = createMarketView();
    const safety = (signal: 'bundlers' | 'holders', current: number): DomainEvent => ({
      ...base,
      type: 'safety',
      mint: 'M',
      signal,
      current,
      previous: undefined,
    });
    view.observe(safety('bundlers', 12.5));
    view.observe(safety('holders', 40));
    view.observe(safety('bundlers', 30));
    expect(view.get('M')?.safety).toEqual({ bundlers: 30, holders: 40 });
  });

  it('never drops a held token however many newer tokens arrive, and keeps its last price', () => {
    const held = new Set(['HELD']);
    const view = createMarketView({ maxTokens: 100, isHeld: (mint) => held.has(mint) });
    view.observe(price('0.5', { mint: 'HELD' }));
    for (let i = 0; i < 5_000; i++) view.observe(price('0.1', { mint: `T${i}` }));
    expect(view.size()).toBe(100);
    expect(view.get('HELD')?.price).toBe('0.5');
    held.clear();
    for (let i = 5_000; i < 5_200; i++) view.observe(price('0.1', { mint: `T${i}` }));
    expect(view.get('HELD')).toBeUndefined();
  });

  it('drops the least recently observed token first: a token seen again outlives older ones seen once', () => {
    const view = createMarketView({ maxTokens: 3 });
    for (const m of ['A', 'B', 'C']) view.observe(price('1', { mint: m }));
    view.observe(price('2', { mint: 'A' }));
    view.observe(price('1', { mint: 'D' }));
    expect(['A', 'B', 'C', 'D'].filter((m) => view.get(m) !== undefined)).toEqual(['A', 'C', 'D']);
    view.observe(price('1', { mint: 'E' }));
    expect(['A', 'C', 'D', 'E'].filter((m) => view.get(m) !== undefined)).toEqual(['A', 'D', 'E']);
  });

  it('stays within its bound when every token is held, keeping them all (the bound gives way to what we hold)', () => {
    const view = createMarketView({ maxTokens: 10, isHeld: () => true });
    for (let i = 0; i < 50; i++) view.observe(price('1', { mint: `H${i}` }));
    expect(view.size()).toBe(50);
  });

  describe("age bound (events' own receive times; no timers)", () => {
    const MIN = 60_000;
    const t = (minutes: number): number => at + minutes * MIN;
    const alive = (view: { get(m: string): unknown }, mints: string[]): string[] => mints.filter((m) => view.get(m) !== undefined);

    it('drops a token idle past the retention at the next new token, and keeps one observed within it', () => {
      const view = createMarketView({ retentionMs: 60 * MIN });
      view.observe(price('1', { mint: 'IDLE', receivedAt: t(0) }));
      view.observe(price('1', { mint: 'BUSY', receivedAt: t(0) }));
      view.observe(price('2', { mint: 'BUSY', receivedAt: t(50) }));
      // exactly at the retention: still kept
      view.observe(price('1', { mint: 'N1', receivedAt: t(60) }));
      expect(alive(view, ['IDLE', 'BUSY', 'N1'])).toEqual(['IDLE', 'BUSY', 'N1']);
      view.observe(price('1', { mint: 'N2', receivedAt: t(61) }));
      expect(alive(view, ['IDLE', 'BUSY', 'N1', 'N2'])).toEqual(['BUSY', 'N1', 'N2']);
      expect(view.get('BUSY')?.price).toBe('2');
      // BUSY then falls idle (last seen at 50 min). It was queued again behind N1 (60 min), so it goes
      // with N1, once N1's retention has passed too: within twice the retention of its last event.
      view.observe(price('1', { mint: 'N3', receivedAt: t(109) }));
      view.observe(price('1', { mint: 'L0', receivedAt: t(120) }));
      expect(view.get('BUSY')).toBeDefined();
      view.observe(price('1', { mint: 'L1', receivedAt: t(122) }));
      expect(alive(view, ['BUSY', 'N1', 'N2', 'N3'])).toEqual(['N3']);
    });

    it('never drops a held token by age, and drops it once it is no longer held', () => {
      const held = new Set(['HELD']);
      const view = createMarketView({ retentionMs: 60 * MIN, isHeld: (m) => held.has(m) });
      view.observe(price('0.5', { mint: 'HELD', receivedAt: t(0) }));
      view.observe(price('1', { mint: 'OTHER', receivedAt: t(0) }));
      for (let i = 1; i <= 300; i++) view.observe(price('1', { mint: `T${i}`, receivedAt: t(i) }));
      expect(view.get('HELD')?.price).toBe('0.5');
      expect(view.get('OTHER')).toBeUndefined();
      // bounded: only the last hour's tokens and the held one remain
      expect(view.size()).toBeLessThanOrEqual(62);
      held.clear();
      for (let i = 301; i <= 305; i++) view.observe(price('1', { mint: `T${i}`, receivedAt: t(i) }));
      expect(view.get('HELD')).toBeUndefined();
    });

    it('keeps a steady stream of new tokens bounded by the retention window, and a token re-observed all along', () => {
      const view = createMarketView({ retentionMs: 60 * MIN });
      for (let i = 0; i < 6 * 60 * 10; i++) {
        view.observe(price('1', { mint: `T${i}`, receivedAt: at + i * 6_000 })); // 10 new tokens a minute for 6 h
        if (i % 100 === 0) view.observe(price('3', { mint: 'KEEP', receivedAt: at + i * 6_000 }));
      }
      // one hour holds 600 tokens; the CLOCK look keeps at most about two retentions' worth
      expect(view.size()).toBeLessThanOrEqual(2 * 600 + 2);
      expect(view.size()).toBeGreaterThanOrEqual(600);
      expect(view.get('KEEP')?.price).toBe('3');
      expect(view.get('T0')).toBeUndefined();
      expect(view.get(`T${6 * 60 * 10 - 1}`)).toBeDefined();
    });

    it('takes its clock from the latest receive time: a late (backfilled) event does not rewind it', () => {
      const view = createMarketView({ retentionMs: 60 * MIN });
      view.observe(price('1', { mint: 'A', receivedAt: t(0) }));
      view.observe(price('1', { mint: 'B', receivedAt: t(100) }));
      view.observe(price('1', { mint: 'LATE', receivedAt: t(10) }));
      expect(view.get('A')).toBeUndefined();
      expect(alive(view, ['B', 'LATE'])).toEqual(['B', 'LATE']);
    });
  });

  it('keeps the exact price string of a normalised tick without keeping the tick', () => {
    const view = createMarketView();
    /** A live tick of M on pool P, priced in SOL and/or USD. */
    const priced = (sol: number, solUsd: number, usd: number | undefined): PriceTickEvent =>
      new PriceTickEvent('price:token:M', at, 'live', 'M', sol, solUsd, usd, false, 'P', undefined, undefined, undefined, undefined, undefined, at);
    const tick = priced(7.43e-8, Number.NaN, undefined);
    view.observe(tick);
    const o = view.get('M') as unknown as { priceTick: unknown };
    expect(o.priceTick).toBeUndefined();
    expect(view.get('M')?.price).toBe(tick.price);
    expect(view.get('M')?.price).toBe('0.0000000743');
    // a tick priced only in USD is kept until its string is read, then dropped
    const usd = priced(Number.NaN, 150, 0.000015);
    view.observe(usd);
    expect(view.get('M')?.price).toBe(usd.price);
    expect((view.get('M') as unknown as { priceTick: unknown }).priceTick).toBeUndefined();
  });
});
