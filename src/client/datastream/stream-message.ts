/**
 * Messages the Datastream client delivers: the engine's `StreamMessage` (src/engine/feed-port.ts)
 * plus the commitment of the data. The shapes are declared here so that the client layer does not
 * import the engine; they are structurally identical and a type test keeps them so.
 */
import type { UnixMs } from '../../core/index.js';

export interface DatastreamMessage<T = unknown> {
  readonly room: string;
  /** Validated payload: an object for token and pool rooms, an array of events for liquidity and transaction rooms. */
  readonly data: T;
  /** When the frame was received (client clock); for backfill, when the page was received. */
  readonly receivedAt: UnixMs;
  /** `backfill` for events recovered from REST history after a gap. */
  readonly origin: 'live' | 'backfill';
  /**
   * `processed` for live liquidity events (provisional: may vanish on a fork, with no rollback
   * message); `confirmed` for REST-backfilled or confirmed-view events; `unspecified` elsewhere.
   */
  readonly commitment: 'processed' | 'confirmed' | 'unspecified';
}

/** A period during which the client was disconnected and may have missed events. */
export interface StreamGap {
  readonly startedAt: UnixMs;
  readonly endedAt: UnixMs;
  readonly rooms: readonly string[];
}
