import { describe, expect, it } from 'vitest';
import type { UnixMs } from '../../src/core/units.js';
import type { DomainEvent } from '../../src/engine/events.js';
import { createMarketView } from '../../src/engine/market-view.js';

const at = 1_700_000_000_000 as UnixMs;
const base = { room: 'price:token:M', receivedAt: at, origin: 'live' as const };

function price(p: string, o: { priceUsd?: number; liquidityUsd?: number; pool?: string } = {}): DomainEvent {
  return {
    ...base,
    type: 'price',
    mint: 'M',
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
});
