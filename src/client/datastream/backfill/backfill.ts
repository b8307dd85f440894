/**
 * REST backfill after a gap: for each subscribed room with a REST history scope, pages through
 * `/trades/...` oldest first from a numeric Unix-ms boundary (the gap start minus an overlap),
 * sending the opaque `nextCursor` back unchanged, and routes every page through the same dedup
 * window as the live stream, marked `origin: 'backfill'`. Failures retry with backoff on the
 * injected clock, then are reported; a backfill never throws into the client.
 */
import { backoffWithJitter, ChainpilotError, describeError, type Clock, type Random, type UnixMs } from '../../../core/index.js';
import type { BackfillSource, HistoryQuery } from './backfill-source.js';
import type { RoomEntry } from '../delivery/room-router.js';

export interface BackfillOptions {
  readonly source: BackfillSource;
  readonly clock: Clock;
  readonly random: Random;
  readonly overlapMs: number;
  readonly pageLimit: number;
  readonly maxPages: number;
  readonly retries: number;
  readonly backoffBaseMs: number;
  readonly backoffCapMs: number;
}

export interface BackfillResult {
  readonly rows: number;
  readonly pages: number;
  /** Stopped at `maxPages` while REST had more. */
  readonly truncated: boolean;
}

const LIQUIDITY_TYPES = new Set(['add_liquidity', 'remove_liquidity']);

/** Waits `ms` on the injected clock (so tests drive retries with a manual clock). */
function wait(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clock.clearTimeout(t);
      reject(new ChainpilotError('CORE_ABORTED', 'backfill was aborted', { retry: 'not_retryable' }));
    };
    const t = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Backfills one room from `since` (Unix ms). `deliver` routes a page's rows (already filtered to
 * the room's event kind) and returns how many were new.
 */
export async function backfillRoom(
  o: BackfillOptions,
  entry: RoomEntry,
  since: UnixMs,
  deliver: (rows: unknown[], at: UnixMs) => number,
  signal: AbortSignal,
): Promise<BackfillResult> {
  const scope = entry.resolved.backfill;
  if (!scope) return { rows: 0, pages: 0, truncated: false };
  let cursor: string | number = Math.max(0, since - o.overlapMs);
  let pages = 0;
  let delivered = 0;
  const enriched = entry.resolved.name.enriched;
  for (;;) {
    const q: HistoryQuery = {
      token: scope.token,
      ...(scope.pool === undefined ? {} : { pool: scope.pool }),
      ...(scope.wallet === undefined ? {} : { wallet: scope.wallet }),
      events: scope.events,
      cursor,
      sortDirection: 'asc',
      limit: o.pageLimit,
      ...(enriched ? { enrich: 'identity' as const } : {}),
    };
    let attempt = 0;
    let page;
    for (;;) {
      if (signal.aborted) throw new ChainpilotError('CORE_ABORTED', 'backfill was aborted', { retry: 'not_retryable' });
      try {
        page = await o.source.fetchHistoryPage(q, signal);
        break;
      } catch (e) {
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the signal can abort during the await above
        if (signal.aborted || attempt >= o.retries) {
          throw new ChainpilotError(
            'STREAM_BACKFILL_FAILED',
            `backfill of room ${entry.resolved.name.room} failed after ${attempt + 1} attempt(s): ${describeError(e)}; events of the gap may be missing, check the REST history source`,
            {
              retry: 'retryable',
              context: { room: entry.resolved.name.room, pages },
              cause: e,
            },
          );
        }
        await wait(
          o.clock,
          Math.max(
            1,
            backoffWithJitter(attempt++, o.backoffBaseMs, o.backoffCapMs, () => o.random.next()),
          ),
          signal,
        );
      }
    }
    pages++;
    const rows = scope.swapsOnly ? page.rows.filter((r) => !isLiquidityRow(r)) : [...page.rows];
    if (rows.length > 0) delivered += deliver(rows, o.clock.now());
    if (!page.hasNextPage || page.nextCursor === undefined) break;
    if (pages >= o.maxPages) return { rows: delivered, pages, truncated: true };
    cursor = page.nextCursor;
  }
  return { rows: delivered, pages, truncated: false };
}

function isLiquidityRow(r: unknown): boolean {
  return typeof r === 'object' && r !== null && LIQUIDITY_TYPES.has(String((r as { type?: unknown }).type));
}
