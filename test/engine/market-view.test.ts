import { describe, expect, it } from 'vitest';
import type { UnixMs } from '../../src/core/units.js';
import type { DomainEvent } from '../../src/engine/events.js';
import { createMarketView } from '../../src/engine/market-view.js';

const at = 1_700_000_000_000 as UnixMs;
const base = { room: 'price:token:M', receivedAt: at, origin: 'live' as const };

function price(p: string, o: { priceUsd?: number; liquidityUsd?: number; pool?: string; mint?: string } = {}): DomainEvent {
  return {
    ...base,
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
    const view = createMarketView(100, (mint) => held.has(mint));
    view.observe(price('0.5', { mint: 'HELD' }));
    for (let i = 0; i < 5_000; i++) view.observe(price('0.1', { mint: `T${i}` }));
    expect(view.size()).toBe(100);
    expect(view.get('HELD')?.price).toBe('0.5');
    held.clear();
    for (let i = 5_000; i < 5_200; i++) view.observe(price('0.1', { mint: `T${i}` }));
    expect(view.get('HELD')).toBeUndefined();
  });

  it('drops the least recently observed token first: a token seen again outlives older ones seen once', () => {
    const view = createMarketView(3);
    for (const m of ['A', 'B', 'C']) view.observe(price('1', { mint: m }));
    view.observe(price('2', { mint: 'A' }));
    view.observe(price('1', { mint: 'D' }));
    expect(['A', 'B', 'C', 'D'].filter((m) => view.get(m) !== undefined)).toEqual(['A', 'C', 'D']);
    view.observe(price('1', { mint: 'E' }));
    expect(['A', 'C', 'D', 'E'].filter((m) => view.get(m) !== undefined)).toEqual(['A', 'D', 'E']);
  });

  it('stays within its bound when every token is held, keeping them all (the bound gives way to what we hold)', () => {
    const view = createMarketView(10, () => true);
    for (let i = 0; i < 50; i++) view.observe(price('1', { mint: `H${i}` }));
    expect(view.size()).toBe(50);
  });
});
