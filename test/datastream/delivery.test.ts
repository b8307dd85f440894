import { describe, expect, it } from 'vitest';
import { createSubscriber, type DeliveryHooks } from '../../src/client/datastream/delivery/subscriber.js';

function hooks(): DeliveryHooks & { errors: unknown[]; overflows: number[]; dropped: number; coalesced: number } {
  const h = {
    errors: [] as unknown[],
    overflows: [] as number[],
    dropped: 0,
    coalesced: 0,
    onHandlerError: (_room: string, e: unknown) => void h.errors.push(e),
    onOverflow: (_room: string, n: number) => void h.overflows.push(n),
    countDropped: (_room: string, n: number) => void (h.dropped += n),
    countCoalesced: (_room: string, n: number) => void (h.coalesced += n),
  };
  return h;
}

/** A handler that stays busy until `release()`. */
function slowHandler(): { seen: number[]; handler: (m: number) => Promise<void>; release: () => void } {
  const seen: number[] = [];
  let resolvers: (() => void)[] = [];
  return {
    seen,
    handler: (m) => {
      seen.push(m);
      return new Promise<void>((r) => resolvers.push(r));
    },
    release: () => {
      const rs = resolvers;
      resolvers = [];
      for (const r of rs) r();
    },
  };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('per-subscription delivery', () => {
  it('calls a synchronous handler inline, in order', () => {
    const seen: number[] = [];
    const sub = createSubscriber<number>(1, 'r', (m) => void seen.push(m), { coalesce: false, maxQueue: 2, overflow: 'drop-oldest' }, hooks());
    for (let i = 0; i < 10; i++) sub.push(i);
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sub.queued).toBe(0);
  });

  it('under drop-newest keeps the messages already queued and counts the newer ones it drops', async () => {
    const h = hooks();
    const slow = slowHandler();
    const sub = createSubscriber<number>(1, 'r', slow.handler, { coalesce: false, maxQueue: 3, overflow: 'drop-newest' }, h);
    for (let i = 0; i < 10; i++) sub.push(i);
    expect(sub.queued).toBe(3);
    for (let i = 0; i < 5; i++) {
      slow.release();
      await tick();
    }
    expect(slow.seen).toEqual([0, 1, 2, 3]);
    expect(h.dropped).toBe(6);
    expect(h.overflows).toEqual([1]);
  });

  it('reports a new overflow episode only after the queue drained empty', async () => {
    const h = hooks();
    const slow = slowHandler();
    const sub = createSubscriber<number>(1, 'r', slow.handler, { coalesce: false, maxQueue: 1, overflow: 'drop-oldest' }, h);
    sub.push(0);
    sub.push(1);
    sub.push(2); // overflow 1
    sub.push(3);
    for (let i = 0; i < 3; i++) {
      slow.release();
      await tick();
    }
    sub.push(4);
    sub.push(5);
    sub.push(6); // overflow 2
    expect(h.overflows).toEqual([1, 3]);
    expect(h.dropped).toBe(3);
  });

  it('coalesces to the latest value while busy, and keeps going after a rejected promise', async () => {
    const h = hooks();
    const seen: number[] = [];
    let fail = true;
    let release!: () => void;
    const sub = createSubscriber<number>(
      1,
      'price',
      (m) => {
        seen.push(m);
        if (fail) {
          fail = false;
          return new Promise<void>((_r, reject) => (release = () => reject(new Error('boom'))));
        }
        return undefined;
      },
      { coalesce: true, maxQueue: 1, overflow: 'drop-oldest' },
      h,
    );
    for (let i = 0; i < 50; i++) sub.push(i);
    expect(sub.queued).toBe(1);
    release();
    await tick();
    expect(seen).toEqual([0, 49]);
    expect(h.coalesced).toBe(48);
    expect(h.errors).toHaveLength(1);
  });

  it('delivers nothing more after the subscription is deactivated', async () => {
    const slow = slowHandler();
    const sub = createSubscriber<number>(1, 'r', slow.handler, { coalesce: false, maxQueue: 10, overflow: 'drop-oldest' }, hooks());
    sub.push(1);
    sub.push(2);
    sub.active = false;
    sub.push(3);
    slow.release();
    await tick();
    expect(slow.seen).toEqual([1]);
  });
});
