/** Identifiers: sortable, deterministic when built from an injected clock and seeded random. */
import type { Random } from './random.js';
import type { UnixMs } from './units.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODES = Array.from(CROCKFORD, (c) => c.charCodeAt(0));
/**
 * Character codes of the id being built, reused (one id is built at a time on a thread): the id is
 * one flat string made by one `String.fromCharCode`, not 26 one-character strings and a concatenation
 * each (an id is made for every intent, on the frame → intent path).
 */
const scratch: number[] = new Array<number>(26).fill(0);

/**
 * A ULID-style id (26 chars, time-sortable) from the given time and random source, with an
 * optional prefix ("int_01J...").
 */
export function newId(at: UnixMs, random: Random, prefix = ''): string {
  let t: number = at;
  for (let i = 9; i >= 0; i--) {
    scratch[i] = CODES[t % 32]!;
    t = Math.floor(t / 32);
  }
  const bytes = random.bytes(16);
  for (let i = 0; i < 16; i++) scratch[10 + i] = CODES[bytes[i]! % 32]!;
  const id = String.fromCharCode.apply(null, scratch);
  return prefix === '' ? id : prefix + id;
}
