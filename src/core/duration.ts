/** Durations as people write them: milliseconds, or "500ms", "30s", "5m", "1h", "1d". */

const DURATION = /^(\d+)(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds from a number or a string such as "30s"; `undefined` when it is not a duration. */
export function parseDuration(v: string | number): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : undefined;
  const m = DURATION.exec(v.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : undefined;
}
