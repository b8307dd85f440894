import { describe, expect, it } from 'vitest';
import {
  addLamports,
  addRaw,
  applyBps,
  bps,
  isRawAmount,
  lamports,
  msToSeconds,
  mulDivCeil,
  rawAmount,
  subLamports,
  subRaw,
  unixMs,
} from '../../src/core/units.js';
import fc from 'fast-check';
import { Decimal, fromRaw, parseSolToLamports, toRaw } from '../../src/core/decimal.js';
import { fuzzParams } from '../helpers/fuzz.js';
import { isChainpilotError } from '../../src/core/errors.js';

describe('units', () => {
  it('accepts integer strings and bigints for lamports and rejects floats and negatives', () => {
    expect(lamports('1500000000')).toBe(1_500_000_000n);
    expect(rawAmount(42)).toBe(42n);
    expect(() => lamports(1.5)).toThrow(/lamports/);
    expect(() => lamports(-1n)).toThrow(/>= 0/);
    expect(() => rawAmount('1.0')).toThrow(/integer string/);
  });

  it('rejects bps outside 0..10000 with a coded error naming the unit', () => {
    try {
      bps(10_001);
      expect.unreachable();
    } catch (e) {
      expect(isChainpilotError(e, 'CORE_INVALID_UNIT')).toBe(true);
      expect((e as Error).message).toMatch(/bps/);
    }
    expect(bps(10_001, true)).toBe(10_001);
  });

  it('applies bps rounding down and mulDivCeil rounding up', () => {
    expect(applyBps(1_000_003n, bps(25))).toBe(2_500n);
    expect(mulDivCeil(10n, 1n, 3n)).toBe(4n);
    expect(mulDivCeil(9n, 1n, 3n)).toBe(3n);
  });

  it('adds and subtracts branded amounts and refuses a difference below zero with a coded error', () => {
    expect(addLamports(lamports(1n), lamports(5n))).toBe(6n);
    expect(subLamports(lamports(5n), lamports(2n))).toBe(3n);
    expect(addRaw(rawAmount(7n), rawAmount(8n))).toBe(15n);
    expect(subRaw(rawAmount(8n), rawAmount(8n))).toBe(0n);
    expect(() => subLamports(lamports(1n), lamports(2n))).toThrow(/cannot take 2 lamports from 1/);
    try {
      subRaw(rawAmount(1n), rawAmount(3n));
      expect.unreachable();
    } catch (e) {
      expect(isChainpilotError(e, 'CORE_INVALID_UNIT')).toBe(true);
    }
    expect(isRawAmount(0n)).toBe(true);
    expect(isRawAmount(-1n)).toBe(false);
    expect(isRawAmount(1)).toBe(false);
  });

  it('parses SOL decimals to exact lamports and refuses negatives and excess precision', () => {
    expect(parseSolToLamports('0.123456789')).toBe(123_456_789n);
    expect(parseSolToLamports(2)).toBe(2_000_000_000n);
    expect(parseSolToLamports('0.0000000001')).toBeUndefined();
    expect(parseSolToLamports('-1')).toBeUndefined();
    expect(parseSolToLamports('lots')).toBeUndefined();
  });

  it('converts milliseconds to seconds by flooring', () => {
    expect(msToSeconds(unixMs(1_700_000_000_999))).toBe(1_700_000_000);
  });
});

describe('decimal conversions', () => {
  it('round-trips decimal strings and raw amounts exactly', () => {
    expect(toRaw('1.5', 6)).toBe(1_500_000n);
    expect(toRaw('0.000000001', 9)).toBe(1n);
    expect(fromRaw(1_500_000n, 6)).toBe('1.5');
    expect(fromRaw(123_456_789_012_345_678_901n, 9)).toBe('123456789012.345678901');
  });

  it('writes raw amounts as the same text Decimal arithmetic gives, for any sign, size and decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 24 }), (raw, decimals) => {
        expect(fromRaw(raw, decimals)).toBe(new Decimal(raw.toString()).shiftedBy(-decimals).toFixed());
      }),
      fuzzParams({ numRuns: 2_000, seed: 1502 }, [
        [0n, 9],
        [-1n, 9],
        [1_000_000_000n, 9],
        [-10n, 1],
        [5n, 0],
      ]),
    );
    expect(fromRaw(10_000_000n, 9)).toBe('0.01');
    expect(fromRaw(0n, 6)).toBe('0');
  });

  it('refuses excess precision unless a rounding direction is given', () => {
    expect(() => toRaw('1.0000001', 6)).toThrow(/more than 6 decimal places/);
    expect(toRaw('1.0000009', 6, 'down')).toBe(1_000_000n);
    expect(toRaw('1.0000001', 6, 'up')).toBe(1_000_001n);
  });
});
