/**
 * The states a deployment handle announces and the only transitions between them, in one table.
 * Start and stop are the one lifecycle's (core/lifecycle.ts, driven by run-loop.ts); `running`,
 * `paused`, `killed` and `halted` are the sub-states of a started handle, derived from the
 * conditions in force (see {@link runningState} and run-conditions.ts), never stored apart. Every
 * announcement moves along the table (`machine.to(next)`); a transition it does not allow is a bug
 * and throws RUNTIME_INVARIANT_BROKEN (test/runtime/deployment-states.test.ts checks every pair).
 */
import { ChainpilotError } from '../../core/index.js';
import type { DeploymentState } from './deployment-handle.js';

/** Every state and where it may go next. `stopped` and `failed` are final. */
export const DEPLOYMENT_TRANSITIONS: Readonly<Record<DeploymentState, readonly DeploymentState[]>> = {
  created: ['starting', 'stopped'],
  // `stopping` from `starting`: a stop during the start aborts it (core/lifecycle.ts).
  starting: ['running', 'stopping', 'failed'],
  // `failed` from a started state: start() threw after the engine started (the driver's `go`).
  running: ['paused', 'killed', 'halted', 'stopping', 'failed'],
  paused: ['running', 'killed', 'halted', 'stopping', 'failed'],
  killed: ['running', 'paused', 'halted', 'stopping', 'failed'],
  // A halt is cleared only by a restart: the handle drains from it.
  halted: ['stopping', 'failed'],
  stopping: ['stopped'],
  stopped: [],
  failed: [],
};

/** The states of a started handle, between `starting` and `stopping`. */
export const LIVE_STATES: ReadonlySet<DeploymentState> = new Set(['running', 'paused', 'killed', 'halted']);

/** Whether the table allows `from` → `to`. */
export function canTransition(from: DeploymentState, to: DeploymentState): boolean {
  return DEPLOYMENT_TRANSITIONS[from].includes(to);
}

/** The conditions that decide the state of a started handle. */
export interface RunConditions {
  readonly halted: boolean;
  readonly killed: boolean;
  readonly paused: boolean;
}

/** The state of a started handle from the conditions in force: halted > killed > paused > running. */
export function runningState(c: RunConditions): DeploymentState {
  return c.halted ? 'halted' : c.killed ? 'killed' : c.paused ? 'paused' : 'running';
}

/** The current state, moved only along the table. */
export interface StateMachine {
  readonly state: DeploymentState;
  /** Moves to `next`; throws RUNTIME_INVARIANT_BROKEN when the table does not allow it. */
  to(next: DeploymentState): void;
}

/** A machine in `created`, for the deployment `name` (named in an invariant error). */
export function deploymentStateMachine(name: string): StateMachine {
  let state: DeploymentState = 'created';
  return {
    get state() {
      return state;
    },
    to(next) {
      if (!canTransition(state, next)) {
        throw new ChainpilotError('RUNTIME_INVARIANT_BROKEN', `${name}: the deployment cannot go from ${state} to ${next}`, {
          retry: 'fatal',
          context: { from: state, to: next },
        });
      }
      state = next;
    },
  };
}
