/**
 * `createDeployment(loaded, deps)`: the one way a deployment runs (design.md §2). The handle owns
 * the lifecycle (states, the feed policy, fatal halts, kill switch, the drain and its report); the
 * mode's composition root (paper-deployment.ts, live-deployment.ts) builds the parts inside
 * `start()` on the injected clock, connection and executor where given. A handle never touches
 * `process`, stdout or signals: the CLI shells (run-paper.ts, run-live.ts) do.
 */
import { ChainpilotError, createRedactor, describeError, isChainpilotError, silentLogger, type Clock, type ErrorCode, type UnixMs } from '../../core/index.js';
import type { LoadedDeployment } from '../../config/index.js';
import type { DecisionEntry, ManualDecision } from '../../engine/decision-log.js';
import type { Assembly, AssemblyContext, RuntimeDeps, StartInfo } from '../compose/assembly.js';
import type {
  DeploymentEvent,
  DeploymentHandle,
  DeploymentHealth,
  DeploymentMode,
  DeploymentState,
  DeploymentStats,
  FeedHealth,
  PositionView,
  ShutdownReport,
} from './deployment-handle.js';
import { deploymentStateMachine, LIVE_STATES, runningState } from './deployment-states.js';
import { createFeedWatch, seenFeed, type FeedWatch } from './feed-watch.js';
import { createIntentTracker } from './intent-tracker.js';
import { assembleLive } from '../live/live-deployment.js';
import type { LiveEndState } from '../live/live-run-view.js';
import { assemblePaper } from '../paper/paper-deployment.js';
import { STOPPING_DENIAL } from './stopping-denial.js';
import type { AdmissionRefusal, ControlMark } from '../../engine/control-mark.js';

export type { RuntimeDeps } from '../compose/assembly.js';

type Cause = { readonly code: string; readonly message: string };

/** What decides the state of a started handle, and the feed-loss episode already alerted. */
interface Conditions {
  /** The first fatal error (it also halts). */
  fatal?: Cause;
  halted?: Cause;
  feedPause?: Cause;
  operatorPause?: Cause;
  /** The loss last alerted under `feed.onLoss: continue` (one alert per episode). */
  lossNoted?: string;
}

/** The runtime's handle: the contract plus what the CLI shells print. */
export interface RuntimeHandle extends DeploymentHandle {
  /** What start-up found (strategies, endpoint, warnings, reconciliation notes); undefined before start. */
  startInfo(): StartInfo | undefined;
  /** Live: wallet and journal after the drain; undefined otherwise. */
  liveEnd(): LiveEndState | undefined;
  /** Counters of the handle (listener errors, feed problems, fatal errors). */
  counters(): Readonly<Record<string, number>>;
  /** The run clock (the embedded simulator's, the injected one, or the system clock); undefined before start. */
  clock(): Clock | undefined;
}

const EMPTY_FEED: FeedHealth = {
  state: 'connecting',
  connected: false,
  lastFrameAt: undefined,
  framesPerSec: 0,
  frames: 0,
  gaps: 0,
  reconnects: 0,
  rejected: 0,
  rejectedByFamily: {},
  dropped: 0,
  backfillFailures: 0,
};

