import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/clock.js';
import { seededRandom } from '../../src/core/random.js';
import { newId } from '../../src/core/ids.js';
import { unixMs } from '../../src/core/units.js';

describe('manualClock', () => {
  it('fires due timers in time order, then by creation order, and moves now to each timer', () => {
    const clock = manualClock(1_000);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push(`b@${clock.now()}`), 20);
    clock.setTimeout(() => fired.push(`a@${clock.now()}`), 10);
    clock.setTimeout(() => fired.push(`c@${clock.now()}`), 20);
    const cancelled = clock.setTimeout(() => fired.push('never'), 5);
    clock.clearTimeout(cancelled);
    clock.advance(15);
    expect(fired).toEqual(['a@1010']);
    clock.advance(100);
    expect(fired).toEqual(['a@1010', 'b@1020', 'c@1020']);
    expect(clock.now()).toBe(1_115);
  });

  it('fires timers scheduled by timers within the same advance', () => {
    const clock = manualClock(0);
    const fired: number[] = [];
    clock.setTimeout(() => {
      fired.push(clock.now());
      clock.setTimeout(() => fired.push(clock.now()), 5);
    }, 5);
    clock.advance(10);
    expect(fired).toEqual([5, 10]);
  });
});

describe('seededRandom', () => {
  it('gives the same sequence for the same seed and a different one for another seed', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const sa = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(sa);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(sa);
  });

  it('keeps int within bounds and bigintBelow under its bound', () => {
    const r = seededRandom('bounds');
    for (let i = 0; i < 1000; i++) {
      const v = r.int(-3, 3);
      expect(v).toBeGreaterThanOrEqual(-3);
      expect(v).toBeLessThanOrEqual(3);
      expect(r.bigintBelow(1_000_000_000_007n)).toBeLessThan(1_000_000_000_007n);
    }
  });

  it('makes time-sortable deterministic ids', () => {
    const id1 = newId(unixMs(1_000), seededRandom(1), 'int_');
    const id2 = newId(unixMs(2_000), seededRandom(1), 'int_');
    expect(id1).toMatch(/^int_[0-9A-Z]{26}$/);
    expect(id1 < id2).toBe(true);
    expect(newId(unixMs(1_000), seededRandom(1), 'int_')).toBe(id1);
  });
});
