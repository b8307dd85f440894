import { getBase58Decoder } from '@solana/kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base58Bytes, base58Text } from '../../src/core/base58.js';

const kit = getBase58Decoder();

describe('base58Text', () => {
  it('writes the same text as @solana/kit for byte strings of every length up to 100, leading zeros included', () => {
    fc.assert(
      fc.property(fc.nat({ max: 100 }), fc.nat({ max: 100 }), fc.uint8Array({ maxLength: 100 }), (zeros, length, tail) => {
        const bytes = new Uint8Array(Math.min(100, zeros % 8 === 0 ? zeros : zeros % 8) + length);
        bytes.set(tail.subarray(0, length), bytes.length - Math.min(length, tail.length));
        expect(base58Text(bytes)).toBe(kit.decode(bytes));
      }),
      { numRuns: 3_000 },
    );
  });

  it('writes 64-byte signatures and 32-byte addresses at the edges of their ranges as @solana/kit does', () => {
    for (const size of [32, 64, 65]) {
      for (const fill of [0, 1, 0x7f, 0xff]) {
        const bytes = new Uint8Array(size).fill(fill);
        expect(base58Text(bytes)).toBe(kit.decode(bytes));
        bytes[size - 1] = 1;
        expect(base58Text(bytes)).toBe(kit.decode(bytes));
        bytes[0] = 0xff;
        expect(base58Text(bytes)).toBe(kit.decode(bytes));
      }
    }
    expect(base58Text(new Uint8Array(0))).toBe('');
  });

  it('round-trips through base58Bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 80 }), (bytes) => {
        expect(base58Bytes(base58Text(bytes))).toEqual(bytes);
      }),
    );
  });
});
