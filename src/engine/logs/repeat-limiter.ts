/**
 * Keeps repeated identical log lines from flooding the log (issue 29: a strategy's buys denied
 * 11,527 times in 60 s wrote 3.2 MB of "order denied"). The first line of a kind is written; the
 * same kind again within `windowMs` of the run clock is only counted; the first one after the
 * window is written with how many were held back. Counting in metrics and the decision log is not
 * touched: only the log is summarised. Memory is bounded: at most `maxKinds` kinds are tracked (the
 * oldest is forgotten first, so at worst a forgotten kind logs once more).
 */
import type { Clock } from '../../core/index.js';

export interface RepeatLimiter {
  /**
   * Whether a line of `kind` is written now; when it is, `held` is how many lines of that kind were
   * held back since the last one written (0 for the first).
   */
  admit(kind: string): { readonly write: boolean; readonly held: number };
}

interface Seen {
  writtenAt: number;
  held: number;
}

/** The answer for a line held back (the common case of a flood): one shared object, not one per call. */
const HOLD: { readonly write: boolean; readonly held: number } = Object.freeze({ write: false, held: 0 });

/** A limiter on `clock`: one line per kind per `windowMs` (default 60 s), at most `maxKinds` kinds (default 1 000). */
export function createRepeatLimiter(clock: Clock, windowMs = 60_000, maxKinds = 1_000): RepeatLimiter {
  const kinds = new Map<string, Seen>();
  return {
    admit(kind) {
      const now = clock.now();
      const seen = kinds.get(kind);
      if (seen !== undefined && now - seen.writtenAt < windowMs) {
        seen.held++;
        return HOLD;
      }
      const held = seen?.held ?? 0;
      // re-insert so the map's order is the order of the last write: the oldest kind goes first
      kinds.delete(kind);
      kinds.set(kind, { writtenAt: now, held: 0 });
      if (kinds.size > maxKinds) kinds.delete(kinds.keys().next().value!);
      return { write: true, held };
    },
  };
}
