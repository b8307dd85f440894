/**
 * The port between the engine and a market feed: the live Datastream client, or the replay of a
 * recording in a backtest. The Datastream client satisfies it structurally; the engine normalises
 * `data` into domain events.
 */
import type { UnixMs } from '../core/index.js';

export interface StreamMessage {
  readonly room: string;
  /** The frame's `data` member, as validated by the feed (object for token/pool rooms, array for liquidity rooms). */
  readonly data: unknown;
  /** When the frame was received (feed clock). */
  readonly receivedAt: UnixMs;
  /** `backfill` for events recovered from REST history after a gap. */
  readonly origin: 'live' | 'backfill';
  /**
   * Commitment of the data when the feed knows it (`processed` for live liquidity events, which may
   * vanish on a fork). Optional: a feed that does not set it leaves the engine to infer it.
   */
  readonly commitment?: 'processed' | 'confirmed' | 'unspecified';
}

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
