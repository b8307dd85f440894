import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isChainpilotError } from '../../src/core/index.js';
import { ROOM_FAMILIES, roomSpec, rooms } from '../../src/client/datastream/index.js';
import { familyOfParts } from '../../src/client/datastream/rooms/room-registry.js';

describe('room builders', () => {
  it('build every room family of the spec', () => {
    expect([
      rooms.latest(),
      rooms.graduating(),
      rooms.graduatingWith('venue_a', 50),
      rooms.graduated(),
      rooms.curve('venue_d-curve', 80),
      rooms.liquidity('M'),
      rooms.liquidity('M', { pool: 'P' }),
      rooms.liquidity('M', { pool: 'P', wallet: 'W', enriched: true }),
      rooms.liquidityPool('P'),
      rooms.liquidityWallet('W', { enriched: true }),
      rooms.transactions('M'),
      rooms.transactions('M', { pool: 'P', wallet: 'W', enriched: true }),
      rooms.sniper('M'),
      rooms.bundlers('M'),
      rooms.insider('M'),
      rooms.devHolding('M'),
      rooms.holders('M'),
      rooms.top10('M'),
      rooms.price('M'),
      rooms.tokenPrice('P'),
      rooms.aggregatedPrice('M'),
      rooms.tokenStats('M'),
      rooms.poolStats('P'),
      rooms.tokenVolume('M'),
      rooms.poolVolume('P'),
      rooms.pnl('W', 'M'),
      rooms.pnlWallet('W'),
      rooms.pnlSummary('W'),
      rooms.dca('dca_program_a'),
      rooms.dca('dca_program_a', 'collected_fee'),
      rooms.dcaBuyers('dca_program_a', 'M'),
      rooms.dcaSellers('dca_program_a', 'M'),
      rooms.dcaWallet('dca_program_a', 'W'),
      rooms.dcaAccount('dca_program_a', 'D'),
      rooms.pmCrypto('btc'),
      rooms.pmMarketPrices('exchange_b', 'T1'),
    ]).toEqual([
      'latest',
      'graduating',
      'graduating:venue_a:50',
      'graduated',
      'venue_d-curve:curve:80',
      'liquidity:M',
      'liquidity:M:P',
      'liquidity:M:P:W:enriched',
      'liquidity:pool:P',
      'liquidity:wallet:W:enriched',
      'transaction:M',
      'transaction:M:P:W:enriched',
      'sniper:M',
      'bundlers:M',
      'insider:M',
      'dev_holding:M',
      'holders:M',
      'top10:M',
      'price:token:M',
      'token:P',
      'price:aggregated:M',
      'stats:token:M:total',
      'stats:pool:P:total',
      'volume:token:M',
      'volume:pool:P',
      'pnl:W:M',
      'pnl:W',
      'pnl:W:summary',
      'dca:dca_program_a',
      'dca:dca_program_a:collected_fee',
      'dca:dca_program_a:M:buyers',
      'dca:dca_program_a:M:sellers',
      'dca:dca_program_a:wallet:W',
      'dca:dca_program_a:D',
      'pm:crypto:btc',
      'pm:market:exchange_b:T1:prices',
    ]);
  });

  it('refuse segments that would change the room (":" or spaces), a bad percent, and a wallet without a pool', () => {
    const bad = [
      () => rooms.liquidity('M:pool'),
      () => rooms.price(''),
      () => rooms.price('a b'),
      () => rooms.curve('venue_a', 101),
      () => rooms.curve('venue_a', 2.5),
      () => rooms.graduatingWith('venue_a', 0),
      () => rooms.liquidity('M', { wallet: 'W' }),
    ];
    for (const f of bad) {
      let err: unknown;
      try {
        f();
      } catch (e) {
        err = e;
      }
      expect(isChainpilotError(err, 'STREAM_INVALID_ROOM')).toBe(true);
    }
  });
});

describe('roomSpec', () => {
  it('marks price-like rooms coalesced and event rooms deduplicated', () => {
    for (const r of ['price:token:M', 'token:P', 'price:aggregated:M', 'stats:token:M:total', 'volume:pool:P', 'pm:crypto:btc', 'pnl:W:summary']) {
      expect(roomSpec(r)).toMatchObject({ coalesce: true, dedup: false });
    }
    for (const r of ['liquidity:M', 'transaction:M', 'dca:dca_program_a:filled', 'latest', 'graduated', 'bundlers:M', 'pnl:W:M', 'venue_a:curve:50']) {
      expect(roomSpec(r)).toMatchObject({ coalesce: false, dedup: true });
    }
  });

  it('marks only live liquidity provisional, and liquidity and transaction rooms as lists of events', () => {
    expect(roomSpec('liquidity:pool:P:enriched')).toMatchObject({ family: 'liquidity', rows: true, provisional: true });
    expect(roomSpec('transaction:M')).toMatchObject({ family: 'transaction', rows: true, provisional: false });
    expect(roomSpec('latest')).toMatchObject({ family: 'launch', rows: false, provisional: false });
  });

  it('resolves every family of the registry from its example room name', () => {
    for (const f of ROOM_FAMILIES) expect(roomSpec(f.example).family).toBe(f.name);
  });

  it('finds by first segment the family the full scan of the registry in order finds, for any room name', () => {
    // the lookup asks only the families whose `heads` name the first segment (and those without heads)
    const heads = [...new Set(ROOM_FAMILIES.flatMap((f) => f.heads ?? []))];
    const segment = fc.constantFrom(...heads, 'token', 'pool', 'wallet', 'curve', 'summary', 'aggregated', 'market', 'crypto', '50', 'venue_a', 'M', 'x');
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (parts) => {
        const scanned = ROOM_FAMILIES.find((f) => f.match(parts))?.name ?? 'unknown';
        expect(familyOfParts(parts).name).toBe(scanned);
      }),
      { numRuns: 3_000 },
    );
    for (const f of ROOM_FAMILIES) if (f.heads) expect(f.heads).toContain(f.example.split(':')[0]);
  });

  it('derives the REST history scope of token-scoped liquidity and swap rooms, and none for pool or wallet rooms', () => {
    expect(roomSpec('liquidity:M:P:W:enriched').backfill).toEqual({ token: 'M', pool: 'P', wallet: 'W', events: 'liquidity', swapsOnly: false });
    expect(roomSpec('transaction:M').backfill).toEqual({ token: 'M', events: 'all', swapsOnly: true });
    expect(roomSpec('liquidity:pool:P').backfill).toBeUndefined();
    expect(roomSpec('liquidity:wallet:W').backfill).toBeUndefined();
    expect(roomSpec('price:token:M').backfill).toBeUndefined();
    // no REST route serves a wallet's trades across tokens: no backfill (it used to call /trades/wallet and 404)
    expect(roomSpec('transaction:wallet:W').backfill).toBeUndefined();
  });

  it('accepts an unknown room as an open-object event room', () => {
    expect(roomSpec('somethingnew:x')).toMatchObject({ family: 'unknown', rows: false, coalesce: false });
  });
});
