/**
 * A bounded window of recently delivered logical events (by fingerprint), remembering which
 * subscribers got each one. Memory is bounded by `capacity` entries of a few numbers each; the
 * oldest entry is evicted first through a ring (O(1); iterating a Map from its start after many
 * deletes is not).
 */
export interface DedupWindow {
  /** Records that subscriber `subId` receives the event; false when it already did (a duplicate). */
  admit(key: number, check: number, subId: number): boolean;
  readonly size: number;
  /** Entries evicted so far (an event older than the window could be delivered again). */
  readonly evicted: number;
}

export function createDedupWindow(capacity: number): DedupWindow {
  const slotOf = new Map<number, number>();
  const ringKey = new Float64Array(capacity);
  const ringCheck = new Uint32Array(capacity);
  const ringSubs: (number | number[])[] = new Array<number | number[]>(capacity).fill(0);
  let pos = 0;
  let filled = 0;
  let evicted = 0;
  return {
    admit(key, check, subId) {
      const slot = slotOf.get(key);
      if (slot !== undefined && ringCheck[slot] === check) {
        const got = ringSubs[slot]!;
        if (got === subId) return false;
        if (typeof got === 'number') {
          ringSubs[slot] = [got, subId];
          return true;
        }
        if (got.includes(subId)) return false;
        got.push(subId);
        return true;
      }
      // new event (or, with probability ~2^-32 per 53-bit key collision, a different one: deliver it)
      if (filled === capacity) {
        const old = ringKey[pos]!;
        if (slotOf.get(old) === pos) slotOf.delete(old);
        evicted++;
      } else filled++;
      ringKey[pos] = key;
      ringCheck[pos] = check;
      ringSubs[pos] = subId;
      slotOf.set(key, pos);
      pos = pos + 1 === capacity ? 0 : pos + 1;
      return true;
    },
    get size() {
      return slotOf.size;
    },
    get evicted() {
      return evicted;
    },
  };
}
