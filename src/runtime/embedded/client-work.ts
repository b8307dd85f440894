/**
 * The client's work in flight, for the embedded simulator's lockstep: a live rehearsal's executor
 * and chain clients do their work (HTTP round trips, journal writes, signing) in wall time, and
 * between two pieces of it wait on the run clock (a status poll, a backoff). The lockstep holds the
 * simulator's clock while any piece of work is running and not waiting on the clock, and ends a step
 * at the instant such a wait ends, so a poll or a backoff costs the simulated time it asked for and
 * the machine's CPU time costs none (docs/simulator.md "Lockstep").
 *
 * State: the work begun and not ended, the waits pending on the wrapped clock, and whether one ended
 * since the driver last asked.
 */
import type { Clock, TimerHandle } from '../../core/index.js';

export interface ClientWork {
  /**
   * The run clock for the client's parts that wait on it (executor, RPC and swap clients): a timer
   * set through it is a wait, and one firing ends the lockstep's step at its instant.
   */
  readonly clock: Clock;
  /** A piece of work began (an intent driven, a submit, a start-up read); call the returned function when it ended. */
  begin(): () => void;
  /** Counts `work` as work until it settles. */
  track<T>(work: Promise<T>): Promise<T>;
  /** True while more pieces of work are running than are waiting on the clock. */
  busy(): boolean;
  /** True once after a wait on the clock ended (its timer fired). */
  woke(): boolean;
}

/** Creates the gauge over the run clock `base` (the embedded simulator's). */
export function createClientWork(base: Clock): ClientWork {
  let running = 0;
  let wake = false;
  const waits = new Set<TimerHandle>();
  const clock: Clock = {
    now: () => base.now(),
    setTimeout(fn, delayMs) {
      const handle = base.setTimeout(() => {
        waits.delete(handle);
        wake = true;
        fn();
      }, delayMs);
      waits.add(handle);
      return handle;
    },
    clearTimeout(handle) {
      waits.delete(handle);
      base.clearTimeout(handle);
    },
  };
  const begin = (): (() => void) => {
    running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      running--;
    };
  };
  return {
    clock,
    begin,
    track(work) {
      const end = begin();
      return work.finally(end);
    },
    busy: () => running > waits.size,
    woke() {
      const w = wake;
      wake = false;
      return w;
    },
  };
}
