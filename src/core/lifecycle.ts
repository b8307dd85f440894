/**
 * The one shape of a long-running part (design.md §3): `start`, `stop` with a deadline, `health`,
 * `done`. A part with its own activity over time implements it; a resource that only releases
 * handles keeps `close()` (docs/architecture.md lists which parts are which). Every part, the
 * deployment handle included (runtime/handle/), wraps `createLifecycle`, which holds the rules once.
 *
 * The stop's deadline bounds the stop whatever the part does (docs/runtime.md, "Stopping"):
 * - a stop during the start aborts the start's signal at once and waits for the start at most
 *   until the deadline; a start still pending then is abandoned (the part halts all the same);
 * - the drain runs until the deadline, then its signal aborts and the part halts (a part built and
 *   never started drains too: a recorder writes what it was handed; a part whose start the stop
 *   aborted does not);
 * - the halt runs for what is left of the deadline plus a grace (`haltGraceMs`, default
 *   {@link HALT_GRACE_MS}, on `haltClock`); a halt still running then is abandoned.
 * What a stop gave up on is listed in `health().abandoned` and handed to the part's `report`.
 */
import type { Clock, TimerHandle } from './clock.js';
import type { Logger } from './logger.js';
import { ChainpilotError, describeError } from './errors.js';

/** What every long-running part says of itself. */
export interface LifecycleHealth {
  /** The part's own state name (`running`, `stopped`, ...). */
  readonly state: string;
  /** True when the part does what it is for now. */
  readonly ready: boolean;
  /** Why not ready (empty when ready). */
  readonly reasons: readonly string[];
  /**
   * What the stop gave up on at its deadline, one line each, starting with the step: `start: ...`
   * (a start still pending, or aborted by the stop), `drain: ...` (cut at the deadline), `halt: ...`
   * (still running past the deadline and its grace). Absent when the stop abandoned nothing.
   */
  readonly abandoned?: readonly string[];
}

/** The deadline of a stop: the part drains for at most `drainMs`, then stops at once. */
export interface StopOptions {
  readonly drainMs?: number;
}

/**
 * A long-running part. `start` resolves once it runs (rejects with a coded error otherwise);
 * `stop` is idempotent and resolves with the part's final report once it has stopped, within its
 * deadline; `done` resolves with the same report however the part ended (stopped, or ended by
 * itself).
 */
export interface Lifecycle<Report = void, Health extends LifecycleHealth = LifecycleHealth> {
  start(): Promise<void>;
  stop(options?: StopOptions): Promise<Report>;
  health(): Health;
  done(): Promise<Report>;
}

/** The states {@link createLifecycle} moves a part through. */
export type LifecycleState = 'created' | 'starting' | 'running' | 'stopping' | 'stopped' | 'failed';

/** What a stop gave up on, handed to the part's `report` (see {@link LifecycleHealth.abandoned}). */
export interface LifecycleEnd {
  readonly abandoned: readonly string[];
}

/** What a part gives {@link createLifecycle}: how it comes up, drains, halts and reports. */
export interface LifecycleParts<Report> {
  /** The part's name, in errors and reasons. */
  readonly name: string;
  /**
   * Brings the part up (absent: the part is built running, see `running`). `signal` aborts when a
   * stop comes during the start (its reason is CORE_PART_STOPPED): the start gives up at once and
   * rejects with `signal.reason` (any other rejection is a failed start). The halt runs while a
   * start that ignores it may still be pending, so whatever such a start opens later must close at
   * once.
   */
  readonly start?: (signal: AbortSignal) => Promise<void>;
  /** What the start is doing now (`reconciling the journal`), named when a stop abandons it. */
  readonly startStep?: () => string | undefined;
  /**
   * Finishes the work in hand (queued messages, a job in flight). `signal` aborts when the stop's
   * deadline passes: then `halt` runs at once whether or not the drain has returned. `drainMs` is
   * the stop's deadline (undefined: none given and no default), for a part that hands it on to the
   * parts it holds.
   */
  readonly drain?: (signal: AbortSignal, drainMs: number | undefined) => Promise<void>;
  /**
   * Stops at once: clears timers, closes sockets and handles. Runs once, after the drain or its
   * deadline (or after a failed start); the stop waits for it until the deadline plus the grace.
   */
  readonly halt: () => Promise<void>;
  /** The part's final report, read once, when it has halted or its halt was abandoned. */
  readonly report: (end: LifecycleEnd) => Report;
  /** Why the running part is not ready now (empty: ready). */
  readonly notReady?: () => readonly string[];
}

