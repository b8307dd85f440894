/**
 * Units of money and time, kept apart in the type system.
 *
 * Raw token amounts and lamports are `bigint`; basis points are integers; time is either Unix
 * milliseconds or Unix seconds and the two never mix without an explicit conversion.
 */
import { ChainpilotError } from './errors.js';

declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

/** SOL in lamports (1 SOL = 1_000_000_000 lamports). */
export type Lamports = Brand<bigint, 'Lamports'>;
/** A raw (integer, smallest-unit) token amount. */
export type RawAmount = Brand<bigint, 'RawAmount'>;
/** Basis points: 1 bps = 0.01 %. Integer. */
export type Bps = Brand<number, 'Bps'>;
/** Unix time in milliseconds. */
export type UnixMs = Brand<number, 'UnixMs'>;
/** Unix time in seconds. */
export type UnixSeconds = Brand<number, 'UnixSeconds'>;

export const LAMPORTS_PER_SOL = 1_000_000_000n;
export const BPS_DENOMINATOR = 10_000n;

function fail(what: string, value: unknown, fix: string): never {
  throw new ChainpilotError('CORE_INVALID_UNIT', `${what}: got ${String(value)}; ${fix}`, {
    retry: 'not_retryable',
    context: { what },
  });
}

/** Makes `Lamports` from a non-negative bigint (or a safe integer). */
export function lamports(value: bigint | number | string): Lamports {
  const v = toBigInt(value, 'lamports');
  if (v < 0n) fail('lamports', value, 'lamports must be >= 0');
  return v as Lamports;
}

/** Makes a `RawAmount` from a non-negative bigint, integer number or integer string. */
export function rawAmount(value: bigint | number | string): RawAmount {
  const v = toBigInt(value, 'raw amount');
  if (v < 0n) fail('raw amount', value, 'raw amounts must be >= 0');
  return v as RawAmount;
}

/** Makes `Bps` from an integer in [0, 10_000] (or wider when `allowAbove100Pct`). */
export function bps(value: number, allowAbove100Pct = false): Bps {
  if (!Number.isInteger(value) || value < 0 || (!allowAbove100Pct && value > 10_000)) {
    fail('bps', value, 'basis points are integers from 0 to 10000');
  }
  return value as Bps;
}

export function isLamports(value: unknown): value is Lamports {
  return typeof value === 'bigint' && value >= 0n;
}

export function isRawAmount(value: unknown): value is RawAmount {
  return typeof value === 'bigint' && value >= 0n;
}

/** Zero of each amount brand (a starting point for sums). */
export const ZERO_LAMPORTS = 0n as Lamports;
export const ZERO_RAW = 0n as RawAmount;

/** `a + b` in lamports (a sum of non-negative amounts stays non-negative). Two operands: hot paths call it. */
export function addLamports(a: Lamports, b: Lamports): Lamports {
  return (a + b) as Lamports;
}

/** `a - b` in lamports; a negative difference is an invariant breach (CORE_INVALID_UNIT). */
export function subLamports(a: Lamports, b: Lamports): Lamports {
  if (b > a) fail('lamports difference', a - b, `cannot take ${b} lamports from ${a}`);
  return (a - b) as Lamports;
}

/** `a + b` in raw token units. */
export function addRaw(a: RawAmount, b: RawAmount): RawAmount {
  return (a + b) as RawAmount;
}

/** `a - b` in raw token units; a negative difference is an invariant breach (CORE_INVALID_UNIT). */
export function subRaw(a: RawAmount, b: RawAmount): RawAmount {
  if (b > a) fail('raw amount difference', a - b, `cannot take ${b} raw from ${a}`);
  return (a - b) as RawAmount;
}

export function unixMs(value: number): UnixMs {
  if (!Number.isSafeInteger(value) || value < 0) fail('UnixMs', value, 'Unix milliseconds are non-negative integers');
  return value as UnixMs;
}

export function unixSeconds(value: number): UnixSeconds {
  if (!Number.isSafeInteger(value) || value < 0) fail('UnixSeconds', value, 'Unix seconds are non-negative integers');
  return value as UnixSeconds;
}

/** Converts ms to whole seconds, rounding down. */
export function msToSeconds(ms: UnixMs): UnixSeconds {
  return Math.floor(ms / 1000) as UnixSeconds;
}

export function secondsToMs(s: UnixSeconds): UnixMs {
  return (s * 1000) as UnixMs;
}

/**
 * Applies basis points to an integer amount, rounding down: `amount * bps / 10_000`. A share of
 * lamports is lamports and a share of a raw amount is a raw amount (bps are never negative).
 */
export function applyBps(amount: Lamports, b: Bps | number): Lamports;
export function applyBps(amount: RawAmount, b: Bps | number): RawAmount;
export function applyBps(amount: bigint, b: Bps | number): bigint;
export function applyBps(amount: bigint, b: Bps | number): bigint {
  return (amount * BigInt(b)) / BPS_DENOMINATOR;
}

/** `a * b / c` in integers, rounding down (c > 0). */
export function mulDiv(a: bigint, b: bigint, c: bigint): bigint {
  if (c <= 0n) fail('mulDiv divisor', c, 'the divisor must be > 0');
  return (a * b) / c;
}

/** `a * b / c` in integers, rounding up (c > 0). */
export function mulDivCeil(a: bigint, b: bigint, c: bigint): bigint {
  if (c <= 0n) fail('mulDivCeil divisor', c, 'the divisor must be > 0');
  const p = a * b;
  return p % c === 0n ? p / c : p / c + 1n;
}

function toBigInt(value: bigint | number | string, what: string): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) fail(what, value, 'pass a bigint or a safe integer');
    return BigInt(value);
  }
  if (!/^-?\d+$/.test(value)) fail(what, value, 'pass an integer string such as "1500"');
  return BigInt(value);
}
