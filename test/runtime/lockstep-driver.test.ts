/**
 * The lockstep driver's slices (`sliceMs`, used by the daemon's shared simulator): a step whose due
 * timers take longer than a slice goes on in later event-loop turns, with the same timers firing in
 * the same order at the same times, other work served in between, and no new idle check until the
 * step is done. Real manual clock, real event loop.
 */
import { describe, expect, it } from 'vitest';
import { clockSleep, manualClock, type UnixMs } from '../../src/core/index.js';
import { createClientWork } from '../../src/runtime/embedded/client-work.js';
import { createLockstepDriver, LATER_FALLBACK_MS } from '../../src/runtime/embedded/lockstep-driver.js';

/** Runs the driver at max speed over two steps (1 s each) and reports what fired, and when. */
async function twoSteps(sliceMs: number | undefined) {
  const clock = manualClock(0 as UnixMs);
  const fired: string[] = [];
  let idleCalls = 0;
  let idleCallsInFirstStep = -1;
  // a macrotask set by the first timer: with slices it runs before the step's last timer fires
  let servedBetween = false;
  for (const [label, at] of [
    ['a', 100],
    ['b', 100],
    ['c', 600],
    ['d', 1_500],
  ] as const) {
    clock.setTimeout(() => {
      fired.push(`${label}@${clock.now()}${servedBetween ? ' after-io' : ''}`);
      if (label === 'a') setImmediate(() => (servedBetween = true));
      if (label === 'c') idleCallsInFirstStep = idleCalls;
    }, at);
  }
  const driver = createLockstepDriver({
    clock,
    speed: 'max',
    idle: () => {
      idleCalls++;
      return true;
    },
    ...(sliceMs === undefined ? {} : { sliceMs }),
  });
  driver.start();
  while (clock.now() < 2_000) await new Promise((r) => setImmediate(r));
  driver.stop();
  return { fired, idleCallsInFirstStep, forced: driver.forcedSteps };
}

describe('lockstep driver slices', () => {
  it('fires one step in one turn without a slice', async () => {
    const r = await twoSteps(undefined);
    expect(r.fired).toEqual(['a@100', 'b@100', 'c@600', 'd@1500 after-io']);
    expect(r.idleCallsInFirstStep).toBe(1);
  });

  it('spreads a step over turns with a slice: the same timers at the same times, I/O served between, one idle check', async () => {
    const r = await twoSteps(0); // a 0 ms slice: one timer per turn
    expect(r.fired).toEqual(['a@100', 'b@100 after-io', 'c@600 after-io', 'd@1500 after-io']);
    expect(r.idleCallsInFirstStep).toBe(1); // the rest of the first step asked nothing
    expect(r.forced).toBe(0);
  });
});

describe('lockstep driver least step', () => {
  it('steps by at least minStepRealMs of simulated time at a numeric speed, and keeps up with the wall', async () => {
    const clock = manualClock(0 as UnixMs);
    const steps: number[] = [];
    const recording = {
      ...clock,
      advanceTo(to: UnixMs) {
        steps.push(to - clock.now());
        clock.advanceTo(to);
      },
    };
    const driver = createLockstepDriver({ clock: recording, speed: 60, idle: () => true, minStepRealMs: 4 });
    const t0 = performance.now();
    driver.start();
    // 6 simulated seconds: 100 ms of wall time at speed 60 (bounded: the test fails rather than hangs)
    while (clock.now() < 6_000 && performance.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 5));
    driver.stop();
    expect(clock.now()).toBeGreaterThanOrEqual(6_000);
    expect(steps.length).toBeGreaterThan(0);
    // 4 real ms at speed 60 is 240 simulated ms, under the 250 ms step
    for (const s of steps) expect(s).toBeGreaterThanOrEqual(240);
  });
});

