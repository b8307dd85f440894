/**
 * Runs the REST backfills of closed gaps: one run per subscribed room with a history scope
 * (backfill.ts pages through it), each page routed through the room's current entry (the room may
 * have been left, or left and joined again, while a page was in flight) with `origin: 'backfill'`,
 * so it shares the live stream's dedup window. Every run ends with `backfill-done` or
 * `backfill-failed`; none throws into the client. Without a REST source nothing runs.
 *
 * State: the runs in flight and the abort controller that `abort()` (the client's close) fires;
 * each run listens on a child signal of its own, so listeners never pile up on the client's.
 */
import { ChainpilotError, type UnixMs } from '../../../core/index.js';
import type { RoomEntry, RoomRouter } from '../delivery/room-router.js';
import type { DatastreamEvent } from '../events.js';
import type { ResolvedOptions } from '../options.js';
import type { StatsBook } from '../stats.js';
import type { StreamGap } from '../stream-message.js';
import { backfillRoom, type BackfillOptions } from './backfill.js';

export type BackfillRunnerOptions = Pick<
  ResolvedOptions,
  'backfill' | 'clock' | 'random' | 'backfillOverlapMs' | 'backfillPageLimit' | 'backfillMaxPages' | 'backfillRetries' | 'backoffBaseMs' | 'backoffCapMs'
>;

export interface BackfillRunnerPorts {
  readonly router: Pick<RoomRouter, 'rooms' | 'route'>;
  readonly stats: StatsBook;
  readonly emit: (event: DatastreamEvent) => void;
}

export interface BackfillRunner {
  /** Starts a backfill of each room of `gap` that has a REST history scope, from the gap's start. */
  start(gap: StreamGap): void;
  /** Resolves when every run started so far has finished (for tests and orderly shutdown). */
  readonly idle: () => Promise<void>;
  /** Final: aborts every run; their failures are no longer reported. */
  abort(): void;
}

export function createBackfillRunner(o: BackfillRunnerOptions, p: BackfillRunnerPorts): BackfillRunner {
  const { router, stats, emit } = p;
  const s = stats.s;
  const runs = new Set<Promise<void>>();
  const abort = new AbortController();
  const source = o.backfill;
  const options: BackfillOptions | undefined = source && {
    source,
    clock: o.clock,
    random: o.random,
    overlapMs: o.backfillOverlapMs,
    pageLimit: o.backfillPageLimit,
    maxPages: o.backfillMaxPages,
    retries: o.backfillRetries,
    backoffBaseMs: o.backoffBaseMs,
    backoffCapMs: o.backoffCapMs,
  };

  /** Routes a page's rows through the room's current entry; returns how many were new. */
  const deliver = (room: string, rows: unknown[], at: UnixMs): number => {
    const current = router.rooms.get(room);
    if (current === undefined) return 0;
    const n = router.route(current, rows, at, 'backfill');
    s.backfilledRows += n;
    current.stats.backfilled += n;
    return n;
  };

  const run = async (bo: BackfillOptions, entry: RoomEntry, since: UnixMs): Promise<void> => {
    const room = entry.resolved.name.room;
    const child = new AbortController();
    const onAbort = (): void => child.abort();
    abort.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const r = await backfillRoom(bo, entry, since, (rows, at) => deliver(room, rows, at), child.signal);
      emit({ kind: 'backfill-done', room, rows: r.rows, pages: r.pages, truncated: r.truncated });
    } catch (e) {
      if (abort.signal.aborted) return;
      s.backfillFailures++;
      const err =
        e instanceof ChainpilotError ? e : new ChainpilotError('STREAM_BACKFILL_FAILED', `backfill of room ${room} failed`, { retry: 'retryable', cause: e });
      emit({ kind: 'backfill-failed', room, error: err });
    } finally {
      abort.signal.removeEventListener('abort', onAbort);
    }
  };

  return {
    start(gap) {
      if (!options) return;
      for (const room of gap.rooms) {
        const entry = router.rooms.get(room);
        if (!entry?.resolved.backfill) continue;
        const r = run(options, entry, gap.startedAt).finally(() => runs.delete(r));
        runs.add(r);
      }
    },
    async idle() {
      while (runs.size > 0) await Promise.allSettled([...runs]);
    },
    abort() {
      abort.abort();
    },
  };
}
