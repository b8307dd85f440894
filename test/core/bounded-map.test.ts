/** core/bounded-map.ts: the project's one bounded memo map. */
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/core/index.js';

describe('BoundedMap', () => {
  it('holds at most max entries, drops the oldest added first, counts what it dropped, and keeps an updated key in place', () => {
    const m = new BoundedMap<string, number>(3);
    m.set('a', 1).set('b', 2).set('c', 3);
    m.set('a', 10);
    m.set('d', 4);
    expect([...m.entries()]).toEqual([
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ]);
    expect(m.evicted).toBe(1);
    for (let i = 0; i < 1_000; i++) m.set(`k${i}`, i);
    expect(m.size).toBe(3);
    expect(m.evicted).toBe(1_001);
  });

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new BoundedMap(0)).toThrow(expect.objectContaining({ code: 'CORE_INVALID_ARGUMENT' }) as Error);
  });
});
