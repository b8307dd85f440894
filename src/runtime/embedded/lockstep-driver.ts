/**
 * Moves the embedded simulator's manual clock for a deployment that trades on it. Unlike the
 * simulator's own driver it waits, between steps, until the deployment has taken in everything the
 * simulator sent (frames on the socket, REST answers in flight): frames are received at a known
 * simulated time, so at `'max'` speed the same seed gives the same decisions, and at high numeric
 * speeds the simulator falls behind wall time instead of flooding a consumer that cannot keep up
 * (which used to starve timers, `--duration` and Ctrl-C).
 *
 * This is the clock's source, not a scheduled duration: it uses `setImmediate` and a short real
 * interval to pace itself, never a long timer.
 */
import { performance } from 'node:perf_hooks';
import type { ManualClock, UnixMs } from '../../core/index.js';

export interface LockstepDriverOptions {
  readonly clock: ManualClock;
  readonly speed: number | 'max';
  /**
   * True when the consumer has taken in everything sent so far. `'later'`: not yet, and what it
   * waits for (an answer of a simulator worker) calls `poke()` when it comes: the driver waits for
   * that instead of looking again every turn (a loop of `setImmediate` kept the event loop spinning
   * while the worker worked), at most {@link LATER_FALLBACK_MS} before it looks anyway.
   */
  readonly idle: () => boolean | 'later';
  /** Simulated milliseconds per step (default 1000 at max speed, 250 otherwise). */
  readonly stepMs?: number;
  /** Real milliseconds to wait for `idle` before stepping anyway (a dead consumer must not freeze the market). */
  readonly idleTimeoutMs?: number;
  /** Called when a step was forced: frames that will never arrive (a dropped socket) are written off. */
  readonly onForced?: () => void;
  /**
   * Real milliseconds of timer callbacks one event-loop turn may run (default: no limit, a step
   * fires all its due timers in one turn). With a limit a step whose timers take longer goes on in
   * the next turns (`ManualClock.advanceToUntil`): the same timers in the same order at the same
   * times, with I/O and other timers served in between. The rest of a step runs without a new idle
   * check (no new frames were asked for). The daemon uses it: its shared clock fires the timers of
   * every deployment on the feed.
   */
  readonly sliceMs?: number;
  /**
   * At a numeric speed, a step waits until at least this many real milliseconds of simulated time
   * are due (never more than `stepMs`). Default: every due time is a step. A caught-up driver would
   * otherwise step every event-loop turn by a few simulated milliseconds; the daemon's simulator is a
   * worker thread, and each step costs both threads a message (at a hundred deployments, hundreds
   * to thousands a second).
   */
  readonly minStepRealMs?: number;
  /**
   * True once after a client's wait on the clock ended (client-work.ts): the step stops at that
   * timer's instant, the driver waits for `idle` again (the client runs at that instant, holding the
   * clock while it works) and then goes on to the same target. With it, a numeric speed steps on a
   * fixed grid of `stepMs` from the start and wall time only paces the steps, so two runs of one
   * seed see the same instants at every speed (the embedded simulator uses it; not with `sliceMs`).
   */
  readonly woke?: () => boolean;
}

/** Real ms the driver waits for a `poke()` after `idle()` said `'later'` before it looks again anyway. */
export const LATER_FALLBACK_MS = 20;

export interface LockstepDriver {
  start(): void;
  stop(): void;
  /** What an `idle()` of `'later'` waited for happened: look again in the next turn. */
  poke(): void;
  /** Steps taken without the consumer idle (idle timeouts). */
  readonly forcedSteps: number;
}

