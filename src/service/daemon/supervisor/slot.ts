/**
 * One supervised deployment: the mutable record the supervisor keeps per deployment name, and the
 * read-only view of it the daemon's parts get (`SlotView`).
 */
import { createRedactor, describeError, isChainpilotError, type TimerHandle, type UnixMs } from '../../../core/index.js';
import { effectiveConfigYaml, type LoadedDeployment } from '../../../config/index.js';
import type { DeploymentHandle, DeploymentMode } from '../../../runtime/handle/deployment-handle.js';
import type { SlotState, SlotView } from '../../service-port.js';

export type Cause = { readonly code: string; readonly message: string };

/** A deployment file that validated, as the supervisor runs it. */
export interface ValidSpec {
  readonly file: string;
  readonly hash: string;
  readonly loaded: LoadedDeployment;
}

export interface Slot {
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
  /** Dependencies of the previous run, held until the next start acquired its own (see supervisor.ts). */
  held: (() => Promise<void>) | undefined;
  unsubscribe: (() => void) | undefined;
  /** Set when the supervisor itself stops the slot: its end is not a failure. */
  stopping: boolean;
  generation: number;
}

export function newSlot(spec: ValidSpec): Slot {
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

export function modeOf(loaded: LoadedDeployment): DeploymentMode {
  return loaded.deployment.mode === 'live' ? 'live' : 'paper';
}

/** The read-only view of `s` (its effective configuration rendered on demand, secrets redacted). */
export function slotView(s: Slot): SlotView {
  return {
    name: s.name,
    file: s.file,
    mode: modeOf(s.loaded),
    state: s.state,
    cause: s.cause,
    restarts: s.restarts,
    restartAt: s.restartAt,
    handle: s.handle,
    effectiveConfig: () => createRedactor(s.loaded.secrets).redact(effectiveConfigYaml(s.loaded.deployment)),
  };
}

/** The cause a thrown error gives a slot: its code when it is ours. */
export const causeOf = (e: unknown): Cause =>
  isChainpilotError(e) ? { code: e.code, message: e.message } : { code: 'RUNTIME_DEPLOYMENT_FAILED', message: describeError(e) };
