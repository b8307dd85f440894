/**
 * Landing in simulated time: the ledger produces a slot every `slotMs` of the simulator clock (a new
 * blockhash each), and an accepted transaction is scheduled to land now, in a later slot, or never.
 * `landingTimeOf` is the one place that decides when; today only the landing faults move it (drop,
 * delay, late), and a model of inclusion (slot, inclusion delay, drop and expiry) belongs there.
 * State: the slot timer and the transactions waiting for their slot.
 */
import type { Clock, TimerHandle } from '../../core/index.js';
import type { BlockWindow } from './block-window.js';
import type { LandingFault } from './faults.js';
import type { NativeSvm } from './native-svm.js';
import type { ParsedTx } from './parsed-tx.js';
import type { SignatureStore } from './signature-store.js';
import type { TxExecution } from './tx-execution.js';

/** When an accepted transaction lands: in the slot it was accepted in, in a later slot, or never. */
export type LandingTime = { readonly kind: 'now' } | { readonly kind: 'slot'; readonly slot: number } | { readonly kind: 'never' };

/** Decides when `tx`, accepted now, lands, given its landing fault. */
export function landingTimeOf(tx: ParsedTx, fault: LandingFault | undefined, window: Pick<BlockWindow, 'slot' | 'blockHeight' | 'lastValidOf'>): LandingTime {
  if (fault?.kind === 'drop') return { kind: 'never' };
  if (fault?.kind === 'delay') return { kind: 'slot', slot: window.slot() + Math.max(1, fault.slots) };
  if (fault?.kind === 'late') {
    // The last block its blockhash allows: after a client that gave up early stopped looking.
    const lastValid = window.lastValidOf(tx.recentBlockhash) ?? window.blockHeight();
    return { kind: 'slot', slot: window.slot() + Math.max(1, lastValid - window.blockHeight()) };
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
  const waiting = new Map<number, ParsedTx[]>();
  let timer: TimerHandle | undefined;
  let stopped = false;

  const tick = (): void => {
    if (stopped) return;
    svm.expireBlockhash();
    window.advance(svm.latestBlockhash());
    const due = waiting.get(window.slot());
    if (due) {
      waiting.delete(window.slot());
      // A delayed transaction lands plainly: its fault was the delay.
      for (const tx of due) execution.land(tx, undefined);
    }
    timer = clock.setTimeout(tick, slotMs);
  };

  return {
    accept(tx, fault) {
      const when = landingTimeOf(tx, fault, window);
      if (when.kind === 'never') {
        store.dropped(tx.signature);
      } else if (when.kind === 'slot') {
        store.pending(tx.signature, when.slot);
        const list = waiting.get(when.slot) ?? [];
        list.push(tx);
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
