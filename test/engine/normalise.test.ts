import { describe, expect, it } from 'vitest';
import type { UnixMs } from '../../src/core/index.js';
import { normaliseMessage } from '../../src/engine/normalise.js';

const msg = (room: string, data: unknown) => ({ room, data, receivedAt: 1_000 as UnixMs, origin: 'live' as const });

describe('normaliseMessage', () => {
  it('turns a latest-room token into a launch event with its primary pool', () => {
    const [e] = normaliseMessage(msg('latest', { token: { mint: 'M', symbol: 'CAT', name: 'Cat', decimals: 6 }, pools: [{ market: 'venue_a', poolId: 'P' }] }));
    expect(e).toMatchObject({ type: 'launch', mint: 'M', symbol: 'CAT', decimals: 6, market: 'venue_a', poolId: 'P' });
  });

  it('reads the curve percent and market from the milestone room name', () => {
    const [e] = normaliseMessage(msg('venue_a:curve:50', { token: { mint: 'M' }, pools: [] }));
    expect(e).toMatchObject({ type: 'curve', mint: 'M', market: 'venue_a', percent: 50 });
  });

  it('keeps the graduation transaction and time of a graduated token', () => {
    const [e] = normaliseMessage(msg('graduated', { token: { mint: 'M' }, pools: [{ market: 'venue_a-amm', poolId: 'AMM' }], graduationTx: 'sig', graduationTime: 5_000 }));
    expect(e).toMatchObject({ type: 'graduated', mint: 'M', market: 'venue_a-amm', poolId: 'AMM', graduationTx: 'sig', graduationTime: 5_000 });
  });

  it('turns a price number into an exact decimal string and reads reserves as bigint', () => {
    const [e] = normaliseMessage(msg('price:token:M', { price: 0.000000123, pool: 'P', timestamp: 900, solReserveLamports: '30000000000', tokenReserveRaw: '1000000000000000' }));
    expect(e).toMatchObject({ type: 'price', mint: 'M', price: '0.000000123', aggregated: false, pool: 'P', at: 900, solReserveLamports: 30_000_000_000n, tokenReserveRaw: 1_000_000_000_000_000n });
    const [agg] = normaliseMessage(msg('price:aggregated:M', { token: 'M', price: 2, aggregated: { median: 2 } }));
    expect(agg).toMatchObject({ type: 'price', aggregated: true, price: '2' });
  });

  it('splits a liquidity frame into one event per element, provisional when live', () => {
    const row = { tx: 't', type: 'add_liquidity', program: 'venue_a-amm', pool: 'P', wallet: 'W', time: 10, slot: 3, tokens: [{ address: 'M', amount: '1.5', amountRaw: '1500000', decimals: 6 }] };
    const events = normaliseMessage(msg('liquidity:M', [row, { ...row, type: 'remove_liquidity' }]));
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ type: 'liquidity', mint: 'M', kind: 'add', provisional: true, tokens: [{ mint: 'M', amountRaw: 1_500_000n, decimals: 6 }] });
    expect(events[1]).toMatchObject({ kind: 'remove' });
    const confirmed = normaliseMessage({ ...msg('liquidity:M', [row]), commitment: 'confirmed' });
    expect(confirmed[0]).toMatchObject({ provisional: false });
  });

  it('reads current and previous values of a safety signal from its room and payload', () => {
    const [e] = normaliseMessage(msg('bundlers:M', { wallet: 'W', totalBundlerPercentage: 12.5, previousTotalBundlerPercentage: 8 }));
    expect(e).toMatchObject({ type: 'safety', mint: 'M', signal: 'bundlers', current: 12.5, previous: 8 });
  });

  it('turns swaps, PnL, DCA and prediction frames into their events', () => {
    expect(normaliseMessage(msg('transaction:M', { type: 'buy', wallet: 'W', tx: 't', amount: '10', priceUsd: 0.1 }))[0]).toMatchObject({ type: 'trade', mint: 'M', side: 'buy', wallet: 'W', amount: '10' });
    expect(normaliseMessage(msg('pnl:W:M', { type: 'tradeUpdate', realized: 1 }))[0]).toMatchObject({ type: 'walletPnl', wallet: 'W', mint: 'M', kind: 'tradeUpdate' });
    expect(normaliseMessage(msg('dca:dca_program_a:M:buyers', { eventName: 'opened', order: { inputMint: 'SOL', outputMint: 'M' } }))[0]).toMatchObject({ type: 'dca', mint: 'M', flow: 'buyers', outputMint: 'M' });
    expect(normaliseMessage(msg('pm:market:exchange_b:T1:prices', { price: 0.62 }))[0]).toMatchObject({ type: 'prediction', exchange: 'exchange_b', tokenId: 'T1', price: 0.62 });
    expect(normaliseMessage(msg('pm:crypto:BTC', { price: 65000 }))[0]).toMatchObject({ type: 'crypto', asset: 'BTC', price: 65000 });
  });

  it('rejects a frame that misses a required field with ENGINE_BAD_FRAME naming the room and field', () => {
    expect(() => normaliseMessage(msg('price:token:M', { pool: 'P' }))).toThrow(/ENGINE_BAD_FRAME|price:token:M.*price/);
    try {
      normaliseMessage(msg('price:token:M', { price: 'high' }));
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ code: 'ENGINE_BAD_FRAME' });
      expect((e as Error).message).toContain('price');
    }
    expect(() => normaliseMessage(msg('mystery:room', {}))).toThrow(expect.objectContaining({ code: 'ENGINE_BAD_FRAME' }));
    expect(() => normaliseMessage(msg('liquidity:M', { not: 'an array' }))).toThrow(expect.objectContaining({ code: 'ENGINE_BAD_FRAME' }));
  });

  it('reads the simulator payload shapes: SOL price in price_quote, role totals, null graduation tx, trade arrays', () => {
    expect(normaliseMessage(msg('price:token:M', { token: 'M', price: 0.0045, price_quote: 0.00003, liquidity: 9000, timestamp: 5 }))[0])
      .toMatchObject({ type: 'price', price: '0.00003', priceUsd: 0.0045, liquidityUsd: 9000 });
    expect(normaliseMessage(msg('holders:M', { token: 'M', total: 42, previous: null }))[0]).toMatchObject({ signal: 'holders', current: 42, previous: undefined });
    expect(normaliseMessage(msg('top10:M', { token: 'M', top10Percentage: 33.5, previous: 30 }))[0]).toMatchObject({ signal: 'top10', current: 33.5, previous: 30 });
    expect(normaliseMessage(msg('sniper:M', { token: 'M', currentPercentage: 1, totalSniperPercentage: 12, previousTotalPercentage: 10 }))[0]).toMatchObject({ signal: 'sniper', current: 12, previous: 10 });
    expect(normaliseMessage(msg('dev_holding:M', { token: 'M', percentage: 4, previousPercentage: null }))[0]).toMatchObject({ signal: 'dev_holding', current: 4 });
    expect(normaliseMessage(msg('graduated', { token: { mint: 'M' }, pools: [], graduationTx: null, graduationTime: 9 }))[0]).toMatchObject({ graduationTx: undefined, graduationTime: 9 });
    const trades = normaliseMessage(msg('transaction:wallet:W', [{ type: 'sell', token: 'M', wallet: 'W' }, { type: 'buy', token: 'N', wallet: 'W' }]));
    expect(trades.map((t) => t.type === 'trade' && `${t.side}:${t.mint}`)).toEqual(['sell:M', 'buy:N']);
  });
});
