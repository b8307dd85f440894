/**
 * The deployment handle: the one way a deployment runs (design.md §2). A composition root builds a
 * handle from a loaded deployment and its dependencies; the CLI commands, the daemon, backtests and
 * tests hold handles. Only the CLI owns process signals and the terminal: a handle never touches
 * `process`, stdout or signals, and every part of one deployment reads the one clock in its deps.
 *
 * This file is the shared contract between the runtime, daemon, backtest, dashboard and scale-out
 * work. Change it only by adding optional members.
 */
import type { RecordTap, RunRecording } from '../compose/recording-port.js';
import type { Clock, Lifecycle, Logger, UnixMs } from '../../core/index.js';
import type { LoadedDeployment } from '../../config/index.js';
import type { DataPort } from '../../engine/strategy/data-lookup.js';
import type { DecisionEntry, DecisionSink } from '../../engine/logs/decision-log.js';
import type { RunSummary } from '../../engine/logs/engine-stats.js';
import type { Executor, Fill, OrderIntent } from '../../engine/orders/execution-port.js';
import type { StreamFeed } from '../../engine/events/feed-port.js';
import type { ManualAction, ManualMeta } from '../../engine/orders/manual-actions.js';
import type { OrderResult } from '../../engine/strategy/strategy-api.js';

/** How the deployment executes (design.md §2): only the composition root knows. */
export type DeploymentMode = 'paper' | 'live' | 'backtest';

/**
 * Lifecycle of a handle (core/lifecycle.ts, with the deployment's sub-state of a started handle).
 * - `created` → `starting` → `running` → `stopping` → `stopped`; a stop during the start goes
 *   `starting` → `stopping` (the start is aborted).
 * - `paused`: entries are paused (operator, or the feed policy); exits keep working.
 * - `halted`: a fatal error (journal corruption, impossible transition, oversold position) or the
 *   daily-loss limit stopped new intents; the cause is in `health().cause`.
 * - `killed`: the kill switch is on (persisted in the store; survives restarts).
 * - `failed`: start or run failed; the handle is stopped and `health().cause` says why.
 */
export type DeploymentState = 'created' | 'starting' | 'running' | 'paused' | 'halted' | 'killed' | 'stopping' | 'stopped' | 'failed';

/** Feed health as the runtime watches it (design.md §4, runtime issue item 3). */
export interface FeedHealth {
  /** `open` while frames arrive; `stale` after `feed.staleAfter` without a frame; `stopped` is final (key refused). */
  readonly state: 'connecting' | 'open' | 'reconnecting' | 'stale' | 'stopped' | 'closed';
  readonly connected: boolean;
  readonly lastFrameAt: UnixMs | undefined;
  /** Frames per second over the last few seconds of the run clock. */
  readonly framesPerSec: number;
  readonly frames: number;
  readonly gaps: number;
  readonly reconnects: number;
  /** Frames or rows rejected by the client (malformed, invalid payload, too large/deep). */
  readonly rejected: number;
  /** Rejects per room family (`latest`, `price:token`, `liquidity`, ...), with a sample reason each. */
  readonly rejectedByFamily: Readonly<Record<string, { readonly count: number; readonly sample: string }>>;
  readonly dropped: number;
  readonly backfillFailures: number;
}

/** Risk state that the store persists (runtime issue item 4). */
export interface RiskStateView {
  /** Start of the current risk day (the configured day boundary), on the run clock. */
  readonly dayStartedAt: UnixMs;
  readonly dayStartEquityLamports: bigint;
  /** Loss so far today (non-negative), against `dailyLossLimitLamports`. */
  readonly dailyLossLamports: bigint;
  readonly dailyLossLimitLamports: bigint | undefined;
  readonly dailyHalted: boolean;
  readonly killed: boolean;
  readonly killReason: string | undefined;
  readonly exposureLamports: bigint;
  readonly maxExposureLamports: bigint | undefined;
}

/** An open position as shown by status, the API and the dashboard. Exact amounts. */
export interface PositionView {
  readonly strategyId: string;
  readonly mint: string;
  readonly tokenRaw: bigint;
  readonly decimals: number;
  readonly costLamports: bigint;
  /** Marked value at the last known price (undefined when no price is known). */
  readonly valueLamports: bigint | undefined;
  readonly unrealisedLamports: bigint | undefined;
  readonly realisedLamports: bigint;
  readonly openedAt: UnixMs;
  /** The exit levels the engine holds for the position; absent when it tracks none (no rules, or not yet). */
  readonly exits?: PositionExitsView;
}

/** A position's exit levels: prices are exact decimal strings (SOL per whole token). */
export interface PositionExitsView {
  /** Average entry price the levels are measured from. */
  readonly entryPrice: string;
  /** Take-profit levels still pending (1-based `level`), as multiples of entry and prices. */
  readonly takeProfit: readonly { readonly level: number; readonly multiple: string; readonly price: string }[];
  readonly stopLossPrice: string | undefined;
  /** The trailing stop's current level, only while armed (the high since entry is above entry). */
  readonly trailingStopPrice: string | undefined;
  /** When the time stop is due, on the run clock. */
  readonly timeStopAt: UnixMs | undefined;
}

