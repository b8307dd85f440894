/** A hand-written StreamFeed that tests push frames into. */
import type { StreamFeed, StreamGap, StreamMessage } from '../../src/engine/events/feed-port.js';
import type { Clock, UnixMs } from '../../src/core/index.js';
import { parseRoomMessage } from '../../src/client/datastream/index.js';

export interface FakeFeed extends StreamFeed {
  push(room: string, data: unknown): void;
  /** True when someone joined `room` (lets producers skip building frames nobody reads). */
  wants(room: string): boolean;
  gap(gap: StreamGap): void;
  joined(): string[];
  /** Every join and leave, in order. */
  readonly history: string[];
  /** Payloads the room registry rejected (`room: reason`). */
  readonly rejected: string[];
}

export function fakeFeed(clock: Clock): FakeFeed {
  const handlers = new Map<string, Set<(m: StreamMessage) => void>>();
  const gaps = new Set<(g: StreamGap) => void>();
  const history: string[] = [];
  const rejected: string[] = [];
  return {
    history,
    rejected,
    subscribe(room, handler) {
      let set = handlers.get(room);
      if (!set) {
        set = new Set();
        handlers.set(room, set);
        history.push(`join ${room}`);
      }
      set.add(handler);
      return () => {
        set.delete(handler);
        if (set.size === 0) {
          handlers.delete(room);
          history.push(`leave ${room}`);
        }
      };
    },
    onGap(h) {
      gaps.add(h);
      return () => gaps.delete(h);
    },
    push(room, data) {
      const set = handlers.get(room);
      if (!set) return;
      // parsed once by the client's room registry, as the Datastream client does
      const r = parseRoomMessage(room, data, clock.now() as UnixMs, 'live');
      if (!r.ok) {
        rejected.push(`${room}: ${r.reason}`);
        return;
      }
      for (const h of set) h(r.message);
    },
    gap(g) {
      for (const h of gaps) h(g);
    },
    wants: (room) => handlers.has(room),
    joined: () => [...handlers.keys()].sort(),
  };
}
