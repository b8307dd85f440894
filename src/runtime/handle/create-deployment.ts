/**
 * `createDeployment(loaded, deps)`: the one way a deployment runs (design.md §2). The handle is the
 * project's one lifecycle (core/lifecycle.ts) around its run (run-loop.ts: the mode's assembly,
 * the drain and its report), with the deployment's own sub-state on top (run-conditions.ts: the
 * feed policy, fatal halts, pauses and the kill switch) and its events (handle-events.ts). The
 * mode's composition root (paper-deployment.ts, live-deployment.ts) builds the parts inside
 * `start()` on the injected clock, connection and executor where given. A handle never touches
 * `process`, stdout or signals: the CLI shells (shell/run-paper.ts, shell/run-live.ts) do.
 */
import { ChainpilotError, createRedactor, silentLogger, type Clock, type UnixMs } from '../../core/index.js';
import type { LoadedDeployment } from '../../config/index.js';
import type { ControlMark } from '../../engine/logs/control-mark.js';
import type { ManualDecision } from '../../engine/logs/decision-log.js';
import type { Engine } from '../../engine/engine.js';
import type { RuntimeDeps, StartInfo } from '../compose/assembly.js';
import type { LiveEndState } from '../live/live-run-view.js';
import type { DeploymentHandle, DeploymentHealth, DeploymentMode, DeploymentStats, FeedHealth } from './deployment-handle.js';
import { LIVE_STATES } from './deployment-states.js';
import { createHandleEvents, type HandleCounters } from './handle-events.js';
import { EMPTY_FEED, positionViews, riskView } from './handle-views.js';
import { createRunConditions } from './run-conditions.js';
import { createRunLoop } from './run-loop.js';

export type { RuntimeDeps } from '../compose/assembly.js';
export { HANDLE_HALT_GRACE_MS } from './run-loop.js';

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