/** Creates a driver; nothing moves until `start()`. */
export function createLockstepDriver(o: LockstepDriverOptions): LockstepDriver {
  const { clock } = o;
  const step = o.stepMs ?? (o.speed === 'max' ? 1_000 : 250);
  const idleTimeoutMs = o.idleTimeoutMs ?? 5_000;
  let running = false;
  let immediate: NodeJS.Immediate | undefined;
  let pacer: NodeJS.Timeout | undefined;
  let waitingSince: number | undefined;
  let forced = 0;
  let t0 = 0;
  let base = 0;
  /** The target of a step whose timers did not all fire in one turn (`sliceMs`). */
  let partial: number | undefined;
  /** `idle()` said `'later'`: the loop waits for `poke()` (or the fallback timer in `pacer`). */
  let later = false;
  /** The target of a step stopped where a client's wait ended (`woke`): the next step goes on to it. */
  let held: number | undefined;

  /** Advances to `target` timer by timer, stopping at the first instant a client's wait ended. */
  const advanceUntilWoke = (target: number, woke: () => boolean): void => {
    for (;;) {
      const at = clock.nextTimerAt();
      if (at === undefined || at > target) {
        clock.advanceTo(target as UnixMs);
        held = undefined;
        return;
      }
      clock.advanceTo(at);
      if (woke()) {
        held = at < target ? target : undefined;
        return;
      }
    }
  };

  /** The next step's target on the grid, or undefined while wall time has not reached it (a pacer is set). */
  const gridTarget = (): number | undefined => {
    const target = held ?? clock.now() + step;
    if (o.speed === 'max') return target;
    const wall = base + (performance.now() - t0) * o.speed;
    if (wall >= target) return target;
    pacer = setTimeout(loop, Math.max(1, Math.ceil((target - wall) / o.speed)));
    return undefined;
  };

  const advance = (target: number): void => {
    if (o.sliceMs === undefined) {
      clock.advanceTo(target as UnixMs);
      return;
    }
    const until = performance.now() + o.sliceMs;
    partial = clock.advanceToUntil(target as UnixMs, () => performance.now() >= until) ? undefined : target;
  };

  const ready = (): boolean | 'later' => {
    const idle = o.idle();
    if (idle === true) {
      waitingSince = undefined;
      return true;
    }
    const now = performance.now();
    waitingSince ??= now;
    if (now - waitingSince < idleTimeoutMs) return idle === 'later' ? 'later' : false;
    forced++;
    waitingSince = undefined;
    o.onForced?.();
    return true;
  };

  const loop = (): void => {
    immediate = undefined;
    pacer = undefined;
    later = false;
    if (!running) return;
    if (partial !== undefined) {
      advance(partial);
      immediate = setImmediate(loop);
      return;
    }
    const woke = o.woke;
    if (woke) {
      const target = gridTarget();
      if (target === undefined) return;
      // Two idle checks a turn apart: the consumer's microtasks settle in between.
      const r = ready();
      if (r === 'later') {
        later = true;
        pacer = setTimeout(loop, LATER_FALLBACK_MS);
        return;
      }
      if (r) advanceUntilWoke(target, woke);
      immediate = setImmediate(loop);
      return;
    }
    let target: number;
    if (o.speed === 'max') target = clock.now() + step;
    else {
      const wall = base + Math.floor((performance.now() - t0) * o.speed);
      if (o.minStepRealMs !== undefined) {
        const short = Math.min(step, o.minStepRealMs * o.speed) - (wall - clock.now());
        if (short > 0) {
          // less than the least step is due: wait until it is
          pacer = setTimeout(loop, Math.max(1, Math.ceil(short / o.speed)));
          return;
        }
      } else if (wall <= clock.now()) {
        // ahead of wall time: wait a little real time, then look again
        pacer = setTimeout(loop, 10);
        return;
      }
      target = Math.min(wall, clock.now() + step);
    }
    // Two idle checks a turn apart: the consumer's microtasks settle in between.
    const r = ready();
    if (r === 'later') {
      later = true;
      pacer = setTimeout(loop, LATER_FALLBACK_MS);
      return;
    }
    if (r) advance(target);
    immediate = setImmediate(loop);
  };

  return {
    start() {
      if (running) return;
      running = true;
      t0 = performance.now();
      base = clock.now();
      immediate = setImmediate(loop);
    },
    poke() {
      if (!running || !later) return;
      later = false;
      if (pacer) clearTimeout(pacer);
      pacer = undefined;
      immediate = setImmediate(loop);
    },
    stop() {
      running = false;
      partial = undefined;
      later = false;
      held = undefined;
      if (immediate) clearImmediate(immediate);
      if (pacer) clearTimeout(pacer);
      immediate = undefined;
      pacer = undefined;
    },
    get forcedSteps() {
      return forced;
    },
  };
}
