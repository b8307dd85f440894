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

  /** Recomputes a room's owners in deployment order: only when one is added or removed, not per acquire. */
  const reorder = (room: string, m: Map<string, number>): void => {
    ordered.set(room, m.size === 1 ? [...m.keys()] : [...m.keys()].sort((a, b) => (rank.get(a) ?? 1e9) - (rank.get(b) ?? 1e9)));
  };

  return {
    acquire(strategyId, room) {
      let m = counts.get(room);
      if (!m) {
        m = new Map();
        counts.set(room, m);
        unsubs.set(room, feed.subscribe(room, onMessage));
      }
      const n = m.get(strategyId);
      m.set(strategyId, (n ?? 0) + 1);
      if (n === undefined) reorder(room, m);
    },
    release(strategyId, room) {
      const m = counts.get(room);
      const n = m?.get(strategyId);
      if (!m || n === undefined) return;
      if (n > 1) {
        m.set(strategyId, n - 1);
        return;
      }
      m.delete(strategyId);
      if (m.size === 0) {
        counts.delete(room);
        ordered.delete(room);
        unsubs.get(room)?.();
        unsubs.delete(room);
      } else reorder(room, m);
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