/** An intent that has not reached a terminal state, with its journal state where there is one. */
export interface PendingIntentView {
  readonly intent: OrderIntent;
  /** Journal state (`NEW`, `BUILT`, `SIGNED`, `SENT`, ...) for live/queued; `PENDING` for paper. */
  readonly state: string;
}

export interface DeploymentHealth {
  readonly name: string;
  readonly mode: DeploymentMode;
  readonly state: DeploymentState;
  /** Coded cause of `halted`, `failed` or `paused` (by policy), e.g. `{ code: 'JOURNAL_CORRUPT', message }`. */
  readonly cause: { readonly code: string; readonly message: string } | undefined;
  /** True once started, the store reconciled and the feed connected within `feed.staleAfter`. */
  readonly ready: boolean;
  /** Why not ready (empty when ready). */
  readonly reasons: readonly string[];
  readonly feed: FeedHealth;
  readonly startedAt: UnixMs | undefined;
  /** `run clock` time of this health snapshot. */
  readonly at: UnixMs;
  /** Strategies halted by the error policy (the deployment runs degraded); absent when none. */
  readonly strategiesHalted?: readonly string[];
  /** What the stop gave up on at its deadline (`start: ...`, `halt: ...`), as in the report; absent when nothing. */
  readonly abandoned?: readonly string[];
}

export interface DeploymentStats {
  readonly summary: RunSummary;
  readonly positions: readonly PositionView[];
  readonly pending: readonly PendingIntentView[];
  readonly risk: RiskStateView;
  readonly denialsByCode: Readonly<Record<string, number>>;
  /**
   * Execution outcomes the engine had to reconcile: submits whose outcome was unknown (kept in
   * flight) and reports for intents it did not hold (logged, reconciled when attributable).
   */
  readonly reconciliation?: { readonly submitsUnknown: number; readonly unknownReports: number };
}

/** Outcome of one in-flight intent at shutdown (runtime issue item 7). */
export interface ShutdownIntentReport {
  readonly intentId: string;
  readonly mint: string;
  readonly side: 'buy' | 'sell';
  /** `landed`, `failed`, `expired`, `rejected`, or `unresolved` (the next start reconciles it). */
  readonly outcome: 'landed' | 'failed' | 'expired' | 'rejected' | 'unresolved';
  readonly state: string;
  readonly signature?: string;
}

export interface ShutdownReport {
  readonly name: string;
  readonly drainedWithinDeadline: boolean;
  readonly intents: readonly ShutdownIntentReport[];
  readonly summary: RunSummary;
  /** Set when the deployment ended on a fatal error: the CLI exits non-zero. */
  readonly fatal: { readonly code: string; readonly message: string } | undefined;
  /**
   * What the stop gave up on at its deadline, one line each: `start: <step>: ...` (a stop during the
   * start: `reconciling the journal (1 unresolved intent): aborted by the stop`), `halt: ...` (the
   * parts still closing past the deadline and its grace). Absent when the stop abandoned nothing.
   */
  readonly abandoned?: readonly string[];
}

/** What a handle tells its holders. Listeners run synchronously and must not throw (a throw is logged and counted). */
export type DeploymentEvent =
  | { readonly type: 'state'; readonly at: UnixMs; readonly state: DeploymentState; readonly cause?: { readonly code: string; readonly message: string } }
  | { readonly type: 'alert'; readonly at: UnixMs; readonly level: 'info' | 'warn' | 'error'; readonly code: string; readonly message: string }
  | { readonly type: 'decision'; readonly at: UnixMs; readonly entry: DecisionEntry }
  /** `eventReceivedAt`: receive time (run clock) of the domain event whose dispatch placed the intent, when one did. */
  | { readonly type: 'intent'; readonly at: UnixMs; readonly intent: OrderIntent; readonly eventReceivedAt?: UnixMs }
  | { readonly type: 'fill'; readonly at: UnixMs; readonly strategyId: string; readonly fill: Fill }
  | {
      readonly type: 'intent-ended';
      readonly at: UnixMs;
      readonly intentId: string;
      readonly outcome: 'rejected' | 'failed' | 'expired';
      readonly code: string;
      readonly reason: string;
    }
  | { readonly type: 'feed'; readonly at: UnixMs; readonly health: FeedHealth }
  | { readonly type: 'equity'; readonly at: UnixMs; readonly equityLamports: bigint }
  | { readonly type: 'shutdown'; readonly at: UnixMs; readonly report: ShutdownReport };

export interface DeploymentEvents {
  /** Subscribes; returns the unsubscribe. */
  on(listener: (event: DeploymentEvent) => void): () => void;
}

