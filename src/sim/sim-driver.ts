/**
 * The simulator's time. The model and services schedule on a manual clock; the driver moves it:
 * at `speed` times real time (1 = real time), as fast as possible (`'max'`, in steps that let
 * sockets breathe between them), or not at all when the caller supplies its own manual clock.
 */
import { performance } from 'node:perf_hooks';
import { manualClock, type ManualClock, type UnixMs } from '../core/index.js';

export interface SimDriver {
  readonly clock: ManualClock;
  start(): void;
  stop(): void;
}

export interface SimDriverOptions {
  readonly speed: number | 'max';
  readonly startAt: UnixMs;
  /** A caller-driven clock: the driver never moves it. */
  readonly clock?: ManualClock;
  /** Simulated milliseconds per step at `'max'` speed. */
  readonly maxStepMs?: number;
  /** Real milliseconds between advances at a numeric speed. */
  readonly tickMs?: number;
}

export function createSimDriver(o: SimDriverOptions): SimDriver {
  if (o.clock) return { clock: o.clock, start: () => undefined, stop: () => undefined };
  const clock = manualClock(o.startAt);
  let interval: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  let running = false;
  return {
    clock,
    start() {
      if (running) return;
      running = true;
      if (o.speed === 'max') {
        const step = o.maxStepMs ?? 1000;
        const loop = (): void => {
          if (!running) return;
          clock.advance(step);
          immediate = setImmediate(loop);
        };
        immediate = setImmediate(loop);
        return;
      }
      const speed = o.speed;
      const t0 = performance.now();
      const base = clock.now();
      interval = setInterval(() => clock.advanceTo((base + Math.floor((performance.now() - t0) * speed)) as UnixMs), o.tickMs ?? 20);
    },
    stop() {
      running = false;
      if (interval) clearInterval(interval);
      if (immediate) clearImmediate(immediate);
      interval = undefined;
      immediate = undefined;
    },
  };
}
