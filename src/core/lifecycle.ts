/**
 * The one shape of a long-running part (design.md §3): `start`, `stop` with a deadline, `health`,
 * `done`. A part with its own activity over time implements it; a resource that only releases
 * handles keeps `close()` (docs/architecture.md lists which parts are which). The deployment handle
 * implements it itself (runtime/create-deployment.ts); every other part wraps `createLifecycle`,
 * which holds the rules once.
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

/** What a part gives {@link createLifecycle}: how it comes up, drains, halts and reports. */
export interface LifecycleParts<Report> {
  /** The part's name, in errors and reasons. */
  readonly name: string;
  /** Brings the part up (absent: the part is built running, see `running`). */
  readonly start?: () => Promise<void>;
  /**
   * Finishes the work in hand (queued messages, a job in flight). `signal` aborts when the stop's
   * deadline passes: then `halt` runs at once whether or not the drain has returned. `drainMs` is
   * the stop's deadline (undefined: none given and no default), for a part that hands it on to the
   * parts it holds.
   */
  readonly drain?: (signal: AbortSignal, drainMs: number | undefined) => Promise<void>;
  /** Stops at once: clears timers, closes sockets and handles. Runs once, after the drain or its deadline. */
  readonly halt: () => Promise<void>;
  /** The part's final report, read once it has halted. */
  readonly report: () => Report;
  /** Why the running part is not ready now (empty: ready). */
  readonly notReady?: () => readonly string[];
}

export interface LifecycleOptions {
  /** The clock the stop's deadline is timed on (the run's one clock). */
  readonly clock: Clock;
  /** Where a failed drain is logged (the part halts all the same). */
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
}

/** A {@link Lifecycle} plus what its part needs to say it ended by itself. */
export interface LifecycleRunner<Report> extends Lifecycle<Report> {
  readonly state: LifecycleState;
  /** The part ended by itself (its work is over, or it failed for good): halts it and resolves `done`. */
  end(reason: string): Promise<Report>;
}

/**
 * The one implementation of the {@link Lifecycle} rules, which long-running parts wrap: `start`
 * once (again while running: resolves; after a stop: rejects `CORE_PART_STOPPED`); `stop`
 * idempotent (every call returns the one promise), draining for at most `drainMs` on `clock`, then
 * halting; `done` resolving with the same report however the part ended.
 */
export function createLifecycle<Report>(parts: LifecycleParts<Report>, options: LifecycleOptions): LifecycleRunner<Report> {
  let state: LifecycleState = options.running ? 'running' : 'created';
  let starting: Promise<void> | undefined = options.running ? Promise.resolve() : undefined;
  let stopping: Promise<Report> | undefined;
  /** The halt and report of a part whose start failed. */
  let failed: Promise<Report> | undefined;
  let endReason: string | undefined;
  let resolveDone!: (r: Report) => void;
  let rejectDone!: (e: unknown) => void;
  const done = new Promise<Report>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  // a part nobody awaits `done` on must not raise an unhandled rejection
  done.catch(() => undefined);

  const drainFailed = (e: unknown): void => options.log.warn({ part: parts.name, err: describeError(e) }, `${parts.name}: its drain failed; it halts now`);

  const finish = async (drainMs: number | undefined): Promise<Report> => {
    // a start still in progress completes first: a stop never races the part's own set-up
    if (state === 'starting') await starting?.catch(() => undefined);
    if (failed) return failed;
    state = 'stopping';
    const deadline = new AbortController();
    const given = drainMs ?? options.defaultDrainMs;
    const ms = given === undefined ? undefined : Math.max(0, given);
    if (parts.drain && options.delegated) await parts.drain(deadline.signal, ms).catch(drainFailed);
    else if (parts.drain && ms !== undefined && ms > 0) {
      let timer: TimerHandle | undefined;
      const expired = new Promise<void>((resolve) => {
        timer = options.clock.setTimeout(() => {
          deadline.abort(
            new ChainpilotError('CORE_DRAIN_DEADLINE', `${parts.name}: drain passed its deadline of ${ms} ms; stopped at once`, {
              retry: 'not_retryable',
              context: { part: parts.name, drainMs: ms },
            }),
          );
          resolve();
        }, ms);
      });
      const drained = parts.drain(deadline.signal, ms).catch(drainFailed);
      await Promise.race([drained, expired]);
      if (timer) options.clock.clearTimeout(timer);
    }
    deadline.abort();
    try {
      await parts.halt();
    } catch (e) {
      state = 'failed';
      rejectDone(e);
      throw e;
    }
    state = 'stopped';
    const report = parts.report();
    resolveDone(report);
    return report;
  };

  const runner: LifecycleRunner<Report> = {
    get state() {
      return state;
    },
    start() {
      if (state === 'stopping' || state === 'stopped' || state === 'failed') {
        return Promise.reject(
          new ChainpilotError('CORE_PART_STOPPED', `${parts.name}: start after stop; a stopped part does not start again, build a new one`, {
            retry: 'not_retryable',
            context: { part: parts.name, state },
          }),
        );
      }
      if (!starting) {
        state = 'starting';
        starting = (parts.start ?? (() => Promise.resolve()))().then(
          () => {
            if (state === 'starting') state = 'running';
          },
          async (e: unknown) => {
            // a part that failed to start has ended: it halts, and stop/done give its report
            endReason ??= `start failed: ${describeError(e)}`;
            state = 'failed';
            failed = parts.halt().then(
              () => {
                const report = parts.report();
                resolveDone(report);
                return report;
              },
              (h: unknown) => {
                rejectDone(h);
                throw h;
              },
            );
            await failed.catch(() => undefined);
            throw e;
          },
        );
      }
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
      return { state, ready: false, reasons: [`${parts.name}: ${why}`] };
    },
    done: () => done,
  };
  return runner;
}

/** The four {@link Lifecycle} members of `l` as plain functions, to spread into a part's object. */
export function lifecycleMembers<Report, Health extends LifecycleHealth>(l: Lifecycle<Report, Health>): Lifecycle<Report, Health> {
  return { start: () => l.start(), stop: (o) => l.stop(o), health: () => l.health(), done: () => l.done() };
}
