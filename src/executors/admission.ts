/**
 * Intent admission: the one set of rules an executor applies to an intent before anything is built
 * for it. The in-process live executor, the queue's wallet worker (and the paper executors) call
 * the same pure function, so every one of them refuses the same intents with the same code.
 *
 * Pure: no I/O, no clock reads. Time (`at`) and the day's committed spend are passed in as plain
 * values; a journal that checks the daily cap atomically reports `over_daily_cap`, which
 * {@link dayCapDenial} turns into the very denial `admitIntent` would have given.
 *
 * The least output an intent accepts (`minOut`), from the reference price `p` (SOL per whole
 * token, an exact decimal), the token's `decimals` and the slippage `s` (bps), in exact integers:
 *
 *     buy  (raw tokens): minOut = floor(spendLamports × 10^decimals × (10000 − s) / (p × 10^9 × 10000))
 *     sell (lamports):   minOut = floor(sellRaw × p × 10^9 × (10000 − s) / (10^decimals × 10000))
 *
 * and at least 1 (something must arrive). An intent without a reference price accepts any
 * output of at least 1, unless the limits require a reference price (LIVE_NO_REFERENCE_PRICE).
 */
import BigNumber from 'bignumber.js';
import { isAddressText } from '../core/address-text.js';
import type { ErrorCode } from '../core/error-codes.js';
import { addLamports, lamports, type Lamports, type UnixMs } from '../core/units.js';
import type { OrderIntent } from '../engine/orders/execution-port.js';

export { isAddressText };

/** Base fee per signature (lamports), part of every intent's spend. */
export const ADMISSION_LAMPORTS_PER_SIGNATURE = 5_000n;

/** The caps admission applies (the live settings carry them). */
export interface AdmissionLimits {
  /** Largest SOL outflow one intent may cause (amount for a buy, plus fee budget), lamports. */
  readonly maxTradeLamports: bigint;
  /** Largest SOL outflow of all admitted intents of one UTC day, lamports. */
  readonly maxDayLamports: bigint;
  /** Refuse an intent without a reference price (its least output cannot be derived); default false. */
  readonly requireReferencePrice?: boolean;
}

/** Codes an admission denial carries. */
export type AdmissionCode = Extract<ErrorCode, 'LIVE_INVALID_INTENT' | 'LIVE_SPEND_CAP_TRADE' | 'LIVE_SPEND_CAP_DAY' | 'LIVE_NO_REFERENCE_PRICE'>;

/** A refusal, as a value. `context` holds the numbers (bigints as decimal strings). */
export interface AdmissionDenial {
  readonly ok: false;
  readonly code: AdmissionCode;
  readonly reason: string;
  readonly context: Readonly<Record<string, string | number>>;
}

export interface AdmissionGrant {
  readonly ok: true;
  /** SOL the intent may take from the wallet: amount (buys) plus base and priority fee budget. */
  readonly spendLamports: Lamports;
  /** UTC day (`YYYY-MM-DD`) the spend counts against. */
  readonly day: string;
  /** Least output accepted: raw units of the intent's mint on a buy, lamports on a sell. */
  readonly minOut: bigint;
  /** `reference`: derived from the reference price; `any`: no reference price, any output >= 1. */
  readonly minOutBasis: 'reference' | 'any';
}

export type Admission = AdmissionGrant | AdmissionDenial;

/**
 * Admits `intent` at `at` under `limits`. When `spentTodayLamports` (spend already committed on
 * the intent's day) is given the daily cap is checked too; a journal may check it atomically
 * instead. Never throws for a bad intent: the denial is the value.
 */
export function admitIntent(intent: OrderIntent, limits: AdmissionLimits, at: UnixMs, spentTodayLamports?: bigint): Admission {
  const invalid = validateIntent(intent);
  if (invalid) return deny('LIVE_INVALID_INTENT', invalid, { intentId: typeof intent.id === 'string' ? intent.id.slice(0, 128) : '(not a string)' });
  const spendLamports = spendOf(intent);
  if (spendLamports > limits.maxTradeLamports) {
    return deny('LIVE_SPEND_CAP_TRADE', `intent may spend ${spendLamports} lamports; execution.maxTradeLamports is ${limits.maxTradeLamports}`, {
      spendLamports: spendLamports.toString(),
      maxTradeLamports: limits.maxTradeLamports.toString(),
    });
  }
  const day = utcDay(at);
  if (spentTodayLamports !== undefined && spentTodayLamports + spendLamports > limits.maxDayLamports) {
    return dayCapDenial(day, spentTodayLamports, spendLamports, limits.maxDayLamports);
  }
  if (intent.referencePrice === undefined) {
    if (limits.requireReferencePrice === true) {
      return deny('LIVE_NO_REFERENCE_PRICE', 'intent has no reference price, so the least output it accepts cannot be derived', { intentId: intent.id });
    }
    return { ok: true, spendLamports, day, minOut: 1n, minOutBasis: 'any' };
  }
  return { ok: true, spendLamports, day, minOut: minOutOf(intent, intent.slippageBps), minOutBasis: 'reference' };
}

