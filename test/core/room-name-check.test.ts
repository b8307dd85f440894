import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRoomName } from '../../src/core/room-names.js';

/** The rule as the full check states it: a non-empty string of at most 512 characters, no whitespace, no empty segment. */
const valid = (room: string): boolean => room.length > 0 && room.length <= 512 && !/\s/.test(room) && !room.split(':').includes('');

const accepts = (room: string): boolean => {
  try {
    return checkRoomName(room) === room;
  } catch {
    return false;
  }
};

describe('room name check', () => {
  it('accepts exactly the names the rule allows, on random names of room-like pieces, colons, spaces and non-ASCII characters', () => {
    const piece = fc.constantFrom('price', 'token', 'holders', 'So1111', ':', '::', ' ', '\t', '\u00a0', '\u2028', '\ufeff', 'é', '~', '!', '');
    const name = fc.oneof(
      fc.array(piece, { maxLength: 12 }).map((ps) => ps.join('')),
      fc.string({ maxLength: 20 }),
      fc.string({ minLength: 510, maxLength: 514 }),
    );
    fc.assert(
      fc.property(name, (room) => {
        expect(accepts(room), JSON.stringify(room)).toBe(valid(room));
      }),
      { numRuns: 3_000 },
    );
  });

  it('says what is wrong with a refused name', () => {
    expect(() => checkRoomName('price:token:')).toThrow(/empty segment/);
    expect(() => checkRoomName(':latest')).toThrow(/empty segment/);
    expect(() => checkRoomName('holders:a\u00a0b')).toThrow(/whitespace/);
    expect(() => checkRoomName('')).toThrow(/is empty/);
    expect(checkRoomName('price:token:Mint1')).toBe('price:token:Mint1');
  });
});
