/**
 * A slot's life: start a handle on acquired dependencies, follow its state (a halted handle or
 * strategy makes the slot `degraded`), restart it after a failure where the restart policy allows,
 * and drain and stop it. Every failure becomes the slot's state and cause, never a throw; every
 * change of a slot's state is reported through `onSlot`.
 */
import { describeError, type UnixMs } from '../../../core/index.js';
import type { DeploymentHandle, DeploymentState, ShutdownReport } from '../../../runtime/handle/deployment-handle.js';
import type { SlotState } from '../../service-port.js';
import type { SupervisorOptions } from '../supervisor.js';
import { heldDeps } from './held-deps.js';
import { DEFAULT_BACKOFF, nextRestart, restartIsSafe, type Backoff } from './restart-policy.js';
import { causeOf, modeOf, slotView, type Cause, type Slot } from './slot.js';

export interface SlotRunner {
  /** Creates and starts a handle for `s`; failures are the slot's state, never thrown. */
  launch(s: Slot): Promise<void>;
  /** Drains and stops the slot; with `keep`, its dependencies are handed back instead of released (a restart). */
  stop(s: Slot, drainMs?: number, keep?: boolean): Promise<ShutdownReport | undefined>;
}

/** `closed`: true once the supervisor stops (no restart after that). */
export function createSlotRunner(o: SupervisorOptions & { readonly closed: () => boolean }): SlotRunner {
  const backoff: Backoff = o.backoff ?? DEFAULT_BACKOFF;
  const deps = heldDeps(o.log);

  /** Sets the state; `cause` replaces the cause (null clears it), undefined keeps it (restarting keeps the failure's). */
  const setState = (s: Slot, state: SlotState, cause?: Cause | null): void => {
    s.state = state;
    if (cause !== undefined) s.cause = cause ?? undefined;
    o.onSlot?.(slotView(s));
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
    if (o.closed() || s.stopping) return;
    const mode = modeOf(s.loaded);
    if (!restartIsSafe(mode, s.cause)) {
      o.log.error({ deployment: s.name, cause: s.cause }, 'deployment failed; not restarted (unsafe to restart after this cause)');
      setState(s, 'failed');
      void deps.releaseHeld(s);
      return;
    }
    const next = nextRestart(backoff, s.streak, s.startedAt, o.clock.now());
    const delay = next.delayMs;
    s.streak = next.streak;
    s.restartAt = (o.clock.now() + delay) as UnixMs;
    o.log.warn({ deployment: s.name, cause: s.cause, delayMs: delay, restarts: s.restarts }, 'deployment failed; restarting after backoff');
    setState(s, 'restarting');
    const generation = s.generation;
    s.timer = o.clock.setTimeout(() => {
      s.timer = undefined;
      if (o.closed() || s.stopping || s.generation !== generation) return;
      s.restarts += 1;
      s.restartAt = undefined;
      void launch(s);
    }, delay);
  };

  const onEnded = (s: Slot, generation: number, report: ShutdownReport | undefined, error: unknown): void => {
    if (s.generation !== generation || s.stopping || o.closed()) return;
    void deps.detach(s, true).then(() => {
      if (s.generation !== generation || s.stopping || o.closed()) return;
      const cause =
        error !== undefined ? causeOf(error) : (report?.fatal ?? { code: 'RUNTIME_DEPLOYMENT_FAILED', message: 'the deployment stopped by itself' });
      setState(s, 'failed', cause);
      scheduleRestart(s);
    });
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
      await deps.releaseHeld(s);
      handle = o.factory(s.loaded, acquired.deps);
    } catch (e) {
      await deps.detach(s, true);
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
      await deps.detach(s, true);
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
    await deps.detach(s, keep);
    setState(s, 'stopped', null);
    return report;
  };

  return { launch, stop: stopSlot };
}
