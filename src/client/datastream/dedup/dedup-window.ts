/**
 * A bounded window of recently delivered logical events (by fingerprint), remembering which
 * subscribers got each one. Entries live in a ring of `capacity` slots, the oldest evicted first;
 * typed arrays only, so the hot path allocates nothing and memory is fixed at creation.
 *
 * Lookups go through hash buckets whose entries are chained through the ring, newest first: a
 * bucket's head is its newest entry and each entry links to the next older one of its bucket. The
 * oldest entry of the window is therefore the last of its chain, and evicting it costs nothing: its
 * slot is simply reused. A link into a reused slot is recognised because it points to an entry
 * that is no longer older than the one linking to it (ring age is `pos - 1 - slot`, modulo the
 * capacity), which ends the chain there; only a bucket head that is reused has to be cleared.
 * Each entry (both fingerprint halves, the next link and the first subscriber) is 16 bytes in one
 * array, so a probe reads one cache line.
 *
 * The subscribers after an entry's first (one shared connection feeding many handlers: a daemon's
 * deployments) are an interned set, shared by every entry that reached the same subscribers in the
 * same order: each event of a room is handed to the room's subscribers in one order, so a hundred
 * handlers make a chain of 99 sets used by every entry, where an array per entry held 99 ids
 * (113 MB for a full window of 100,000 events at a hundred deployments) and grew by copying on
 * every event. The chains are bounded: past {@link MAX_INTERNED} sets a new chain starts and the
 * old one goes when no entry holds it.
 *
 * Why not open addressing: backward-shift deletion on every eviction (the window is always full in
 * steady state, so every new event evicts one) walked a probe cluster with hard-to-predict branches
 * and touched several arrays; inside the client, where parsing each frame evicts the window from the
 * CPU caches and branch predictors, that cost about 170 ns per new liquidity event.
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

/** Interned subscriber sets kept for reuse before a fresh chain starts (see the module comment). */
export const MAX_INTERNED = 4_096;

/** An immutable set of subscriber ids, with the set one more id leads to (interned). */
class SubscriberSet {
  readonly next = new Map<number, SubscriberSet>();
  constructor(readonly ids: ReadonlySet<number>) {}
}
// an entry: [hi, lo, next older slot of the same bucket (-1: none), first subscriber id]
const HI = 0;
const LO = 1;
const NEXT = 2;
const SUB = 3;

export function createDedupWindow(capacity: number): DedupWindow {
  let bits = 3;
  while (1 << bits < capacity * 2) bits++; // at most half an entry per bucket on average
  const shift = 32 - bits;
  const heads = new Int32Array(1 << bits).fill(-1); // newest slot of each bucket, -1 when empty
  const ring = new Int32Array(capacity * 4);
  // subscribers after the first of each slot: overlapping rooms with different handlers, or one connection shared by many handlers
  const more: (SubscriberSet | undefined)[] = new Array<SubscriberSet | undefined>(capacity).fill(undefined);
  let root = new SubscriberSet(new Set());
  let interned = 0;
  /** `set` with `subId` added, interned. */
  const withSub = (set: SubscriberSet, subId: number): SubscriberSet => {
    const known = set.next.get(subId);
    if (known !== undefined) return known;
    const n = new SubscriberSet(new Set([...set.ids, subId]));
    if (interned >= MAX_INTERNED) {
      // a fresh chain from here on; the sets made so far go when no entry holds them (this one is not linked from them)
      root = new SubscriberSet(new Set());
      interned = 0;
    } else set.next.set(subId, n);
    interned++;
    return n;
  };
  let pos = 0; // the next slot to write (the oldest entry once the ring is full)
  let filled = 0;
  let evicted = 0;

  // Fibonacci hashing (the product's top bits): keys given to `admit` may be structured in their low bits
  const bucketOf = (hi: number, lo: number): number => Math.imul(hi ^ lo, 0x9e3779b1) >>> shift;
  /** Steps since `slot` was written: 0 for the newest entry. */
  const ageOf = (slot: number): number => {
    const a = pos - 1 - slot;
    return a < 0 ? a + capacity : a;
  };

  const admitPair = (hiU: number, loU: number, subId: number): boolean => {
    const hi = hiU | 0;
    const lo = loU | 0;
    const b = bucketOf(hi, lo);
    let slot = heads[b]!;
    let age = slot < 0 ? 0 : ageOf(slot);
    while (slot >= 0) {
      const at = slot << 2;
      if (ring[at + LO] === lo && ring[at + HI] === hi) {
        if (ring[at + SUB] === subId) return false;
        const others = more[slot] ?? root;
        if (others.ids.has(subId)) return false;
        more[slot] = withSub(others, subId);
        return true;
      }
      const next = ring[at + NEXT]!;
      if (next < 0) break;
      const nextAge = ageOf(next);
      if (nextAge <= age) break; // that slot was reused since: everything older is gone
      slot = next;
      age = nextAge;
    }
    const at = pos << 2;
    if (filled === capacity) {
      // evict the oldest entry (the one in this slot): only a bucket head needs unlinking
      const old = bucketOf(ring[at + HI]!, ring[at + LO]!);
      if (heads[old] === pos) heads[old] = -1;
      if (more[pos] !== undefined) more[pos] = undefined;
      evicted++;
    } else filled++;
    ring[at + HI] = hi;
    ring[at + LO] = lo;
    ring[at + NEXT] = heads[b]!;
    ring[at + SUB] = subId;
    heads[b] = pos;
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
