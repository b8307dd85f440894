/** A generic cursor iterator for list endpoints whose cursor field names are not fixed by the spec. */
import type { ApiContext } from './rest-context.js';
import { isRecord } from './rest-context.js';

/** Reads the next cursor of a page: `nextCursor`, `cursor`, or `pagination.nextCursor|cursor`; none when `hasMore`/`hasNextPage` is false. */
export function nextCursorOf(page: unknown): string | number | undefined {
  if (!isRecord(page)) return undefined;
  const more = page['hasMore'] ?? page['hasNextPage'];
  if (more === false) return undefined;
  const pagination = isRecord(page['pagination']) ? page['pagination'] : {};
  for (const v of [page['nextCursor'], page['cursor'], pagination['nextCursor'], pagination['cursor']]) {
    if ((typeof v === 'string' && v !== '') || (typeof v === 'number' && Number.isFinite(v))) return v;
  }
  return undefined;
}

/** Yields pages from `fetch(cursor)` until a page carries no next cursor. */
export async function* paginate<T>(
  ctx: ApiContext,
  endpoint: string,
  start: string | number | undefined,
  fetch: (cursor: string | number | undefined) => Promise<T>,
): AsyncGenerator<T> {
  let cursor = start;
  const seen = new Set<string>();
  for (;;) {
    const page = await fetch(cursor);
    yield page;
    const next = nextCursorOf(page);
    if (next === undefined) return;
    const key = String(next);
    if (seen.has(key) || (cursor !== undefined && String(cursor) === key)) throw ctx.cursorRepeated(endpoint);
    seen.add(key);
    cursor = next;
  }
}
