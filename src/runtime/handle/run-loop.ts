/**
 * The deployment handle's run on the one lifecycle (core/lifecycle.ts), which bounds its stop:
 * the start assembles the mode's parts (run-assembly.ts) and starts the engine, each step named
 * and abandoned when a stop aborts it; the drain waits for the intents in flight (on the run
 * clock); the halt stops the engine, the feed watch and the decision log, reads the end state and
 * closes what the run owns (its grace on wall time, `deps.haltGraceMs`); the report is the
 * `ShutdownReport`, with what the stop abandoned.
 */
import {
  ChainpilotError,
  createLifecycle,
  describeError,
  isChainpilotError,
  systemClock,
  untilAborted,
  type Clock,
  type LifecycleEnd,
  type LifecycleRunner,
  type TimerHandle,
  type UnixMs,
} from '../../core/index.js';
import type { LoadedDeployment } from '../../config/index.js';
import type { RunSummary } from '../../engine/logs/engine-stats.js';
import type { Assembly } from '../compose/assembly.js';
import type { LiveEndState } from '../live/live-run-view.js';
import type { DeploymentMode, ShutdownIntentReport, ShutdownReport } from './deployment-handle.js';
import type { FeedWatch } from './feed-watch.js';
import { bump, type HandleCounters } from './handle-events.js';
import { emptySummary } from './handle-views.js';
import { assembleRun, ownedParts, type RunAssemblyOptions } from './run-assembly.js';
import type { Cause } from './run-conditions.js';

/**
 * Default time the handle's halt may run past the stop's deadline, on wall time. The halt stops
 * what the run owns, each part within its own deadline (a recorder writes out for up to 30 s of
 * wall time, a simulator closes its sockets), so its grace covers the longest of them.
 */
export const HANDLE_HALT_GRACE_MS = 60_000;

export interface RunLoopOptions extends Omit<RunAssemblyOptions, 'owned' | 'signal' | 'step' | 'onLiveEnd'> {
  readonly counters: HandleCounters;
}

export interface RunLoop {
  readonly life: LifecycleRunner<ShutdownReport>;
  /** The mode's parts, once assembled. */
  assembly(): Assembly | undefined;
  watch(): FeedWatch | undefined;
  startedAt(): UnixMs | undefined;
  liveEnd(): LiveEndState | undefined;
  /** Now on the run clock (the injected clock before the parts exist, else wall time). */
  now(): UnixMs;
  /** The engine's run summary, or an empty one before the engine is assembled. */
  summary(): RunSummary;
}

/** What the halt found, for the report (read even when the halt is abandoned before the end). */
interface EndState {
  drainedWithinDeadline: boolean;
  intents?: ShutdownIntentReport[];
  summary?: RunSummary;
}

