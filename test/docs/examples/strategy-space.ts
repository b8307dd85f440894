/** The search-space example of docs/backtesting.md ("What is searched"); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
// #region doc
import { choice, defineStrategy, range, z } from '../../../src/strategies/api.js';

export default defineStrategy({
  id: 'spaced',
  params: z.strictObject({ milestonePct: z.number().int().min(1).max(99).default(50), confirmMs: z.number().int().default(5_000) }),
  space: { milestonePct: range(30, 70, 10), confirmMs: choice(2_000, 5_000, 10_000) },
  rooms: (p) => [`venue_a:curve:${p.milestonePct}`],
});
// #endregion doc
