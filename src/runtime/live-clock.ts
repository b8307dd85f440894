/**
 * A clock that remembers its pending timers so the composition root can cancel whatever is left
 * when a run ends (for example a time-stop scheduled by a fill that landed while in-flight intents
 * were draining), so a finished run never keeps the process alive.
 */
import type { Clock, TimerHandle } from '../core/index.js';

export interface TrackedClock extends Clock {
  /** Cancels every timer still pending; later `setTimeout` calls schedule nothing. */
  cancelAll(): void;
}

/** Wraps `base`, tracking its pending timers. */
export function trackedClock(base: Clock): TrackedClock {
  const pending = new Set<TimerHandle>();
  let closed = false;
  return {
    now: () => base.now(),
    setTimeout(fn, delayMs) {
      if (closed) return base.setTimeout(() => undefined, 0);
      const h: TimerHandle = base.setTimeout(() => {
        pending.delete(h);
        fn();
      }, delayMs);
      pending.add(h);
      return h;
    },
    clearTimeout(h) {
      pending.delete(h);
      base.clearTimeout(h);
    },
    cancelAll() {
      closed = true;
      for (const h of pending) base.clearTimeout(h);
      pending.clear();
    },
  };
}
