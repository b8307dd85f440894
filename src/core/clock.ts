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
 * Calls `fn` once after `delayMs` of wall time, for any delay: longer than `MAX_TIMER_MS` it chains
 * timers against a wall-clock deadline. A negative or NaN delay means 0; `Infinity` never fires.
 * Returns the cancel function.
 */
export function longTimeout(fn: () => void, delayMs: number): () => void {
  const delay = delayMs > 0 ? delayMs : 0;
  if (delay === Infinity) return () => undefined;
  let timer: NodeJS.Timeout | undefined;
  if (delay <= MAX_TIMER_MS) {
    timer = setTimeout(fn, delay);
    return () => clearTimeout(timer);
  }
  const deadline = Date.now() + delay;
  const arm = (): void => {
    const left = deadline - Date.now();
    if (left <= 0) {
      timer = undefined;
      fn();
      return;
    }
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
  };
  arm();
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

/** A clock that only moves when told to: for backtests and tests (no sleeping). */
export function manualClock(start: UnixMs | number = 0): ManualClock {
  let now = start;
  let next = 1;
  let seq = 0;
  const timers = new Map<number, PendingTimer>();

  const earliest = (): PendingTimer | undefined => {
    let best: PendingTimer | undefined;
    for (const t of timers.values()) {
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  };

  const clock: ManualClock = {
    now: () => now as UnixMs,
    setTimeout(fn, delayMs) {
      const id = next++;
      timers.set(id, { id, at: now + Math.max(0, delayMs), seq: seq++, fn });
      return { id };
    },
    clearTimeout(handle) {
      timers.delete(handle.id);
    },
    advanceTo(to) {
      if (to < now) return;
      for (;;) {
        const t = earliest();
        if (!t || t.at > to) break;
        timers.delete(t.id);
        now = t.at;
        t.fn();
      }
      now = to;
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
