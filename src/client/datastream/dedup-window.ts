/**
 * A bounded window of recently delivered logical events (by fingerprint), remembering which
 * subscribers got each one. Entries live in a ring of `capacity` (the oldest is evicted first);
 * lookups go through an open-addressing table in typed arrays (linear probing, backward-shift
 * deletion), so the hot path allocates nothing and memory is fixed at creation. Each ring entry
 * also remembers its table cell, so evicting the oldest entry needs no probe to find it.
 */
export interface DedupWindow {
  /** Records that subscriber `subId` receives the event; false when it already did (a duplicate). */
  admit(key: number, check: number, subId: number): boolean;
  /**
   * `admit` for a fingerprint given as two unsigned 32-bit halves (`fpHi()`, `fpLo()`): the same
   * entry as `admit(fpKey(), fpCheck(), subId)`, without building and splitting a 53-bit number.
   */
  admitPair(hi: number, lo: number, subId: number): boolean;
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
  const his = new Uint32Array(capacity);
  const los = new Uint32Array(capacity);
  const cell = new Int32Array(capacity); // table cell of each ring slot
  const subs: (number | number[])[] = new Array<number | number[]>(capacity).fill(0);
  let pos = 0;
  let filled = 0;
  let evicted = 0;

  const home = (hi: number, lo: number): number => (Math.imul(hi ^ lo, 0x9e3779b1) >>> 0) & mask;

  /** Removes ring slot `slot` from the table; backward-shift deletion keeps every probe chain unbroken. */
  const remove = (slot: number): void => {
    let i = cell[slot]!;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const s = table[j]!;
      if (s === -1) break;
      const k = home(his[s]!, los[s]!);
      const between = i <= j ? i < k && k <= j : i < k || k <= j;
      if (between) continue;
      table[i] = s;
      cell[s] = i;
      i = j;
    }
    table[i] = -1;
  };

  const admitPair = (hi: number, lo: number, subId: number): boolean => {
    let i = home(hi, lo);
    for (;;) {
      const s = table[i]!;
      if (s === -1) break;
      if (los[s] === lo && his[s] === hi) {
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
      i = home(hi, lo); // the shift may have moved the free cell: probe again
      while (table[i] !== -1) i = (i + 1) & mask;
    } else filled++;
    his[pos] = hi;
    los[pos] = lo;
    subs[pos] = subId;
    table[i] = pos;
    cell[pos] = i;
    pos = pos + 1 === capacity ? 0 : pos + 1;
    return true;
  };

  return {
    admit(key, check, subId) {
      // key: 53 bits (upper 21 in the high half), check: 11 bits (the top of the high half), as fpKey/fpCheck
      const lo = key >>> 0;
      const hi = ((key - lo) / TWO32) | (check << 21);
      return admitPair(hi >>> 0, lo, subId);
    },
    admitPair,
    get size() {
      return filled;
    },
    get evicted() {
      return evicted;
    },
  };
}
