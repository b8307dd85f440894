/**
 * The assembly of one run as the handle starts it: the context the mode's composition root
 * (paper-deployment.ts, live-deployment.ts) builds its parts in, with the handle's admission,
 * fatal errors, decisions, events and the start's signal wired in; then the mode's parts and the
 * feed watch over their connection. What the parts register to close is kept in {@link OwnedParts}.
 */
import { describeError, type Logger, type Redactor, type UnixMs } from '../../core/index.js';
import type { LoadedDeployment } from '../../config/index.js';
import type { ControlMark } from '../../engine/logs/control-mark.js';
import type { DecisionEntry, ManualDecision } from '../../engine/logs/decision-log.js';
import type { Assembly, AssemblyContext, RuntimeDeps } from '../compose/assembly.js';
import { assembleLive } from '../live/live-deployment.js';
import type { LiveEndState } from '../live/live-run-view.js';
import { assemblePaper } from '../paper/paper-deployment.js';
import type { DeploymentMode } from './deployment-handle.js';
import { createFeedWatch, seenFeed, type FeedWatch } from './feed-watch.js';
import { bump, type Fanout, type HandleCounters, type HandleEvents } from './handle-events.js';
import { createIntentTracker } from './intent-tracker.js';
import type { RunConditions } from './run-conditions.js';

/** The parts a run registered to close, closed in reverse order when the handle halts. */
export interface OwnedParts {
  own(close: () => Promise<void> | void): void;
  /** Closes every part (a failure is logged and counted, the others still close); a part owned later closes at once. */
  closeAll(): Promise<void>;
}

export function ownedParts(log: Logger, counters: HandleCounters): OwnedParts {
  const owned: (() => Promise<void> | void)[] = [];
  let closed = false;
  const close = async (c: () => Promise<void> | void): Promise<void> => {
    try {
      await c();
    } catch (e) {
      bump(counters, 'closeErrors');
      log.warn({ err: describeError(e) }, 'closing a part of the deployment failed');
    }
  };
  return {
    own(c) {
      // a start abandoned by its stop may still open parts after the halt: they close at once
      if (closed) void close(c);
      else owned.push(c);
    },
    async closeAll() {
      closed = true;
      for (const c of owned.splice(0).reverse()) await close(c);
    },
  };
}

/** The fan-outs of the composed parts' listeners (the recorder's). */
export interface RunListeners {
  readonly stopPhases: Fanout<'stop' | 'drained'>;
  readonly manuals: Fanout<ManualDecision>;
  readonly controls: Fanout<ControlMark>;
}

export interface RunAssemblyOptions {
  readonly loaded: LoadedDeployment;
  readonly deps: RuntimeDeps;
  readonly mode: DeploymentMode;
  readonly log: Logger;
  readonly redactor: Redactor;
  readonly seed: number;
  readonly conditions: RunConditions;
  readonly events: HandleEvents;
  readonly listeners: RunListeners;
  readonly owned: OwnedParts;
  readonly signal: AbortSignal;
  readonly step: (what: string) => void;
  /** Live: the wallet and journal once the run drained. */
  readonly onLiveEnd: (s: LiveEndState) => void;
}

/** The mode's parts and the watch over their feed. */
export interface AssembledRun {
  readonly assembly: Assembly;
  readonly watch: FeedWatch;
}

/** Builds the mode's parts in the handle's context, then the feed watch (which applies `feed.onLoss` on every change). */
export async function assembleRun(o: RunAssemblyOptions): Promise<AssembledRun> {
  /** The parts and watch once built (the context's callbacks read them later). */
  const built: { assembly?: Assembly; watch?: FeedWatch } = {};
  const { conditions, events, listeners, log } = o;
  const d = o.loaded.deployment;
  const context: AssemblyContext = {
    loaded: o.loaded,
    deployment: d,
    deps: o.deps,
    redactor: o.redactor,
    log,
    seed: o.seed,
    admission: (side) => conditions.admission(side),
    onFatal: (e) => conditions.onFatal(e),
    degrade: (code, message) => conditions.degrade(code, message),
    decisions: (entry: DecisionEntry) => {
      o.deps.decisions?.(entry);
      if (entry.kind === 'manual') listeners.manuals.call(entry);
      events.emit({ type: 'decision', at: entry.at as UnixMs, entry });
    },
    onStopPhase: listeners.stopPhases.add,
    onManual: listeners.manuals.add,
    onControl: listeners.controls.add,
    own: (close) => o.owned.own(close),
    watchFeed: (feed) => seenFeed(feed, (msg) => built.watch?.messageSeen(msg.receivedAt)),
    track: (inner, clock) =>
      createIntentTracker({
        inner,
        clock,
        log,
        onFatal: (e) => conditions.onFatal(e),
        onSubmit: (intent) => {
          // The engine hands intents over while it dispatches the event that triggered them.
          const trigger = built.assembly?.engine.dispatching();
          events.emit({ type: 'intent', at: intent.createdAt, intent, ...(trigger ? { eventReceivedAt: trigger.receivedAt } : {}) });
        },
        onReport: (r, intent) => {
          if (r.type === 'filled') {
            events.emit({ type: 'fill', at: r.at, strategyId: intent?.strategyId ?? '', fill: r.fill });
            if (built.assembly) events.emit({ type: 'equity', at: r.at, equityLamports: built.assembly.engine.portfolio.totals().equityLamports });
          } else if (r.type !== 'accepted')
            events.emit({
              type: 'intent-ended',
              at: r.at,
              intentId: r.intentId,
              outcome: r.type,
              code: r.type === 'expired' ? 'EXPIRED' : r.code,
              reason: r.type === 'expired' ? 'blockhash expired; nothing landed' : r.reason,
            });
        },
      }),
    signal: o.signal,
    step: o.step,
  };
  const a = o.mode === 'live' ? await assembleLive(context, o.onLiveEnd) : await assemblePaper(context);
  built.assembly = a;
  const w = createFeedWatch({
    clock: a.clock,
    source: a.connection.watch,
    staleAfterMs: d.feed.staleAfter,
    log: log.child({ part: 'feed' }),
    ...(a.caughtUp ? { caughtUp: a.caughtUp } : {}),
    onChange: (health) => {
      events.emit({ type: 'feed', at: a.clock.now(), health });
      if (built.watch) conditions.applyFeedPolicy(built.watch.loss());
    },
  });
  built.watch = w;
  return { assembly: a, watch: w };
}
