/**
 * Fingerprints (fingerprint.ts) of logical events, for deduplication across overlapping rooms and between live and
 * REST backfill. A fingerprint is never of a transaction signature alone: several distinct
 * liquidity events (and swap rows) share one tx, pool and wallet, so it also covers the event's
 * kind, place and exact amounts. Fields that legitimately differ between deliveries of one event
 * are left out: `identity` and `identityStatus` (enriched rooms), and `time`/`slot` (REST uses
 * canonical block time). Rows identical in every covered field within one frame or page are told
 * apart by their ordinal, so two identical rows stay two events, and the same frame through
 * another room maps to the same two fingerprints.
 */
import { fpCheck, fpInt, fpKey, fpStart, fpStr, fpTail } from './fingerprint.js';

const VOLATILE = new Set(['identity', 'identityStatus', 'time', 'slot', 'receivedAt']);

/** Fingerprints of a batch of rows: `keys[i]` (53-bit) and `checks[i]` (32-bit). */
export interface Fingerprints {
  readonly keys: number[];
  readonly checks: number[];
}

function liquidityFp(e: Record<string, unknown>): void {
  fpStart();
  // signatures and addresses are base58 of random bytes: their tails carry enough entropy
  // (24 signature chars are ~140 bits; within one tx, 8-12 chars of an address are ~47-70 bits)
  fpTail(e.tx as string, 24);
  fpStr(e.type as string);
  fpTail(e.pool as string, 10);
  fpTail(e.wallet as string, 10);
  fpTail(e.programId as string, 6);
  fpStr(e.instruction as string);
  const tokens = e.tokens as readonly Record<string, unknown>[];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    fpTail(t.address as string, 8);
    fpStr(t.amountRaw as string);
  }
}

/**
 * A swap row with a signature is identified by signature, side, amount and wallet: the fields the
 * spec names for swap rows that REST and the stream should agree on (prices, volume and metadata
 * may be computed or attached differently). Without a signature, by every non-volatile field.
 */
function swapFp(e: Record<string, unknown>): void {
  fpStart();
  fpInt(2);
  if (typeof e.tx === 'string') {
    fpTail(e.tx, 24);
    fpStr(String(e.type));
    fpStr(String(e.amount));
    fpStr(typeof e.wallet === 'string' ? e.wallet : '');
    return;
  }
  fpStr(stableStringify(e));
}

/** Fingerprints of liquidity events or swap rows, with occurrence ordinals within the batch. */
export function rowFingerprints(kind: 'liquidity' | 'swap', rows: readonly unknown[]): Fingerprints {
  const keys: number[] = new Array<number>(rows.length);
  const checks: number[] = new Array<number>(rows.length);
  const fp = kind === 'liquidity' ? liquidityFp : swapFp;
  for (let i = 0; i < rows.length; i++) {
    fp(rows[i] as Record<string, unknown>);
    keys[i] = fpKey();
    checks[i] = fpCheck();
  }
  if (rows.length > 1) {
    const seen = new Map<number, number>();
    for (let i = 0; i < rows.length; i++) {
      const k = keys[i]!;
      const n = seen.get(k) ?? 0;
      seen.set(k, n + 1);
      if (n > 0) {
        fpStart();
        fpInt(k % 0x1_0000_0000);
        fpInt(Math.floor(k / 0x1_0000_0000));
        fpInt(checks[i]!);
        fpInt(n);
        keys[i] = fpKey();
        checks[i] = fpCheck();
      }
    }
  }
  return { keys, checks };
}

/** Fingerprint `[key, check]` of an object payload within a dedup scope (rooms that carry the same events share a scope). */
export function objectFingerprint(scope: string, data: unknown): [number, number] {
  fpStart();
  fpInt(3);
  fpStr(scope);
  fpStr(stableStringify(data));
  return [fpKey(), fpCheck()];
}

/** JSON with sorted object keys and volatile fields dropped (top level only). */
export function stableStringify(v: unknown, top = true): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => stableStringify(x, false)).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => !(top && VOLATILE.has(k)) && o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(o[k], false)}`).join(',')}}`;
}
