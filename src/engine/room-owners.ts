/**
 * Which strategies want which rooms. Joins a room on the feed on its first owner and leaves it when
 * the last owner releases it. Owners are strategy ids; a strategy may hold a room for several
 * reasons (declared, watched, open position), each counted.
 */
import type { StreamFeed, StreamMessage } from './events/feed-port.js';

export interface RoomOwners {
  acquire(strategyId: string, room: string): void;
  release(strategyId: string, room: string): void;
  /** Strategies interested in `room`, in the order given at creation. */
  owners(room: string): readonly string[];
  rooms(): string[];
  releaseAll(): void;
}

/** One joined room: its owners in deployment order, how many holds each has, and the leave function. */
interface Held {
  /** Replaced, never changed in place: an event being dispatched keeps the list it started with. */
  owners: readonly string[];
  /** Holds per owner, aligned with `owners`. */
  counts: number[];
  readonly leave: () => void;
}

const NONE: readonly string[] = [];

export function createRoomOwners(feed: StreamFeed, order: readonly string[], onMessage: (msg: StreamMessage) => void): RoomOwners {
  const rank = new Map(order.map((id, i) => [id, i]));
  const rankOf = (id: string): number => rank.get(id) ?? 1e9;
  const held = new Map<string, Held>();

  return {
    acquire(strategyId, room) {
      let h = held.get(room);
      if (h === undefined) {
        h = { owners: [strategyId], counts: [1], leave: feed.subscribe(room, onMessage) };
        held.set(room, h);
        return;
      }
      const i = h.owners.indexOf(strategyId);
      if (i >= 0) {
        h.counts[i]!++;
        return;
      }
      // a new owner: insert it at its deployment rank (new lists)
      const r = rankOf(strategyId);
      let at = 0;
      while (at < h.owners.length && rankOf(h.owners[at]!) <= r) at++;
      h.owners = [...h.owners.slice(0, at), strategyId, ...h.owners.slice(at)];
      h.counts = [...h.counts.slice(0, at), 1, ...h.counts.slice(at)];
    },
    release(strategyId, room) {
      const h = held.get(room);
      const i = h === undefined ? -1 : h.owners.indexOf(strategyId);
      if (h === undefined || i < 0) return;
      if (h.counts[i]! > 1) {
        h.counts[i]!--;
        return;
      }
      if (h.owners.length === 1) {
        held.delete(room);
        h.leave();
        return;
      }
      h.owners = h.owners.filter((_, j) => j !== i);
      h.counts = h.counts.filter((_, j) => j !== i);
    },
    owners: (room) => held.get(room)?.owners ?? NONE,
    rooms: () => [...held.keys()],
    releaseAll() {
      const all = [...held.values()];
      held.clear();
      for (const h of all) h.leave();
    },
  };
}
