/**
 * One queue of deferred tasks, each run a set real delay after it was queued and drained a few
 * milliseconds per event-loop turn. The daemon hands it to every paper book as the scheduler of
 * its write (`PaperBookOptions.defer`). A hundred copies of one file act on the same frame, so a
 * hundred book commits used to fall due in the same check phase and held the event loop for tens
 * of ms; here each turn runs the commits that fit in {@link BOOK_WRITE_SLICE_MS} (at least one), in
 * the order they were queued, and sockets, timers and the control plane are served in between.
 * The delay ({@link BOOK_WRITE_DELAY_MS}) is a group commit: a book's changes of that long are
 * written in one transaction instead of one per turn. What a crash may lose grows from the turn in
 * progress to the writes still queued here (docs/daemon.md, "Paper books: what a crash may lose").
 *
 * A task that throws does not stop the queue: the rest are drained in the next turns, and the
 * error is thrown into the loop (as `setImmediate` would have), after the next drain is scheduled.
 */
import { performance } from 'node:perf_hooks';

/** Real milliseconds of book writes per event-loop turn in the daemon. */
export const BOOK_WRITE_SLICE_MS = 5;
/**
 * Real milliseconds a paper book's changes wait in the daemon before they are written. A second:
 * at a hundred deployments a book gets about ten changes a second, so 100 ms wrote about one change
 * per transaction, and a commit's fixed cost (WAL frames, the b-tree pages it touches) was most of
 * the cost of a change; grouped for a second a change costs about half the main-thread CPU
 * (docs/daemon.md, "Paper books: what a crash may lose").
 */
export const BOOK_WRITE_DELAY_MS = 1_000;

export interface SlicedTurns {
  /** Queues `task` to run `delayMs` from now, after every task queued before it. */
  readonly defer: (task: () => void) => void;
  /** Tasks queued and not run yet. */
  readonly pending: () => number;
}

export interface SlicedTurnsOptions {
  /** Real milliseconds of tasks per turn; a turn always runs at least one. */
  readonly sliceMs: number;
  /** Real milliseconds from queueing a task to running it (default 0: the next turn). */
  readonly delayMs?: number;
  /** Schedules the next drain in `ms` (default `setImmediate` for 0, else `setTimeout`); tests pass their own. */
  readonly schedule?: (drain: () => void, ms: number) => void;
  /** Real time in ms (default `performance.now`); tests pass their own. */
  readonly now?: () => number;
}

const realSchedule = (drain: () => void, ms: number): void => {
  if (ms <= 0) setImmediate(drain);
  else setTimeout(drain, ms);
};

/** Creates an empty queue; see the module comment. */
export function createSlicedTurns(o: SlicedTurnsOptions): SlicedTurns {
  const schedule = o.schedule ?? realSchedule;
  const now = o.now ?? (() => performance.now());
  const delayMs = o.delayMs ?? 0;
  let tasks: (() => void)[] = [];
  let due: number[] = [];
  let head = 0;
  let scheduled = false;
  const arm = (): void => {
    scheduled = true;
    schedule(drain, Math.max(0, due[head]! - now()));
  };
  const drain = (): void => {
    // `scheduled` stays true while draining: a task queued now runs in this drain or a later one
    const t0 = now();
    const until = t0 + o.sliceMs;
    try {
      // the first task is due (its drain was scheduled for it); the rest run while due and in the slice
      do tasks[head++]!();
      while (head < tasks.length && due[head]! <= t0 && now() < until);
    } finally {
      if (head >= tasks.length || head > 1024) {
        tasks = tasks.slice(head); // never grows with the tasks already run
        due = due.slice(head);
        head = 0;
      }
      scheduled = false;
      if (tasks.length > 0) arm();
    }
  };
  return {
    defer(task) {
      tasks.push(task);
      due.push(now() + delayMs);
      if (!scheduled) arm();
    },
    pending: () => tasks.length - head,
  };
}
