/**
 * The one source of time. Live and paper use the system clock; backtests and tests use a manual
 * clock that advances only when told, firing due timers in time order.
 */
import { ChainpilotError } from './errors.js';
import type { UnixMs } from './units.js';

export interface TimerHandle {
  readonly id: number;
}

export interface Clock {
  /** Current time in Unix milliseconds. */
  now(): UnixMs;
  /** Calls `fn` once after `delayMs` of this clock's time. */
  setTimeout(fn: () => void, delayMs: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/**
 * Largest delay Node's timers honour. A longer one fires after 1 ms (with a TimeoutOverflowWarning),
 * so every wall-clock timer of chainpilot goes through `longTimeout`.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `fn` once after `delayMs` of wall time, for any delay, and never before `Date.now()` has
 * moved `delayMs` past the call. Node's own timer may fire up to a millisecond early by `Date.now()`
 * (it counts on libuv's monotonic clock, whose millisecond boundaries are not the wall clock's), and
 * a delay longer than `MAX_TIMER_MS` fires after 1 ms; so this re-arms against a wall-clock deadline
 * until it is reached. A negative or NaN delay means 0; `Infinity` never fires. Returns the cancel
 * function.
 */
export function longTimeout(fn: () => void, delayMs: number): () => void {
  const delay = delayMs > 0 ? delayMs : 0;
  if (delay === Infinity) return () => undefined;
  const deadline = Date.now() + delay;
  let timer: NodeJS.Timeout | undefined;
  const arm = (wait: number): void => {
    timer = setTimeout(
      () => {
        const left = deadline - Date.now();
        if (left > 0) {
          arm(left);
          return;
        }
        timer = undefined;
        fn();
      },
      Math.min(wait, MAX_TIMER_MS),
    );
  };
  arm(delay);
  return () => clearTimeout(timer);
}

/** The wall clock. Timers are correct for any delay (see `longTimeout`). */
export function systemClock(): Clock {
  const handles = new Map<number, () => void>();
  let next = 1;
  return {
    now: () => Date.now() as UnixMs,
    setTimeout(fn, delayMs) {
      const id = next++;
      handles.set(
        id,
        longTimeout(() => {
          handles.delete(id);
          fn();
        }, delayMs),
      );
      return { id };
    },
    clearTimeout(handle) {
      const cancel = handles.get(handle.id);
      if (cancel !== undefined) {
        cancel();
        handles.delete(handle.id);
      }
    },
  };
}

export interface ManualClock extends Clock {
  /** Sets the time forward to `to`, firing every timer due at or before it, in order. */
  advanceTo(to: UnixMs): void;
  /**
   * As `advanceTo`, in slices: asks `stop` after each timer it fires and, when it answers true while
   * timers due at or before `to` remain, leaves the time at the last fired timer's and returns false
   * (call again to go on). True once the time is `to`. The timers fire in the same order and at the
   * same times as in one `advanceTo`; only the turns they run in differ.
   */
  advanceToUntil(to: UnixMs, stop: () => boolean): boolean;
  /** Advances by `ms`, firing due timers in order. */
  advance(ms: number): void;
  /** Time of the earliest pending timer, if any. */
  nextTimerAt(): UnixMs | undefined;
  /** Number of pending timers. */
  pending(): number;
}

interface PendingTimer {
  id: number;
  at: number;
  seq: number;
  fn: () => void;
}

const never = (): boolean => false;

/** Whether pending timer `a` fires before `b`: earlier time first, then the order they were set in. */
const before = (a: PendingTimer, b: PendingTimer): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq);

/**
 * A clock that only moves when told to: for backtests and tests (no sleeping). Pending timers sit in
 * a binary heap ordered by (time, order set), so a backtest that advances the clock on every
 * recorded line pays O(1) to learn that no timer is due, whatever the number of pending timers.
 * A cleared timer leaves the heap lazily (skipped when it reaches the top); the heap is rebuilt
 * when cleared entries outnumber live ones, so it stays within twice the live timers.
 */
export function manualClock(start: UnixMs | number = 0): ManualClock {
  let now = start;
  let next = 1;
  let seq = 0;
  const timers = new Map<number, PendingTimer>();
  let heap: PendingTimer[] = [];

  const up = (i: number): void => {
    const t = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!before(t, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = t;
  };
  const down = (i: number): void => {
    const n = heap.length;
    const t = heap[i]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && before(heap[c + 1]!, heap[c]!)) c++;
      const child = heap[c]!;
      if (!before(child, t)) break;
      heap[i] = child;
      i = c;
    }
    heap[i] = t;
  };
  const pop = (): void => {
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      down(0);
    }
  };
  /** The earliest live timer (cleared ones at the top are dropped on the way). */
  const earliest = (): PendingTimer | undefined => {
    for (;;) {
      const t = heap[0];
      if (t === undefined || timers.get(t.id) === t) return t;
      pop();
    }
  };

  const clock: ManualClock = {
    now: () => now as UnixMs,
    setTimeout(fn, delayMs) {
      const id = next++;
      const t: PendingTimer = { id, at: now + Math.max(0, delayMs), seq: seq++, fn };
      timers.set(id, t);
      heap.push(t);
      up(heap.length - 1);
      return { id };
    },
    clearTimeout(handle) {
      if (!timers.delete(handle.id)) return;
      if (heap.length > 64 && heap.length > 2 * timers.size) {
        heap = [...timers.values()];
        for (let i = (heap.length >> 1) - 1; i >= 0; i--) down(i);
      }
    },
    advanceTo(to) {
      clock.advanceToUntil(to, never);
    },
    advanceToUntil(to, stop) {
      if (to < now) return true;
      for (;;) {
        const t = earliest();
        if (!t || t.at > to) break;
        timers.delete(t.id);
        pop();
        now = t.at;
        t.fn();
        if (stop()) {
          const rest = earliest();
          if (rest && rest.at <= to) return false;
        }
      }
      now = to;
      return true;
    },
    advance(ms) {
      clock.advanceTo((now + ms) as UnixMs);
    },
    nextTimerAt() {
      return earliest()?.at as UnixMs | undefined;
    },
    pending: () => timers.size,
  };
  return clock;
}

/**
 * Resolves after `ms` of `clock` time, or rejects with CORE_ABORTED when `signal` aborts first.
 * Backoff and polling wait on the injected clock, so tests drive time instead of sleeping.
 */
export function clockSleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = (): ChainpilotError => new ChainpilotError('CORE_ABORTED', 'the wait was aborted', { retry: 'not_retryable' });
    if (signal?.aborted) {
      reject(aborted());
      return;
    }
    const onAbort = (): void => {
      clock.clearTimeout(handle);
      reject(aborted());
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
