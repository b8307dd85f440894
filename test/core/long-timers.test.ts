/**
 * Node fires any timer longer than 2^31-1 ms (about 24.8 days) after 1 ms. The wall clock and the
 * sleep helper chain timers instead, so a 30-day time stop fires after 30 days. Vitest's fake
 * timers reproduce Node's overflow, so these tests fail on a plain setTimeout.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { longTimeout, MAX_TIMER_MS, systemClock } from '../../src/core/clock.js';
import { sleep } from '../../src/core/abort.js';
import { lamports, rawAmount } from '../../src/core/units.js';
import { createExitManager } from '../../src/engine/exits/exit-manager.js';
import { waitForStop } from '../../src/runtime/compose/run-common.js';

const DAY_MS = 86_400_000;

describe('wall-clock timers longer than 2^31-1 ms', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_700_000_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fire a 30-day systemClock timer after exactly 30 days, not after 1 ms', () => {
    const clock = systemClock();
    const start = clock.now();
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.now() - start), 30 * DAY_MS);
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(30 * DAY_MS - 1_001);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual([30 * DAY_MS]);
  });

  it('cancel a chained timer between its links', () => {
    const clock = systemClock();
    let fired = false;
    const h = clock.setTimeout(() => (fired = true), 3 * MAX_TIMER_MS);
    vi.advanceTimersByTime(MAX_TIMER_MS + 5);
    clock.clearTimeout(h);
    vi.advanceTimersByTime(3 * MAX_TIMER_MS);
    expect(fired).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keep the boundary delay on one plain timer and never fire Infinity', () => {
    const fired: string[] = [];
    longTimeout(() => fired.push('max'), MAX_TIMER_MS);
    longTimeout(() => fired.push('never'), Infinity);
    longTimeout(() => fired.push('nan'), Number.NaN);
    vi.advanceTimersByTime(0);
    expect(fired).toEqual(['nan']);
    vi.advanceTimersByTime(MAX_TIMER_MS);
    expect(fired).toEqual(['nan', 'max']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('make sleep() of 40 days wait 40 days', async () => {
    let done = false;
    const p = sleep(40 * DAY_MS).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(39 * DAY_MS);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(DAY_MS);
    await p;
    expect(done).toBe(true);
  });
});

describe('the cases of issue 11 on the wall clock', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_700_000_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sells a position with a 30-day time stop after 30 days, not milliseconds after the buy', () => {
    const clock = systemClock();
    const fired: number[] = [];
    const exits = createExitManager(
      clock,
      () => ({ timeStopMs: 30 * DAY_MS }),
      () => fired.push(clock.now()),
    );
    const openedAt = clock.now();
    exits.positionChanged({
      key: 's1:mintA',
      strategyId: 's1',
      mint: 'mintA',
      decimals: 6,
      tokenRaw: rawAmount(1_000_000n),
      costLamports: lamports(100_000_000n),
      boughtLamports: lamports(100_000_000n),
      boughtRaw: rawAmount(1_000_000n),
      realisedLamports: 0n,
      feesLamports: lamports(5_000n),
      openedAt,
      updatedAt: openedAt,
      market: 'venue_a',
      pool: 'poolA',
    });
    vi.advanceTimersByTime(184);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(30 * DAY_MS);
    expect(fired).toEqual([openedAt + 30 * DAY_MS]);
  });

  it('keeps a run with --duration 30d going past its first 2 seconds (waitForStop)', async () => {
    let stopped = false;
    const ac = new AbortController();
    const done = waitForStop({ durationMs: 30 * DAY_MS, signal: ac.signal, tickMs: 3_600_000, tick: () => undefined }).then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(stopped).toBe(false);
    await vi.advanceTimersByTimeAsync(30 * DAY_MS);
    await done;
    expect(stopped).toBe(true);
  });
});

describe('wall-clock timers never fire early by the wall clock', () => {
  // Node's setTimeout counts on libuv's monotonic clock and fires up to 1 ms early by Date.now() in
  // a few percent of timers (a time stop of 3000 ms was placed 2999 ms after its fill). Two thousand
  // timers make a plain setTimeout fail this with near certainty.
  it('calls every timer when now() has moved at least its delay past the call', async () => {
    const clock = systemClock();
    const early: string[] = [];
    await Promise.all(
      Array.from({ length: 2_000 }, (_, i) => {
        const delay = 1 + (i % 40);
        const armedAt = clock.now();
        return new Promise<void>((resolve) =>
          clock.setTimeout(() => {
            const waited = clock.now() - armedAt;
            if (waited < delay) early.push(`${delay} ms timer fired after ${waited} ms`);
            resolve();
          }, delay),
        );
      }),
    );
    expect(early).toEqual([]);
  });
});
