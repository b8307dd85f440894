/**
 * A `StreamFeed` over recorded frames. Frames go through the Datastream client's own room router
 * (payload guards, dedup across overlapping rooms, delivery), so a replayed frame reaches the
 * engine exactly as the live client delivered it; a frame of a room nobody has joined at that
 * moment is dropped as the client drops it. The engine cannot tell the two feeds apart. The feed
 * keeps its own table of who holds each room; a room joins the router only when a frame needs the
 * client's path (a parsed frame, typed rows): the prepared path's single events need only the
 * holders' dedup identities, which are the router's (`handlerId`).
 */
import type { UnixMs } from '../../core/index.js';
import { createRoomRouter, type RoomEntry, type RoomRouter } from '../../client/datastream/delivery/room-router.js';
import { createStats, type StatsBook } from '../../client/datastream/stats.js';
import type { Subscriber } from '../../client/datastream/delivery/subscriber.js';
import type { DatastreamMessage } from '../../client/datastream/stream-message.js';
import type { DomainEvent } from '../../engine/events/events.js';
import type { StreamFeed, StreamGap, StreamMessage } from '../../engine/events/feed-port.js';
import type { RecordLine } from './recording-format.js';
import type { Recording } from './prepared-recording.js';

export interface ReplayFeedStats {
  readonly frames: number;
  readonly messages: number;
  /** Frames that were not JSON objects with a string `type` (as the client counts them). */
  readonly parseFailures: number;
  /** Messages of rooms nobody had joined at that moment. */
  readonly unrouted: number;
  readonly invalidPayloads: number;
  readonly duplicates: number;
  readonly handlerErrors: number;
  /** Rooms joined during the replay that have no frame in the recording (silent then, or not recorded). */
  readonly silentRooms: readonly string[];
}

/**
 * Where the prepared replay hands an event the normaliser already made: the engine, as its own
 * handler would have after normalising the message (`frameSeen`, then `dispatch`).
 */
export interface EventSink {
  event(ev: DomainEvent): void;
  /** A message the normaliser refuses (counted and logged as the engine's handler does). */
  badFrame(room: string, error: Error): void;
}

export interface ReplayFeed extends StreamFeed {
  /** Delivers one recorded frame (parsed `frame`, or the raw `text` of a non-JSON frame). */
  frame(frame: unknown, text: string | undefined, receivedAt: UnixMs): void;
  /** Whether a message frame of `room` would reach anyone now (someone has joined it). */
  holds(room: string): boolean;
  /** Counts a message frame of a room nobody holds, as `frame` counts it (the streamed cursor skips its parse). */
  unrouted(): void;
  /**
   * The prepared path (prepared-replay.ts), for a message frame of `room` the client's guard accepts:
   * counts it as `frame` would and returns who holds the room, or undefined when nobody has joined it.
   */
  enter(room: string): HeldRoom | undefined;
  /**
   * How many of the room's holders get a single-event message with this fingerprint (the dedup
   * window's answer; `hasFp` false: a family without identity, every holder).
   */
  admit(held: HeldRoom, hasFp: boolean, hi: number, lo: number): number;
  /** Hands a normalised event to the sink (set by `attach`) as the subscriber's handler would. */
  deliver(ev: DomainEvent): void;
  /** A message the normaliser refuses, as the subscriber's handler reports it. */
  refuse(room: string, error: Error): void;
  /** Typed rows of a row family, deduplicated by their stored fingerprints and delivered as the router does. */
  rows(held: HeldRoom, items: readonly unknown[], fpAt: number, his: Uint32Array, los: Uint32Array, receivedAt: UnixMs): void;
  /** The engine the prepared path hands events to. */
  attach(sink: EventSink): void;
  /** Calls the gap handlers with a recorded gap. */
  gap(gap: StreamGap): void;
  stats(): ReplayFeedStats;
}

/** A handler joined to a room: its dedup identity (the router's), and its router subscriber once the room joined the router. */
interface Holder {
  readonly handler: (msg: StreamMessage) => void;
  readonly id: number;
  sub: Subscriber<DatastreamMessage> | undefined;
}

/**
 * A room somebody holds: its holders in the order they subscribed, and the client router's entry
 * once a frame of it needed the client's path (`frame`, typed rows). A prepared single-event frame
 * needs only the holders' dedup identities, so most rooms never join the router: their join and
 * leave cost a map entry and a holder, not the room's resolution and a subscriber each.
 */
export interface HeldRoom {
  readonly room: string;
  readonly holders: Holder[];
  entry: RoomEntry | undefined;
}

/** The replay's dedup window: the live client's default size. */
export const REPLAY_DEDUP_CAPACITY = 100_000;

