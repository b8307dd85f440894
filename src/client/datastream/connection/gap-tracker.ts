/**
 * Gaps in the stream: a gap starts when a socket that had been open goes away, and closes when the
 * next one opens; every reconnect in between (attempts that fail before opening) belongs to it.
 * A closed gap is counted (reconnects, gaps, total and longest gap) and returned, with the rooms
 * subscribed when it closed, for the client to report and backfill.
 *
 * State: when the open gap started (undefined while connected or before the first open).
 */
import type { UnixMs } from '../../../core/index.js';
import type { DatastreamStats } from '../stats.js';
import type { StreamGap } from '../stream-message.js';

export interface GapTracker {
  /** A socket that had been open went away at `at`: a gap starts, unless one is already open. */
  down(at: UnixMs): void;
  /** A socket opened at `at`: the gap this ends, counted (undefined when none was open). `rooms` is read only then. */
  end(at: UnixMs, rooms: () => string[]): StreamGap | undefined;
}

export function createGapTracker(s: DatastreamStats): GapTracker {
  let startedAt: UnixMs | undefined;
  return {
    down(at) {
      startedAt ??= at;
    },
    end(at, rooms) {
      if (startedAt === undefined) return undefined;
      const gap: StreamGap = { startedAt, endedAt: at, rooms: rooms() };
      startedAt = undefined;
      s.reconnects++;
      s.gaps++;
      const ms = gap.endedAt - gap.startedAt;
      s.gapMsTotal += ms;
      if (ms > s.gapMsMax) s.gapMsMax = ms;
      return gap;
    },
  };
}