describe('lockstep driver waiting for an answer', () => {
  it("does not look again every turn while idle() says 'later', and steps in the turn after poke()", async () => {
    const clock = manualClock(0 as UnixMs);
    let idleCalls = 0;
    let answer: boolean | 'later' = 'later';
    const driver = createLockstepDriver({
      clock,
      speed: 'max',
      idle: () => {
        idleCalls++;
        return answer;
      },
    });
    const t0 = performance.now();
    driver.start();
    // 200 event-loop turns: a driver that looked every turn would ask 200 times
    for (let i = 0; i < 200; i++) await new Promise((r) => setImmediate(r));
    const waitedMs = performance.now() - t0;
    // one look, then one more per fallback period at most (LATER_FALLBACK_MS: 20 ms)
    expect(idleCalls).toBeGreaterThanOrEqual(1);
    expect(idleCalls).toBeLessThanOrEqual(2 + Math.floor(waitedMs / LATER_FALLBACK_MS));
    expect(clock.now()).toBe(0);
    answer = true;
    const before = idleCalls;
    driver.poke();
    await new Promise((r) => setImmediate(r));
    expect(idleCalls).toBe(before + 1);
    expect(clock.now()).toBe(1_000);
    driver.stop();
  });

  it('looks again after LATER_FALLBACK_MS when no poke comes (a lost answer never freezes the market)', async () => {
    const clock = manualClock(0 as UnixMs);
    const looks: number[] = [];
    const driver = createLockstepDriver({
      clock,
      speed: 'max',
      idle: () => {
        looks.push(performance.now());
        return looks.length > 1 || 'later';
      },
    });
    driver.start();
    const t0 = performance.now();
    while (clock.now() === 0 && performance.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 5));
    driver.stop();
    expect(clock.now()).toBeGreaterThanOrEqual(1_000);
    // the second look came from the fallback timer, not the next turn
    expect(looks[1]! - looks[0]!).toBeGreaterThanOrEqual(LATER_FALLBACK_MS - 1);
  });
});

describe('lockstep driver with client waits (woke)', () => {
  it("stops a step where a client's wait on the run clock ends, holds while the client works, then goes on to the same target", async () => {
    const clock = manualClock(0 as UnixMs);
    const work = createClientWork(clock);
    const seen: number[] = [];
    // the client: works (holding the clock) for a few turns, then waits 300 ms on the run clock, twice
    const client = async (): Promise<void> => {
      for (let i = 0; i < 2; i++) {
        const end = work.begin();
        for (let t = 0; t < 3; t++) await new Promise((r) => setImmediate(r));
        seen.push(clock.now());
        const wait = clockSleep(work.clock, 300);
        end();
        await wait;
      }
      seen.push(clock.now());
    };
    const market: number[] = [];
    for (const at of [100, 500, 900]) clock.setTimeout(() => market.push(clock.now()), at);
    const driver = createLockstepDriver({ clock, speed: 'max', idle: () => !work.busy(), woke: () => work.woke() });
    const done = client();
    driver.start();
    await done;
    while (clock.now() < 1_000) await new Promise((r) => setImmediate(r));
    driver.stop();
    // the client's CPU time cost no simulated time; each wait cost exactly 300 ms
    expect(seen).toEqual([0, 300, 600]);
    expect(market).toEqual([100, 500, 900]);
    expect(driver.forcedSteps).toBe(0);
  });

  it('steps on a fixed grid from the start at a numeric speed: wall time only paces', async () => {
    const clock = manualClock(1_000 as UnixMs);
    const targets: number[] = [];
    const recording = {
      ...clock,
      advanceTo(to: UnixMs) {
        targets.push(to);
        clock.advanceTo(to);
      },
    };
    const driver = createLockstepDriver({ clock: recording, speed: 37, idle: () => true, woke: () => false });
    const t0 = performance.now();
    driver.start();
    while (clock.now() < 3_000 && performance.now() - t0 < 10_000) await new Promise((r) => setTimeout(r, 3));
    driver.stop();
    expect(targets.length).toBeGreaterThan(4);
    for (const to of targets) expect((to - 1_000) % 250).toBe(0);
  });
});
