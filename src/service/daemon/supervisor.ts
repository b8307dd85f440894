/**
 * The daemon's supervisor: one slot per deployment name, each holding a deployment handle. A slot
 * that fails is restarted with capped exponential backoff where that is safe; one deployment's
 * failure never touches another. `apply` turns a freshly read set of deployment files into the
 * running set (start new, drain and stop removed, drain and restart changed, keep the running
 * version of a file that no longer validates) and returns the diff.
 *
 * Its parts (`supervisor/`): a slot's record and view (slot.ts), its life (slot-runner.ts: start,
 * follow, restart, stop), when a restart is safe and how long it waits (restart-policy.ts), the
 * dependencies a restart holds (held-deps.ts), and what a reload changes (reload-plan.ts).
 *
 * A restart (after a failure, or of a changed file) keeps the slot's shared dependencies until the
 * next start acquired its own: the endpoint stays open in between, so a paper deployment on a shared
 * embedded simulator resumes its book on the same market (a closed simulator would be a new one).
 */
import { createLifecycle, lifecycleMembers, type Clock, type Lifecycle, type Logger } from '../../core/index.js';
import type { LoadedDeployment } from '../../config/index.js';
import type { SlotView } from '../service-port.js';
import type { DeploymentDeps, DeploymentEvent, DeploymentHandle, ShutdownReport } from '../../runtime/handle/deployment-handle.js';
import { planReload } from './supervisor/reload-plan.js';
import { restartIsSafe } from './supervisor/restart-policy.js';
import { newSlot, slotView, type Slot } from './supervisor/slot.js';
import { createSlotRunner } from './supervisor/slot-runner.js';

export { restartIsSafe };

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

export function createSupervisor(o: SupervisorOptions): Supervisor {
  const slots = new Map<string, Slot>();
  let closed = false;

  const runner = createSlotRunner({ ...o, closed: () => closed });

  let reports: ShutdownReport[] = [];
  const life = createLifecycle(
    {
      name: 'supervisor',
      drain: async (_signal, drainMs) => {
        closed = true;
        const all = await Promise.all([...slots.values()].map((s) => runner.stop(s, drainMs)));
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
      const plan = planReload([...slots.values()], specs);
      const work: Promise<unknown>[] = [];
      for (const step of plan.steps) {
        const s = step.slot;
        if (step.kind === 'remove') {
          slots.delete(s.name);
          work.push(runner.stop(s));
          continue;
        }
        // drained and started again on the dependencies it held
        work.push(
          runner.stop(s, undefined, true).then(() => {
            const fresh = newSlot(step.spec);
            fresh.held = s.held;
            s.held = undefined;
            slots.set(fresh.name, fresh);
            return runner.launch(fresh);
          }),
        );
      }
      for (const spec of plan.add) {
        const s = newSlot(spec);
        slots.set(s.name, s);
        work.push(runner.launch(s));
      }
      await Promise.all(work);
      return plan.diff;
    },
    list: () => [...slots.values()].map(slotView).sort((a, b) => a.name.localeCompare(b.name)),
    get(name) {
      const s = slots.get(name);
      return s ? slotView(s) : undefined;
    },
  };
}
