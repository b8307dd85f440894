/**
 * Deterministic Solana-looking identifiers from a seeded source, drawn directly as base58 text
 * (no big-number conversion). Lengths and first characters are chosen so that every address
 * decodes to exactly 32 bytes and every signature to exactly 64 bytes.
 */
import type { Random } from '../core/index.js';

const ALPHABET = Buffer.from('123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz', 'latin1');
const scratch = Buffer.alloc(128);

function draw(random: Random, length: number, firstMin: number): string {
  scratch[0] = ALPHABET[random.int(firstMin, 57)]!;
  for (let i = 1; i < length; i++) scratch[i] = ALPHABET[Math.floor(random.next() * 58)]!;
  return scratch.toString('latin1', 0, length);
}

/** A base58 address (43 characters; value in [2^248, 2^256), so 32 bytes). */
export function simAddress(random: Random): string {
  return draw(random, 43, 4);
}

/** A base58 transaction signature (87 characters; value in [2^504, 2^512), so 64 bytes). */
export function simSignature(random: Random): string {
  return draw(random, 87, 2);
}
