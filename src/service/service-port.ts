/**
 * The port of the service house: what the daemon offers the parts it composes (control API,
 * dashboard, notifications, metrics extensions). Plugins depend on this file, never on the
 * daemon's implementation or on each other (eslint.config.js enforces it).
 */
import type { Registry } from 'prom-client';
import type { UnixMs } from '../core/index.js';
import type { DecisionEntry, DeploymentEvent, DeploymentHandle, DeploymentMode, DeploymentState } from '../runtime/handle/deployment-handle.js';
import type { EventLog } from './event-log.js';

/** `degraded`: the handle halted (fatal error, daily halt) or a strategy halted; it is not restarted. */
export type SlotState = DeploymentState | 'degraded' | 'restarting';

/** One supervised deployment as the daemon's parts see it. */
export interface SlotView {
  readonly name: string;
  readonly file: string;
  readonly mode: DeploymentMode;
  readonly state: SlotState;
  readonly cause: { readonly code: string; readonly message: string } | undefined;
  readonly restarts: number;
  /** When the next restart is due (run clock), while `restarting`. */
  readonly restartAt: UnixMs | undefined;
  readonly handle: DeploymentHandle | undefined;
  /** The effective configuration as YAML, every default applied, secrets redacted (`chainpilot validate`'s output). */
  readonly effectiveConfig?: () => string;
}

/** The supervised deployments, read-only. */
export interface SlotList {
  list(): SlotView[];
}

/** Extra collectors registered by other parts (the queue executor's stats, shared feeds, notifications). */
export type MetricsExtension = (registry: Registry) => void;

/** What a part composed into the daemon (dashboard, SSE, notifications) can read. */
export interface DaemonView {
  readonly supervisor: SlotList;
  readonly decisions: EventLog<DecisionEntry>;
  /** Every deployment event (state, alerts, fills...), sequenced, bounded. */
  readonly events: EventLog<DeploymentEvent>;
}
