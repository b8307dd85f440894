/**
 * Landing times at slot resolution. A journal's landed row carries the block time (whole seconds,
 * as `getTransaction` gives it) and, from journals that record it, the landing slot (`landedSlot`,
 * column `landed_slot`). A chain whose slots are evenly spaced (the simulator's ledger: one slot every
 * `slotMs` of its clock) has slot `s` start at `anchor + s × slotMs`; each landed row says that
 * instant fell in the second of its block time, so the anchor lies in
 * `[blockTime − s × slotMs, blockTime + 1000 − s × slotMs)`, and the rows of one chain together pin it
 * down to the intersection of those intervals (a few rows at different slot phases: a fifth of a
 * second wide at 400 ms slots). The anchor is that intersection's earliest instant: a slot that starts
 * on a whole second has its block time equal to its start, so on a ledger whose slots start on whole
 * seconds every few slots (the simulator's: a rehearsal's ledger starts at a whole second) the earliest
 * instant is exact, where the middle read every landing 100 ms late, after the other trades of its slot
 * (measured by `npm run bench live-drift`: docs/backtesting.md). A landing's time is then its slot's
 * start, not the second floored; on a chain whose slots start elsewhere in the interval, up to its width late.
 *
 * When the intervals do not intersect, the slots were not evenly spaced at `slotMs` (a real cluster,
 * or a simulator paced by the wall clock), and the block time stays the landing time: the fit says so.
 */

/** One landed row of a chain: its landing slot and its block time (ms, a whole second). */
export interface SlotLanding {
  readonly slot: number;
  readonly blockTimeMs: number;
}

/** The slot clock fitted from a chain's landings. */
export interface SlotClock {
  readonly slotMs: number;
  /** When slot 0 would have started (ms): the earliest instant of the interval the landings allow. */
  readonly anchorMs: number;
  /** The width of that interval: each slot may start up to this many ms after the time given. */
  readonly uncertaintyMs: number;
  /** The start of `slot`, in ms. */
  timeOf(slot: number): number;
  /** The slot running at `t` (ms): the last one started at or before it. */
  slotAt(t: number): number;
}

/** Slot time of the simulator's ledger (`slotMs` default) and of Solana's target. */
export const DEFAULT_SLOT_MS = 400;

/**
 * Fits the slot clock of one chain from its landings; undefined when there are none or when they are
 * not consistent with one slot every `slotMs` (the intervals of the anchor do not intersect).
 */
export function fitSlotClock(landings: readonly SlotLanding[], slotMs = DEFAULT_SLOT_MS): SlotClock | undefined {
  if (landings.length === 0) return undefined;
  let lo = -Infinity;
  let hi = Infinity;
  for (const l of landings) {
    const base = l.blockTimeMs - l.slot * slotMs;
    if (base > lo) lo = base;
    if (base + 1000 < hi) hi = base + 1000;
  }
  if (!(lo < hi)) return undefined;
  // the anchor lies in [lo, hi): its earliest instant (see the file's comment)
  const anchorMs = lo;
  return {
    slotMs,
    anchorMs,
    uncertaintyMs: Math.ceil(hi - lo),
    timeOf: (slot) => anchorMs + slot * slotMs,
    slotAt: (t) => Math.floor((t - anchorMs) / slotMs),
  };
}
