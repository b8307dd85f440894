/**
 * `createDeployment(loaded, deps)`: the one way a deployment runs (design.md §2). The handle owns
 * the lifecycle (states, the feed policy, fatal halts, kill switch, the drain and its report); the
 * mode's composition root (paper-deployment.ts, live-deployment.ts) builds the parts inside
 * `start()` on the injected clock, connection and executor where given. A handle never touches
 * `process`, stdout or signals: the CLI shells (run-paper.ts, run-live.ts) do.
 */
import { ChainpilotError, createRedactor, describeError, isChainpilotError, silentLogger, type Clock, type ErrorCode, type UnixMs } from '../core/index.js';
import type { LoadedDeployment } from '../config/index.js';
import type { DecisionEntry } from '../engine/decision-log.js';
import type { Assembly, AssemblyContext, RuntimeDeps, StartInfo } from './assembly.js';
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
import { createFeedWatch, type FeedWatch } from './feed-watch.js';
import { createIntentTracker } from './intent-tracker.js';
import { assembleLive, type LiveEndState } from './live-deployment.js';
import { assemblePaper } from './paper-deployment.js';

export type { RuntimeDeps } from './assembly.js';

type Cause = { readonly code: string; readonly message: string };

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
  let state: DeploymentState = 'created';
  let cause: Cause | undefined;
  let fatal: Cause | undefined;
  let halted: Cause | undefined;
  let feedPause: Cause | undefined;
  let operatorPause: Cause | undefined;
  /** The loss last alerted under `feed.onLoss: continue` (one alert per episode). */
  let lossNoted: string | undefined;
  let stoppingIntents = false;
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

  /** The state while running, from the conditions in force (halted > killed > paused > running). */
  const settle = (): void => {
    if (state !== 'running' && state !== 'paused' && state !== 'halted' && state !== 'killed') return;
    const next: DeploymentState = halted ? 'halted' : a?.engine.risk.killed ? 'killed' : feedPause || operatorPause ? 'paused' : 'running';
    const nextCause = halted ?? (next === 'paused' ? (operatorPause ?? feedPause) : undefined);
    if (next === state && nextCause === cause) return;
    state = next;
    cause = nextCause;
    emit({ type: 'state', at: now(), state, ...(cause ? { cause } : {}) });
  };

  const admission = (side: 'buy' | 'sell'): { code: ErrorCode; reason: string } | undefined => {
    if (stoppingIntents) return { code: 'ENGINE_STOPPED', reason: 'the deployment is stopping: no new intents' };
    if (halted) return { code: 'RUNTIME_HALTED', reason: `the deployment is halted (${halted.code}: ${halted.message}); restart after fixing the cause` };
    if (side === 'buy' && (operatorPause || feedPause)) {
      const why = operatorPause ?? feedPause;
      return { code: 'RUNTIME_ENTRIES_PAUSED', reason: `entries are paused: ${why?.message ?? ''}` };
    }
    return undefined;
  };

  const onFatal = (e: ChainpilotError): void => {
    counters['fatal'] = (counters['fatal'] ?? 0) + 1;
    if (fatal) return;
    fatal = { code: e.code, message: e.message };
    halted = fatal;
    log.error({ code: e.code, err: e.message }, 'fatal error: the deployment halts (no new intents)');
    alert('error', e.code, `fatal: ${e.message}; the deployment is halted`);
    settle();
  };

  const applyFeedPolicy = (): void => {
    if (!watch || (state !== 'running' && state !== 'paused' && state !== 'killed' && state !== 'halted')) return;
    const loss = watch.loss();
    const policy = d.feed.onLoss;
    if (loss && !feedPause && policy !== 'continue') {
      if (policy === 'halt') {
        if (!halted) {
          halted = loss;
          alert('error', loss.code, `${loss.message}; feed.onLoss: halt stops new intents`);
        }
      } else {
        feedPause = loss;
        alert('warn', loss.code, `${loss.message}; new buys are paused until the feed is healthy (exits keep working)`);
      }
    } else if (loss && policy === 'continue' && lossNoted !== loss.message) {
      lossNoted = loss.message;
      alert('warn', loss.code, `${loss.message}; feed.onLoss: continue keeps trading`);
    } else if (!loss && feedPause) {
      feedPause = undefined;
      alert('info', 'RUNTIME_FEED_LOST', 'the feed is healthy again; new buys resume');
    }
    if (!loss) lossNoted = undefined;
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
      emit({ type: 'decision', at: entry.at as UnixMs, entry });
    },
    own: (close) => void owned.push(close),
    watchFeed: (feed) => ({
      subscribe: (room, handler) =>
        feed.subscribe(room, (msg) => {
          watch?.messageSeen(msg.receivedAt);
          handler(msg);
        }),
      onGap: (handler) => feed.onGap(handler),
    }),
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
    state = 'starting';
    emit({ type: 'state', at: now(), state });
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
      await assembly.engine.start();
      startedAt = assembly.clock.now();
      state = 'running';
      emit({ type: 'state', at: startedAt, state });
      settle();
      applyFeedPolicy();
      assembly.go?.();
    } catch (e) {
      const err = isChainpilotError(e)
        ? e
        : new ChainpilotError('RUNTIME_START_FAILED', `${d.name} could not start: ${describeError(e)}`, { retry: 'not_retryable', cause: e });
      cause = { code: err.code, message: err.message };
      watch?.stop();
      await closeOwned();
      state = 'failed';
      emit({ type: 'state', at: now(), state, cause });
      const report: ShutdownReport = {
        name: d.name,
        drainedWithinDeadline: true,
        intents: [],
        summary: a?.engine.stats.summary() ?? emptySummary(now()),
        fatal: cause,
      };
      done.resolve(report);
      throw err;
    }
  };

  const stopOnce = async (drainMs: number): Promise<ShutdownReport> => {
    if (started) await started.catch(() => undefined);
    if (state === 'failed') return done.promise;
    const assembly = a;
    if (!assembly) {
      state = 'stopped';
      const report: ShutdownReport = { name: d.name, drainedWithinDeadline: true, intents: [], summary: emptySummary(now()), fatal: undefined };
      emit({ type: 'state', at: now(), state });
      done.resolve(report);
      return report;
    }
    state = 'stopping';
    stoppingIntents = true;
    emit({ type: 'state', at: now(), state });
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
    // Past the deadline the executor is told to stop at once (live: intents stay in the journal).
    await engine
      .stop(drainedWithinDeadline ? undefined : AbortSignal.abort())
      .catch((e: unknown) => log.error({ err: describeError(e) }, 'engine stop failed'));
    watch?.stop();
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
    const report: ShutdownReport = { name: d.name, drainedWithinDeadline, intents, summary, fatal };
    state = 'stopped';
    emit({ type: 'shutdown', at: now(), report });
    emit({ type: 'state', at: now(), state, ...(fatal ? { cause: fatal } : {}) });
    done.resolve(report);
    return report;
  };

  const feedHealth = (): FeedHealth => watch?.health() ?? EMPTY_FEED;

  const handle: RuntimeHandle = {
    name: d.name,
    mode,
    start() {
      if (started)
        return Promise.reject(
          new ChainpilotError('RUNTIME_HANDLE_STATE', `start(): ${d.name} was already started (state ${state}); create a new handle`, {
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
      if (state !== 'running' && state !== 'paused' && state !== 'killed') reasons.push(`state is ${state}`);
      if (!feed.connected) reasons.push(`feed is ${feed.state}`);
      return { name: d.name, mode, state, cause, ready: reasons.length === 0, reasons, feed, startedAt, at: now() };
    },
    stats(): DeploymentStats {
      const engine = a?.engine;
      if (!engine)
        return {
          summary: emptySummary(now()),
          positions: [],
          pending: [],
          risk: riskView(undefined, now(), d.risk.dailyLossLimitLamports, d.risk.maxExposureLamports),
          denialsByCode: {},
        };
      const positions: PositionView[] = engine.portfolio.open().map((p) => {
        const value = engine.portfolio.valueOf(p);
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
        };
      });
      return {
        summary: engine.stats.summary(),
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
      operatorPause = { code: 'RUNTIME_ENTRIES_PAUSED', message: `paused by the operator: ${reason}` };
      settle();
    },
    resume() {
      operatorPause = undefined;
      settle();
    },
    done: () => done.promise,
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
