/**
 * Dedup keys of logical events, for deduplication across overlapping rooms and between live and
 * REST backfill: each family's identity fields (room-registry.ts), never a stringify of the
 * payload and never a signature alone (several distinct liquidity events and swaps share one tx).
 * Rows identical in every identity field within one frame or page are told apart by their ordinal,
 * so two identical rows stay two events, and the same frame through another room maps to the same
 * two keys.
 */
import { fpCheck, fpInt, fpKey, fpStart } from './fingerprint.js';
import { fingerprintOf, type ResolvedRoom } from './room-registry.js';

/** Fingerprints of a batch of rows: `keys[i]` (53-bit) and `checks[i]` (11-bit). */
export interface Fingerprints {
  readonly keys: number[];
  readonly checks: number[];
}

/** Fingerprints of a row family's items, with occurrence ordinals within the batch. */
export function rowFingerprints(r: ResolvedRoom, items: readonly unknown[]): Fingerprints {
  const keys: number[] = new Array<number>(items.length);
  const checks: number[] = new Array<number>(items.length);
  for (let i = 0; i < items.length; i++) {
    const [k, c] = fingerprintOf(r, items[i]);
    keys[i] = k;
    checks[i] = c;
  }
  if (items.length > 1) {
    const seen = new Map<number, number>();
    for (let i = 0; i < items.length; i++) {
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
