/**
 * A bounded window of recently delivered logical events (by fingerprint), remembering which
 * subscribers got each one. Entries live in a ring of `capacity` (the oldest is evicted first);
 * lookups go through an open-addressing table in typed arrays (linear probing, backward-shift
 * deletion), so the hot path allocates nothing and memory is fixed at creation.
 */
export interface DedupWindow {
  /** Records that subscriber `subId` receives the event; false when it already did (a duplicate). */
  admit(key: number, check: number, subId: number): boolean;
  readonly size: number;
  /** Entries evicted so far (an event older than the window could be delivered again). */
  readonly evicted: number;
}

const TWO32 = 0x1_0000_0000;

export function createDedupWindow(capacity: number): DedupWindow {
  let tableSize = 8;
  while (tableSize < capacity * 2) tableSize *= 2;
  const mask = tableSize - 1;
  const table = new Int32Array(tableSize).fill(-1); // ring slot, or -1 when empty
  const lo = new Uint32Array(capacity);
  const hi = new Uint32Array(capacity);
  const chk = new Uint32Array(capacity);
  const subs: (number | number[])[] = new Array<number | number[]>(capacity).fill(0);
  let pos = 0;
  let filled = 0;
  let evicted = 0;

  const home = (l: number, h: number): number => (Math.imul(l ^ h, 0x9e3779b1) >>> 0) & mask;

  const remove = (slot: number): void => {
    let i = home(lo[slot]!, hi[slot]!);
    while (table[i] !== slot) i = (i + 1) & mask;
    // backward-shift deletion keeps every probe chain unbroken
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const s = table[j]!;
      if (s === -1) break;
      const k = home(lo[s]!, hi[s]!);
      const between = i <= j ? i < k && k <= j : i < k || k <= j;
      if (between) continue;
      table[i] = s;
      i = j;
    }
    table[i] = -1;
  };

  return {
    admit(key, check, subId) {
      const l = key >>> 0;
      const h = (key - l) / TWO32;
      let i = home(l, h);
      for (;;) {
        const s = table[i]!;
        if (s === -1) break;
        if (lo[s] === l && hi[s] === h && chk[s] === check) {
          const got = subs[s]!;
          if (got === subId) return false;
          if (typeof got === 'number') {
            subs[s] = [got, subId];
            return true;
          }
          if (got.includes(subId)) return false;
          got.push(subId);
          return true;
        }
        i = (i + 1) & mask;
      }
      if (filled === capacity) {
        remove(pos);
        evicted++;
        i = home(l, h); // the shift may have moved the free cell: probe again
        while (table[i] !== -1) i = (i + 1) & mask;
      } else filled++;
      lo[pos] = l;
      hi[pos] = h;
      chk[pos] = check;
      subs[pos] = subId;
      table[i] = pos;
      pos = pos + 1 === capacity ? 0 : pos + 1;
      return true;
    },
    get size() {
      return filled;
    },
    get evicted() {
      return evicted;
    },
  };
}
