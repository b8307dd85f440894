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

/**
 * One subscription's delivery state. A class, so a subscription is one object with its methods on
 * the prototype: a strategy that joins thousands of rooms (a backtest's recorded rooms, say) does
 * not build a set of closures per room.
 */
class QueueingSubscriber<M> implements Subscriber<M> {
  active = true;
  private busy = false;
  private latest: M | undefined = undefined;
  private hasLatest = false;
  private q: M[] = [];
  private head = 0;
  private overflowing = false;
  private dropped = 0;
  /** Continuations of an asynchronous handler, made on the first one (most handlers are synchronous). */
  private drainNext: (() => void) | undefined;
  private failed: ((e: unknown) => void) | undefined;

  constructor(
    readonly id: number,
    readonly room: string,
    readonly handler: Handler<M>,
    private readonly opts: SubscriberOptions,
    private readonly hooks: DeliveryHooks,
  ) {}

  get queued(): number {
    return this.size();
  }

  push(msg: M): void {
    if (!this.active) return;
    if (this.busy) this.enqueue(msg);
    else this.invoke(msg);
  }

  private size(): number {
    return this.opts.coalesce ? (this.hasLatest ? 1 : 0) : this.q.length - this.head;
  }

  private take(): M {
    if (this.opts.coalesce) {
      const m = this.latest as M;
      this.latest = undefined;
      this.hasLatest = false;
      return m;
    }
    const m = this.q[this.head] as M;
    this.q[this.head++] = undefined as M;
    if (this.head > 1024 && this.head * 2 > this.q.length) {
      this.q = this.q.slice(this.head);
      this.head = 0;
    }
    return m;
  }

  private drain(): void {
    this.busy = false;
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- invoke() sets busy
    while (!this.busy && this.active && this.size() > 0) this.invoke(this.take());
    if (this.size() === 0) this.overflowing = false;
  }

  private invoke(msg: M): void {
    let r: unknown;
    try {
      r = this.handler(msg);
    } catch (e) {
      this.hooks.onHandlerError(this.room, e);
      return;
    }
    if (isThenable(r)) {
      this.busy = true;
      r.then(
        (this.drainNext ??= () => this.drain()),
        (this.failed ??= (e: unknown) => {
          this.hooks.onHandlerError(this.room, e);
          this.drain();
        }),
      );
    }
  }

  private enqueue(msg: M): void {
    if (this.opts.coalesce) {
      if (this.hasLatest) this.hooks.countCoalesced(this.room, 1);
      this.latest = msg;
      this.hasLatest = true;
      return;
    }
    if (this.q.length - this.head >= this.opts.maxQueue) {
      this.dropped++;
      this.hooks.countDropped(this.room, 1);
      if (!this.overflowing) {
        this.overflowing = true;
        this.hooks.onOverflow(this.room, this.dropped);
      }
      if (this.opts.overflow === 'drop-newest') return;
      this.take();
    }
    this.q.push(msg);
  }
}

export function createSubscriber<M>(id: number, room: string, handler: Handler<M>, opts: SubscriberOptions, hooks: DeliveryHooks): Subscriber<M> {
  return new QueueingSubscriber(id, room, handler, opts, hooks);
}
