/**
 * Messages the Datastream client delivers: the room, its family, and the payload parsed once by
 * the family's guard (room-registry.ts). The engine's `StreamMessage` (src/engine/events/feed-port.ts) is
 * this type, so the engine maps typed payloads and never looks at wire data.
 */
import type { UnixMs } from '../../core/index.js';
import type { FamilyName, FamilyPayloads } from './rooms/room-family.js';

interface MessageBase {
  readonly room: string;
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

/** A message of family `F`: `data` is that family's typed payload (a list for row families). */
export type DatastreamMessage<F extends FamilyName = FamilyName> = { [K in F]: MessageBase & { readonly family: K; readonly data: FamilyPayloads[K] } }[F];

/** A period during which the client was disconnected and may have missed events. */
export interface StreamGap {
  readonly startedAt: UnixMs;
  readonly endedAt: UnixMs;
  readonly rooms: readonly string[];
}
