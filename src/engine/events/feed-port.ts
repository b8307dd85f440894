/**
 * The port between the engine and a market feed: the live Datastream client, or the replay of a
 * recording in a backtest. The Datastream client satisfies it structurally; the engine maps the
 * typed payloads into domain events (normalise.ts).
 */
import type { UnixMs } from '../../core/index.js';
import type { DatastreamMessage } from '../../client/datastream/index.js';

/**
 * One message of the feed: the room, its family and the payload parsed once by the family's guard
 * in the client's room registry (src/client/datastream/rooms/room-registry.ts). Replays parse recorded
 * frames through the same registry (`parseRoomMessage`), so the engine never sees wire data.
 */
export type StreamMessage = DatastreamMessage;

/** A period during which the feed was disconnected and may have missed events. */
export interface StreamGap {
  readonly startedAt: UnixMs;
  readonly endedAt: UnixMs;
  readonly rooms: readonly string[];
}

export interface StreamFeed {
  /** Joins `room` (reference-counted) and calls `handler` for each message. Returns the unsubscribe. */
  subscribe(room: string, handler: (msg: StreamMessage) => void): () => void;
  /** Calls `handler` for each gap after it closes. Returns the unsubscribe. */
  onGap(handler: (gap: StreamGap) => void): () => void;
}