/** Builds a handle; nothing is started, connected or opened until `start()`. */
export function createDeployment(loaded: LoadedDeployment, deps: RuntimeDeps = {}): RuntimeHandle {
  const d = loaded.deployment;
  const mode: DeploymentMode = deps.mode ?? (d.mode === 'live' ? 'live' : 'paper');
  const log = (deps.log ?? silentLogger()).child({ deployment: d.name });
  const redactor = deps.redactor ?? createRedactor();
  for (const s of loaded.secrets) redactor.add(s);
  const seed = deps.seed ?? d.endpoints.simulator?.seed ?? 1;
  const listeners = new Set<(e: DeploymentEvent) => void>();
  const counters: Record<string, number> = { listenerErrors: 0, fatal: 0, closeErrors: 0 };
  const owned: (() => Promise<void> | void)[] = [];
  /** Listeners the composed parts register (the recorder); one that throws is logged and counted, never stops the others. */
  const fanout = <T>(what: string): { add: (listener: (value: T) => void) => void; call: (value: T) => void; readonly size: () => number } => {
    const ls: ((value: T) => void)[] = [];
    return {
      add: (listener) => void ls.push(listener),
      size: () => ls.length,
      call(value) {
        for (const l of ls) {
          try {
            l(value);
          } catch (err) {
            counters['listenerErrors'] = (counters['listenerErrors'] ?? 0) + 1;
            log.warn({ err: describeError(err), listener: what }, `a ${what} listener threw`);
          }
        }
      },
    };
  };
  const stopPhases = fanout<'stop' | 'drained'>('stop-phase');
  const manuals = fanout<ManualDecision>('manual-decision');
  const controls = fanout<ControlMark>('control');
  /** The admission and kill switch last told to the control listeners (JSON of each, `null` before the first). */
  const told: { entries: string | null; kill: string | null } = { entries: null, kill: null };
  // The lifecycle: states and transitions in one table (deployment-states.ts); which of the
  // started states holds is derived from the conditions below.
  const machine = deploymentStateMachine(d.name);
  const cond: Conditions = {};
  /** The cause last announced with a state event (a changed cause in the same state is announced too). */
  let cause: Cause | undefined;
  let a: Assembly | undefined;
  let watch: FeedWatch | undefined;
  let startedAt: UnixMs | undefined;
  let started: Promise<void> | undefined;
  let stopping: Promise<ShutdownReport> | undefined;
  let liveEnd: LiveEndState | undefined;
  let resolveDone: (r: ShutdownReport) => void = () => undefined;
  const donePromise = new Promise<ShutdownReport>((r) => (resolveDone = r));
  const done = { promise: donePromise, resolve: (r: ShutdownReport) => resolveDone(r) };

  const now = (): UnixMs => (a?.clock ?? deps.clock)?.now() ?? (Date.now() as UnixMs);
  /** The engine's run summary, or an empty one before the engine is assembled. */
  const runSummary = (): ReturnType<typeof emptySummary> => a?.engine.stats.summary() ?? emptySummary(now());
  const emit = (e: DeploymentEvent): void => {
    for (const l of listeners) {
      try {
        l(e);
      } catch (err) {
        counters['listenerErrors'] = (counters['listenerErrors'] ?? 0) + 1;
        log.warn({ err: describeError(err), event: e.type }, 'a deployment event listener threw');
      }
    }
  };
  const alert = (level: 'info' | 'warn' | 'error', code: string, message: string): void => emit({ type: 'alert', at: now(), level, code, message });

  /** Moves to `next` and announces it with its cause. */
  const enter = (next: DeploymentState, why?: Cause, at: UnixMs = now()): void => {
    machine.to(next);
    cause = why;
    emit({ type: 'state', at, state: next, ...(why ? { cause: why } : {}) });
  };

  /**
   * The state while running and its one cause, both derived from the conditions in force (halted >
   * killed > paused > running), so a cause never outlives its condition: after pause, resume, kill
   * and unkill the cause is empty again; while killed it is the kill reason.
   */
  const settle = (): void => {
    if (!LIVE_STATES.has(machine.state)) return;
    const killReason = a?.engine.risk.killed ? (a.engine.risk.day.killReason ?? 'no reason given') : undefined;
    tellControl(killReason);
    const pause = cond.operatorPause ?? cond.feedPause;
    const next = runningState({ halted: cond.halted !== undefined, killed: killReason !== undefined, paused: pause !== undefined });
    const nextCause: Cause | undefined =
      next === 'halted'
        ? cond.halted
        : next === 'killed'
          ? { code: 'RISK_KILL_SWITCH', message: `kill switch on: ${killReason ?? ''}` }
          : next === 'paused'
            ? pause
            : undefined;
    if (next === machine.state && sameCause(nextCause, cause)) return;
    if (next === machine.state) {
      cause = nextCause;
      emit({ type: 'state', at: now(), state: next, ...(nextCause ? { cause: nextCause } : {}) });
    } else enter(next, nextCause);
  };

  const admission = (side: 'buy' | 'sell'): { code: ErrorCode; reason: string } | undefined => {
    if (machine.state === 'stopping' || machine.state === 'stopped') return STOPPING_DENIAL;
    return conditionsAdmit(side);
  };
  /** The admission by the conditions in force (the stop aside): what a recording's control marks carry. */
  function conditionsAdmit(side: 'buy' | 'sell'): AdmissionRefusal | undefined {
    const { halted } = cond;
    if (halted) return { code: 'RUNTIME_HALTED', reason: `the deployment is halted (${halted.code}: ${halted.message}); restart after fixing the cause` };
    const why = cond.operatorPause ?? cond.feedPause;
    if (side === 'buy' && why) return { code: 'RUNTIME_ENTRIES_PAUSED', reason: `entries are paused: ${why.message}` };
    return undefined;
  }
  /** Tells the control listeners (the recorder) what changed in the run's admission and kill switch since they were last told. */
  function tellControl(killReason: string | undefined): void {
    if (controls.size() === 0) return;
    const entries: ControlMark = { kind: 'entries', buy: conditionsAdmit('buy') ?? null, sell: conditionsAdmit('sell') ?? null };
    const kill: ControlMark = { kind: 'kill', on: killReason !== undefined, reason: killReason ?? null };
    const e = JSON.stringify(entries);
    // the first look tells only what is not the default (admits both sides, kill switch off)
    if (e !== (told.entries ?? JSON.stringify({ kind: 'entries', buy: null, sell: null }))) controls.call(entries);
    told.entries = e;
    const k = JSON.stringify(kill);
    if (k !== (told.kill ?? JSON.stringify({ kind: 'kill', on: false, reason: null }))) controls.call(kill);
    told.kill = k;
  }

  const onFatal = (e: ChainpilotError): void => {
    counters['fatal'] = (counters['fatal'] ?? 0) + 1;
    if (cond.fatal) return;
    cond.fatal = { code: e.code, message: e.message };
    cond.halted = cond.fatal;
    log.error({ code: e.code, err: e.message }, 'fatal error: the deployment halts (no new intents)');
    alert('error', e.code, `fatal: ${e.message}; the deployment is halted`);
    settle();
  };

  const applyFeedPolicy = (): void => {
    if (!watch || !LIVE_STATES.has(machine.state)) return;
    const loss = watch.loss();
    const policy = d.feed.onLoss;
    if (loss && !cond.feedPause && policy !== 'continue') {
      if (policy === 'halt') {
        if (!cond.halted) {
          cond.halted = loss;
          alert('error', loss.code, `${loss.message}; feed.onLoss: halt stops new intents`);
        }
      } else {
        cond.feedPause = loss;
        alert('warn', loss.code, `${loss.message}; new buys are paused until the feed is healthy (exits keep working)`);
      }
    } else if (loss && policy === 'continue' && cond.lossNoted !== loss.message) {
      cond.lossNoted = loss.message;
      alert('warn', loss.code, `${loss.message}; feed.onLoss: continue keeps trading`);
    } else if (!loss && cond.feedPause) {
      cond.feedPause = undefined;
      alert('info', 'RUNTIME_FEED_LOST', 'the feed is healthy again; new buys resume');
    }
    if (!loss) cond.lossNoted = undefined;
    settle();
  };

  const context = (): AssemblyContext => ({
    loaded,
    deployment: d,
    deps,
    redactor,
    log,
    seed,
    admission,
    onFatal,
    decisions: (entry: DecisionEntry) => {
      deps.decisions?.(entry);
      if (entry.kind === 'manual') manuals.call(entry);
      emit({ type: 'decision', at: entry.at as UnixMs, entry });
    },
    onStopPhase: stopPhases.add,
    onManual: manuals.add,
    onControl: controls.add,
    own: (close) => void owned.push(close),
    watchFeed: (feed) => seenFeed(feed, (msg) => watch?.messageSeen(msg.receivedAt)),
    track: (inner, clock) =>
      createIntentTracker({
        inner,
        clock,
        log,
        onFatal,
        onSubmit: (intent) => {
          // The engine hands intents over while it dispatches the event that triggered them.
          const trigger = a?.engine.dispatching();
          emit({ type: 'intent', at: intent.createdAt, intent, ...(trigger ? { eventReceivedAt: trigger.receivedAt } : {}) });
        },
        onReport: (r, intent) => {
          if (r.type === 'filled') {
            emit({ type: 'fill', at: r.at, strategyId: intent?.strategyId ?? '', fill: r.fill });
            if (a) emit({ type: 'equity', at: r.at, equityLamports: a.engine.portfolio.totals().equityLamports });
          } else if (r.type !== 'accepted')
            emit({
              type: 'intent-ended',
              at: r.at,
              intentId: r.intentId,
              outcome: r.type,
              code: r.type === 'expired' ? 'EXPIRED' : r.code,
              reason: r.type === 'expired' ? 'blockhash expired; nothing landed' : r.reason,
            });
        },
      }),
  });

  const closeOwned = async (): Promise<void> => {
    for (const close of owned.splice(0).reverse()) {
      try {
        await close();
      } catch (e) {
        counters['closeErrors'] = (counters['closeErrors'] ?? 0) + 1;
        log.warn({ err: describeError(e) }, 'closing a part of the deployment failed');
      }
    }
  };

  const startOnce = async (): Promise<void> => {
    enter('starting');
    try {
      a = mode === 'live' ? await assembleLive(context(), (s) => void (liveEnd = s)) : await assemblePaper(context());
      const assembly = a;
      watch = createFeedWatch({
        clock: assembly.clock,
        source: assembly.connection.watch,
        staleAfterMs: d.feed.staleAfter,
        log: log.child({ part: 'feed' }),
        ...(assembly.caughtUp ? { caughtUp: assembly.caughtUp } : {}),
        onChange: (health) => {
          emit({ type: 'feed', at: assembly.clock.now(), health });
          applyFeedPolicy();
        },
      });
      if (d.risk.killSwitch) alert('warn', 'RISK_KILL_SWITCH', 'risk.killSwitch is set in the deployment: no new buys');
      assembly.engine.onStrategyHalted((strategyId, message) => {
        // The state is unchanged (the other strategies trade): holders see it in the alert and in health.
        alert('error', 'ENGINE_STRATEGY_HALTED', message);
        log.error({ strategyId }, 'a strategy halted: the deployment runs degraded');
      });
      await assembly.engine.start();
      startedAt = assembly.clock.now();
      enter('running', undefined, startedAt);
      settle();
      applyFeedPolicy();
      assembly.go?.();
    } catch (e) {
      const err = isChainpilotError(e)
        ? e
        : new ChainpilotError('RUNTIME_START_FAILED', `${d.name} could not start: ${describeError(e)}`, { retry: 'not_retryable', cause: e });
      const failure = { code: err.code, message: err.message };
      await watch?.stop();
      await closeOwned();
      enter('failed', failure);
      const report: ShutdownReport = {
        name: d.name,
        drainedWithinDeadline: true,
        intents: [],
        summary: runSummary(),
        fatal: failure,
      };
      done.resolve(report);
      throw err;
    }
  };

  const stopOnce = async (drainMs: number): Promise<ShutdownReport> => {
    if (started) await started.catch(() => undefined);
    if (machine.state === 'failed') return done.promise;
    const assembly = a;
    if (!assembly) {
      const report: ShutdownReport = { name: d.name, drainedWithinDeadline: true, intents: [], summary: emptySummary(now()), fatal: undefined };
      enter('stopped');
      done.resolve(report);
      return report;
    }
    machine.to('stopping');
    cause = undefined;
    stopPhases.call('stop');
    emit({ type: 'state', at: now(), state: 'stopping' });
    const { clock, tracker, engine } = assembly;
    tracker.markDrain();
    const deadline = new AbortController();
    const timer = clock.setTimeout(() => deadline.abort(), drainMs);
    let drainedWithinDeadline = true;
    try {
      await tracker.whenIdle(deadline.signal);
    } catch {
      drainedWithinDeadline = false;
      log.warn({ drainMs, pending: tracker.pending().length }, 'drain deadline passed; unresolved intents are left to the next start');
    } finally {
      clock.clearTimeout(timer);
    }
    stopPhases.call('drained');
    // Past the deadline the executor is told to stop at once (live: intents stay in the journal).
    await engine
      .stop(drainedWithinDeadline ? undefined : AbortSignal.abort())
      .catch((e: unknown) => log.error({ err: describeError(e) }, 'engine stop failed'));
    await watch?.stop();
    await assembly.closeDecisionLog().catch((e: unknown) => log.error({ err: describeError(e) }, 'closing the decision log failed'));
    let intents = tracker.outcomes();
    if (assembly.describeIntents) intents = await assembly.describeIntents(intents).catch(() => intents);
    try {
      await assembly.afterStop?.();
    } catch (e) {
      counters['closeErrors'] = (counters['closeErrors'] ?? 0) + 1;
      log.error({ err: describeError(e) }, 'reading the end state failed');
    }
    const summary = engine.stats.summary();
    await closeOwned();
    const report: ShutdownReport = { name: d.name, drainedWithinDeadline, intents, summary, fatal: cond.fatal };
    emit({ type: 'shutdown', at: now(), report });
    enter('stopped', cond.fatal);
    done.resolve(report);
    return report;
  };

  const feedHealth = (): FeedHealth => watch?.health().feed ?? EMPTY_FEED;

  const handle: RuntimeHandle = {
    name: d.name,
    mode,
    start() {
      if (started)
        return Promise.reject(
          new ChainpilotError('RUNTIME_HANDLE_STATE', `start(): ${d.name} was already started (state ${machine.state}); create a new handle`, {
            retry: 'not_retryable',
          }),
        );
      if (stopping)
        return Promise.reject(new ChainpilotError('RUNTIME_HANDLE_STATE', `start(): ${d.name} was stopped; create a new handle`, { retry: 'not_retryable' }));
      started = startOnce();
      return started;
    },
    stop(options) {
      stopping ??= stopOnce(options?.drainMs ?? defaultDrainMs(loaded, mode));
      return stopping;
    },
    health(): DeploymentHealth {
      const feed = feedHealth();
      const reasons: string[] = [];
      const state = machine.state;
      if (state !== 'running' && state !== 'paused' && state !== 'killed') reasons.push(`state is ${state}`);
      if (!feed.connected) reasons.push(`feed is ${feed.state}`);
      // Readiness follows the feed watch: entries paused for the feed (stale, lost) are not ready.
      else if (cond.feedPause) reasons.push(`entries paused for the feed: ${cond.feedPause.code}: ${cond.feedPause.message}`);
      const strategiesHalted = a?.engine.haltedStrategies() ?? [];
      for (const h of strategiesHalted) reasons.push(`ENGINE_STRATEGY_HALTED: ${h.message}`);
      return {
        name: d.name,
        mode,
        state,
        cause,
        ready: reasons.length === 0,
        reasons,
        feed,
        startedAt,
        at: now(),
        ...(strategiesHalted.length > 0 ? { strategiesHalted: strategiesHalted.map((h) => h.strategyId) } : {}),
      };
    },
    summary: runSummary,
    stats(): DeploymentStats {
      const engine = a?.engine;
      if (!engine)
        return {
          summary: runSummary(),
          positions: [],
          pending: [],
          risk: riskView(undefined, now(), d.risk.dailyLossLimitLamports, d.risk.maxExposureLamports),
          denialsByCode: {},
        };
      const positions: PositionView[] = engine.portfolio.open().map((p) => {
        const value = engine.portfolio.valueOf(p);
        const lv = engine.exitLevels(p.key);
        return {
          strategyId: p.strategyId,
          mint: p.mint,
          tokenRaw: p.tokenRaw,
          decimals: p.decimals,
          costLamports: p.costLamports,
          valueLamports: value,
          unrealisedLamports: value === undefined ? undefined : value - p.costLamports,
          realisedLamports: p.realisedLamports,
          openedAt: p.openedAt,
          ...(lv
            ? {
                exits: {
                  entryPrice: lv.entry.toFixed(),
                  takeProfit: lv.takeProfit.map((t) => ({ level: t.level + 1, multiple: t.multiple, price: t.price.toFixed() })),
                  stopLossPrice: lv.stopLoss?.toFixed(),
                  trailingStopPrice: lv.trailing?.toFixed(),
                  timeStopAt: lv.timeStopAt,
                },
              }
            : {}),
        };
      });
      return {
        summary: runSummary(),
        positions,
        pending: a?.tracker.pending() ?? [],
        risk: riskView(engine, now(), d.risk.dailyLossLimitLamports, d.risk.maxExposureLamports),
        denialsByCode: Object.fromEntries(engine.stats.denialsByCode),
        reconciliation: { submitsUnknown: engine.stats.submitsUnknown, unknownReports: engine.stats.unknownReports },
      };
    },
    events: {
      on(listener) {
        listeners.add(listener);
        return () => void listeners.delete(listener);
      },
    },
    kill(reason) {
      a?.engine.kill(reason);
      alert('warn', 'RISK_KILL_SWITCH', `kill switch on: ${reason}`);
      settle();
      return Promise.resolve();
    },
    unkill() {
      a?.engine.unkill();
      alert('info', 'RISK_KILL_SWITCH', 'kill switch cleared');
      settle();
      return Promise.resolve();
    },
    pause(reason) {
      cond.operatorPause = { code: 'RUNTIME_ENTRIES_PAUSED', message: `paused by the operator: ${reason}` };
      settle();
    },
    resume() {
      cond.operatorPause = undefined;
      settle();
    },
    done: () => done.promise,
    manual(action, meta) {
      if (!a || !LIVE_STATES.has(machine.state))
        return { ok: false, code: 'RUNTIME_HANDLE_STATE', reason: `${d.name} is ${machine.state}: manual actions need a running deployment` };
      const r = a.engine.manual(action, meta);
      log.warn({ action: action.action, by: meta.by, ok: r.ok, ...(r.ok ? { intentId: r.intentId } : { code: r.code }) }, 'manual action');
      return r;
    },
    startInfo: () => a?.info,
    liveEnd: () => liveEnd,
    counters: () => ({ ...counters, ...prefixed('feed.', watch?.counters() ?? {}), ...prefixed('live.', a?.counters?.() ?? {}) }),
    clock: () => a?.clock,
  };
  return handle;
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

const sameCause = (x: Cause | undefined, y: Cause | undefined): boolean => x?.code === y?.code && x?.message === y?.message;

function prefixed(prefix: string, o: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [`${prefix}${k}`, v]));
}

