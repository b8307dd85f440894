/**
 * The daemon's queue of paper book writes (sliced-turns.ts): tasks run in the order they were
 * queued, as many per turn as fit in the slice and at least one, and a task that throws leaves the
 * rest queued for the next turns; with a delay, a task runs no earlier than the delay after it was
 * queued, so what a book queues meanwhile is written with it.
 */
import { expect, it } from 'vitest';
import { createSlicedTurns } from '../../src/runtime/store/sliced-turns.js';

/** A queue on a hand-moved clock whose turns the test runs one at a time. */
function harness(sliceMs: number, delayMs?: number) {
  let t = 0;
  const turns: (() => void)[] = [];
  const waits: number[] = [];
  const q = createSlicedTurns({
    sliceMs,
    ...(delayMs === undefined ? {} : { delayMs }),
    now: () => t,
    schedule: (d, ms) => {
      turns.push(d);
      waits.push(ms);
    },
  });
  const ran: string[] = [];
  /** A task that takes `ms` of the clock. */
  const task = (name: string, ms: number) => () => {
    ran.push(name);
    t += ms;
  };
  const turn = (): void => {
    const next = turns.shift();
    if (!next) throw new Error('no turn scheduled');
    next();
  };
  const at = (ms: number): void => void (t = ms);
  return { q, ran, task, turn, turns, waits, at };
}

it('runs the tasks that fit in a slice per turn, in order, and the rest in the next turns', () => {
  const h = harness(5);
  for (const n of ['a', 'b', 'c', 'd', 'e']) h.q.defer(h.task(n, 2));
  expect(h.turns).toHaveLength(1); // one drain scheduled, however many tasks
  h.turn();
  expect(h.ran).toEqual(['a', 'b', 'c']); // 0, 2, 4 ms into the slice: the third ends it at 6
  expect(h.q.pending()).toBe(2);
  h.turn();
  expect(h.ran).toEqual(['a', 'b', 'c', 'd', 'e']);
  expect(h.q.pending()).toBe(0);
  expect(h.turns).toHaveLength(0); // nothing left: no drain scheduled
});

it('runs at least one task a turn, even one longer than the slice', () => {
  const h = harness(5);
  h.q.defer(h.task('long', 50));
  h.q.defer(h.task('next', 1));
  h.turn();
  expect(h.ran).toEqual(['long']);
  h.turn();
  expect(h.ran).toEqual(['long', 'next']);
});

it('keeps a task queued during a drain behind the ones queued before it', () => {
  const h = harness(5);
  h.q.defer(() => {
    h.ran.push('first');
    h.q.defer(h.task('queued while draining', 0));
  });
  h.q.defer(h.task('second', 0));
  h.turn();
  expect(h.ran).toEqual(['first', 'second', 'queued while draining']);
  expect(h.turns).toHaveLength(0);
});

it('throws a failing task into the loop and drains the rest in the next turns', () => {
  const h = harness(5);
  h.q.defer(h.task('a', 0));
  h.q.defer(() => {
    throw new Error('disk full');
  });
  h.q.defer(h.task('c', 0));
  expect(() => h.turn()).toThrow('disk full');
  expect(h.ran).toEqual(['a']);
  expect(h.q.pending()).toBe(1);
  h.turn();
  expect(h.ran).toEqual(['a', 'c']);
});

it('runs a task the delay after it was queued, with the tasks due by then, and waits for the rest', () => {
  const h = harness(5, 100);
  h.q.defer(h.task('at 0', 0));
  expect(h.waits).toEqual([100]);
  h.at(10);
  h.q.defer(h.task('at 10', 0));
  expect(h.turns).toHaveLength(1); // one drain scheduled for the first
  h.at(100);
  h.turn();
  expect(h.ran).toEqual(['at 0']); // the second is due at 110
  expect(h.waits).toEqual([100, 10]);
  h.at(110);
  h.turn();
  expect(h.ran).toEqual(['at 0', 'at 10']);
  expect(h.turns).toHaveLength(0);
});
