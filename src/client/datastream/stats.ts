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

export interface DatastreamStats {
  frames: number;
  bytes: number;
  messages: number;
  pings: number;
  /** Frames that were not JSON objects with a string `type`. */
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
  perRoom: Record<string, RoomStats>;
}

export interface StatsBook {
  readonly s: DatastreamStats;
  room(room: string): RoomStats;
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
  };
  const perRoom = new Map<string, RoomStats>();
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
    snapshot() {
      const rooms: Record<string, RoomStats> = {};
      for (const [k, v] of perRoom) rooms[k] = { ...v };
      return { ...s, perRoom: rooms };
    },
  };
}
