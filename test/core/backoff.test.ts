/** The one backoff formula (core/abort.ts): doubling from the base, capped, and the jittered form below it. */
import { describe, expect, it } from 'vitest';
import { backoffWithJitter, cappedBackoff, seededRandom } from '../../src/core/index.js';

describe('cappedBackoff', () => {
  it('waits the base first, doubles each attempt, and never passes the cap, even for huge or negative attempts', () => {
    expect([0, 1, 2, 3, 4].map((a) => cappedBackoff(a, 100, 1_000))).toEqual([100, 200, 400, 800, 1_000]);
    expect(cappedBackoff(1_000_000, 250, 2_000)).toBe(2_000);
    expect(cappedBackoff(-3, 250, 2_000)).toBe(250);
  });

  it('bounds the jittered form by the capped one for every attempt', () => {
    const r = seededRandom(9);
    for (let a = 0; a < 40; a++) {
      const d = backoffWithJitter(a, 50, 3_000, () => r.next());
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(cappedBackoff(a, 50, 3_000));
    }
  });
});
