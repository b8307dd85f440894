/**
 * The rooms a client is subscribed to, their reference-counted subscribers, and the path of every
 * payload: the family's guard (once), dedup by the family's identity fields, delivery. Live frames
 * and REST backfill pages both enter through `route`, so they share one dedup window: an event is
 * delivered once per subscriber whichever way it came.
 */
import type { UnixMs } from '../../../core/index.js';
import { createDedupWindow, type DedupWindow } from '../dedup/dedup-window.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { createSubscriber, type DeliveryHooks, type Handler, type OverflowPolicy, type Subscriber, type SubscriberOptions } from './subscriber.js';
import { fingerprintRows } from '../dedup/event-key.js';
import { fpHi, fpLo } from '../dedup/fingerprint.js';
import { fingerprintInto, parseRows, resolveRoom, type ResolvedRoom } from '../rooms/room-registry.js';
import type { RoomStats, StatsBook } from '../stats.js';
import type { DatastreamMessage } from '../stream-message.js';

export interface RoomEntry {
  readonly resolved: ResolvedRoom;
  readonly stats: RoomStats;
  readonly subs: Subscriber<DatastreamMessage>[];
}

export interface RouterHooks extends DeliveryHooks {
  invalid(room: string, reason: string, rejected: number): void;
}

export interface RoomRouter {
  readonly rooms: ReadonlyMap<string, RoomEntry>;
  /** `rooms.get(room)`, remembering the last room found: frames of one room in a row skip the hash lookup. */
  lookup(room: string): RoomEntry | undefined;
  /** Adds a subscriber; returns true when this is the room's first (a join is due). */
  add(room: string, handler: Handler<DatastreamMessage>): { sub: Subscriber<DatastreamMessage>; first: boolean };
  /**
   * The dedup identity `add` gives `handler`'s subscribers (one per handler function, assigned on first
   * use): a caller holding a room outside the router (the replay feed) admits events as they would be.
   */
  handlerId(handler: Handler<DatastreamMessage>): number;
  /** Removes a subscriber; returns true when the room has none left (a leave is due). */
  remove(sub: Subscriber<DatastreamMessage>): boolean;
  /** Parses, deduplicates and delivers one payload of `room`. Returns rows/messages delivered to at least one subscriber. */
  route(entry: RoomEntry, data: unknown, at: UnixMs, origin: 'live' | 'backfill'): number;
  readonly dedup: DedupWindow;
}

export interface RouterOptions {
  readonly maxQueue: number;
  readonly overflow: OverflowPolicy;
  readonly dedupCapacity: number;
  /** Deliveries in bounded slices (delivery-queue.ts); absent: each message goes to every subscriber at once. */
  readonly queue?: DeliveryQueue<DatastreamMessage>;
}

type Commitment = DatastreamMessage['commitment'];

