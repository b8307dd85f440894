/**
 * Dedup keys of logical events, for deduplication across overlapping rooms and between live and
 * REST backfill: each family's identity fields (room-registry.ts), never a stringify of the
 * payload and never a signature alone (several distinct liquidity events and swaps share one tx).
 * Rows identical in every identity field within one frame or page are told apart by their ordinal,
 * so two identical rows stay two events, and the same frame through another room maps to the same
 * two keys.
 */
import { fpHi, fpInt, fpLo, fpStart } from './fingerprint.js';
import { fingerprintInto, type ResolvedRoom } from '../rooms/room-registry.js';

/** Fingerprints of a batch of rows: `keys[i]` (53-bit) and `checks[i]` (11-bit). */
export interface Fingerprints {
  readonly keys: number[];
  readonly checks: number[];
}

/** Up to this many rows, repeated keys are found by comparing with the earlier rows (no Map per frame). */
const SCAN_ROWS = 32;

/**
 * Writes the fingerprint of each row, with occurrence ordinals within the batch, into `his[i]` and
 * `losOut[i]` (unsigned 32-bit halves, as `fpHi`/`fpLo`; both arrays at least `items.length` long).
 * A row whose 53-bit key (`fpKey`) equals an earlier row's in the batch gets the fingerprint of
 * (key, check, ordinal) instead, so identical rows stay distinct events.
 */
export function fingerprintRows(r: ResolvedRoom, items: readonly unknown[], his: Uint32Array, los: Uint32Array): void {
  const n = items.length;
  for (let i = 0; i < n; i++) {
    fingerprintInto(r, items[i]);
    his[i] = fpHi();
    los[i] = fpLo();
  }
  if (n < 2) return;
  if (n <= SCAN_ROWS) {
    // the key is the low half and the high half's lower 21 bits; ordinals count earlier rows with the same key
    // (last row first, so the rows compared with are never renumbered yet)
    for (let i = n - 1; i > 0; i--) {
      const lo = los[i]!;
      const key21 = his[i]! & 0x1fffff;
      let seen = 0;
      for (let j = 0; j < i; j++) if (los[j] === lo && (his[j]! & 0x1fffff) === key21) seen++;
      if (seen > 0) renumber(his, los, i, seen);
    }
    return;
  }
  const seen = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const k = (his[i]! & 0x1fffff) * 0x1_0000_0000 + los[i]!;
    const c = seen.get(k) ?? 0;
    seen.set(k, c + 1);
    if (c > 0) renumber(his, los, i, c);
  }
}

/** Replaces row `i`'s fingerprint by that of (its key, its check, `ordinal`). Reads row `i` before writing it. */
function renumber(his: Uint32Array, los: Uint32Array, i: number, ordinal: number): void {
  const hi = his[i]!;
  fpStart();
  fpInt(los[i]!);
  fpInt(hi & 0x1fffff);
  fpInt(hi >>> 21);
  fpInt(ordinal);
  his[i] = fpHi();
  los[i] = fpLo();
}

/** Fingerprints of a row family's items, with occurrence ordinals within the batch. */
export function rowFingerprints(r: ResolvedRoom, items: readonly unknown[]): Fingerprints {
  const his = new Uint32Array(items.length);
  const los = new Uint32Array(items.length);
  fingerprintRows(r, items, his, los);
  const keys: number[] = new Array<number>(items.length);
  const checks: number[] = new Array<number>(items.length);
  for (let i = 0; i < items.length; i++) {
    keys[i] = (his[i]! & 0x1fffff) * 0x1_0000_0000 + los[i]!;
    checks[i] = his[i]! >>> 21;
  }
  return { keys, checks };
}