/** The denial of an intent whose spend would pass the daily cap (also when a journal found it so). */
export function dayCapDenial(day: string, spentTodayLamports: bigint, spendLamports: bigint, maxDayLamports: bigint): AdmissionDenial {
  return deny(
    'LIVE_SPEND_CAP_DAY',
    `day ${day} has ${spentTodayLamports} lamports committed; this intent's ${spendLamports} would pass execution.maxDayLamports ${maxDayLamports}`,
    { day, spentTodayLamports: spentTodayLamports.toString(), spendLamports: spendLamports.toString(), maxDayLamports: maxDayLamports.toString() },
  );
}

/**
 * Least output of `intent` at `slippageBps` (the intent's own, or a rebuild's ramped slippage):
 * the formula in this module's header; 1 when the intent has no reference price.
 */
export function minOutOf(intent: OrderIntent, slippageBps: number): bigint {
  if (intent.referencePrice === undefined) return 1n;
  const price = parseDecimal(intent.referencePrice);
  if (!price || price.units === 0n) return 1n; // validateIntent refuses these; a caller that skipped it still gets "something"
  const keep = BigInt(10_000 - Math.min(Math.max(slippageBps, 0), 10_000));
  const tokenScale = 10n ** BigInt(intent.decimals);
  const lamportsPerSol = 1_000_000_000n;
  const out =
    intent.side === 'buy'
      ? (intent.spendLamports * tokenScale * keep * price.scale) / (price.units * lamportsPerSol * 10_000n)
      : (intent.sellRaw * price.units * lamportsPerSol * keep) / (tokenScale * price.scale * 10_000n);
  return out > 0n ? out : 1n;
}

/** SOL that may leave the wallet for `intent`: amount (buys) plus base and priority fee budget. */
export function spendOf(intent: OrderIntent): Lamports {
  const fees = addLamports(intent.priorityFeeLamports, lamports(ADMISSION_LAMPORTS_PER_SIGNATURE));
  return intent.side === 'buy' ? addLamports(intent.spendLamports, fees) : fees;
}

/** UTC calendar day of `at`, `YYYY-MM-DD`: the key of the per-day cap. */
export function utcDay(at: UnixMs | number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Why `i` cannot be executed (a field out of range), or undefined when it is well-formed. */
export function validateIntent(i: OrderIntent): string | undefined {
  if (typeof i.id !== 'string' || i.id.length === 0 || i.id.length > 128) return 'id must be a non-empty string of at most 128 characters';
  const amount: unknown = i.side === 'buy' ? i.spendLamports : i.sellRaw;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- intents also arrive decoded from a journal or a queued job: the side is checked at run time
  if (i.side === 'buy' || i.side === 'sell') {
    if (typeof amount !== 'bigint' || amount <= 0n) return `${i.side === 'buy' ? 'spendLamports' : 'sellRaw'} must be a bigint > 0`;
  }
  if (typeof i.priorityFeeLamports !== 'bigint' || i.priorityFeeLamports < 0n) return 'priorityFeeLamports must be a bigint >= 0';
  if (!Number.isInteger(i.decimals) || i.decimals < 0 || i.decimals > 18) return 'decimals must be an integer from 0 to 18';
  if (!Number.isInteger(i.slippageBps) || i.slippageBps < 0 || i.slippageBps > 10_000) return 'slippageBps must be an integer from 0 to 10000';
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- checks a JavaScript caller's value at runtime
  if (i.side !== 'buy' && i.side !== 'sell') return "side must be 'buy' or 'sell'";
  if (i.referencePrice !== undefined) {
    const p = typeof i.referencePrice === 'string' ? parseDecimal(i.referencePrice) : undefined;
    if (!p || p.units === 0n) return `referencePrice ${JSON.stringify(i.referencePrice)} must be a positive decimal string (SOL per whole token)`;
  }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-conversion -- the intent is checked at runtime: mint may not be a string
  if (!isAddressText(i.mint)) return `mint ${String(i.mint)} is not a base58 address`;
  return undefined;
}

/** `units / scale` of a non-negative decimal string (`12`, `0.000031`, `3.1e-8`); undefined for anything else. */
function parseDecimal(text: string): { units: bigint; scale: bigint } | undefined {
  const n = new BigNumber(text);
  if (!n.isFinite() || n.isNegative()) return undefined;
  const m = /^(\d{1,60})(?:\.(\d{1,60}))?$/.exec(n.toFixed());
  if (!m) return undefined;
  const fraction = m[2] ?? '';
  return { units: BigInt(m[1]! + fraction), scale: 10n ** BigInt(fraction.length) };
}

function deny(code: AdmissionCode, reason: string, context: Record<string, string | number>): AdmissionDenial {
  return { ok: false, code, reason, context };
}
