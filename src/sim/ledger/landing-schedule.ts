/**
 * Landing in simulated time: the ledger produces a slot every `slotMs` of the simulator clock (a new
 * blockhash each), and an accepted transaction is scheduled to land now, in a later slot, or never.
 * `landingTimeOf` is the one place that decides when: a landing fault (drop, delay, late) first,
 * then the landing model (landing-model.ts: inclusion delay by priority fee and market activity,
 * drop, expiry), drawn from the simulator's seed; without a model a transaction lands at once.
 * State: the slot timer and the transactions waiting for their slot.
 */
import type { Clock, TimerHandle } from '../../core/index.js';
import type { BlockWindow } from './block-window.js';
import type { LandingFault } from './faults.js';
import { readComputeBudget } from './fees.js';
import type { LandingModel } from './landing-model.js';
import type { NativeSvm } from './native-svm.js';
import type { ParsedTx } from './parsed-tx.js';
import type { SignatureStore } from './signature-store.js';
import type { TxExecution } from './tx-execution.js';

/** When an accepted transaction lands: in the slot it was accepted in, in a later slot, or never. */
export type LandingTime = { readonly kind: 'now' } | { readonly kind: 'slot'; readonly slot: number } | { readonly kind: 'never' };

/** The landing model and what it reads of the market. */
export interface LandingInclusion {
  readonly model: LandingModel;
  /** The market's recent swaps per slot. */
  readonly swapsPerSlot: () => number;
}

/**
 * Decides when `tx`, accepted now, lands: its landing fault first (a fault is what a test asked
 * for), then the landing model when there is one; with neither it lands now.
 */
export function landingTimeOf(
  tx: ParsedTx,
  fault: LandingFault | undefined,
  window: Pick<BlockWindow, 'slot' | 'blockHeight' | 'lastValidOf'>,
  inclusion?: LandingInclusion,
): LandingTime {
  if (fault?.kind === 'drop') return { kind: 'never' };
  if (fault?.kind === 'delay') return { kind: 'slot', slot: window.slot() + Math.max(1, fault.slots) };
  // The last block its blockhash allows.
  const slotsLeft = (): number => (window.lastValidOf(tx.recentBlockhash) ?? window.blockHeight()) - window.blockHeight();
  // After a client that gave up early stopped looking.
  if (fault?.kind === 'late') return { kind: 'slot', slot: window.slot() + Math.max(1, slotsLeft()) };
  if (inclusion) {
    // Faults that change how it lands (fail, finalize at once), not when: the model times them too.
    const drawn = inclusion.model.draw({
      cuPriceMicroLamports: readComputeBudget(tx.keyStrings, tx.instructions).cuPriceMicroLamports,
      swapsPerSlot: inclusion.swapsPerSlot(),
      slotsLeft: slotsLeft(),
    });
    return drawn.kind === 'slots' ? { kind: 'slot', slot: window.slot() + drawn.slots } : { kind: 'never' };
  }
  return { kind: 'now' };
}

export interface LandingScheduleDeps {
  readonly clock: Clock;
  readonly slotMs: number;
  readonly svm: Pick<NativeSvm, 'expireBlockhash' | 'latestBlockhash'>;
  readonly window: BlockWindow;
  readonly store: Pick<SignatureStore, 'dropped' | 'pending'>;
  readonly execution: Pick<TxExecution, 'land'>;
  /** The landing model; absent: a transaction without a landing fault lands at once. */
  readonly inclusion?: LandingInclusion;
}

export interface LandingSchedule {
  /** Schedules an accepted transaction by {@link landingTimeOf}: lands it now, queues it for its slot, or drops it. */
  accept(tx: ParsedTx, fault: LandingFault | undefined): void;
  /** Starts producing slots on the clock. */
  start(): void;
  /** Stops producing slots; transactions still waiting never land. */
  stop(): void;
}

/** Creates the schedule; slots start with `start()`. */
export function createLandingSchedule(deps: LandingScheduleDeps): LandingSchedule {
  const { clock, slotMs, svm, window, store, execution } = deps;
  /** By slot: transactions and the fault each lands with (none for a delay fault: the delay was the fault). */
  const waiting = new Map<number, { tx: ParsedTx; fault: LandingFault | undefined }[]>();
  let timer: TimerHandle | undefined;
  let stopped = false;

  const tick = (): void => {
    if (stopped) return;
    svm.expireBlockhash();
    window.advance(svm.latestBlockhash());
    const due = waiting.get(window.slot());
    if (due) {
      waiting.delete(window.slot());
      for (const w of due) execution.land(w.tx, w.fault);
    }
    timer = clock.setTimeout(tick, slotMs);
  };

  return {
    accept(tx, fault) {
      const when = landingTimeOf(tx, fault, window, deps.inclusion);
      if (when.kind === 'never') {
        store.dropped(tx.signature);
      } else if (when.kind === 'slot') {
        store.pending(tx.signature, when.slot);
        const list = waiting.get(when.slot) ?? [];
        // A delayed transaction lands plainly: its fault was the delay.
        list.push({ tx, fault: fault?.kind === 'delay' || fault?.kind === 'late' ? undefined : fault });
        waiting.set(when.slot, list);
      } else {
        execution.land(tx, fault);
      }
    },
    start() {
      timer = clock.setTimeout(tick, slotMs);
    },
    stop() {
      stopped = true;
      if (timer) clock.clearTimeout(timer);
    },
  };
}
