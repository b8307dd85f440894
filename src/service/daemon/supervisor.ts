/**
 * The daemon's supervisor: one slot per deployment name, each holding a deployment handle. A slot
 * that fails is restarted with capped exponential backoff where that is safe; one deployment's
 * failure never touches another. `apply` turns a freshly read set of deployment files into the
 * running set (start new, drain and stop removed, drain and restart changed, keep the running
 * version of a file that no longer validates) and returns the diff.
 *
 * A restart (after a failure, or of a changed file) keeps the slot's shared dependencies until the
 * next start acquired its own: the endpoint stays open in between, so a paper deployment on a shared
 * embedded simulator resumes its book on the same market (a closed simulator would be a new one).
 */
import {
  cappedBackoff,
  createLifecycle,
  createRedactor,
  describeError,
  isChainpilotError,
  lifecycleMembers,
  type Clock,
  type Lifecycle,
  type Logger,
  type TimerHandle,
  type UnixMs,
} from '../../core/index.js';
import { effectiveConfigYaml, type LoadedDeployment } from '../../config/index.js';
import type { SlotState, SlotView } from '../service-port.js';
import type {
  DeploymentDeps,
  DeploymentEvent,
  DeploymentHandle,
  DeploymentMode,
  DeploymentState,
  ShutdownReport,
} from '../../runtime/handle/deployment-handle.js';

/** Builds a handle; the runtime's `createDeployment`, or a fake in tests. */
export type DeploymentFactory = (loaded: LoadedDeployment, deps: DeploymentDeps) => DeploymentHandle;

/** A deployment file as read for this (re)load: valid, or the coded error that names file and line. */
export type DeploymentSpec =
  | { readonly file: string; readonly hash: string; readonly loaded: LoadedDeployment }
  | { readonly file: string; readonly hash: string; readonly error: { readonly code: string; readonly message: string } };

/** What the supervisor needs per deployment besides the factory: shared deps, released when the slot stops. */
export interface DepsProvider {
  acquire(loaded: LoadedDeployment): Promise<{ readonly deps: DeploymentDeps; release(): Promise<void> }>;
}

export interface ReloadDiff {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  readonly unchanged: readonly string[];
  /** Files that failed validation; a running version of the same deployment keeps running. */
  readonly invalid: readonly { readonly file: string; readonly code: string; readonly message: string; readonly kept?: string }[];
}

export interface SupervisorOptions {
  readonly factory: DeploymentFactory;
  readonly deps: DepsProvider;
  readonly clock: Clock;
  readonly log: Logger;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Called with every event of every deployment (event log, metrics). Must not throw. */
  readonly onEvent?: (deployment: string, event: DeploymentEvent) => void;
  /** Called when a slot's state changes (metrics, dashboard). */
  readonly onSlot?: (slot: SlotView) => void;
}

/**
 * A {@link Lifecycle} built running (`apply` starts slots). `stop({ drainMs })` drains and stops
 * every slot in parallel, each handle within `drainMs` (absent: the deployment's own drain
 * setting), and resolves with their reports; no restart happens afterwards. The health of each
 * deployment is its slot's (`list()`), not the supervisor's.
 */
export interface Supervisor extends Lifecycle<ShutdownReport[]> {
  /** Makes the running set match `specs`; resolves once started/stopped slots settled (not once restarted ones recover). */
  apply(specs: readonly DeploymentSpec[]): Promise<ReloadDiff>;
  list(): SlotView[];
  get(name: string): SlotView | undefined;
}

interface Slot {
  name: string;
  file: string;
  hash: string;
  loaded: LoadedDeployment;
  state: SlotState;
  cause: Cause | undefined;
  /** Set when the error policy halted one of the handle's strategies (cleared by the next start). */
  strategyHalt: Cause | undefined;
  restarts: number;
  /** Failures in a row without a stable run of `backoff.maxMs` between them: the backoff exponent. */
  streak: number;
  startedAt: UnixMs | undefined;
  restartAt: UnixMs | undefined;
  timer: TimerHandle | undefined;
  handle: DeploymentHandle | undefined;
  release: (() => Promise<void>) | undefined;
  /** Dependencies of the previous run, held until the next start acquired its own (see the module comment). */
  held: (() => Promise<void>) | undefined;
  unsubscribe: (() => void) | undefined;
  /** Set when the supervisor itself stops the slot: its end is not a failure. */
  stopping: boolean;
  generation: number;
}