/** A deployment's handle: the project's {@link Lifecycle} with the deployment's report and health, plus its controls. */
export interface DeploymentHandle extends Lifecycle<ShutdownReport, DeploymentHealth> {
  readonly name: string;
  readonly mode: DeploymentMode;
  /** Reconciles the store, connects the feed, starts strategies. Rejects with a coded error (state `failed`). */
  start(): Promise<void>;
  /**
   * Stops new intents, drains in-flight intents until each lands, fails or passes its expiry or
   * `drainMs` (default `shutdown.drain` of the deployment) passes, stops the engine, closes what the
   * handle owns (not shared deps), and returns the per-intent report. Idempotent. A stop during the
   * start aborts it; the stop returns by `drainMs` plus the halt's grace whatever the parts do, its
   * report saying what was abandoned.
   */
  stop(options?: { readonly drainMs?: number }): Promise<ShutdownReport>;
  health(): DeploymentHealth;
  stats(): DeploymentStats;
  /** `stats().summary` alone, without building the positions, pending intents and risk views (what a list row reads). */
  summary(): RunSummary;
  readonly events: DeploymentEvents;
  /** Kill switch: no new buys (persisted in the store; survives restarts). */
  kill(reason: string): Promise<void>;
  /** Clears the kill switch (persisted). */
  unkill(): Promise<void>;
  /** Operator pause of entries (not persisted); exits keep working. */
  pause(reason: string): void;
  resume(): void;
  /** Resolves when the handle reached `stopped` or `failed` by itself (fatal error, duration) or through `stop`. */
  done(): Promise<ShutdownReport>;
  /**
   * An operator's action on a position or an intent (close all or a share, force an entry, cancel
   * a waiting intent), journaled as a `manual` decision with who and why; a forced entry meets the
   * admission check and the risk gate like any buy. The outcome is a value: placed (with the
   * intent id) or denied/refused (with a code). Refused with RUNTIME_HANDLE_STATE before start or
   * after stop.
   */
  manual?(action: ManualAction, meta: ManualMeta): ManualOutcome;
}

/** The endpoint's clients, so that several deployments can share one connection (daemon). */
export interface FeedConnection {
  readonly feed: StreamFeed;
  /** ctx.data look-ups (REST), on the run clock. */
  readonly data: DataPort;
  /** Client state and stats for the feed watch (the Datastream client satisfies it). */
  readonly watch?: FeedWatchSource;
  /** Releases this holder's share (the owner closes the connection when the last share goes). */
  release(): Promise<void>;
  /** Raw frames and client events of a connection shared with other holders (daemon), for `record:`; absent on replays. */
  readonly recordTap?: RecordTap;
}

/** What the runtime watches on a feed: the Datastream client's events and counters. */
export interface FeedWatchSource {
  onEvent(handler: (event: { readonly kind: string } & Readonly<Record<string, unknown>>) => void): () => void;
  readonly state: string;
  /** The client's counters (the Datastream client's `stats()` satisfies it): frames include pings. */
  stats?(): FeedWatchStats;
  /** Frames received so far (`stats().frames` without copying every counter): what the watch's stale check polls. */
  framesReceived?(): number;
}

/** The counters the feed watch reads (a subset of the Datastream client's stats). */
export interface FeedWatchStats {
  readonly frames: number;
  readonly gaps: number;
  readonly reconnects: number;
  readonly parseFailures: number;
  readonly invalidPayloads: number;
  readonly dropped: number;
  readonly backfillFailures: number;
}

/** Dependencies injected by whoever holds the handle; absent ones are built by the composition root. */
export interface DeploymentDeps {
  /** The one clock of the run (default: the embedded simulator's clock, else the system clock). */
  readonly clock?: Clock;
  readonly log?: Logger;
  /** A feed connection to use instead of connecting one (daemon: shared per endpoint; backtest: replay). */
  readonly connection?: FeedConnection;
  /** An executor to use instead of the mode's default (scale-out: the queue executor). */
  readonly executor?: Executor;
  /** Extra decision sink (tests, recorders). */
  readonly decisions?: DecisionSink;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Seed of the run's ids and simulator (overrides the deployment's). */
  readonly seed?: number;
  /** The recorder for `record:` (research's `runRecording`); a deployment that sets `record:` refuses to start without it. */
  readonly recording?: RunRecording;
}

/** The factory every composition root provides (src/runtime/handle/create-deployment.ts). */
export type CreateDeployment = (loaded: LoadedDeployment, deps?: DeploymentDeps) => DeploymentHandle;

/**
 * A manual action's outcome. A forced entry placed while the deployment had observed no price of
 * its token says so (`waitsForPrice`): the engine joined the token's price room, and the fill waits
 * for its first price (paper: up to 10 s of run clock, then rejected with PAPER_NO_PRICE).
 */
export type ManualOutcome = OrderResult | { readonly ok: true; readonly intentId: string; readonly waitsForPrice: true };

export type { DecisionEntry, ManualAction, ManualMeta, OrderResult, RecordTap };
