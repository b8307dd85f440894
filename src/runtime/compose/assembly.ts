/**
 * What a mode's composition root hands the deployment handle: the engine and its tracked executor
 * on the run's clock and feed connection, plus what to close. Built inside `start()` (the handle's
 * run-assembly.ts gives the context); the handle owns the lifecycle (state, feed policy, fatal
 * halts, drain, report), the assembly owns the parts.
 */
import type { IntentJournal } from '../../executors/journal/journal.js';
import type { Clock, Logger, Redactor } from '../../core/index.js';
import type { Deployment, LoadedDeployment } from '../../config/index.js';
import type { Engine } from '../../engine/engine.js';
import type { Admission } from '../../engine/orders/order-flow.js';
import type { LedgerServicesOptions } from '../../sim/ledger/index.js';
import type { ChainpilotError, ManualClock, UnixMs } from '../../core/index.js';
import type { DecisionSink, ManualDecision } from '../../engine/logs/decision-log.js';
import type { Executor } from '../../engine/orders/execution-port.js';
import type { StreamFeed } from '../../engine/events/feed-port.js';
import type { DeploymentDeps, DeploymentMode, FeedConnection, ShutdownIntentReport } from '../handle/deployment-handle.js';
import type { TrackedExecutor } from '../handle/intent-tracker.js';
import type { LiveConfirmation } from '../live/live-rails.js';
import type { LiveRunView } from '../live/live-run-view.js';
import type { DeploymentTelemetry } from './deployment-telemetry.js';
import type { ControlMark } from '../../engine/logs/control-mark.js';

/** Dependencies of the runtime's composition roots: the contract's, plus what only the CLI and tests pass. */
export interface RuntimeDeps extends DeploymentDeps {
  /** Default: the deployment's `mode` when `live`, else `paper`. */
  readonly mode?: DeploymentMode;
  /** Live mode: how the user confirmed it (`--live`, `--confirm NAME`). */
  readonly confirmation?: LiveConfirmation;
  /** Overrides `endpoints.simulator.speed`. */
  readonly speed?: number | 'max';
  /** Simulated start time of the embedded simulator (default: fixed at max speed, wall time otherwise). */
  readonly simulatorStartAt?: UnixMs;
  /** A manual clock the caller moves, for the embedded simulator (the runtime then never drives time). */
  readonly simulatorClock?: ManualClock;
  /** Ledger knobs of the embedded simulator (live rehearsal; tests: faults, slot time). */
  readonly ledger?: Omit<LedgerServicesOptions, 'onLedger'>;
  /** Live: called once the engine stopped and in-flight intents drained, before anything closes. */
  readonly inspect?: (view: LiveRunView) => Promise<void> | void;
  /** Redactor of the run (secrets of the deployment are added to it). */
  readonly redactor?: Redactor;
  /**
   * Directory of paper stores for deployments whose file names no `store.path` (the daemon:
   * `<data-dir>/stores`); the store is `<storeDir>/<name>.db`. Without it such a paper run keeps its
   * book in memory.
   */
  readonly storeDir?: string;
  /**
   * Schedules the end-of-turn writes of paper books (`PaperBookOptions.defer`; the daemon: one
   * queue for every deployment, drained a few ms per turn, sliced-turns.ts). Default: each book
   * writes at the end of its own turn.
   */
  readonly paperBookWrites?: (write: () => void) => void;
  /**
   * Identity of the market the injected connection trades on (the daemon's shared endpoint): a
   * paper book is resumed only on the market it was kept for.
   */
  readonly market?: string;
  /** Datastream knobs (tests: short liveness). */
  readonly datastream?: { readonly livenessTimeoutMs?: number; readonly backoffBaseMs?: number; readonly backoffCapMs?: number };
  /** Where the deployment's own clients, journal and queue report (daemon: /metrics); absent: nothing is measured. */
  readonly telemetry?: DeploymentTelemetry;
  /**
   * How long the handle's halt may run past the stop's deadline, in ms of wall time, before the
   * stop returns without it (default `HANDLE_HALT_GRACE_MS`, handle/run-loop.ts).
   */
  readonly haltGraceMs?: number;
  /** Live: wraps the journal the in-process executor writes through (tests inject storage failures at its call sites). */
  readonly journal?: (journal: IntentJournal) => IntentJournal;
}