export interface ReplayFeedOptions {
  /**
   * Capacity of the dedup window (default `REPLAY_DEDUP_CAPACITY`). A window at least as large as
   * the rows a recording holds never evicts, so it dedups exactly as the default one does: give
   * `replayDedupCapacity(lines)` to skip allocating a window larger than the recording.
   */
  readonly dedupCapacity?: number;
  /**
   * A room nobody held before reaches its new subscriber only from `ms` after the join (the run
   * clock's `now()`): the round trip a live join takes before the service sends its frames. For a
   * recording of a run that is 0 (its frames begin where the live join took effect); a download holds
   * every frame of its rooms, so a replay of it without this would see frames live never could.
   */
  readonly joinLatency?: { readonly ms: number; readonly now: () => number };
}

/** The join latency's bookkeeping (`ReplayFeedOptions.joinLatency`): rooms joined from nobody's and the run-clock time their frames begin. */
function createJoinGate(o: ReplayFeedOptions['joinLatency']) {
  const ms = o?.ms ?? 0;
  const now = o?.now ?? ((): number => 0);
  const pending = new Map<string, number>();
  return {
    ms,
    pending,
    /** A room nobody held was joined now. */
    joined: (room: string): void => void pending.set(room, now() + ms),
    /** Whether the room's frames reach its subscribers now (false: within its join's latency). */
    live(room: string): boolean {
      const from = pending.get(room);
      if (from === undefined) return true;
      if (now() < from) return false;
      pending.delete(room);
      return true;
    },
  };
}

/** `recordedRooms`: every room that has a frame in the recording (to report rooms it lacks). */
export function createReplayFeed(recordedRooms?: ReadonlySet<string>, options: ReplayFeedOptions = {}): ReplayFeed {
  let sink: EventSink | undefined;
  // Only totals are reported: every room shares one counter record instead of one record per room.
  const counts = createStats();
  const shared = counts.room('(replay)');
  const book: StatsBook = {
    s: counts.s,
    room: () => shared,
    existing: () => shared,
    forget: () => undefined, // the shared record outlives every room
    reject: (...a) => counts.reject(...a),
    snapshot: () => counts.snapshot(),
  };
  const s = book.s;
  const gapHandlers = new Set<(g: StreamGap) => void>();
  const joined = new Set<string>();
  let frames = 0;
  const router: RoomRouter = createRoomRouter(
    { maxQueue: 10_000, overflow: 'drop-oldest', dedupCapacity: options.dedupCapacity ?? REPLAY_DEDUP_CAPACITY },
    book,
    {
      onHandlerError: () => {
        s.handlerErrors++;
      },
      onOverflow: () => undefined,
      countDropped: (_room, n) => void (s.dropped += n),
      countCoalesced: (_room, n) => void (s.coalesced += n),
      invalid: () => undefined,
    },
  );

  /** Rooms somebody holds (the router holds a room only once `join` put its holders there). */
  const held = new Map<string, HeldRoom>();
  const gate = createJoinGate(options.joinLatency);
  /** Puts the room's holders on the client's router (in the order they subscribed) and returns its entry. */
  const join = (h: HeldRoom): RoomEntry => {
    for (const w of h.holders) w.sub = router.add(h.room, w.handler).sub;
    return (h.entry = router.lookup(h.room)!);
  };
  /** A room nobody held is joined: its frames begin after the join's latency. */
  const hold = (room: string): HeldRoom => {
    const h: HeldRoom = { room, holders: [], entry: undefined };
    held.set(room, h);
    if (gate.ms > 0) gate.joined(room);
    return h;
  };
  /** Who holds the room now (undefined: nobody, or its join has not taken effect). */
  const heldNow = (room: string): HeldRoom | undefined => (gate.pending.size > 0 && !gate.live(room) ? undefined : held.get(room));

  return {
    subscribe(room, handler) {
      joined.add(room);
      const h = held.get(room) ?? hold(room);
      const w: Holder = { handler, id: router.handlerId(handler), sub: undefined };
      h.holders.push(w);
      if (h.entry !== undefined) w.sub = router.add(room, handler).sub;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const i = h.holders.indexOf(w);
        if (i >= 0) h.holders.splice(i, 1);
        if (w.sub !== undefined) router.remove(w.sub);
        if (h.holders.length === 0 && held.get(room) === h) held.delete(room);
      };
    },
    onGap(handler) {
      gapHandlers.add(handler);
      return () => void gapHandlers.delete(handler);
    },
    frame(frame, text, receivedAt) {
      frames++;
      if (frame === undefined || typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
        s.parseFailures++;
        return;
      }
      const f = frame as { type?: unknown; room?: unknown; data?: unknown };
      if (f.type !== 'message') {
        if (typeof f.type !== 'string') s.parseFailures++;
        return;
      }
      s.messages++;
      const h = typeof f.room === 'string' ? heldNow(f.room) : undefined;
      if (h === undefined) {
        if (typeof f.room !== 'string') s.parseFailures++;
        else s.unroutedMessages++;
        return;
      }
      router.route(h.entry ?? join(h), f.data, receivedAt, 'live');
    },
    holds: (room) => held.has(room),
    unrouted() {
      frames++;
      s.messages++;
      s.unroutedMessages++;
    },
    enter(room) {
      frames++;
      s.messages++;
      const h = heldNow(room);
      if (h === undefined) {
        s.unroutedMessages++;
        return undefined;
      }
      shared.messages++; // the room's counter record (every room shares one)
      return h;
    },
    admit(h, hasFp, hi, lo) {
      const hs = h.holders;
      if (!hasFp) return hs.length;
      let n = 0;
      for (let j = 0; j < hs.length; j++) {
        if (router.dedup.admitPair(hi, lo, hs[j]!.id)) n++;
        else {
          shared.duplicates++;
          s.duplicates++;
        }
      }
      return n;
    },
    deliver(ev) {
      try {
        sink!.event(ev);
      } catch {
        s.handlerErrors++;
      }
    },
    refuse(room, error) {
      try {
        sink!.badFrame(room, error);
      } catch {
        s.handlerErrors++;
      }
    },
    rows(h, items, fpAt, his, los, receivedAt) {
      const e = h.entry ?? join(h);
      e.stats.rows += items.length;
      const f = e.resolved.family;
      const msg = (data: readonly unknown[]): StreamMessage =>
        ({
          room: e.resolved.name.room,
          family: f.name,
          data,
          receivedAt,
          origin: 'live',
          commitment: f.provisional ? 'processed' : 'unspecified',
        }) as StreamMessage;
      const subs = e.subs;
      if (fpAt < 0) {
        const m = msg(items);
        for (let j = 0; j < subs.length; j++) subs[j]!.push(m);
        return;
      }
      for (let j = 0; j < subs.length; j++) {
        const sub = subs[j]!;
        let out: unknown[] | undefined;
        let dups = 0;
        for (let i = 0; i < items.length; i++) {
          if (router.dedup.admitPair(his[fpAt + i]!, los[fpAt + i]!, sub.id)) {
            if (out !== undefined) out.push(items[i]);
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
        if (payload.length > 0) sub.push(msg(payload));
      }
    },
    attach(to) {
      sink = to;
    },
    gap(gap) {
      for (const h of gapHandlers) {
        try {
          h(gap);
        } catch {
          s.handlerErrors++;
        }
      }
    },
    stats: () => statsOf(frames, s, recordedRooms ? [...joined].filter((r) => !recordedRooms.has(r)).sort() : []),
  };
}

function statsOf(frames: number, s: StatsBook['s'], silentRooms: readonly string[]): ReplayFeedStats {
  const { messages, parseFailures, unroutedMessages: unrouted, invalidPayloads, duplicates, handlerErrors } = s;
  return { frames, messages, parseFailures, unrouted, invalidPayloads, duplicates, handlerErrors, silentRooms };
}

const recordedRooms = new WeakMap<readonly RecordLine[], ReadonlySet<string>>();

/** Every room with a message frame in a recording (or its parsed lines, computed once per lines array). */
export function recordedRoomsOf(recording: Recording | readonly RecordLine[]): ReadonlySet<string> {
  if (!Array.isArray(recording)) return (recording as Recording).recordedRooms;
  const lines = recording as readonly RecordLine[];
  let rooms = recordedRooms.get(lines);
  if (rooms === undefined) {
    const out = new Set<string>();
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      if (l.kind !== 'frame') continue;
      const room = (l.frame as { room?: unknown } | undefined)?.room;
      if (typeof room === 'string') out.add(room);
    }
    recordedRooms.set(lines, (rooms = out));
  }
  return rooms;
}

