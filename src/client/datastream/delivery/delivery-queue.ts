/**
 * A frame's deliveries in bounded slices. On a connection shared by a hundred consumers (the
 * daemon's shared feeds) one frame costs one handler call per consumer: tens of milliseconds in one
 * turn. With a slice under way (`until`, set by the frame intake for the turn), a delivery that
 * finds the slice spent waits here instead, and so does every delivery after it, in order; the
 * intake hands no further frame over until the queue is empty (`drain` in the next turns). So
 * every subscriber still gets every message once, in the order it would have got them in one turn,
 * and sockets, timers and the control plane are served in between.
 *
 * `mayPause` says whether a pause is allowed right now: a raw-frame tap that records each holder's
 * frames when they are read (the daemon's `record:`) needs every holder's delivery in the frame's
 * turn, or a control mark or data answer taken between two turns would be recorded after a frame
 * its deployment had not received yet.
 *
 * State: the waiting deliveries (parallel arrays from `head` to `size`) and the slice's deadline.
 */
import { performance } from 'node:perf_hooks';
import type { Subscriber } from './subscriber.js';

export interface DeliveryQueue<M> {
  /** Hands `msg` to `sub` now, or queues it behind the deliveries that wait (or when the slice is spent and a pause is allowed). */
  readonly deliver: (sub: Subscriber<M>, msg: M) => void;
  /** Deliveries waiting for a later turn. */
  waiting(): number;
  /** Delivers waiting ones in order until the slice's deadline (at least one); true when none wait. */
  drain(): boolean;
  /** The current slice's deadline on `performance.now()`; `Infinity` outside a slice (every delivery at once). */
  until: number;
}

/** Creates an empty queue; `mayPause` is asked before a delivery is put off (see the module comment). */
export function createDeliveryQueue<M>(mayPause: () => boolean): DeliveryQueue<M> {
  let subs: (Subscriber<M> | undefined)[] = [];
  let msgs: (M | undefined)[] = [];
  let head = 0;
  let size = 0;
  const q: DeliveryQueue<M> = {
    until: Infinity,
    deliver(sub, msg) {
      if (size === head && (q.until === Infinity || performance.now() < q.until || !mayPause())) {
        sub.push(msg);
        return;
      }
      subs[size] = sub;
      msgs[size] = msg;
      size++;
    },
    waiting: () => size - head,
    drain() {
      while (head < size) {
        const sub = subs[head]!;
        const msg = msgs[head] as M;
        subs[head] = undefined;
        msgs[head] = undefined;
        head++;
        // a handler that delivers (a nested route) queues behind the ones still waiting
        sub.push(msg);
        if (head < size && q.until !== Infinity && performance.now() >= q.until) return false;
      }
      head = size = 0;
      if (subs.length > 1024) {
        subs = [];
        msgs = [];
      }
      return true;
    },
  };
  return q;
}