/** Risk state from the engine's risk day (day boundary, day-start equity, halt, kill switch: persisted in the store). */
function riskView(engine: Assembly['engine'] | undefined, at: UnixMs, limit: bigint | undefined, maxExposure: bigint | undefined): DeploymentStats['risk'] {
  const totals = engine?.portfolio.totals();
  const day = engine?.risk.day.snapshot();
  const startEquity = day?.dayStartEquityLamports ?? totals?.startingCashLamports ?? 0n;
  const equity = totals?.equityLamports ?? startEquity;
  return {
    dayStartedAt: day?.dayStartedAt ?? at,
    dayStartEquityLamports: startEquity,
    dailyLossLamports: startEquity > equity ? startEquity - equity : 0n,
    dailyLossLimitLamports: limit,
    dailyHalted: engine?.risk.halted(at) ?? false,
    killed: engine?.risk.killed ?? false,
    killReason: day?.killReason,
    exposureLamports: totals?.openCostLamports ?? 0n,
    maxExposureLamports: maxExposure,
  };
}

function emptySummary(at: UnixMs): DeploymentStats['summary'] {
  return {
    startedAt: undefined,
    endedAt: at,
    events: 0,
    frames: 0,
    badFrames: 0,
    intents: 0,
    fills: 0,
    denials: 0,
    rejections: 0,
    refusalsByCode: {},
    trades: 0,
    wins: 0,
    winRate: 0,
    realisedLamports: 0n,
    unrealisedLamports: 0n,
    feesLamports: 0n,
    equityLamports: 0n,
    maxDrawdownLamports: 0n,
    openPositions: 0,
    strategyErrors: 0,
  };
}