/** Builds a handle; nothing is started, connected or opened until `start()`. */
export function createDeployment(loaded: LoadedDeployment, deps: RuntimeDeps = {}): RuntimeHandle {
  const d = loaded.deployment;
  const mode: DeploymentMode = deps.mode ?? (d.mode === 'live' ? 'live' : 'paper');
  const log = (deps.log ?? silentLogger()).child({ deployment: d.name });
  const redactor = deps.redactor ?? createRedactor();
  for (const s of loaded.secrets) redactor.add(s);
  const counters: HandleCounters = { listenerErrors: 0, fatal: 0, closeErrors: 0 };
  const now = (): UnixMs => run.now();
  const events = createHandleEvents({ log, counters, now });
  const listeners = {
    stopPhases: events.fanout<'stop' | 'drained'>('stop-phase'),
    manuals: events.fanout<ManualDecision>('manual-decision'),
    controls: events.fanout<ControlMark>('control'),
  };
  const engine = (): Engine | undefined => run.assembly()?.engine;
  const conditions = createRunConditions({
    name: d.name,
    onLoss: d.feed.onLoss,
    log,
    events,
    counters,
    now,
    killReason: () => {
      const risk = engine()?.risk;
      return risk?.killed ? (risk.day.killReason ?? 'no reason given') : undefined;
    },
    controls: listeners.controls,
  });
  const run = createRunLoop({
    loaded,
    deps,
    mode,
    log,
    redactor,
    seed: deps.seed ?? d.endpoints.simulator?.seed ?? 1,
    conditions,
    events,
    listeners,
    counters,
  });
  const { life } = run;
  let startCalled = false;
  let stopCalled = false;
  const feedHealth = (): FeedHealth => run.watch()?.health().feed ?? EMPTY_FEED;

  const handle: RuntimeHandle = {
    name: d.name,
    mode,
    start() {
      const refused = startCalled ? `was already started (state ${conditions.state})` : stopCalled ? 'was stopped' : undefined;
      if (refused !== undefined)
        return Promise.reject(new ChainpilotError('RUNTIME_HANDLE_STATE', `start(): ${d.name} ${refused}; create a new handle`, { retry: 'not_retryable' }));
      startCalled = true;
      return life.start();
    },
    stop(options) {
      stopCalled = true;
      return life.stop(options?.drainMs !== undefined ? { drainMs: options.drainMs } : {});
    },
    health(): DeploymentHealth {
      const feed = feedHealth();
      const reasons: string[] = [];
      const state = conditions.state;
      if (state !== 'running' && state !== 'paused' && state !== 'killed') reasons.push(`state is ${state}`);
      if (!feed.connected) reasons.push(`feed is ${feed.state}`);
      // Readiness follows the feed watch: entries paused for the feed (stale, lost) are not ready.
      else if (conditions.feedPause) reasons.push(`entries paused for the feed: ${conditions.feedPause.code}: ${conditions.feedPause.message}`);
      const strategiesHalted = engine()?.haltedStrategies() ?? [];
      for (const h of strategiesHalted) reasons.push(`ENGINE_STRATEGY_HALTED: ${h.message}`);
      for (const g of conditions.degradations) reasons.push(g.message.startsWith(`${g.code}:`) ? g.message : `${g.code}: ${g.message}`);
      const abandoned = life.health().abandoned;
      return {
        name: d.name,
        mode,
        state,
        cause: conditions.cause,
        ready: reasons.length === 0,
        reasons,
        feed,
        startedAt: run.startedAt(),
        at: now(),
        ...(strategiesHalted.length > 0 ? { strategiesHalted: strategiesHalted.map((h) => h.strategyId) } : {}),
        ...(abandoned ? { abandoned } : {}),
      };
    },
    summary: () => run.summary(),
    stats(): DeploymentStats {
      const e = engine();
      const risk = riskView(e, now(), d.risk.dailyLossLimitLamports, d.risk.maxExposureLamports);
      if (!e) return { summary: run.summary(), positions: [], pending: [], risk, denialsByCode: {} };
      return {
        summary: run.summary(),
        positions: positionViews(e),
        pending: run.assembly()?.tracker.pending() ?? [],
        risk,
        denialsByCode: Object.fromEntries(e.stats.denialsByCode),
        reconciliation: { submitsUnknown: e.stats.submitsUnknown, unknownReports: e.stats.unknownReports },
      };
    },
    events: { on: (listener) => events.on(listener) },
    kill(reason) {
      engine()?.kill(reason);
      events.alert('warn', 'RISK_KILL_SWITCH', `kill switch on: ${reason}`);
      conditions.settle();
      return Promise.resolve();
    },
    unkill() {
      engine()?.unkill();
      events.alert('info', 'RISK_KILL_SWITCH', 'kill switch cleared');
      conditions.settle();
      return Promise.resolve();
    },
    pause: (reason) => conditions.pause(reason),
    resume: () => conditions.resume(),
    done: () => life.done(),
    manual(action, meta) {
      const e = engine();
      if (!e || !LIVE_STATES.has(conditions.state))
        return { ok: false, code: 'RUNTIME_HANDLE_STATE', reason: `${d.name} is ${conditions.state}: manual actions need a running deployment` };
      // Read before placing: the engine joins the price room of a buy it has no price for.
      const unpriced = action.action === 'enter' && e.market.get(action.mint)?.price === undefined;
      const r = e.manual(action, meta);
      log.warn(
        { action: action.action, by: meta.by, ok: r.ok, ...(r.ok ? { intentId: r.intentId, waitsForPrice: unpriced } : { code: r.code }) },
        'manual action',
      );
      return r.ok && unpriced ? { ...r, waitsForPrice: true } : r;
    },
    startInfo: () => run.assembly()?.info,
    liveEnd: () => run.liveEnd(),
    counters: () => ({ ...counters, ...prefixed('feed.', run.watch()?.counters() ?? {}), ...prefixed('live.', run.assembly()?.counters?.() ?? {}) }),
    clock: () => run.assembly()?.clock,
  };
  return handle;
}

function prefixed(prefix: string, o: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [`${prefix}${k}`, v]));
}
