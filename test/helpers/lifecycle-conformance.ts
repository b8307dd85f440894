/**
 * The shared conformance test of `core/lifecycle.ts` `Lifecycle`, run against each real
 * long-running part (test/core/lifecycle-conformance.test.ts): start → health().ready → stop twice
 * resolves the one report → done() resolves it too → start after stop is refused; and, for a part
 * with something to drain, a part stuck draining stops by `drainMs` (the deadline's clock is moved
 * by the test, or the stuck work is proven in hand by an event first). The stop is bounded whatever
 * the part does: a stop during a start that never settles, and a stop whose halt never settles,
 * return by the deadline (plus the halt's grace) and say in `health().abandoned` what they gave up.
 */
import { expect, it, vi } from 'vitest';
import type { Lifecycle, LifecycleHealth } from '../../src/core/index.js';

/**
 * `promise`, or a failure naming `what` once `ms` of wall time went by without it settling: a stop
 * that must return by its deadline fails the test instead of hanging it.
 */
export async function settlesWithin<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms of wall time`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

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

/** A part whose start does not end by itself (a step that never answers, or one that takes minutes). */
export interface SlowStartSubject<Report, Health extends LifecycleHealth> extends ConformanceSubject<Report, Health> {
  /** Resolves once the start is in its step that does not end by itself. */
  readonly inStart: () => Promise<void>;
  /** Moves the deadline's clock past `drainMs` (a manual clock); absent when the deadline runs on wall time. */
  readonly pastDeadline?: (drainMs: number) => void;
  /** Checks what the part's own report says was abandoned (the health's `abandoned` is checked for every part). */
  readonly abandonedIn?: (report: Report) => void;
}

/** A running part whose halt never settles. */
export interface HungHaltSubject<Report, Health extends LifecycleHealth> extends ConformanceSubject<Report, Health> {
  /** Resolves once the part is running (default: `health().ready`). */
  readonly running?: () => Promise<void>;
  /**
   * Moves the clocks past the deadline (`drainMs`) and then the halt's grace (manual clocks); the
   * grace's timer is set once the deadline passed. Absent when both run on wall time.
   */
  readonly pastDeadline?: (drainMs: number) => Promise<void>;
  readonly abandonedIn?: (report: Report) => void;
}

export interface ConformanceCase<Report, Health extends LifecycleHealth> {
  /** Builds the part (started or not: `start` is called either way). */
  readonly make: () => Promise<ConformanceSubject<Report, Health>>;
  /** A part stuck draining, and the deadline its stop is given. */
  readonly stuck?: { readonly drainMs: number; readonly make: () => Promise<StuckSubject<Report, Health>> };
  /** A part whose start never settles (or takes minutes), and the deadline of the stop that comes during it. */
  readonly slowStart?: { readonly drainMs: number; readonly what?: string; readonly make: () => Promise<SlowStartSubject<Report, Health>> };
  /** A part whose halt never settles, and the deadline its stop is given. */
  readonly hungHalt?: { readonly drainMs: number; readonly make: () => Promise<HungHaltSubject<Report, Health>> };
  /**
   * The part starts once only: a second `start`, and a start after stop, reject with this code
   * (the deployment handle: RUNTIME_HANDLE_STATE). Absent: a second start while running resolves,
   * and a start after stop rejects with CORE_PART_STOPPED.
   */
  readonly startOnce?: string;
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
        if (c.startOnce === undefined)
          await part.start(); // idempotent while running
        else await expect(part.start()).rejects.toMatchObject({ code: c.startOnce });
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
        await expect(part.start()).rejects.toMatchObject({ code: c.startOnce ?? 'CORE_PART_STOPPED' });
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

  const slow = c.slowStart;
  if (slow) {
    it(
      `a stop during ${slow.what ?? 'a start that never settles'} aborts the start and returns by its deadline (drainMs ${slow.drainMs}), saying the start was abandoned`,
      async () => {
        const s = await slow.make();
        try {
          const starting = s.part.start();
          const startEnded = starting.then(
            () => 'resolved',
            (e: unknown) => e,
          );
          await s.inStart();
          const stopping = s.part.stop({ drainMs: slow.drainMs });
          expect(s.part.health().ready).toBe(false);
          s.pastDeadline?.(slow.drainMs);
          const report = await settlesWithin(stopping, `the stop during the start (drainMs ${slow.drainMs})`);
          expect(s.part.health().abandoned, 'health().abandoned').toEqual([expect.stringMatching(/^start/)]);
          s.abandonedIn?.(report);
          expect(await s.part.done()).toBe(report);
          expect(s.part.health().ready).toBe(false);
          // the start settled too, refused: the part never ran
          expect(await settlesWithin(startEnded, 'start() after the stop abandoned it')).toMatchObject({ code: expect.any(String) as string });
          await expect(s.part.start()).rejects.toMatchObject({ code: c.startOnce ?? 'CORE_PART_STOPPED' });
        } finally {
          await s.cleanup?.();
        }
      },
      c.timeoutMs ?? 15_000,
    );
  }

  const hung = c.hungHalt;
  if (hung) {
    it(
      `a stop whose halt never settles returns by its deadline (drainMs ${hung.drainMs}) plus the halt's grace, saying the halt was abandoned`,
      async () => {
        const s = await hung.make();
        try {
          await s.part.start();
          if (s.running) await s.running();
          else await vi.waitFor(() => expect(s.part.health().ready).toBe(true), { timeout: 5_000, interval: 20 });
          const stopping = s.part.stop({ drainMs: hung.drainMs });
          await s.pastDeadline?.(hung.drainMs);
          const report = await settlesWithin(stopping, `the stop whose halt hangs (drainMs ${hung.drainMs})`);
          expect(s.part.health().abandoned, 'health().abandoned').toEqual(expect.arrayContaining([expect.stringMatching(/^halt: /)]));
          s.abandonedIn?.(report);
          expect(await s.part.done()).toBe(report);
          expect(await s.part.stop()).toBe(report);
          expect(s.part.health().ready).toBe(false);
        } finally {
          await s.cleanup?.();
        }
      },
      c.timeoutMs ?? 15_000,
    );
  }
}
