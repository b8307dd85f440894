/**
 * One queue of deferred tasks drained a few milliseconds per event-loop turn. The daemon hands it
 * to every paper book as the scheduler of its end-of-turn write (`PaperBookOptions.defer`): a
 * hundred copies of one file act on the same frame, so a hundred book commits used to fall due in
 * the same check phase and held the event loop for tens of ms; drained here, each turn runs the
 * commits that fit in {@link BOOK_WRITE_SLICE_MS} (at least one), in the order they were queued, and
 * sockets, timers and the control plane are served in between. What a crash may lose grows from
 * the turn in progress to the writes still queued here (docs/daemon.md, "Paper books: what a crash
 * may lose").
 *
 * A task that throws does not stop the queue: the rest are drained in the next turns, and the
 * error is thrown into the loop (as `setImmediate` would have), after the next drain is scheduled.
 */
import { performance } from 'node:perf_hooks';

/** Real milliseconds of book writes per event-loop turn in the daemon. */
export const BOOK_WRITE_SLICE_MS = 5;

export interface SlicedTurns {
  /** Queues `task` to run in a later turn, after every task queued before it. */
  readonly defer: (task: () => void) => void;
  /** Tasks queued and not run yet. */
  readonly pending: () => number;
}

export interface SlicedTurnsOptions {
  /** Real milliseconds of tasks per turn; a turn always runs at least one. */
  readonly sliceMs: number;
  /** Schedules the next drain (default `setImmediate`); tests pass their own. */
  readonly schedule?: (drain: () => void) => void;
  /** Real time in ms (default `performance.now`); tests pass their own. */
  readonly now?: () => number;
}

/** Creates an empty queue; see the module comment. */
export function createSlicedTurns(o: SlicedTurnsOptions): SlicedTurns {
  const schedule = o.schedule ?? ((drain: () => void) => void setImmediate(drain));
  const now = o.now ?? (() => performance.now());
  let tasks: (() => void)[] = [];
  let head = 0;
  let scheduled = false;
  const drain = (): void => {
    // `scheduled` stays true while draining: a task queued now runs in this drain or the next one
    const until = now() + o.sliceMs;
    try {
      do tasks[head++]!();
      while (head < tasks.length && now() < until);
    } finally {
      if (head >= tasks.length || head > 1024) {
        tasks = tasks.slice(head); // never grows with the tasks already run
        head = 0;
      }
      scheduled = tasks.length > 0;
      if (scheduled) schedule(drain);
    }
  };
  return {
    defer(task) {
      tasks.push(task);
      if (!scheduled) {
        scheduled = true;
        schedule(drain);
      }
    },
    pending: () => tasks.length - head,
  };
}
