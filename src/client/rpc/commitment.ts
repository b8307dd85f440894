/** Commitment levels, compared by rank and never by string equality. */

/** `processed` (may roll back) < `confirmed` (supermajority vote) < `finalized` (strongest). */
export type Commitment = 'processed' | 'confirmed' | 'finalized';

const RANK: Readonly<Record<Commitment, number>> = { processed: 0, confirmed: 1, finalized: 2 };

/** 0 for processed, 1 for confirmed, 2 for finalized; -1 for null or an unknown value. */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- names the known values; any string from the wire is accepted
export function commitmentRank(c: Commitment | string | null | undefined): number {
  return c != null && Object.hasOwn(RANK, c) ? RANK[c as Commitment] : -1;
}

/** True when `actual` is at least as strong as `required` (null or unknown is never enough). */
// eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- names the known values; any string from the wire is accepted
export function atLeast(actual: Commitment | string | null | undefined, required: Commitment): boolean {
  const rank = commitmentRank(actual);
  return rank >= 0 && rank >= RANK[required];
}

/** True for the three documented commitment strings. */
export function isCommitment(v: unknown): v is Commitment {
  return typeof v === 'string' && Object.hasOwn(RANK, v);
}