/** Default time a halt may run past the stop's deadline before the stop returns without it. */
export const HALT_GRACE_MS = 10_000;

export interface LifecycleOptions {
  /** The clock the stop's deadline is timed on (the run's one clock). */
  readonly clock: Clock;
  /** Where a failed drain and anything abandoned are logged (the part halts all the same). */
  readonly log: Logger;
  /**
   * Deadline of a stop given without `drainMs`. Absent, with `delegated`: the parts held choose
   * their own (a deployment handle's `drain` setting).
   */
  readonly defaultDrainMs?: number;
  /**
   * The drain hands the deadline on to parts that each stop within it (the supervisor's deployment
   * handles): no timer of its own races the drain, whose reports would be lost at the very instant
   * the parts finish. The part is bounded by the deadlines of the parts it holds.
   */
  readonly delegated?: boolean;
  /** The part is running once built (its factory started it): `start` resolves at once. */
  readonly running?: boolean;
  /** How long the halt may run past the stop's deadline (default {@link HALT_GRACE_MS}). */
  readonly haltGraceMs?: number;
  /**
   * The clock the halt's grace is timed on (default `clock`). Wall time for a part whose clock may
   * race or stand still while it halts (a run clock moved by the embedded simulator's driver):
   * halting is I/O, which takes real time.
   */
  readonly haltClock?: Clock;
}

/** A {@link Lifecycle} plus what its part needs to say it ended by itself. */
export interface LifecycleRunner<Report> extends Lifecycle<Report> {
  readonly state: LifecycleState;
  /** The part ended by itself (its work is over, or it failed for good): halts it and resolves `done`. */
  end(reason: string): Promise<Report>;
}

/** The stop's deadline: `passed` resolves when it has passed (at once for no deadline or 0 ms). */
interface Deadline {
  readonly passed: Promise<void>;
  /** Aborted when the deadline passes (by `abort`), with CORE_DRAIN_DEADLINE. */
  readonly signal: AbortSignal;
  abort(): void;
  cancel(): void;
}

function stopDeadline(name: string, clock: Clock, ms: number | undefined, abortsOnPass: boolean): Deadline {
  const controller = new AbortController();
  const abort = (): void =>
    controller.abort(
      new ChainpilotError('CORE_DRAIN_DEADLINE', `${name}: drain passed its deadline of ${ms ?? 0} ms; stopped at once`, {
        retry: 'not_retryable',
        context: { part: name, drainMs: ms ?? 0 },
      }),
    );
  if (ms === undefined || ms === 0) return { passed: Promise.resolve(), signal: controller.signal, abort, cancel: () => undefined };
  let timer: TimerHandle | undefined;
  const passed = new Promise<void>((resolve) => {
    timer = clock.setTimeout(() => {
      timer = undefined;
      if (abortsOnPass) abort();
      resolve();
    }, ms);
  });
  return {
    passed,
    signal: controller.signal,
    abort,
    cancel() {
      if (timer) clock.clearTimeout(timer);
      timer = undefined;
    },
  };
}

/**
 * Resolves `'settled'` when `work` settles (rejects when it rejects), or `'abandoned'` once `passed`
 * has resolved and then `graceMs` of `clock` went by, whichever comes first. No timer is left behind.
 */
async function within(work: Promise<unknown>, passed: Promise<void>, clock: Clock, graceMs: number): Promise<'settled' | 'abandoned'> {
  let settled = false;
  let timer: TimerHandle | undefined;
  const over = passed.then(
    () =>
      new Promise<'abandoned'>((resolve) => {
        if (settled) return;
        if (graceMs <= 0) resolve('abandoned');
        else timer = clock.setTimeout(() => resolve('abandoned'), graceMs);
      }),
  );
  try {
    return await Promise.race([work.then(() => 'settled' as const), over]);
  } finally {
    settled = true;
    if (timer) clock.clearTimeout(timer);
  }
}

