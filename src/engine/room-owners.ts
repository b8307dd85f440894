/**
 * Which strategies want which rooms. Joins a room on the feed on its first owner and leaves it when
 * the last owner releases it. Owners are strategy ids; a strategy may hold a room for several
 * reasons (declared, watched, open position), each counted.
 */
import type { StreamFeed, StreamMessage } from './feed-port.js';

export interface RoomOwners {
  acquire(strategyId: string, room: string): void;
  release(strategyId: string, room: string): void;
  /** Strategies interested in `room`, in the order given at creation. */
  owners(room: string): readonly string[];
  rooms(): string[];
  releaseAll(): void;
}

export function createRoomOwners(feed: StreamFeed, order: readonly string[], onMessage: (msg: StreamMessage) => void): RoomOwners {
  const rank = new Map(order.map((id, i) => [id, i]));
  const counts = new Map<string, Map<string, number>>();
  const ordered = new Map<string, readonly string[]>();
  const unsubs = new Map<string, () => void>();

  const reorder = (room: string): void => {
    const m = counts.get(room);
    ordered.set(room, m ? [...m.keys()].sort((a, b) => (rank.get(a) ?? 1e9) - (rank.get(b) ?? 1e9)) : []);
  };

  return {
    acquire(strategyId, room) {
      let m = counts.get(room);
      if (!m) {
        m = new Map();
        counts.set(room, m);
        unsubs.set(room, feed.subscribe(room, onMessage));
      }
      m.set(strategyId, (m.get(strategyId) ?? 0) + 1);
      reorder(room);
    },
    release(strategyId, room) {
      const m = counts.get(room);
      const n = m?.get(strategyId);
      if (!m || n === undefined) return;
      if (n > 1) m.set(strategyId, n - 1);
      else m.delete(strategyId);
      if (m.size === 0) {
        counts.delete(room);
        ordered.delete(room);
        unsubs.get(room)?.();
        unsubs.delete(room);
      } else reorder(room);
    },
    owners: (room) => ordered.get(room) ?? [],
    rooms: () => [...counts.keys()],
    releaseAll() {
      for (const u of unsubs.values()) u();
      unsubs.clear();
      counts.clear();
      ordered.clear();
    },
  };
}
