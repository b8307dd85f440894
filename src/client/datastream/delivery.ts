/**
 * Per-subscription delivery with backpressure. A handler that returns nothing (or throws) is
 * called inline; a handler that returns a promise marks its subscription busy, and messages that
 * arrive meanwhile wait in a bounded queue: price-like rooms keep only the latest message
 * (coalesced, counted); event rooms keep up to `maxQueue` messages and apply the overflow policy
 * (counted and reported). A slow consumer therefore never grows memory without bound.
 */

/** What to drop when an event queue is full. */
export type OverflowPolicy = 'drop-oldest' | 'drop-newest';

export type Handler<M> = (msg: M) => void | Promise<void>;

export interface DeliveryHooks {
  onHandlerError(room: string, error: unknown): void;
  /** Called once per overflow episode (queue full until it drains empty again). */
  onOverflow(room: string, droppedTotal: number): void;
  countDropped(room: string, n: number): void;
  countCoalesced(room: string, n: number): void;
}

export interface Subscriber<M> {
  readonly id: number;
  readonly room: string;
  readonly handler: Handler<M>;
  active: boolean;
  /** Queue an arriving message or call the handler now. */
  push(msg: M): void;
  /** Messages waiting (0 or 1 for coalesced rooms). */
  readonly queued: number;
}

export interface SubscriberOptions {
  readonly coalesce: boolean;
  readonly maxQueue: number;
  readonly overflow: OverflowPolicy;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';
}

export function createSubscriber<M>(id: number, room: string, handler: Handler<M>, opts: SubscriberOptions, hooks: DeliveryHooks): Subscriber<M> {
  let busy = false;
  let latest: M | undefined;
  let hasLatest = false;
  let q: M[] = [];
  let head = 0;
  let overflowing = false;
  let dropped = 0;

  const size = (): number => (opts.coalesce ? (hasLatest ? 1 : 0) : q.length - head);

  const take = (): M => {
    if (opts.coalesce) {
      const m = latest as M;
      latest = undefined;
      hasLatest = false;
      return m;
    }
    const m = q[head] as M;
    q[head++] = undefined as M;
    if (head > 1024 && head * 2 > q.length) {
      q = q.slice(head);
      head = 0;
    }
    return m;
  };

  const drain = (): void => {
    busy = false;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- invoke() sets busy
    while (!busy && sub.active && size() > 0) invoke(take());
    if (size() === 0) overflowing = false;
  };

  const invoke = (msg: M): void => {
    let r: unknown;
    try {
      r = handler(msg);
    } catch (e) {
      hooks.onHandlerError(room, e);
      return;
    }
    if (isThenable(r)) {
      busy = true;
      r.then(drain, (e: unknown) => {
        hooks.onHandlerError(room, e);
        drain();
      });
    }
  };

  const enqueue = (msg: M): void => {
    if (opts.coalesce) {
      if (hasLatest) hooks.countCoalesced(room, 1);
      latest = msg;
      hasLatest = true;
      return;
    }
    if (q.length - head >= opts.maxQueue) {
      dropped++;
      hooks.countDropped(room, 1);
      if (!overflowing) {
        overflowing = true;
        hooks.onOverflow(room, dropped);
      }
      if (opts.overflow === 'drop-newest') return;
      take();
    }
    q.push(msg);
  };

  const sub: Subscriber<M> = {
    id,
    room,
    handler,
    active: true,
    push(msg) {
      if (!sub.active) return;
      if (busy) enqueue(msg);
      else invoke(msg);
    },
    get queued() {
      return size();
    },
  };
  return sub;
}
