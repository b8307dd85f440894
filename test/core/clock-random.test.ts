import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
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

  it('advanceToUntil fires in slices the timers advanceTo fires at once, in the same order and at the same times', () => {
    const setUp = (clock: ReturnType<typeof manualClock>, fired: string[]): void => {
      for (const [label, delay] of [
        ['a', 10],
        ['b', 10],
        ['c', 30],
        ['d', 10],
        ['late', 200],
      ] as const) {
        clock.setTimeout(() => {
          fired.push(`${label}@${clock.now()}`);
          if (label === 'a') clock.setTimeout(() => fired.push(`a2@${clock.now()}`), 0); // due now: same step
        }, delay);
      }
    };
    const whole = manualClock(0);
    const once: string[] = [];
    setUp(whole, once);
    whole.advanceTo(unixMs(100));

    const sliced = manualClock(0);
    const inSlices: string[] = [];
    setUp(sliced, inSlices);
    const stops: number[] = [];
    // stop after every timer: each call fires exactly one and leaves the time at it
    while (!sliced.advanceToUntil(unixMs(100), () => true)) stops.push(sliced.now());
    expect(inSlices).toEqual(once);
    expect(once).toEqual(['a@10', 'b@10', 'd@10', 'a2@10', 'c@30']);
    expect(stops).toEqual([10, 10, 10, 10]); // the last timer due (c) needs no further call
    expect(sliced.now()).toBe(100);
    expect(sliced.pending()).toBe(1); // 'late' waits for its time
    expect(sliced.advanceToUntil(unixMs(50), () => true)).toBe(true); // going back is a no-op, as advanceTo
    expect(sliced.now()).toBe(100);
  });

  it('fires exactly what a list sorted by (time, order set) fires, through any mix of set, clear and advance', () => {
    // the model: every live timer in a plain list, the earliest found by a full scan
    type Op = { kind: 'set'; delay: number } | { kind: 'clear'; pick: number } | { kind: 'advance'; ms: number } | { kind: 'nested'; delay: number };
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), delay: fc.integer({ min: 0, max: 50 }) }),
      fc.record({ kind: fc.constant('nested' as const), delay: fc.integer({ min: 0, max: 20 }) }),
      fc.record({ kind: fc.constant('clear' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 40 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops: Op[]) => {
        const clock = manualClock(0);
        const fired: string[] = [];
        const model: { id: number; at: number; label: string; nested: number | undefined }[] = [];
        const modelFired: string[] = [];
        let modelNow = 0;
        let modelNext = 0;
        const handles: { id: number }[] = [];
        const modelIds: number[] = [];
        for (const o of ops) {
          if (o.kind === 'set' || o.kind === 'nested') {
            const label = `t${handles.length}`;
            const childDelay = o.kind === 'nested' ? o.delay : undefined;
            handles.push(
              clock.setTimeout(() => {
                fired.push(`${label}@${clock.now()}`);
                if (childDelay !== undefined) clock.setTimeout(() => fired.push(`${label}.child@${clock.now()}`), childDelay);
              }, o.delay),
            );
            modelIds.push(modelNext);
            model.push({ id: modelNext++, at: modelNow + o.delay, label, nested: childDelay });
          } else if (o.kind === 'clear' && handles.length > 0) {
            const i = o.pick % handles.length;
            clock.clearTimeout(handles[i]!);
            const j = model.findIndex((t) => t.id === modelIds[i]);
            if (j >= 0) model.splice(j, 1);
          } else if (o.kind === 'advance') {
            clock.advance(o.ms);
            const to = modelNow + o.ms;
            for (;;) {
              let best = -1;
              for (let k = 0; k < model.length; k++)
                if (best < 0 || model[k]!.at < model[best]!.at || (model[k]!.at === model[best]!.at && model[k]!.id < model[best]!.id)) best = k;
              if (best < 0 || model[best]!.at > to) break;
              const t = model.splice(best, 1)[0]!;
              modelNow = t.at;
              modelFired.push(`${t.label}@${t.at}`);
              if (t.nested !== undefined) model.push({ id: modelNext++, at: t.at + t.nested, label: `${t.label}.child`, nested: undefined });
            }
            modelNow = to;
          }
          if (clock.now() !== modelNow || clock.pending() !== model.length) return false;
          const nextAt = model.reduce<number | undefined>((m, t) => (m === undefined || t.at < m ? t.at : m), undefined);
          if (clock.nextTimerAt() !== nextAt) return false;
        }
        expect(fired).toEqual(modelFired);
        return true;
      }),
      { numRuns: 300 },
    );
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
