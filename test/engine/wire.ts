/** Builds engine stream messages from wire payloads through the client's room registry (as a feed or a replay does). */
import { parseRoomMessage } from '../../src/client/datastream/index.js';
import type { UnixMs } from '../../src/core/index.js';
import type { StreamMessage } from '../../src/engine/events/feed-port.js';

/** The typed message of `data` on `room`; throws with the guard's reason when the payload is rejected. */
export function wire(room: string, data: unknown, receivedAt: number = 0, origin: 'live' | 'backfill' = 'live'): StreamMessage {
  const r = parseRoomMessage(room, data, receivedAt as UnixMs, origin);
  if (!r.ok) throw new Error(`wire(${room}): rejected: ${r.reason}`);
  return r.message;
}

/** A price frame as the service sends it: `price` in USD, `price_quote` in SOL (USD at 150 per SOL). */
export function priceFrame(solPerToken: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { price: solPerToken * 150, price_quote: solPerToken, ...extra };
}
