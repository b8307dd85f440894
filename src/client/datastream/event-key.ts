/**
 * Keys of logical events, for deduplication across overlapping rooms and between live and REST
 * backfill. A key is never a transaction signature alone: several distinct liquidity events (and
 * swap rows) share one tx, pool and wallet, so the key also holds the event's kind, place and exact
 * amounts. Fields that legitimately differ between deliveries of one event are left out: `identity`
 * and `identityStatus` (enriched rooms), and `time`/`slot` (REST uses canonical block time).
 * Rows that are identical in every keyed field within one frame or page are told apart by their
 * ordinal (see `occurrenceKeys`).
 */

const VOLATILE = new Set(['identity', 'identityStatus', 'time', 'slot', 'receivedAt']);

/** Key of one liquidity event. */
export function liquidityKey(e: Record<string, unknown>): string {
  let k = `L|${String(e.tx)}|${String(e.type)}|${String(e.pool)}|${String(e.wallet)}|${String(e.programId)}|${String(e.instruction)}`;
  const tokens = e.tokens as readonly Record<string, unknown>[];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    k += `|${String(t.address)}=${String(t.amountRaw)}`;
  }
  return k;
}

/** Key of one swap row: its signature plus every non-volatile field, in a stable order. */
export function swapKey(e: Record<string, unknown>): string {
  return `S|${stableStringify(e)}`;
}

/** Key of an object payload of a room family with a given dedup scope. */
export function objectKey(scope: string, data: unknown): string {
  return `O|${scope}|${stableStringify(data)}`;
}

/**
 * Gives each key in `keys` an ordinal suffix counting earlier equal keys in the same batch, so that
 * two identical rows in one frame stay two events, and the same frame through another room maps to
 * the same two keys.
 */
export function occurrenceKeys(keys: readonly string[]): string[] {
  if (keys.length < 2) return keys.length === 1 ? [`${keys[0]!}#0`] : [];
  const seen = new Map<string, number>();
  const out: string[] = new Array<string>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const n = seen.get(k) ?? 0;
    seen.set(k, n + 1);
    out[i] = `${k}#${n}`;
  }
  return out;
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