/**
 * The one implementation of the {@link Lifecycle} rules, which long-running parts wrap: `start`
 * once (again while running: resolves; after a stop: rejects `CORE_PART_STOPPED`); `stop`
 * idempotent (every call returns the one promise) and bounded by its deadline on `clock` (see the
 * module comment); `done` resolving with the same report however the part ended.
 */
export function createLifecycle<Report>(parts: LifecycleParts<Report>, options: LifecycleOptions): LifecycleRunner<Report> {
  const { name } = parts;
  const graceMs = Math.max(0, options.haltGraceMs ?? HALT_GRACE_MS);
  const haltClock = options.haltClock ?? options.clock;
  let state: LifecycleState = options.running ? 'running' : 'created';
  let starting: Promise<void> | undefined = options.running ? Promise.resolve() : undefined;
  /** How the part's own start settled. */
  let startOutcome: Promise<{ readonly failed: false } | { readonly failed: true; readonly error: unknown }> | undefined;
  let giveUpStart: ((reason: unknown) => void) | undefined;
  const startAbort = new AbortController();
  let stopping: Promise<Report> | undefined;
  let halting: Promise<void> | undefined;
  let endReason: string | undefined;
  const abandoned: string[] = [];
  let final: { readonly report: Report } | undefined;
  let resolveDone!: (r: Report) => void;
  let rejectDone!: (e: unknown) => void;
  const done = new Promise<Report>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  // a part nobody awaits `done` on must not raise an unhandled rejection
  done.catch(() => undefined);

  const giveUp = (line: string): void => {
    abandoned.push(line);
    options.log.warn({ part: name, abandoned: line }, `${name}: the stop abandoned ${line}`);
  };
  /** The report, read once; `done` resolves with it. */
  const conclude = (): Report => {
    final ??= { report: parts.report({ abandoned: [...abandoned] }) };
    resolveDone(final.report);
    return final.report;
  };
  /** The part's halt, run once; a failure fails the part. */
  const haltOnce = (): Promise<void> => {
    halting ??= parts.halt().catch((e: unknown) => {
      state = 'failed';
      rejectDone(e);
      throw e;
    });
    return halting;
  };
  /** Halts within what is left of the deadline plus the grace; a halt still running then is abandoned. */
  const haltWithin = async (deadline: Deadline): Promise<void> => {
    const h = haltOnce();
    if ((await within(h, deadline.passed, haltClock, graceMs)) === 'abandoned') {
      giveUp(`halt: still running ${graceMs} ms past the stop's deadline; the stop returned without it`);
      h.catch((e: unknown) => options.log.warn({ part: name, err: describeError(e) }, `${name}: its abandoned halt failed`));
    }
  };

  /** A stop during the start: the start is aborted and waited for until the deadline. */
  const stopStart = async (deadline: Deadline, ms: number | undefined): Promise<void> => {
    const step = parts.startStep?.();
    const what = step === undefined ? 'start' : `start: ${step}`;
    startAbort.abort(
      new ChainpilotError('CORE_PART_STOPPED', `${name}: stopped while starting; the start was aborted`, {
        retry: 'not_retryable',
        context: { part: name, state },
      }),
    );
    const settled = startOutcome ?? Promise.resolve({ failed: false } as const);
    const outcome = await Promise.race([settled, deadline.passed.then(() => 'pending' as const)]);
    if (outcome === 'pending') {
      giveUp(`${what}: still pending at the stop's deadline of ${ms ?? 0} ms`);
      giveUpStart?.(startAbort.signal.reason);
    } else if (outcome.failed && outcome.error === startAbort.signal.reason) giveUp(`${what}: aborted by the stop`);
    else if (outcome.failed) {
      // it failed on its own (a part that ends itself when its start fails): a failed start
      endReason ??= `start failed: ${describeError(outcome.error)}`;
      state = 'failed';
    }
  };

  const drainWithin = async (deadline: Deadline, ms: number | undefined): Promise<void> => {
    const drainFailed = (e: unknown): void => {
      if (deadline.signal.aborted && !options.delegated) return; // cut by the deadline: said below
      options.log.warn({ part: name, err: describeError(e) }, `${name}: its drain failed; it halts now`);
    };
    if (!parts.drain) return;
    if (options.delegated) {
      await parts.drain(deadline.signal, ms).catch(drainFailed);
      return;
    }
    if (ms === undefined || ms <= 0) return;
    const drained = parts.drain(deadline.signal, ms).then(() => 'drained' as const, drainFailed);
    const outcome = await Promise.race([drained, deadline.passed.then(() => 'cut' as const)]);
    if (outcome === 'cut') giveUp(`drain: cut at the stop's deadline of ${ms} ms`);
  };

  const finish = async (drainMs: number | undefined): Promise<Report> => {
    const given = drainMs ?? options.defaultDrainMs;
    const ms = given === undefined ? undefined : Math.max(0, given);
    const deadline = stopDeadline(name, options.clock, ms, !options.delegated);
    try {
      if (state === 'starting') await stopStart(deadline, ms);
      if (state === 'failed') {
        // the start failed before this stop: its halt is under way
        await haltWithin(deadline);
        return conclude();
      }
      // a part that runs, or was built and never started (its work in hand is drained all the same);
      // not one whose start the stop aborted or abandoned
      const drains = state === 'running' || state === 'created';
      state = 'stopping';
      if (drains) await drainWithin(deadline, ms);
      deadline.abort();
      await haltWithin(deadline);
      state = 'stopped';
      return conclude();
    } finally {
      deadline.cancel();
    }
  };

  const begin = (): Promise<void> => {
    state = 'starting';
    const run = (parts.start ?? (() => Promise.resolve()))(startAbort.signal);
    startOutcome = run.then(
      () => ({ failed: false }) as const,
      (error: unknown) => ({ failed: true, error }) as const,
    );
    const settled = run.then(
      () => {
        if (state === 'starting') state = 'running';
      },
      async (e: unknown) => {
        // a stop under way halts the part; otherwise the part that failed to start has ended:
        // it halts, and stop/done give its report
        if (!stopping) {
          endReason ??= `start failed: ${describeError(e)}`;
          state = 'failed';
          await haltOnce().then(conclude, () => undefined);
        }
        throw e;
      },
    );
    // a stop that abandons the start at its deadline ends the start's promise with its reason
    const abandonedAt = new Promise<never>((_, reject) => (giveUpStart = reject));
    return Promise.race([settled, abandonedAt]);
  };

  const runner: LifecycleRunner<Report> = {
    get state() {
      return state;
    },
    start() {
      if (stopping || state === 'stopping' || state === 'stopped' || state === 'failed') {
        return Promise.reject(
          new ChainpilotError('CORE_PART_STOPPED', `${name}: start after stop; a stopped part does not start again, build a new one`, {
            retry: 'not_retryable',
            context: { part: name, state },
          }),
        );
      }
      starting ??= begin();
      return starting;
    },
    stop(o) {
      stopping ??= finish(o?.drainMs);
      return stopping;
    },
    end(reason) {
      endReason ??= reason;
      return runner.stop({ drainMs: 0 });
    },
    health() {
      const gaveUp = abandoned.length > 0 ? { abandoned: [...abandoned] } : {};
      if (state === 'running') {
        const reasons = parts.notReady?.() ?? [];
        return { state, ready: reasons.length === 0, reasons };
      }
      const why =
        state === 'created'
          ? 'not started'
          : state === 'starting'
            ? 'starting'
            : endReason !== undefined
              ? `ended: ${endReason}`
              : state === 'failed'
                ? 'failed'
                : state;
      return { state, ready: false, reasons: [`${name}: ${why}`], ...gaveUp };
    },
    done: () => done,
  };
  return runner;
}

/** The four {@link Lifecycle} members of `l` as plain functions, to spread into a part's object. */
export function lifecycleMembers<Report, Health extends LifecycleHealth>(l: Lifecycle<Report, Health>): Lifecycle<Report, Health> {
  return { start: () => l.start(), stop: (o) => l.stop(o), health: () => l.health(), done: () => l.done() };
}
