/**
 * A 64-bit fingerprint of a sequence of strings, from two independent 32-bit multiplicative hashes
 * that read four code units per step: a 53-bit `key` (a Map key without allocating a string)
 * and an 11-bit `check`. Two distinct events share a fingerprint with probability about 2^-64, so
 * the dedup window holds numbers instead of 300-byte strings. `fpTail` hashes only the last `n`
 * characters (and the length) of identifiers that are random in their tail (base58 signatures and
 * addresses): that keeps the hot path cheap.
 */

let h1 = 0;
let h2 = 0;

/** Starts a new fingerprint. */
export function fpStart(): void {
  h1 = 0x811c9dc5;
  h2 = 0x9747b28c;
}

function mix(s: string, from: number): void {
  let a = h1;
  let b = h2;
  const n = s.length;
  let i = from;
  // four code units per step, xor-packed (injective for the one-byte text identities are made of:
  // base58, digits, ASCII names; wider characters still mix, only less strictly)
  for (; i + 3 < n; i += 4) {
    const w = s.charCodeAt(i) ^ (s.charCodeAt(i + 1) << 8) ^ (s.charCodeAt(i + 2) << 16) ^ (s.charCodeAt(i + 3) << 24);
    a = Math.imul(a ^ w, 0x01000193);
    b = Math.imul((b ^ w) + (b >>> 11), 0x5bd1e995);
  }
  // the last 0 to 3 code units; the length, mixed in too, says how many there were
  let last = 0;
  for (let shift = 0; i < n; i++, shift += 8) last ^= s.charCodeAt(i) << shift;
  h1 = Math.imul(a ^ last ^ (n << 20), 0x01000193);
  h2 = Math.imul((b ^ last) + (b >>> 11) + n, 0x5bd1e995);
}

/** The current state (to resume from it with `fpResume`, e.g. a room's precomputed scope). */
export function fpState(): [number, number] {
  return [h1, h2];
}

/** Starts a fingerprint from a state saved with `fpState`. */
export function fpResume(a: number, b: number): void {
  h1 = a;
  h2 = b;
}

/** Mixes a whole string (with its length, so fields never run together). */
export function fpStr(s: string): void {
  mix(s, 0);
}

/** Mixes the last `n` characters of `s` and its length. */
export function fpTail(s: string, n: number): void {
  mix(s, s.length > n ? s.length - n : 0);
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/**
 * Mixes a number by value (its 64 bits; -0 as 0, every NaN alike), so `1234.5` and `Number('1234.5')`
 * mix the same without formatting either as a string.
 */
export function fpNum(x: number): void {
  f64[0] = x === 0 ? 0 : x === x ? x : Number.NaN;
  fpInt(u32[0]!);
  fpInt(u32[1]!);
}

/** Mixes an integer (e.g. an occurrence ordinal). */
export function fpInt(n: number): void {
  h1 = Math.imul(h1 ^ n, 0x01000193);
  h2 = Math.imul((h2 ^ n) + (h2 >>> 11), 0x5bd1e995);
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The 53-bit key of the current fingerprint. */
export function fpKey(): number {
  return (fmix(h1) & 0x1fffff) * 0x1_0000_0000 + fmix(h2);
}

/** The 11-bit check of the current fingerprint. */
export function fpCheck(): number {
  return fmix(h1) >>> 21;
}

/**
 * The current fingerprint's high 32 bits as an unsigned integer: `fpCheck() << 21 | fpKey()`'s
 * upper 21 bits (the hot path passes `fpHi`/`fpLo` to the dedup window: no 53-bit double to split).
 */
export function fpHi(): number {
  return fmix(h1);
}

/** The current fingerprint's low 32 bits (`fpKey()`'s lower 32 bits) as an unsigned integer. */
export function fpLo(): number {
  return fmix(h2);
}
