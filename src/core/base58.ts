/**
 * Base58 text of bytes and back (Solana addresses, signatures, wire transactions): one codec for
 * every layer, so a module that works with web3.js objects needs no second Solana SDK for it. Not
 * exported from core/index.ts: the strategy API (which imports core) loads no Solana SDK.
 *
 * Encoding is hand-written: the live path reads the base58 id of every signature it journals, and
 * @solana/kit's encoder (a BigInt built from the bytes, then divided by 58 per digit) took about
 * 13 µs of a 44 µs signing step. Up to 64 bytes (signatures, addresses, hashes) the number is
 * converted to limbs of 58^5 by a table: limb k is the sum over 16-bit words w_j of
 * w_j × (limb k of 65536^j), whose products are independent (no carry chain) and whose sums stay
 * exact doubles (32 × 2^16 × 2^29.3 < 2^53); one carry pass then normalises the limbs. Longer
 * inputs take the schoolbook loop (two bytes at a time into the limbs). test/core/base58.test.ts
 * checks both against @solana/kit's encoder on random byte strings of every length up to 100,
 * leading zeros included; bench/signer.bench.ts measures it. Decoding stays @solana/kit's.
 */
import { getBase58Encoder } from '@solana/kit';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const ONE = 0x31; // '1', the zero digit
/** 58^5: five base58 digits per limb. */
const LIMB = 656_356_768;
/** 16-bit words of the table path (64 bytes) and limbs of 58^5 their value needs (88 digits). */
const WORDS = 32;
const LIMBS = 18;
/** POW[j * LIMBS + k]: limb k of 65536^j; TOP[j]: how many limbs 65536^j has. */
const POW = new Float64Array(WORDS * LIMBS);
const TOP = new Uint8Array(WORDS);
for (let j = 0, p = 1n; j < WORDS; j++, p <<= 16n) {
  let v = p;
  let k = 0;
  for (; v > 0n; k++, v /= BigInt(LIMB)) POW[j * LIMBS + k] = Number(v % BigInt(LIMB));
  TOP[j] = k;
}
const bytesCodec = getBase58Encoder();
/** Reused limb and character storage (one encode runs at a time on a thread); grown for long inputs. */
let scratch = new Float64Array(32);
let chars = Buffer.alloc(128);

/** The base58 text of `bytes`. */
export function base58Text(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  // log(256) / log(58^5) ≈ 0.2731 limbs per byte.
  const capacity = Math.max(LIMBS, Math.ceil((n - zeros) * 0.2732) + 1);
  if (scratch.length < capacity) scratch = new Float64Array(capacity * 2);
  const limbs = scratch;
  const len = n - zeros <= 2 * WORDS ? tableLimbs(bytes, zeros, limbs) : schoolbookLimbs(bytes, zeros, limbs);
  // Digits into reused bytes (ASCII), least significant last, then one latin1 string.
  const size = zeros + len * 5;
  if (chars.length < size) chars = Buffer.alloc(size * 2);
  const out = chars;
  let at = size;
  for (let j = 0; j < len; j++) {
    let v = limbs[j]! | 0; // below 2^30: small-integer arithmetic from here
    for (let k = 0; k < 5; k++) {
      const q = (v / 58) | 0;
      out[--at] = CODES[v - q * 58]!;
      v = q;
    }
  }
  // The top limb's leading zero digits are not part of the number; each leading zero byte is a '1'.
  while (at < size && out[at] === ONE) at++;
  at -= zeros;
  out.fill(ONE, at, at + zeros);
  return out.toString('latin1', at, size);
}

/** Limbs (least significant first) of bytes[from..] (at most 64 bytes) by the power table; returns their count. */
function tableLimbs(bytes: Uint8Array, from: number, limbs: Float64Array): number {
  limbs.fill(0, 0, LIMBS);
  let top = 0;
  for (let i = bytes.length, j = 0; i > from; i -= 2, j++) {
    const w = i - 1 > from ? (bytes[i - 2]! << 8) | bytes[i - 1]! : bytes[i - 1]!;
    if (w === 0) continue;
    const row = j * LIMBS;
    const t = TOP[j]!;
    for (let k = 0; k < t; k++) limbs[k]! += w * POW[row + k]!;
    if (t > top) top = t;
  }
  let carry = 0;
  for (let k = 0; k < top || carry > 0; k++) {
    const x = limbs[k]! + carry;
    carry = Math.floor(x / LIMB);
    limbs[k] = x - carry * LIMB;
    if (k >= top) top = k + 1;
  }
  while (top > 0 && limbs[top - 1] === 0) top--;
  return top;
}

/** Limbs of bytes[from..] of any length, two bytes at a time (each product below 2^46); returns their count. */
function schoolbookLimbs(bytes: Uint8Array, from: number, limbs: Float64Array): number {
  let len = 0;
  let i = from;
  if ((bytes.length - from) % 2 === 1) {
    const v = bytes[i++]!;
    if (v > 0) limbs[len++] = v; // below one limb
  }
  for (; i < bytes.length; i += 2) {
    let carry = (bytes[i]! << 8) | bytes[i + 1]!;
    for (let j = 0; j < len; j++) {
      const x = limbs[j]! * 65_536 + carry;
      carry = Math.floor(x / LIMB);
      limbs[j] = x - carry * LIMB;
    }
    while (carry > 0) {
      const q = Math.floor(carry / LIMB);
      limbs[len++] = carry - q * LIMB;
      carry = q;
    }
  }
  return len;
}

/** The bytes of base58 `text`; throws on a character outside the alphabet. */
export function base58Bytes(text: string): Uint8Array {
  return bytesCodec.encode(text) as Uint8Array;
}
