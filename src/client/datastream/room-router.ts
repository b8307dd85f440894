/**
 * The rooms a client is subscribed to, their reference-counted subscribers, payload checks,
 * deduplication and delivery. Live frames and REST backfill pages both enter through `route`, so
 * they share one dedup window: an event is delivered once per subscriber whichever way it came.
 */
import type { UnixMs } from '../../core/index.js';
import { createDedupWindow, type DedupWindow } from './dedup-window.js';
import { createSubscriber, type DeliveryHooks, type Handler, type OverflowPolicy, type Subscriber } from './delivery.js';
import { objectFingerprint, rowFingerprints } from './event-key.js';
import { checkObjectPayload, rowCheck } from './guards.js';
import { roomSpec, type RoomSpec } from './room-spec.js';
import type { RoomStats, StatsBook } from './stats.js';
import type { DatastreamMessage } from './stream-message.js';

export interface RoomEntry {
  readonly spec: RoomSpec;
  readonly stats: RoomStats;
  readonly subs: Subscriber<DatastreamMessage>[];
  /** Dedup scope for object payloads (rooms that carry the same event share a scope). */
  readonly scope: string;
  readonly checkRow: (row: unknown) => string | undefined;
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
  /** Checks, deduplicates and delivers one payload of `room`. Returns rows/messages delivered to at least one subscriber. */
  route(entry: RoomEntry, data: unknown, at: UnixMs, origin: 'live' | 'backfill'): number;
  readonly dedup: DedupWindow;
}

export interface RouterOptions {
  readonly maxQueue: number;
  readonly overflow: OverflowPolicy;
  readonly dedupCapacity: number;
}

function dedupScope(spec: RoomSpec): string {
  const p = spec.room.replace(/:enriched$/, '').split(':');
  switch (p[0]) {
    case 'dca':
    case 'pnl':
      return `${p[0]}:${p[1] ?? ''}`;
    case 'latest':
    case 'graduated':
      return p[0];
    default:
      return spec.room.replace(/:enriched$/, '');
  }
}

export function createRoomRouter(o: RouterOptions, stats: StatsBook, hooks: RouterHooks): RoomRouter {
  const rooms = new Map<string, RoomEntry>();
  const dedup = createDedupWindow(o.dedupCapacity);
  /** One dedup identity per handler function: the same handler on overlapping rooms gets each event once. */
  const handlerIds = new WeakMap<object, number>();
  let nextId = 1;
  const s = stats.s;

  const commitmentOf = (spec: RoomSpec, origin: 'live' | 'backfill'): DatastreamMessage['commitment'] =>
    origin === 'backfill' ? 'confirmed' : spec.provisional ? 'processed' : 'unspecified';

  const routeArray = (e: RoomEntry, data: unknown, at: UnixMs, origin: 'live' | 'backfill'): number => {
    if (!Array.isArray(data)) {
      e.stats.invalid++;
      s.invalidPayloads++;
      hooks.invalid(e.spec.room, 'data must be an array of events', 1);
      return 0;
    }
    let rows: unknown[] = data;
    let firstBad: string | undefined;
    let rejected = 0;
    for (let i = 0; i < data.length; i++) {
      const bad = e.checkRow(data[i]);
      if (bad !== undefined) {
        if (rejected === 0) {
          firstBad = `[${i}] ${bad}`;
          rows = data.slice(0, i);
        }
        rejected++;
      } else if (rejected > 0) rows.push(data[i]);
    }
    if (rejected > 0) {
      e.stats.invalid += rejected;
      s.invalidPayloads += rejected;
      hooks.invalid(e.spec.room, firstBad ?? 'invalid row', rejected);
    }
    if (rows.length === 0) return 0;
    e.stats.rows += rows.length;
    if (!e.spec.dedup) {
      deliverAll(e, rows, at, origin);
      return rows.length;
    }
    const { keys, checks } = rowFingerprints(e.spec.family === 'liquidity' ? 'liquidity' : 'swap', rows);
    const subs = e.subs;
    // rows admitted to at least one subscriber (only tracked when there are several)
    const anyAdmitted = subs.length > 1 ? new Uint8Array(rows.length) : undefined;
    let admitted = 0;
    for (let j = 0; j < subs.length; j++) {
      const sub = subs[j]!;
      let out: unknown[] | undefined;
      let dups = 0;
      for (let i = 0; i < rows.length; i++) {
        if (dedup.admit(keys[i]!, checks[i]!, sub.id)) {
          if (out !== undefined) out.push(rows[i]);
          if (anyAdmitted) anyAdmitted[i] = 1;
          else admitted++;
        } else {
          if (out === undefined) out = rows.slice(0, i); // every earlier row was admitted
          dups++;
        }
      }
      if (dups > 0) {
        e.stats.duplicates += dups;
        s.duplicates += dups;
      }
      const payload = out ?? rows;
      if (payload.length > 0) sub.push({ room: e.spec.room, data: payload, receivedAt: at, origin, commitment: commitmentOf(e.spec, origin) });
    }
    if (anyAdmitted) for (let i = 0; i < anyAdmitted.length; i++) admitted += anyAdmitted[i]!;
    return admitted;
  };

  const deliverAll = (e: RoomEntry, data: unknown, at: UnixMs, origin: 'live' | 'backfill'): void => {
    const msg: DatastreamMessage = { room: e.spec.room, data, receivedAt: at, origin, commitment: commitmentOf(e.spec, origin) };
    const subs = e.subs;
    for (let j = 0; j < subs.length; j++) subs[j]!.push(msg);
  };

  const router: RoomRouter = {
    rooms,
    dedup,
    add(room, handler) {
      let e = rooms.get(room);
      const first = e === undefined;
      if (e === undefined) {
        const spec = roomSpec(room);
        e = { spec, stats: stats.room(room), subs: [], scope: dedupScope(spec), checkRow: rowCheck(spec.family) };
        rooms.set(room, e);
      }
      if (!handlerIds.has(handler)) handlerIds.set(handler, nextId++);
      const sub = createSubscriber<DatastreamMessage>(handlerIds.get(handler) ?? 0, room, handler, { coalesce: e.spec.coalesce, maxQueue: o.maxQueue, overflow: o.overflow }, hooks);
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
      if (e.spec.isArray) return routeArray(e, data, at, origin);
      const bad = checkObjectPayload(e.spec.family, data);
      if (bad !== undefined) {
        e.stats.invalid++;
        s.invalidPayloads++;
        hooks.invalid(e.spec.room, bad, 1);
        return 0;
      }
      if (!e.spec.dedup) {
        deliverAll(e, data, at, origin);
        return 1;
      }
      const [key, check] = objectFingerprint(e.scope, data);
      const msg: DatastreamMessage = { room: e.spec.room, data, receivedAt: at, origin, commitment: commitmentOf(e.spec, origin) };
      let delivered = 0;
      for (const sub of e.subs) {
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
