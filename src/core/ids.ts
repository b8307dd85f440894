/** Identifiers: sortable, deterministic when built from an injected clock and seeded random. */
import type { Random } from './random.js';
import type { UnixMs } from './units.js';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID-style id (26 chars, time-sortable) from the given time and random source, with an
 * optional prefix ("int_01J...").
 */
export function newId(at: UnixMs, random: Random, prefix = ''): string {
  let t: number = at;
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32]! + time;
    t = Math.floor(t / 32);
  }
  const bytes = random.bytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i]! % 32]!;
  return prefix + time + rand;
}
