/**
 * The shared conformance test of `core/lifecycle.ts` `Lifecycle`, run against each real
 * long-running part (test/core/lifecycle-conformance.test.ts): start → health().ready → stop twice
 * resolves the one report → done() resolves it too → start after stop is refused; and, for a part
 * with something to drain, a part stuck draining stops by `drainMs` (the deadline's clock is moved
 * by the test, or the stuck work is proven in hand by an event first).
 */
import { expect, it, vi } from 'vitest';
import type { Lifecycle, LifecycleHealth } from '../../src/core/index.js';

export interface ConformanceSubject<Report, Health extends LifecycleHealth> {
  readonly part: Lifecycle<Report, Health>;
  /** Releases what the test set up around the part (servers, temp dirs); runs after the part stopped. */
  readonly cleanup?: () => Promise<void> | void;
}

export interface StuckSubject<Report, Health extends LifecycleHealth> extends ConformanceSubject<Report, Health> {
  /** Resolves once the work that never finishes is in hand (a request the receiver holds, a job running). */
  readonly inHand: () => Promise<void>;
  /** Moves the deadline's clock past `drainMs` (a manual clock); absent when the deadline runs on wall time. */
  readonly pastDeadline?: (drainMs: number) => void;
  /** Checks that the report says the stop was cut short (work left undone). */
  readonly cutShort: (report: Report) => void;
}

export interface ConformanceCase<Report, Health extends LifecycleHealth> {
  /** Builds the part (started or not: `start` is called either way). */
  readonly make: () => Promise<ConformanceSubject<Report, Health>>;
  /** A part stuck draining, and the deadline its stop is given. */
  readonly stuck?: { readonly drainMs: number; readonly make: () => Promise<StuckSubject<Report, Health>> };
  /** Test timeout (ms) for parts that take a while to come up (a worker thread, a Redis connection). */
  readonly timeoutMs?: number;
}

/** Registers the conformance tests of one part (call inside a `describe`). */
export function lifecycleConformance<Report, Health extends LifecycleHealth>(c: ConformanceCase<Report, Health>): void {
  it(
    'starts and is ready; stop twice resolves one report, which done() resolves with too; a stopped part refuses to start',
    async () => {
      const { part, cleanup } = await c.make();
      try {
        await part.start();
        await part.start(); // idempotent while running
        await vi.waitFor(() => expect(part.health()).toMatchObject({ ready: true, reasons: [] }), { timeout: 5_000, interval: 20 });
        const first = part.stop();
        const second = part.stop({ drainMs: 0 });
        const [a, b] = await Promise.all([first, second]);
        expect(b).toBe(a);
        expect(await part.done()).toBe(a);
        expect(await part.stop()).toBe(a);
        const after = part.health();
        expect(after.ready).toBe(false);
        expect(after.reasons.length).toBeGreaterThan(0);
        await expect(part.start()).rejects.toMatchObject({ code: 'CORE_PART_STOPPED' });
      } finally {
        await part.stop().catch(() => undefined);
        await cleanup?.();
      }
    },
    c.timeoutMs ?? 15_000,
  );

  const stuck = c.stuck;
  if (stuck) {
    it(
      `a part stuck draining stops by its deadline (drainMs ${stuck.drainMs}) and says what it left`,
      async () => {
        const s = await stuck.make();
        try {
          await s.part.start();
          await s.inHand();
          const stopping = s.part.stop({ drainMs: stuck.drainMs });
          // the stop is draining: the part says so, and is not ready
          expect(s.part.health()).toMatchObject({ state: 'stopping', ready: false });
          s.pastDeadline?.(stuck.drainMs);
          const report = await stopping;
          s.cutShort(report);
          expect(await s.part.done()).toBe(report);
          expect(s.part.health().ready).toBe(false);
        } finally {
          await s.part.stop().catch(() => undefined);
          await s.cleanup?.();
        }
      },
      c.timeoutMs ?? 15_000,
    );
  }
}
