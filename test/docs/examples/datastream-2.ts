/** The example of docs/datastream.md (line 203); checked by test/docs/doc-examples.test.ts, compiled by the typecheck. */
import type { BackfillSource as Real } from '../../../src/index.js';
// #region doc
interface BackfillSource {
  fetchHistoryPage(q: {
    token: string; pool?: string; wallet?: string;
    events: 'all' | 'liquidity';
    cursor?: string | number;          // opaque nextCursor, or a Unix-ms exclusive first boundary
    sortDirection: 'asc' | 'desc'; limit: number; enrich?: 'identity';
  }, signal?: AbortSignal): Promise<{ rows: readonly unknown[]; hasNextPage: boolean; nextCursor?: string | number }>;
}
// #endregion doc
// The documented shape is the exported one, both ways.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
export const same: Same<BackfillSource, Real> = true;
