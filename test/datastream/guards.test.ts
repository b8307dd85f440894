import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkLiquidityEvent, parseRoomMessage } from '../../src/client/datastream/index.js';
import type { UnixMs } from '../../src/core/index.js';
import { liquidityEvent } from './helpers/events.js';

const withAmounts = (amount: string, amountRaw: string): unknown => liquidityEvent({ tokens: [{ address: 'M', amount, amountRaw, decimals: 6 }] });

describe('payload guards', () => {
  it('accept exactly the decimal and integer strings the spec allows (same as the reference regexes)', () => {
    const chars = fc.constantFrom('0', '1', '9', '.', '-', 'e', ' ', '+', 'x');
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 8 }).map((a) => a.join('')),
        (s) => {
          expect(checkLiquidityEvent(withAmounts(s, '1')) === undefined).toBe(/^-?\d+(\.\d+)?$/.test(s));
          expect(checkLiquidityEvent(withAmounts('1', s)) === undefined).toBe(/^-?\d+$/.test(s));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('name the first bad field of a liquidity event', () => {
    expect(checkLiquidityEvent(liquidityEvent({ type: 'swap' }))).toBe('type must be add_liquidity or remove_liquidity');
    expect(checkLiquidityEvent(liquidityEvent({ slot: 1.5 }))).toBe('slot must be an integer');
    expect(checkLiquidityEvent(liquidityEvent({ amountBasis: 'net' }))).toBe('amountBasis must be transfer or principal');
    expect(checkLiquidityEvent(liquidityEvent({ identity: 'kol' }))).toBe('identity must be an object or null');
    expect(checkLiquidityEvent({ ...liquidityEvent(), tokens: [{ address: 'M', amount: '1', amountRaw: '1', decimals: 0, feeAmountRaw: '0.1' }] })).toBe(
      'tokens[0].feeAmountRaw must be an integer string',
    );
    expect(checkLiquidityEvent(liquidityEvent({ identity: null, identityStatus: 'partial', anythingElse: [1] }))).toBeUndefined();
  });

  it('check the graduated token message and leave undocumented payloads open', () => {
    const check = (room: string, data: unknown): string | undefined => {
      const r = parseRoomMessage(room, data, 1 as UnixMs);
      return r.ok ? undefined : r.reason;
    };
    const launch = { token: { name: 'A', symbol: 'A', mint: 'M' }, pools: [{ market: 'venue_a-amm', poolId: 'P', extra: 1 }] };
    expect(check('graduated', { ...launch, graduationTx: 'T', graduationTime: 1_700_000_000_000 })).toBeUndefined();
    expect(check('graduated', launch)).toBeUndefined();
    expect(check('graduated', { ...launch, graduationTx: 'T', graduationTime: '2024' })).toBe('graduationTime must be Unix ms or null');
    expect(check('latest', { token: { name: 'A', symbol: 'A' }, pools: [] })).toBe('token.mint must be a non-empty string');
    expect(check('dca:p', { whatever: true })).toBeUndefined();
    expect(check('dca:p', [1])).toBe('data must be an object');
  });
});