const recordedRows = new WeakMap<readonly RecordLine[], number>();

/**
 * The dedup capacity a replay of `lines` needs to dedup exactly as `REPLAY_DEDUP_CAPACITY` does: the
 * number of payload rows its message frames hold (an array's length, else 1), capped at the default.
 */
export function replayDedupCapacity(lines: readonly RecordLine[]): number {
  let rows = recordedRows.get(lines);
  if (rows === undefined) {
    rows = 0;
    for (let i = 0; i < lines.length && rows < REPLAY_DEDUP_CAPACITY; i++) {
      const l = lines[i]!;
      if (l.kind !== 'frame') continue;
      // a frame kept as text (not JSON) cannot hold a message; count it anyway, as one row
      const data = (l.frame as { data?: unknown } | undefined)?.data;
      rows += Array.isArray(data) ? Math.max(1, data.length) : 1;
    }
    recordedRows.set(lines, rows);
  }
  return Math.max(1, Math.min(REPLAY_DEDUP_CAPACITY, rows));
}

/** Every room that has at least one message frame in `frames`. */
export function roomsOf(frames: Iterable<unknown>): Set<string> {
  const out = new Set<string>();
  for (const f of frames) {
    const room = (f as { room?: unknown } | undefined)?.room;
    if (typeof room === 'string') out.add(room);
  }
  return out;
}

export type { StreamMessage };