export function createRoomRouter(o: RouterOptions, stats: StatsBook, hooks: RouterHooks): RoomRouter {
  const rooms = new Map<string, RoomEntry>();
  const dedup = createDedupWindow(o.dedupCapacity);
  /** One dedup identity per handler function: the same handler on overlapping rooms gets each event once. */
  const handlerIds = new WeakMap<object, number>();
  let nextId = 1;
  // the two delivery options a subscriber can have, shared by every subscriber (one object per subscribe saved)
  const queueing: SubscriberOptions = { coalesce: false, maxQueue: o.maxQueue, overflow: o.overflow };
  const coalescing: SubscriberOptions = { ...queueing, coalesce: true };
  const s = stats.s;
  // the last room looked up (cleared when that room is left)
  let lastRoom: string | undefined;
  let lastEntry: RoomEntry | undefined;
  // fingerprint halves of a frame's rows, reused across frames (fresh ones when route re-enters from a handler)
  let scratchHi = new Uint32Array(16);
  let scratchLo = new Uint32Array(16);
  let routing = 0;
  const push: (sub: Subscriber<DatastreamMessage>, msg: DatastreamMessage) => void = o.queue?.deliver ?? ((sub, msg) => sub.push(msg));

  const commitmentOf = (e: RoomEntry, origin: 'live' | 'backfill'): Commitment =>
    origin === 'backfill' ? 'confirmed' : e.resolved.family.provisional ? 'processed' : 'unspecified';

  const reject = (e: RoomEntry, reason: string, n: number): void => {
    e.stats.invalid += n;
    s.invalidPayloads += n;
    stats.reject(e.resolved.family.name, e.resolved.name.room, reason, n);
    hooks.invalid(e.resolved.name.room, reason, n);
  };

  const message = (e: RoomEntry, data: unknown, at: UnixMs, origin: 'live' | 'backfill'): DatastreamMessage =>
    ({ room: e.resolved.name.room, family: e.resolved.family.name, data, receivedAt: at, origin, commitment: commitmentOf(e, origin) }) as DatastreamMessage;

  const deliverAll = (e: RoomEntry, msg: DatastreamMessage): void => {
    const subs = e.subs;
    for (let j = 0; j < subs.length; j++) push(subs[j]!, msg);
  };

  const routeRows = (e: RoomEntry, data: unknown, at: UnixMs, origin: 'live' | 'backfill'): number => {
    const { items, rejected, firstReason } = parseRows(e.resolved, data);
    if (rejected > 0) reject(e, firstReason ?? 'invalid row', rejected);
    if (items.length === 0) return 0;
    e.stats.rows += items.length;
    if (e.resolved.family.identity === undefined) {
      deliverAll(e, message(e, items, at, origin));
      return items.length;
    }
    const subs = e.subs;
    if (items.length === 1 && subs.length === 1) {
      // the common case, without allocating fingerprint arrays
      fingerprintInto(e.resolved, items[0]);
      if (dedup.admitPair(fpHi(), fpLo(), subs[0]!.id)) {
        push(subs[0]!, message(e, items, at, origin));
        return 1;
      }
      e.stats.duplicates++;
      s.duplicates++;
      return 0;
    }
    const n = items.length;
    if (routing > 1) {
      // a handler routed a payload while this one is being delivered: keep the outer frame's halves intact
      scratchHi = new Uint32Array(Math.max(16, n));
      scratchLo = new Uint32Array(Math.max(16, n));
    } else if (scratchHi.length < n) {
      scratchHi = new Uint32Array(n * 2);
      scratchLo = new Uint32Array(n * 2);
    }
    const his = scratchHi;
    const los = scratchLo;
    fingerprintRows(e.resolved, items, his, los);
    // rows admitted to at least one subscriber (only tracked when there are several)
    const anyAdmitted = subs.length > 1 ? new Uint8Array(n) : undefined;
    let admitted = 0;
    for (let j = 0; j < subs.length; j++) {
      const sub = subs[j]!;
      let out: unknown[] | undefined;
      let dups = 0;
      for (let i = 0; i < n; i++) {
        if (dedup.admitPair(his[i]!, los[i]!, sub.id)) {
          if (out !== undefined) out.push(items[i]);
          if (anyAdmitted) anyAdmitted[i] = 1;
          else admitted++;
        } else {
          if (out === undefined) out = items.slice(0, i); // every earlier row was admitted
          dups++;
        }
      }
      if (dups > 0) {
        e.stats.duplicates += dups;
        s.duplicates += dups;
      }
      const payload = out ?? items;
      if (payload.length > 0) push(sub, message(e, payload, at, origin));
    }
    if (anyAdmitted) for (let i = 0; i < anyAdmitted.length; i++) admitted += anyAdmitted[i]!;
    return admitted;
  };

  const router: RoomRouter = {
    rooms,
    dedup,
    lookup(room) {
      if (room === lastRoom) return lastEntry;
      const e = rooms.get(room);
      if (e !== undefined) {
        lastRoom = room;
        lastEntry = e;
      }
      return e;
    },
    add(room, handler) {
      let e = rooms.get(room);
      const first = e === undefined;
      if (e === undefined) {
        e = { resolved: resolveRoom(room), stats: stats.room(room), subs: [] };
        rooms.set(room, e);
      }
      const id = router.handlerId(handler);
      const sub = createSubscriber<DatastreamMessage>(id, room, handler, e.resolved.family.delivery === 'coalesced' ? coalescing : queueing, hooks);
      e.subs.push(sub);
      return { sub, first };
    },
    handlerId(handler) {
      let id = handlerIds.get(handler);
      if (id === undefined) handlerIds.set(handler, (id = nextId++));
      return id;
    },
    remove(sub) {
      const e = rooms.get(sub.room);
      if (!e || !sub.active) return false;
      sub.active = false;
      const i = e.subs.indexOf(sub);
      if (i >= 0) e.subs.splice(i, 1);
      if (e.subs.length > 0) return false;
      rooms.delete(sub.room);
      stats.forget(sub.room);
      if (lastRoom === sub.room) lastRoom = lastEntry = undefined;
      return true;
    },
    route(e, data, at, origin) {
      e.stats.messages++;
      const f = e.resolved.family;
      if (f.rows) {
        routing++;
        try {
          return routeRows(e, data, at, origin);
        } finally {
          routing--;
        }
      }
      const v = f.parse(data, e.resolved.name);
      if (typeof v === 'string') {
        reject(e, v, 1);
        return 0;
      }
      const msg = message(e, v, at, origin);
      if (f.identity === undefined) {
        deliverAll(e, msg);
        return 1;
      }
      fingerprintInto(e.resolved, v);
      const hi = fpHi();
      const lo = fpLo();
      let delivered = 0;
      const subs = e.subs;
      for (let j = 0; j < subs.length; j++) {
        const sub = subs[j]!;
        if (dedup.admitPair(hi, lo, sub.id)) {
          push(sub, msg);
          delivered = 1;
        } else {
          e.stats.duplicates++;
          s.duplicates++;
        }
      }
      return delivered;
    },
  };
  return router;
}