/** What the handle gives an assembly. */
export interface AssemblyContext {
  readonly loaded: LoadedDeployment;
  readonly deployment: Deployment;
  readonly deps: RuntimeDeps;
  readonly redactor: Redactor;
  readonly log: Logger;
  readonly seed: number;
  readonly admission: Admission;
  readonly decisions: DecisionSink;
  readonly onFatal: (error: ChainpilotError) => void;
  /**
   * A condition of `code` that leaves the run trading but degraded (`health()` not ready, naming
   * it; an alert when it begins and ends): set with a message, cleared with undefined.
   */
  readonly degrade: (code: string, message: string | undefined) => void;
  /**
   * Registers a listener of the stop's phases: `stop` when the stop begins (from then on every new
   * intent is refused with ENGINE_STOPPED), `drained` when the drain ended (whatever is still in
   * flight is then stopped). The recorder marks both so that a backtest stops exactly there.
   */
  readonly onStopPhase: (listener: (phase: 'stop' | 'drained') => void) => void;
  /** Registers a listener of manual decisions (journaled, before the action runs): the recorder keeps them for a backtest. */
  readonly onManual: (listener: (entry: ManualDecision) => void) => void;
  /** Registers a listener of changes of what the run admits (pauses, feed pauses, halts, the kill switch): the recorder keeps them for a backtest. */
  readonly onControl: (listener: (mark: ControlMark) => void) => void;
  /** Registers a part to close when the handle stops (closed in reverse order). */
  readonly own: (close: () => Promise<void> | void) => void;
  /** Wraps the engine's feed so the watch sees every delivered message. */
  readonly watchFeed: (feed: StreamFeed) => StreamFeed;
  /** Wraps the mode's executor so the handle sees intents in flight and guards report sinks. */
  readonly track: (inner: Executor, clock: Clock) => TrackedExecutor;
  /** Aborts when the handle is stopped during its start: the assembly gives up (what it owns is closed). */
  readonly signal: AbortSignal;
  /**
   * Names what the start does next (`reconciling the journal`), said in the stop's report when a
   * stop abandons the start; throws the stop's reason when the start was aborted.
   */
  readonly step: (what: string) => void;
}

/** What start-up tells the shell (start line). */
export interface StartInfo {
  readonly strategies: readonly string[];
  readonly where: string;
  readonly warnings: readonly string[];
  readonly notes: readonly string[];
  /** Appended to the start line (live: the wallet, its balance and the journal). */
  readonly detail?: string;
}

export interface Assembly {
  readonly engine: Engine;
  readonly tracker: TrackedExecutor;
  readonly clock: Clock;
  readonly connection: FeedConnection;
  /** True when the server side has nothing unsent for us (embedded simulator). */
  readonly caughtUp?: () => boolean;
  readonly info: StartInfo;
  /** Closes the decision log (after the engine stopped). */
  closeDecisionLog(): Promise<void>;
  /** Live: journal state and signature of intents for the shutdown report. */
  describeIntents?(reports: readonly ShutdownIntentReport[]): Promise<ShutdownIntentReport[]>;
  /** Runs after the engine stopped, before parts close (live: reads the wallet; tests inspect). */
  afterStop?(): Promise<void>;
  /** Counters of the mode's parts (live: chain reads retried, sends failed). */
  counters?(): Readonly<Record<string, number>>;
  /** Starts the embedded simulator's clock once the engine is ready (no frame is missed at start). */
  go?(): void;
}
