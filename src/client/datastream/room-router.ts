/**
 * The rooms a client is subscribed to, their reference-counted subscribers, and the path of every
 * payload: the family's guard (once), dedup by the family's identity fields, delivery. Live frames
 * and REST backfill pages both enter through `route`, so they share one dedup window: an event is
 * delivered once per subscriber whichever way it came.
 */
import type { UnixMs } from '../../core/index.js';
import { createDedupWindow, type DedupWindow } from './dedup-window.js';
import { createSubscriber, type DeliveryHooks, type Handler, type OverflowPolicy, type Subscriber } from './delivery.js';
import { rowFingerprints } from './event-key.js';
import { fpCheck, fpKey } from './fingerprint.js';
import { fingerprintInto, parseRows, resolveRoom, type ResolvedRoom } from './room-registry.js';
import type { RoomStats, StatsBook } from './stats.js';
import type { DatastreamMessage } from './stream-message.js';

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
  /** Adds a subscriber; returns true when this is the room's first (a join is due). */
  add(room: string, handler: Handler<DatastreamMessage>): { sub: Subscriber<DatastreamMessage>; first: boolean };
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
}

type Commitment = DatastreamMessage['commitment'];

export function createRoomRouter(o: RouterOptions, stats: StatsBook, hooks: RouterHooks): RoomRouter {
  const rooms = new Map<string, RoomEntry>();
  const dedup = createDedupWindow(o.dedupCapacity);
  /** One dedup identity per handler function: the same handler on overlapping rooms gets each event once. */
  const handlerIds = new WeakMap<object, number>();
  let nextId = 1;
  const s = stats.s;

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
    for (let j = 0; j < subs.length; j++) subs[j]!.push(msg);
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
      if (dedup.admit(fpKey(), fpCheck(), subs[0]!.id)) {
        subs[0]!.push(message(e, items, at, origin));
        return 1;
      }
      e.stats.duplicates++;
      s.duplicates++;
      return 0;
    }
    const { keys, checks } = rowFingerprints(e.resolved, items);
    // rows admitted to at least one subscriber (only tracked when there are several)
    const anyAdmitted = subs.length > 1 ? new Uint8Array(items.length) : undefined;
    let admitted = 0;
    for (let j = 0; j < subs.length; j++) {
      const sub = subs[j]!;
      let out: unknown[] | undefined;
      let dups = 0;
      for (let i = 0; i < items.length; i++) {
        if (dedup.admit(keys[i]!, checks[i]!, sub.id)) {
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
      if (payload.length > 0) sub.push(message(e, payload, at, origin));
    }
    if (anyAdmitted) for (let i = 0; i < anyAdmitted.length; i++) admitted += anyAdmitted[i]!;
    return admitted;
  };

  const router: RoomRouter = {
    rooms,
    dedup,
    add(room, handler) {
      let e = rooms.get(room);
      const first = e === undefined;
      if (e === undefined) {
        e = { resolved: resolveRoom(room), stats: stats.room(room), subs: [] };
        rooms.set(room, e);
      }
      if (!handlerIds.has(handler)) handlerIds.set(handler, nextId++);
      const coalesce = e.resolved.family.delivery === 'coalesced';
      const sub = createSubscriber<DatastreamMessage>(handlerIds.get(handler) ?? 0, room, handler, { coalesce, maxQueue: o.maxQueue, overflow: o.overflow }, hooks);
      e.subs.push(sub);
      return { sub, first };
    },
    remove(sub) {
      const e = rooms.get(sub.room);
      if (!e || !sub.active) return false;
      sub.active = false;
      const i = e.subs.indexOf(sub);
      if (i >= 0) e.subs.splice(i, 1);
      if (e.subs.length > 0) return false;
      rooms.delete(sub.room);
      return true;
    },
    route(e, data, at, origin) {
      e.stats.messages++;
      const f = e.resolved.family;
      if (f.rows) return routeRows(e, data, at, origin);
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
      const key = fpKey();
      const check = fpCheck();
      let delivered = 0;
      const subs = e.subs;
      for (let j = 0; j < subs.length; j++) {
        const sub = subs[j]!;
        if (dedup.admit(key, check, sub.id)) {
          sub.push(msg);
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