export function createRunLoop(o: RunLoopOptions): RunLoop {
  const d = o.loaded.deployment;
  const { conditions, events, log } = o;
  const wall = systemClock();
  const owned = ownedParts(log, o.counters);
  let a: Assembly | undefined;
  let watch: FeedWatch | undefined;
  let startedAt: UnixMs | undefined;
  let liveEnd: LiveEndState | undefined;
  let step: string | undefined;
  let startFailure: Cause | undefined;
  let stopBegun = false;
  let halted = false;
  let drain: { drained: boolean | undefined; drainMs: number } = { drained: undefined, drainMs: 0 };
  let end: EndState | undefined;

  const now = (): UnixMs => (a?.clock ?? o.deps.clock)?.now() ?? (Date.now() as UnixMs);
  const summary = (): RunSummary => a?.engine.stats.summary() ?? emptySummary(now());

  const start = async (signal: AbortSignal): Promise<void> => {
    const stepTo = (what: string): void => {
      if (signal.aborted) throw signal.reason as Error;
      step = what;
    };
    conditions.enter('starting');
    try {
      stepTo(`assembling the ${o.mode} run`);
      const run = await assembleRun({ ...o, owned, signal, step: stepTo, onLiveEnd: (s) => (liveEnd = s) });
      a = run.assembly;
      watch = run.watch;
      if (halted) await watch.stop(); // the stop abandoned this start and already halted
      const assembly = run.assembly;
      if (d.risk.killSwitch) events.alert('warn', 'RISK_KILL_SWITCH', 'risk.killSwitch is set in the deployment: no new buys');
      assembly.engine.onStrategyHalted((strategyId, message) => {
        // The state is unchanged (the other strategies trade): holders see it in the alert and in health.
        events.alert('error', 'ENGINE_STRATEGY_HALTED', message);
        log.error({ strategyId }, 'a strategy halted: the deployment runs degraded');
      });
      stepTo('starting the engine');
      const engineStarted = assembly.engine.start();
      let running = false;
      // an engine that starts after its start was abandoned stops at once
      const stopLate = (): void => void engineStarted.then(() => (running ? undefined : assembly.engine.stop(AbortSignal.abort()))).catch(() => undefined);
      signal.addEventListener('abort', stopLate, { once: true });
      await untilAborted(engineStarted, signal);
      running = true;
      signal.removeEventListener('abort', stopLate);
      startedAt = assembly.clock.now();
      conditions.enter('running', undefined, startedAt);
      conditions.settle();
      conditions.applyFeedPolicy(run.watch.loss());
      assembly.go?.();
    } catch (e) {
      if (signal.aborted) throw signal.reason as Error; // a stop came during the start: the lifecycle halts the part
      const err = isChainpilotError(e)
        ? e
        : new ChainpilotError('RUNTIME_START_FAILED', `${d.name} could not start: ${describeError(e)}`, { retry: 'not_retryable', cause: e });
      startFailure = { code: err.code, message: err.message };
      throw err;
    }
  };

  /** The stop begins: no new intents from here on; the intents in flight now are the report's. */
  const beginStop = (): void => {
    if (stopBegun) return;
    stopBegun = true;
    if (conditions.state === 'created') return; // never started: straight to stopped
    if (a) o.listeners.stopPhases.call('stop');
    conditions.enter('stopping');
    a?.tracker.markDrain();
  };

  const halt = async (): Promise<void> => {
    halted = true;
    if (startFailure) {
      await watch?.stop();
      await owned.closeAll();
      conditions.enter('failed', startFailure);
      return;
    }
    beginStop();
    const assembly = a;
    if (!assembly) {
      await owned.closeAll();
      return;
    }
    const { tracker, engine } = assembly;
    o.listeners.stopPhases.call('drained');
    const e: EndState = { drainedWithinDeadline: drain.drained ?? tracker.pending().length === 0 };
    end = e;
    if (!e.drainedWithinDeadline)
      log.warn({ drainMs: drain.drainMs, pending: tracker.pending().length }, 'drain deadline passed; unresolved intents are left to the next start');
    // Past the deadline the executor is told to stop at once (live: intents stay in the journal).
    await engine
      .stop(e.drainedWithinDeadline ? undefined : AbortSignal.abort())
      .catch((err: unknown) => log.error({ err: describeError(err) }, 'engine stop failed'));
    await watch?.stop();
    await assembly.closeDecisionLog().catch((err: unknown) => log.error({ err: describeError(err) }, 'closing the decision log failed'));
    e.intents = tracker.outcomes();
    if (assembly.describeIntents) e.intents = await assembly.describeIntents(e.intents).catch(() => tracker.outcomes());
    try {
      await assembly.afterStop?.();
    } catch (err) {
      bump(o.counters, 'closeErrors');
      log.error({ err: describeError(err) }, 'reading the end state failed');
    }
    e.summary = engine.stats.summary();
    await owned.closeAll();
  };

  const report = (lifeEnd: LifecycleEnd): ShutdownReport => {
    const abandoned = lifeEnd.abandoned.length > 0 ? { abandoned: lifeEnd.abandoned } : {};
    if (startFailure) {
      if (conditions.state !== 'failed') conditions.enter('failed', startFailure); // its halt was abandoned
      return { name: d.name, drainedWithinDeadline: true, intents: [], summary: summary(), fatal: startFailure, ...abandoned };
    }
    const assembly = a;
    if (!assembly) {
      conditions.enter('stopped');
      return { name: d.name, drainedWithinDeadline: true, intents: [], summary: emptySummary(now()), fatal: undefined, ...abandoned };
    }
    const r: ShutdownReport = {
      name: d.name,
      drainedWithinDeadline: end?.drainedWithinDeadline ?? false,
      intents: end?.intents ?? assembly.tracker.outcomes(),
      summary: end?.summary ?? assembly.engine.stats.summary(),
      fatal: conditions.fatal,
      ...abandoned,
    };
    events.emit({ type: 'shutdown', at: now(), report: r });
    conditions.enter('stopped', conditions.fatal);
    return r;
  };

  const life = createLifecycle<ShutdownReport>(
    {
      name: d.name,
      start,
      startStep: () => step,
      drain: async (signal, drainMs) => {
        beginStop();
        drain = { drained: undefined, drainMs: drainMs ?? 0 };
        if (!a) return;
        drain.drained = await a.tracker.whenIdle(signal).then(
          () => true,
          () => false,
        );
      },
      halt,
      report,
    },
    {
      // the run clock once the parts exist (the embedded simulator's, or the injected one); before, the injected or wall time
      clock: followingClock(() => a?.clock ?? o.deps.clock ?? o.deps.simulatorClock ?? wall),
      log,
      defaultDrainMs: defaultDrainMs(o.loaded, o.mode),
      haltGraceMs: o.deps.haltGraceMs ?? HANDLE_HALT_GRACE_MS,
      haltClock: wall,
    },
  );

  return {
    life,
    assembly: () => a,
    watch: () => watch,
    startedAt: () => startedAt,
    liveEnd: () => liveEnd,
    now,
    summary,
  };
}

/**
 * `shutdown.drain`; in live mode `live.drainTimeout` wins when the file sets it (it predates
 * `shutdown.drain` and is kept so that older files keep their meaning).
 */
function defaultDrainMs(loaded: LoadedDeployment, mode: DeploymentMode): number {
  const d = loaded.deployment;
  const legacySet = loaded.locate(['live', 'drainTimeout']) !== loaded.locate(['live']);
  return mode === 'live' && legacySet ? d.live.drainTimeout : d.shutdown.drain;
}

/** A clock that is whichever clock `current` names now; each timer stays on the clock it was set on. */
function followingClock(current: () => Clock): Clock {
  const timers = new Map<number, { readonly clock: Clock; readonly handle: TimerHandle }>();
  let next = 1;
  return {
    now: () => current().now(),
    setTimeout(fn, delayMs) {
      const id = next++;
      const clock = current();
      const handle = clock.setTimeout(() => {
        timers.delete(id);
        fn();
      }, delayMs);
      timers.set(id, { clock, handle });
      return { id };
    },
    clearTimeout(h) {
      const t = timers.get(h.id);
      if (!t) return;
      timers.delete(h.id);
      t.clock.clearTimeout(t.handle);
    },
  };
}