type Cause = { readonly code: string; readonly message: string };

const DEFAULT_BACKOFF = { initialMs: 1_000, maxMs: 60_000 };

/** True when restarting after `cause` could do harm or cannot help: a live store that reported damage, or bad config. */
export function restartIsSafe(mode: DeploymentMode, cause: { readonly code: string } | undefined): boolean {
  if (!cause) return true;
  // A configuration error (the file, a strategy that cannot load or take its parameters, a live rail, a store of
  // another deployment) waits for a reload.
  if (/^(CONFIG_|STRATEGY_(UNKNOWN|LOAD_FAILED|INVALID_PARAMS)$|RUNTIME_LIVE_|RUNTIME_STORE_FOREIGN$)/.test(cause.code)) return false;
  if (mode === 'live' && /^(JOURNAL_|EXEC_|RUNTIME_STORE)/.test(cause.code)) return false;
  return true;
}

const causeOf = (e: unknown): { code: string; message: string } =>
  isChainpilotError(e) ? { code: e.code, message: e.message } : { code: 'RUNTIME_DEPLOYMENT_FAILED', message: describeError(e) };

export function createSupervisor(o: SupervisorOptions): Supervisor {
  const slots = new Map<string, Slot>();
  const backoff = o.backoff ?? DEFAULT_BACKOFF;
  let closed = false;

  const view = (s: Slot): SlotView => ({
    name: s.name,
    file: s.file,
    mode: modeOf(s.loaded),
    state: s.state,
    cause: s.cause,
    restarts: s.restarts,
    restartAt: s.restartAt,
    handle: s.handle,
    effectiveConfig: () => createRedactor(s.loaded.secrets).redact(effectiveConfigYaml(s.loaded.deployment)),
  });
  /** Sets the state; `cause` replaces the cause (null clears it), undefined keeps it (restarting keeps the failure's). */
  const setState = (s: Slot, state: SlotState, cause?: Cause | null): void => {
    s.state = state;
    if (cause !== undefined) s.cause = cause ?? undefined;
    o.onSlot?.(view(s));
  };

  /**
   * The slot's state and its one cause from the handle's current state and cause (never a stale
   * cause of an earlier state): a halted handle, or a running one with a halted strategy, is
   * `degraded`.
   */
  const followHandle = (s: Slot, state: DeploymentState, cause: Cause | undefined): void => {
    if (state === 'halted') setState(s, 'degraded', cause ?? null);
    else if (state === 'running' && s.strategyHalt) setState(s, 'degraded', s.strategyHalt);
    else setState(s, state, cause ?? null);
  };

  const scheduleRestart = (s: Slot): void => {
    if (closed || s.stopping) return;
    const mode = modeOf(s.loaded);
    if (!restartIsSafe(mode, s.cause)) {
      o.log.error({ deployment: s.name, cause: s.cause }, 'deployment failed; not restarted (unsafe to restart after this cause)');
      setState(s, 'failed');
      void releaseHeld(s);
      return;
    }
    if (s.startedAt !== undefined && o.clock.now() - s.startedAt > backoff.maxMs) s.streak = 0;
    const delay = cappedBackoff(s.streak, backoff.initialMs, backoff.maxMs);
    s.streak += 1;
    s.restartAt = (o.clock.now() + delay) as UnixMs;
    o.log.warn({ deployment: s.name, cause: s.cause, delayMs: delay, restarts: s.restarts }, 'deployment failed; restarting after backoff');
    setState(s, 'restarting');
    const generation = s.generation;
    s.timer = o.clock.setTimeout(() => {
      s.timer = undefined;
      if (closed || s.stopping || s.generation !== generation) return;
      s.restarts += 1;
      s.restartAt = undefined;
      void launch(s);
    }, delay);
  };

  const onEnded = (s: Slot, generation: number, report: ShutdownReport | undefined, error: unknown): void => {
    if (s.generation !== generation || s.stopping || closed) return;
    void releaseSlot(s, true).then(() => {
      if (s.generation !== generation || s.stopping || closed) return;
      const cause =
        error !== undefined ? causeOf(error) : (report?.fatal ?? { code: 'RUNTIME_DEPLOYMENT_FAILED', message: 'the deployment stopped by itself' });
      setState(s, 'failed', cause);
      scheduleRestart(s);
    });
  };

  /** Detaches the handle; its dependencies are released, or held for the next start (`keep`). */
  const releaseSlot = async (s: Slot, keep = false): Promise<void> => {
    s.unsubscribe?.();
    s.unsubscribe = undefined;
    s.handle = undefined;
    const release = s.release;
    s.release = undefined;
    if (keep) {
      // Swapped in one step (no await between), so a stop that runs meanwhile sees a consistent slot.
      const old = release ? s.held : undefined;
      if (release) s.held = release;
      await releaseQuietly(s, old);
      return;
    }
    await releaseHeld(s);
    await releaseQuietly(s, release);
  };

  const releaseHeld = async (s: Slot): Promise<void> => {
    const held = s.held;
    s.held = undefined;
    await releaseQuietly(s, held);
  };

  const releaseQuietly = async (s: Slot, release: (() => Promise<void>) | undefined): Promise<void> => {
    if (!release) return;
    try {
      await release();
    } catch (e) {
      o.log.error({ deployment: s.name, err: describeError(e) }, 'releasing shared dependencies failed');
    }
  };

  /** Creates and starts a handle for `s`; failures are the slot's state, never thrown. */
  const launch = async (s: Slot): Promise<void> => {
    s.generation += 1;
    const generation = s.generation;
    setState(s, 'starting', null);
    let handle: DeploymentHandle;
    try {
      const acquired = await o.deps.acquire(s.loaded);
      s.release = () => acquired.release();
      await releaseHeld(s);
      handle = o.factory(s.loaded, acquired.deps);
    } catch (e) {
      await releaseSlot(s, true);
      setState(s, 'failed', causeOf(e));
      scheduleRestart(s);
      return;
    }
    s.handle = handle;
    s.strategyHalt = undefined;
    s.unsubscribe = handle.events.on((ev) => {
      o.onEvent?.(s.name, ev);
      if (s.generation !== generation) return;
      if (ev.type === 'alert' && ev.code === 'ENGINE_STRATEGY_HALTED') {
        s.strategyHalt = { code: ev.code, message: ev.message };
        const h = handle.health();
        followHandle(s, h.state, h.cause);
      } else if (ev.type === 'state' && ev.state !== 'stopped') followHandle(s, ev.state, ev.cause);
    });
    handle.done().then(
      (report) => onEnded(s, generation, report, undefined),
      (e: unknown) => onEnded(s, generation, undefined, e),
    );
    try {
      await handle.start();
      s.startedAt = o.clock.now();
      if (s.generation === generation && s.state === 'starting') {
        const h = handle.health();
        followHandle(s, h.state, h.cause);
      }
    } catch (e) {
      if (s.generation !== generation || s.stopping) return;
      try {
        await handle.stop({ drainMs: 0 });
      } catch (stopError) {
        o.log.error({ deployment: s.name, err: describeError(stopError) }, 'stopping a deployment that failed to start failed too');
      }
      await releaseSlot(s, true);
      setState(s, 'failed', causeOf(e));
      scheduleRestart(s);
    }
  };

  /** Drains and stops the slot; with `keep`, its dependencies are handed back instead of released (a restart). */
  const stopSlot = async (s: Slot, drainMs?: number, keep = false): Promise<ShutdownReport | undefined> => {
    s.stopping = true;
    s.generation += 1;
    if (s.timer) o.clock.clearTimeout(s.timer);
    s.timer = undefined;
    const handle = s.handle;
    let report: ShutdownReport | undefined;
    if (handle) {
      setState(s, 'stopping');
      try {
        report = await handle.stop(drainMs !== undefined ? { drainMs } : {});
      } catch (e) {
        o.log.error({ deployment: s.name, err: describeError(e) }, 'deployment stop failed');
      }
    }
    await releaseSlot(s, keep);
    setState(s, 'stopped', null);
    return report;
  };

  let reports: ShutdownReport[] = [];
  const life = createLifecycle(
    {
      name: 'supervisor',
      drain: async (_signal, drainMs) => {
        closed = true;
        const all = await Promise.all([...slots.values()].map((s) => stopSlot(s, drainMs)));
        reports = all.filter((r): r is ShutdownReport => r !== undefined);
      },
      halt: () => {
        closed = true;
        return Promise.resolve();
      },
      report: () => reports,
    },
    { log: o.log, clock: o.clock, delegated: true, running: true },
  );

  return {
    ...lifecycleMembers(life),
    async apply(specs) {
      const added: string[] = [];
      const removed: string[] = [];
      const changed: string[] = [];
      const unchanged: string[] = [];
      const invalid: { file: string; code: string; message: string; kept?: string }[] = [];
      const wanted = new Map<string, Extract<DeploymentSpec, { loaded: LoadedDeployment }>>();
      const invalidFiles = new Set<string>();
      for (const spec of specs) {
        if ('error' in spec) {
          const kept = [...slots.values()].find((s) => s.file === spec.file);
          invalid.push({ file: spec.file, ...spec.error, ...(kept ? { kept: kept.name } : {}) });
          invalidFiles.add(spec.file);
          continue;
        }
        const name = spec.loaded.deployment.name;
        const other = wanted.get(name);
        if (other) {
          invalid.push({
            file: spec.file,
            code: 'RUNTIME_DAEMON_DUPLICATE_NAME',
            message: `deployment name "${name}" is used by ${other.file} and ${spec.file}; give each deployment its own name`,
          });
          continue;
        }
        wanted.set(name, spec);
      }
      const work: Promise<unknown>[] = [];
      for (const s of [...slots.values()]) {
        const next = wanted.get(s.name);
        if (next === undefined && invalidFiles.has(s.file)) {
          unchanged.push(s.name);
          continue;
        }
        if (next === undefined) {
          removed.push(s.name);
          slots.delete(s.name);
          work.push(stopSlot(s));
        } else if (next.hash !== s.hash || next.file !== s.file || s.state === 'failed') {
          // A changed file, or a failed deployment (its strategy file may have been fixed): drain and start again.
          changed.push(s.name);
          work.push(
            stopSlot(s, undefined, true).then(() => {
              const fresh = newSlot(next);
              fresh.held = s.held;
              s.held = undefined;
              slots.set(fresh.name, fresh);
              return launch(fresh);
            }),
          );
        } else unchanged.push(s.name);
      }
      for (const [name, spec] of wanted) {
        if (slots.has(name) || changed.includes(name)) continue;
        added.push(name);
        const s = newSlot(spec);
        slots.set(name, s);
        work.push(launch(s));
      }
      await Promise.all(work);
      return { added: added.sort(), removed: removed.sort(), changed: changed.sort(), unchanged: unchanged.sort(), invalid };
    },
    list: () => [...slots.values()].map(view).sort((a, b) => a.name.localeCompare(b.name)),
    get(name) {
      const s = slots.get(name);
      return s ? view(s) : undefined;
    },
  };
}

function newSlot(spec: { readonly file: string; readonly hash: string; readonly loaded: LoadedDeployment }): Slot {
  return {
    name: spec.loaded.deployment.name,
    file: spec.file,
    hash: spec.hash,
    loaded: spec.loaded,
    state: 'created',
    cause: undefined,
    strategyHalt: undefined,
    restarts: 0,
    streak: 0,
    startedAt: undefined,
    restartAt: undefined,
    timer: undefined,
    handle: undefined,
    release: undefined,
    held: undefined,
    unsubscribe: undefined,
    stopping: false,
    generation: 0,
  };
}

function modeOf(loaded: LoadedDeployment): DeploymentMode {
  return loaded.deployment.mode === 'live' ? 'live' : 'paper';
}
