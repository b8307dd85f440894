/**
 * A 64-bit fingerprint of a sequence of strings, from two independent 32-bit multiplicative hashes
 * that read four code units per step: a 53-bit `key` (a Map key without allocating a string)
 * and an 11-bit `check`. Two distinct events share a fingerprint with probability about 2^-64, so
 * the dedup window holds numbers instead of 300-byte strings.
 *
 * Reading a character costs about 1.3 ns (`charCodeAt`), which makes it most of a fingerprint's
 * cost, so base58 ids are read by their tail (`fpTail`), as long as their role needs:
 * `ANCHOR_CHARS` of an id that anchors the event on its own (a signature, or the mint a launch is
 * about): 12 base58 characters are about 70 bits, more than the fingerprint keeps; `LOCAL_CHARS`
 * of an address that only has to tell apart the accounts of one anchored event (the pool, wallet
 * and mints of one transaction, the pools of one mint): 4 characters, about 23 bits, among a
 * handful of accounts. Numbers and short names are read whole.
 */

/** Tail length of a base58 id that anchors an event (signature, the mint of a launch). */
export const ANCHOR_CHARS = 12;
/** Tail length of a base58 address that only tells apart the accounts of one anchored event. */
export const LOCAL_CHARS = 4;

let h1 = 0;
let h2 = 0;

/** Starts a new fingerprint. */
export function fpStart(): void {
  h1 = 0x811c9dc5;
  h2 = 0x9747b28c;
}

/** Code units `i` to `i + 3` of `s`, xor-packed into one 32-bit word. */
function word(s: string, i: number): number {
  return s.charCodeAt(i) ^ (s.charCodeAt(i + 1) << 8) ^ (s.charCodeAt(i + 2) << 16) ^ (s.charCodeAt(i + 3) << 24);
}

function mix(s: string, from: number): void {
  let a = h1;
  let b = h2;
  const n = s.length;
  let w: number;
  if (n - from >= 4) {
    // four code units per step, xor-packed (injective for the one-byte text identities are made of:
    // base58, digits, ASCII names; wider characters still mix, only less strictly)
    for (let i = from; i + 4 < n; i += 4) {
      w = word(s, i);
      a = Math.imul(a ^ w, 0x01000193);
      b = Math.imul((b ^ w) + (b >>> 11), 0x5bd1e995);
    }
    // the last four code units, overlapping the step before when the length is not a multiple of
    // four: every character is read once or twice, with no loop over a remainder
    w = word(s, n - 4);
  } else {
    // 0 to 3 code units
    w = 0;
    for (let i = from, shift = 0; i < n; i++, shift += 8) w ^= s.charCodeAt(i) << shift;
  }
  // the length, mixed in too, keeps fields from running together (and says how the last step overlapped)
  h1 = Math.imul(a ^ w ^ (n << 20), 0x01000193);
  h2 = Math.imul((b ^ w) + (b >>> 11) + n, 0x5bd1e995);
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

// fpAnchor and fpLocal are fpTail(s, ANCHOR_CHARS) and fpTail(s, LOCAL_CHARS), the same state,
// without a loop for an id at least that long: small enough for the compiler to inline into every
// identity function (a loop's call, setup and exit branch cost more than its three steps).

/** `fpTail(s, ANCHOR_CHARS)`: the last 12 characters of a signature or anchoring mint, and the length. */
export function fpAnchor(s: string): void {
  const n = s.length;
  if (n < 12) {
    mix(s, 0);
    return;
  }
  const w1 = word(s, n - 12);
  const w2 = word(s, n - 8);
  const w3 = word(s, n - 4);
  let a = Math.imul(h1 ^ w1, 0x01000193);
  let b = Math.imul((h2 ^ w1) + (h2 >>> 11), 0x5bd1e995);
  a = Math.imul(a ^ w2, 0x01000193);
  b = Math.imul((b ^ w2) + (b >>> 11), 0x5bd1e995);
  h1 = Math.imul(a ^ w3 ^ (n << 20), 0x01000193);
  h2 = Math.imul((b ^ w3) + (b >>> 11) + n, 0x5bd1e995);
}

/** `fpTail(s, LOCAL_CHARS)`: the last 4 characters of an address that is local to an anchored event, and the length. */
export function fpLocal(s: string): void {
  const n = s.length;
  if (n < 4) {
    mix(s, 0);
    return;
  }
  const w = word(s, n - 4);
  h1 = Math.imul(h1 ^ w ^ (n << 20), 0x01000193);
  h2 = Math.imul((h2 ^ w) + (h2 >>> 11) + n, 0x5bd1e995);
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
