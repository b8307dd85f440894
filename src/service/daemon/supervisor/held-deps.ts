/**
 * A slot's shared dependencies: released when the slot stops, or held across a restart until the
 * next start acquired its own, so that the endpoint (a shared embedded simulator) stays open in
 * between. A release that throws is logged; it never fails the stop.
 */
import { describeError, type Logger } from '../../../core/index.js';
import type { Slot } from './slot.js';

export interface HeldDeps {
  /** Detaches the handle; its dependencies are released, or held for the next start (`keep`). */
  detach(s: Slot, keep?: boolean): Promise<void>;
  /** Releases what the previous run held (the next start acquired its own, or no start follows). */
  releaseHeld(s: Slot): Promise<void>;
}

export function heldDeps(log: Logger): HeldDeps {
  const releaseQuietly = async (s: Slot, release: (() => Promise<void>) | undefined): Promise<void> => {
    if (!release) return;
    try {
      await release();
    } catch (e) {
      log.error({ deployment: s.name, err: describeError(e) }, 'releasing shared dependencies failed');
    }
  };
  const releaseHeld = async (s: Slot): Promise<void> => {
    const held = s.held;
    s.held = undefined;
    await releaseQuietly(s, held);
  };
  return {
    releaseHeld,
    async detach(s, keep = false) {
      s.unsubscribe?.();
      s.unsubscribe = undefined;
      s.handle = undefined;
      const release = s.release;
      s.release = undefined;
      if (keep) {
        // Swapped in one step (no await between), so a stop that runs meanwhile sees a consistent slot.
        const old = release ? s.held : undefined;
        if (release) s.held = release;
        await releaseQuietly(s, old);
        return;
      }
      await releaseHeld(s);
      await releaseQuietly(s, release);
    },
  };
}
