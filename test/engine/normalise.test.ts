import { describe, expect, it } from 'vitest';
import { parseRoomMessage } from '../../src/client/datastream/index.js';
import { decimal, type UnixMs } from '../../src/core/index.js';
import { createNormaliser, exactString } from '../../src/engine/events/normalise.js';
import { wire } from './wire.js';

const SOL = 'So11111111111111111111111111111111111111112';
const map = (room: string, data: unknown, n = createNormaliser()) => n.map(wire(room, data, 1_000));
const rejection = (room: string, data: unknown): string => {
  const r = parseRoomMessage(room, data, 1 as UnixMs);
  return r.ok ? '' : r.reason;
};

describe('mapping typed stream messages to domain events', () => {
  it('turns a latest-room token into a launch event with its primary pool', () => {
    const [e] = map('latest', { token: { mint: 'M', symbol: 'CAT', name: 'Cat', decimals: 6 }, pools: [{ market: 'venue_a', poolId: 'P' }] });
    expect(e).toMatchObject({ type: 'launch', mint: 'M', symbol: 'CAT', decimals: 6, market: 'venue_a', poolId: 'P' });
    expect(e).not.toHaveProperty('curveSolLamports');
  });

  it("keeps a launch pool's bonding-curve virtual reserves (exact), and none that are not whole numbers above zero", () => {
    const curve = { virtualSolReserves: '30000000000', virtualTokenReserves: '1073000000000000', realSolReserves: '0' };
    const [e] = map('latest', { token: { mint: 'M', decimals: 6 }, pools: [{ market: 'venue_a', poolId: 'P', curve }] });
    expect(e).toMatchObject({ type: 'launch', curveSolLamports: 30_000_000_000n, curveTokenRaw: 1_073_000_000_000_000n });
    for (const bad of [
      { virtualSolReserves: 30, virtualTokenReserves: '1' },
      { virtualSolReserves: '0', virtualTokenReserves: '1' },
      { virtualSolReserves: '1.5', virtualTokenReserves: '1' },
      'x',
    ]) {
      const [b] = map('latest', { token: { mint: 'M' }, pools: [{ market: 'venue_a', poolId: 'P', curve: bad }] });
      expect(b).not.toHaveProperty('curveSolLamports');
    }
  });

  it('takes the curve percent from the room name and the market from its first segment', () => {
    const [e] = map('venue_a:curve:50', { token: { mint: 'M' }, pools: [] });
    expect(e).toMatchObject({ type: 'curve', mint: 'M', market: 'venue_a', percent: 50 });
  });

  it('accepts a graduation without graduationTx or graduationTime, as the service documents it', () => {
    expect(
      map('graduated', { token: { mint: 'M' }, pools: [{ market: 'venue_a-amm', poolId: 'AMM' }], graduationTx: 'sig', graduationTime: 5_000 })[0],
    ).toMatchObject({ type: 'graduated', mint: 'M', poolId: 'AMM', graduationTx: 'sig', graduationTime: 5_000 });
    expect(map('graduated', { token: { mint: 'M', name: 'Cat', extra: [1] }, pools: [{ market: 'venue_a-amm', poolId: 'AMM' }] })[0]).toMatchObject({
      type: 'graduated',
      mint: 'M',
      graduationTx: undefined,
      graduationTime: undefined,
    });
    expect(rejection('graduated', { token: { mint: 'M' }, graduationTime: '2024' })).toBe('graduationTime must be Unix ms or null');
    expect(rejection('graduated', { token: { name: 'no mint' } })).toBe('token.mint must be a non-empty string');
  });

  it('reads price (USD), price_quote (SOL) and time of a price frame', () => {
    const [e] = map('price:token:M', {
      price: 0.0045,
      price_quote: 0.00003,
      pool: 'P',
      token: 'M',
      time: 900,
      solReserveLamports: '30000000000',
      tokenReserveRaw: '1000000000000000',
    });
    expect(e).toMatchObject({
      type: 'price',
      mint: 'M',
      price: '0.00003',
      priceUsd: 0.0045,
      aggregated: false,
      pool: 'P',
      at: 900,
      solReserveLamports: 30_000_000_000n,
    });
  });

  it('converts a USD-only aggregated price with the SOL/USD rate learnt from price frames, and refuses it before any rate', () => {
    const n = createNormaliser();
    expect(() => map('price:aggregated:M', { token: 'M', timestamp: 5, price: 3, pool: 'P', aggregated: { median: 3 }, topPools: [] }, n)).toThrow(
      /ENGINE_BAD_FRAME|SOL\/USD/,
    );
    map('price:token:N', { price: 150, price_quote: 1 }, n);
    expect(map('price:aggregated:M', { token: 'M', timestamp: 5, price: 3, pool: 'P', aggregated: { median: 3 }, topPools: [] }, n)[0]).toMatchObject({
      type: 'price',
      aggregated: true,
      price: '0.02',
      priceUsd: 3,
      at: 5,
    });
  });

  it('writes a tick price out when first read, with the SOL/USD rate of its own moment, and serialises it like a plain event', () => {
    const n = createNormaliser();
    map('price:token:N', { price: 150, price_quote: 1 }, n);
    const usdOnly = map('price:aggregated:M', { token: 'M', timestamp: 5, price: 3, pool: 'P', aggregated: { median: 3 }, topPools: [] }, n)[0]!;
    // a later frame changes the learnt rate; the earlier tick keeps the rate it came with
    map('price:token:N', { price: 300, price_quote: 1 }, n);
    expect(usdOnly).toMatchObject({ type: 'price', price: '0.02' });
    const [tick] = map('price:token:M', { price: 0.0045, price_quote: 7.430250372244639e-8, pool: 'P', token: 'M', time: 900 }, n);
    const json = JSON.parse(JSON.stringify(tick)) as Record<string, unknown>;
    expect(json).toEqual({
      room: 'price:token:M',
      receivedAt: 1_000,
      origin: 'live',
      type: 'price',
      mint: 'M',
      price: '0.00000007430250372244639',
      priceUsd: 0.0045,
      aggregated: false,
      pool: 'P',
      at: 900,
    });
    expect(tick).toMatchObject({ price: json['price'] });
  });

  it('splits a liquidity frame into one event per element, provisional when live', () => {
    const row = {
      tx: 't',
      type: 'add_liquidity',
      program: 'venue_a-amm',
      programId: 'Prog',
      instruction: 'deposit',
      pool: 'P',
      wallet: 'W',
      time: 10,
      slot: 3,
      amountBasis: 'transfer',
      tokens: [{ address: 'M', amount: '1.5', amountRaw: '1500000', decimals: 6 }],
    };
    const events = map('liquidity:M', [row, { ...row, type: 'remove_liquidity' }]);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      type: 'liquidity',
      mint: 'M',
      kind: 'add',
      provisional: true,
      tokens: [{ mint: 'M', amountRaw: 1_500_000n, decimals: 6 }],
    });
    expect(events[1]).toMatchObject({ kind: 'remove' });
    expect(createNormaliser().map(wire('liquidity:M', [row], 1, 'backfill'))[0]).toMatchObject({ provisional: false });
  });

  it('reads each safety room for its own role: an insider message reports the insider total, not the sniper one', () => {
    const both = { wallet: 'W', totalSniperPercentage: 12, totalInsiderPercentage: 31, previousTotalPercentage: 25 };
    expect(map('insider:M', both)[0]).toMatchObject({ type: 'safety', mint: 'M', signal: 'insider', current: 31, previous: 25 });
    expect(map('sniper:M', both)[0]).toMatchObject({ signal: 'sniper', current: 12 });
    expect(map('bundlers:M', { wallet: 'W', totalBundlerPercentage: 12.5, previousTotalBundlerPercentage: 8 })[0]).toMatchObject({
      signal: 'bundlers',
      current: 12.5,
      previous: 8,
    });
    expect(map('holders:M', { token: 'M', total: 42, previous: null })[0]).toMatchObject({ signal: 'holders', current: 42, previous: undefined });
    expect(map('top10:M', { token: 'M', totalPercentage: 33.5, previousPercentage: 30 })[0]).toMatchObject({ signal: 'top10', current: 33.5, previous: 30 });
    expect(map('dev_holding:M', { token: 'M', percentage: 4, previousPercentage: null })[0]).toMatchObject({ signal: 'dev_holding', current: 4 });
    expect(rejection('insider:M', { totalSniperPercentage: 12 })).toMatch(/totalInsiderPercentage/);
  });

  it('reads a swap of the documented {from, to} pair: the traded token is the non-quote side', () => {
    const side = (address: string, amount: number) => ({ address, amount, decimals: address === SOL ? 9 : 6, price: { usd: 1 } });
    const buy = { tx: 'b', type: 'buy', wallet: 'W', amount: 1000, priceUsd: 0.01, volume: 10, time: 7, token: { from: side(SOL, 0.5), to: side('M', 1000) } };
    const sell = { tx: 's', wallet: 'W', time: 8, token: { from: side('M', 40), to: side(SOL, 0.01) } };
    const [b, s] = map('transaction:M', [buy, sell]);
    expect(b).toMatchObject({ type: 'trade', mint: 'M', side: 'buy', wallet: 'W', amount: '1000', priceUsd: 0.01, volumeUsd: 10, at: 7 });
    expect(s).toMatchObject({ type: 'trade', mint: 'M', side: 'sell', amount: '40', at: 8 });
    // a single object instead of an array, on a wallet room (no token in the room name)
    expect(map('transaction:wallet:W', { ...buy, type: undefined, token: { from: side('N', 3), to: side(SOL, 1) } })[0]).toMatchObject({
      mint: 'N',
      side: 'sell',
    });
    expect(rejection('transaction:wallet:W', [{ type: 'buy' }])).toMatch(/no traded token/);
  });

  it('carries the SOL size of a swap as exact lamports: solVolume, else the SOL side of the pair', () => {
    const side = (address: string, amount: number | string) => ({ address, amount, decimals: 6 });
    const [a, b, c, d] = map('transaction:M', [
      { tx: 'a', type: 'buy', solVolume: 0.1, token: { from: side(SOL, 9), to: side('M', 5) } },
      { tx: 'b', type: 'sell', token: { from: side('M', 5), to: side(SOL, '1.000000001') } },
      { tx: 'c', type: 'buy', solVolume: 0.1 + 0.2, token: 'M' },
      { tx: 'd', type: 'buy', token: 'M' },
    ]);
    expect(a).toMatchObject({ solLamports: 100_000_000n }); // solVolume wins over the pair
    expect(b).toMatchObject({ solLamports: 1_000_000_001n });
    expect(c).toMatchObject({ solLamports: 300_000_000n }); // 0.30000000000000004 SOL to the nearest lamport
    expect(d).toMatchObject({ solLamports: undefined });
    // half a lamport rounds to even; an exponent in a string is read too
    const sides = (sol: string) => ({ tx: sol, type: 'sell', token: { from: side('M', 1), to: side(SOL, sol) } });
    expect(map('transaction:M', [sides('0.0000000005'), sides('0.0000000015'), sides('2e-9')]).map((e) => (e.type === 'trade' ? e.solLamports : 'x'))).toEqual([
      0n,
      2n,
      2n,
    ]);
    expect(rejection('transaction:M', [{ type: 'buy', token: 'M', solVolume: '1' }])).toMatch(/solVolume must be a number/);
    expect(() => map('transaction:M', [{ type: 'buy', token: 'M', solVolume: -1 }])).toThrow(/solVolume -1 is negative/);
  });

  it('turns PnL, DCA and prediction frames into their events', () => {
    expect(map('pnl:W:M', { type: 'tradeUpdate', realized: 1 })[0]).toMatchObject({ type: 'walletPnl', wallet: 'W', mint: 'M', kind: 'tradeUpdate' });
    expect(map('dca:dca_program_a:M:buyers', { eventName: 'opened', order: { inputMint: 'SOL', outputMint: 'M' } })[0]).toMatchObject({
      type: 'dca',
      mint: 'M',
      flow: 'buyers',
      outputMint: 'M',
    });
    expect(map('pm:market:exchange_b:T1:prices', { price: 0.62 })[0]).toMatchObject({ type: 'prediction', exchange: 'exchange_b', tokenId: 'T1', price: 0.62 });
    expect(map('pm:crypto:BTC', { price: 65000 })[0]).toMatchObject({ type: 'crypto', asset: 'BTC', price: 65000 });
    expect(map('stats:token:M:total', { volume: 5, label: 'x' })[0]).toMatchObject({ type: 'stats', scope: 'token', id: 'M', values: { volume: 5 } });
  });

  it('names the bad field of a rejected payload, and maps no event from an unknown room', () => {
    expect(rejection('price:token:M', { pool: 'P' })).toBe('price must be a positive number (USD)');
    expect(rejection('price:token:M', { price: 'high' })).toBe('price must be a positive number (USD)');
    expect(() => map('mystery:room', {})).toThrow(expect.objectContaining({ code: 'ENGINE_BAD_FRAME' }));
    expect(rejection('liquidity:M', { not: 'a liquidity event' })).toBe('tx must be a string');
  });
});

describe('exact decimal strings of wire numbers', () => {
  it('writes every double as the exact decimal that decimal(n).toFixed() gives, exponent or not', () => {
    const edge = [
      0, -0, 1, -1, 0.1, 1e-7, 1.7373889297887632e-7, -2.5e-8, 1e21, -1.5e22, 123456789e15, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 9.99e-7,
      1e-6,
    ];
    // A seeded generator over the whole exponent range (mantissas of 1 to 17 digits).
    let x = 42;
    const next = (): number => (x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32;
    const random = Array.from({ length: 5_000 }, () => (next() < 0.5 ? -1 : 1) * Number(`${next()}e${Math.floor(next() * 640) - 330}`));
    for (const n of [...edge, ...random]) {
      if (!Number.isFinite(n)) continue;
      expect(exactString(n), String(n)).toBe(decimal(n, 'price').toFixed());
    }
    expect(exactString(1.7373889297887632e-7)).toBe('0.00000017373889297887632');
    expect(exactString(1e21)).toBe('1000000000000000000000');
  });
});
