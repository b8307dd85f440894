/** Counters of the Datastream client. `snapshot()` returns a plain copy safe to log or export. */

export interface RoomStats {
  messages: number;
  rows: number;
  invalid: number;
  duplicates: number;
  dropped: number;
  coalesced: number;
  backfilled: number;
}

/** Rejected payloads of one room family (or `frame` for frames that are not JSON messages). */
export interface FamilyRejects {
  /** Messages or rows rejected. */
  rejected: number;
  /** The latest reason, naming the field (a sample: one reason, not every one). */
  sampleReason: string;
  /** The room of that sample (`''` for frame-level rejects). */
  sampleRoom: string;
}

export interface DatastreamStats {
  frames: number;
  bytes: number;
  messages: number;
  pings: number;
  /** Frames that were not valid UTF-8, or not JSON objects with a string `type`. */
  parseFailures: number;
  /** Frames larger than `maxFrameBytes` (the socket closes on each; the client reconnects). */
  oversizedFrames: number;
  /** Frames nested deeper than `maxFrameDepth`, skipped unread. */
  tooDeepFrames: number;
  /** Frames whose handling threw (a bug or a hostile shape the checks missed); skipped, the client keeps running. */
  frameErrors: number;
  /** Messages or rows whose payload failed its room's check. */
  invalidPayloads: number;
  unknownFrames: number;
  serverErrors: number;
  /** Messages for rooms with no subscriber (e.g. in flight after a leave). */
  unroutedMessages: number;
  duplicates: number;
  dropped: number;
  coalesced: number;
  handlerErrors: number;
  connects: number;
  reconnects: number;
  failedAttempts: number;
  gaps: number;
  gapMsTotal: number;
  gapMsMax: number;
  backfilledRows: number;
  backfillFailures: number;
  /** Sockets created and not yet released: never more than 1. */
  liveSockets: number;
  /**
   * Counters of each room joined now. A room's entry goes when it is left (its counts stay in the
   * totals above), so a long-running client that joins and leaves rooms keeps a bounded map.
   */
  perRoom: Record<string, RoomStats>;
  /**
   * Rejects per room family (`launch`, `transaction`, `safety`, ...; `frame` for frames that were
   * not valid UTF-8, not JSON objects with a string type, nested too deep, or a message without a
   * room), with a sample reason.
   */
  rejectedByFamily: Record<string, FamilyRejects>;
}

export interface StatsBook {
  readonly s: DatastreamStats;
  /** The counters of `room`, made on first use. */
  room(room: string): RoomStats;
  /** The counters of `room` if it has some (a late count for a room already left makes none). */
  existing(room: string): RoomStats | undefined;
  /** Drops the counters of a room that was left. */
  forget(room: string): void;
  /** Counts `n` rejects of `family` and keeps `reason` as the sample. */
  reject(family: string, room: string, reason: string, n: number): void;
  snapshot(): DatastreamStats;
}

export function createStats(): StatsBook {
  const s: DatastreamStats = {
    frames: 0,
    bytes: 0,
    messages: 0,
    pings: 0,
    parseFailures: 0,
    oversizedFrames: 0,
    tooDeepFrames: 0,
    frameErrors: 0,
    invalidPayloads: 0,
    unknownFrames: 0,
    serverErrors: 0,
    unroutedMessages: 0,
    duplicates: 0,
    dropped: 0,
    coalesced: 0,
    handlerErrors: 0,
    connects: 0,
    reconnects: 0,
    failedAttempts: 0,
    gaps: 0,
    gapMsTotal: 0,
    gapMsMax: 0,
    backfilledRows: 0,
    backfillFailures: 0,
    liveSockets: 0,
    perRoom: {},
    rejectedByFamily: {},
  };
  const perRoom = new Map<string, RoomStats>();
  const rejects = new Map<string, FamilyRejects>();
  return {
    s,
    room(room) {
      let r = perRoom.get(room);
      if (!r) {
        r = { messages: 0, rows: 0, invalid: 0, duplicates: 0, dropped: 0, coalesced: 0, backfilled: 0 };
        perRoom.set(room, r);
      }
      return r;
    },
    existing(room) {
      return perRoom.get(room);
    },
    forget(room) {
      perRoom.delete(room);
    },
    reject(family, room, reason, n) {
      let r = rejects.get(family);
      if (!r) {
        r = { rejected: 0, sampleReason: '', sampleRoom: '' };
        rejects.set(family, r);
      }
      r.rejected += n;
      r.sampleReason = reason.length > 200 ? `${reason.slice(0, 200)}...` : reason;
      r.sampleRoom = room;
    },
    snapshot() {
      const rooms: Record<string, RoomStats> = {};
      for (const [k, v] of perRoom) rooms[k] = { ...v };
      const byFamily: Record<string, FamilyRejects> = {};
      for (const [k, v] of rejects) byFamily[k] = { ...v };
      return { ...s, perRoom: rooms, rejectedByFamily: byFamily };
    },
  };
}
