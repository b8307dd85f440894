/**
 * One seeded random source (xoshiro128**, seeded through splitmix32). Same seed, same sequence,
 * on every machine. Nothing in the engine, strategies or simulator uses Math.random.
 */
import { ChainpilotError } from './errors.js';

export interface Random {
  /** Uniform float in [0, 1). For modelling only, never for money. */
  next(): number;
  /** Uniform integer in [min, max] inclusive. */
  int(min: number, max: number): number;
  /** Uniform bigint in [0, bound). */
  bigintBelow(bound: bigint): bigint;
  /** True with probability p. */
  chance(p: number): boolean;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
  /** `n` random bytes. */
  bytes(n: number): Uint8Array;
  /** An independent generator derived from this one and a label (stable across runs). */
  fork(label: string): Random;
}

function splitmix32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x9e3779b9) >>> 0;
    let z = a;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Creates a seeded generator. A string seed is hashed. */
export function seededRandom(seed: number | string): Random {
  const sm = splitmix32(typeof seed === 'string' ? hashString(seed) : seed);
  let s0 = sm();
  let s1 = sm();
  let s2 = sm();
  let s3 = sm();
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;

  const nextU32 = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (s1 << 9) >>> 0;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  };

  const r: Random = {
    next: () => nextU32() / 0x1_0000_0000,
    int(min, max) {
      if (max < min) throw new ChainpilotError('CORE_INVALID_ARGUMENT', `int(min, max): max ${max} < min ${min}`, { retry: 'not_retryable' });
      return min + Math.floor(r.next() * (max - min + 1));
    },
    bigintBelow(bound) {
      if (bound <= 0n) throw new ChainpilotError('CORE_INVALID_ARGUMENT', `bigintBelow(bound): bound must be > 0; got ${bound}`, { retry: 'not_retryable' });
      const bits = bound.toString(2).length;
      for (;;) {
        let v = 0n;
        for (let i = 0; i < bits; i += 32) v = (v << 32n) | BigInt(nextU32());
        v &= (1n << BigInt(bits)) - 1n;
        if (v < bound) return v;
      }
    },
    chance: (p) => r.next() < p,
    pick<T>(items: readonly T[]): T {
      if (items.length === 0) throw new ChainpilotError('CORE_INVALID_ARGUMENT', 'pick(items): items is empty', { retry: 'not_retryable' });
      return items[Math.floor(r.next() * items.length)] as T;
    },
    bytes(n) {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i += 4) {
        const v = nextU32();
        for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (v >>> (8 * j)) & 0xff;
      }
      return out;
    },
    fork(label) {
      return seededRandom((nextU32() ^ hashString(label)) >>> 0);
    },
  };
  return r;
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
