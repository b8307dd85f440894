/**
 * A bounded window of recently delivered logical events, remembering which subscribers got each
 * one. Memory is bounded by `capacity` keys; the oldest key is evicted first (insertion order).
 */
export interface DedupWindow {
  /** Records that subscriber `subId` receives `key`; false when it already did (a duplicate). */
  admit(key: string, subId: number): boolean;
  readonly size: number;
  /** Keys evicted so far (an event older than the window could be delivered again). */
  readonly evicted: number;
}

export function createDedupWindow(capacity: number): DedupWindow {
  const seen = new Map<string, number | number[]>();
  let evicted = 0;
  return {
    admit(key, subId) {
      const got = seen.get(key);
      if (got === undefined) {
        seen.set(key, subId);
        if (seen.size > capacity) {
          const oldest = seen.keys().next().value as string;
          seen.delete(oldest);
          evicted++;
        }
        return true;
      }
      if (got === subId) return false;
      if (typeof got === 'number') {
        seen.set(key, [got, subId]);
        return true;
      }
      if (got.includes(subId)) return false;
      got.push(subId);
      return true;
    },
    get size() {
      return seen.size;
    },
    get evicted() {
      return evicted;
    },
  };
}
