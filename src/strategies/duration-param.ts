/** Durations in strategy parameters: milliseconds, or "500ms", "30s", "5m", "1h", "1d", as in the deployment file. */
import { z } from 'zod';
import { parseDuration } from '../core/duration.js';

const DAY_MS = 86_400_000;

/**
 * A zod schema for a duration parameter in milliseconds (a number): `confirmMs: durationParam().default(5_000)`
 * accepts `confirmMs: 5000` and `confirmMs: "5s"`. `min`/`max` in milliseconds (default 0 to 365 days).
 */
export function durationParam(bounds: { readonly min?: number; readonly max?: number } = {}) {
  const min = bounds.min ?? 0;
  const max = bounds.max ?? 365 * DAY_MS;
  return z.union([z.number(), z.string()]).transform((v, ctx): number => {
    const ms = parseDuration(v);
    if (ms !== undefined && ms >= min && ms <= max) return ms;
    ctx.addIssue({
      code: 'custom',
      message: `expected a duration from ${min} ms to ${max} ms (milliseconds, or a whole number with ms, s, m, h or d, such as "30s"); got ${JSON.stringify(v)}`,
    });
    return z.NEVER;
  });
}
