import { describe, expect, it } from 'vitest';
import { manualClock } from '../../src/core/index.js';
import { trackedClock } from '../../src/runtime/live-clock.js';

describe('the live run clock', () => {
  it('fires timers as its base clock does until cancelAll, which cancels pending ones and ignores later ones', () => {
    const base = manualClock(1_000);
    const clock = trackedClock(base);
    const fired: string[] = [];
    clock.setTimeout(() => fired.push('a'), 10);
    const b = clock.setTimeout(() => fired.push('b'), 20);
    clock.setTimeout(() => fired.push('c'), 30);
    clock.clearTimeout(b);
    base.advance(15);
    expect(fired).toEqual(['a']);
    expect(clock.now()).toBe(1_015);
    clock.cancelAll();
    clock.setTimeout(() => fired.push('late'), 1);
    base.advance(100);
    expect(fired).toEqual(['a']);
  });
});
