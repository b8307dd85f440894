/**
 * The supervisor's family: each deployment's slot state and readiness, read from the slots at
 * scrape time, and the restarts the supervisor made, counted as they happen.
 */
import { Counter, Gauge } from 'prom-client';
import type { MetricsExtension, SlotState, SlotView } from '../../service-port.js';

const SLOT_STATES: readonly SlotState[] = [
  'created',
  'starting',
  'running',
  'paused',
  'halted',
  'killed',
  'stopping',
  'stopped',
  'failed',
  'degraded',
  'restarting',
];

export interface SlotMetrics {
  /** Registers the family with the daemon's registry. */
  readonly metrics: MetricsExtension;
  /** Counts a restart of a deployment by the supervisor. */
  restarted(deployment: string): void;
}

export function slotMetrics(slots: () => readonly SlotView[]): SlotMetrics {
  const restarts = new Counter({
    name: 'chainpilot_deployment_restarts_total',
    help: 'Restarts of a deployment by the daemon after a failure',
    labelNames: ['deployment'],
    registers: [],
  });
  return {
    metrics(registry) {
      registry.registerMetric(
        new Gauge({
          name: 'chainpilot_deployment_state',
          help: 'Current state of each deployment (1 for the current state, 0 otherwise)',
          labelNames: ['deployment', 'mode', 'state'],
          registers: [],
          collect() {
            this.reset();
            for (const s of slots()) for (const st of SLOT_STATES) this.set({ deployment: s.name, mode: s.mode, state: st }, s.state === st ? 1 : 0);
          },
        }),
      );
      registry.registerMetric(restarts);
      registry.registerMetric(
        new Gauge({
          name: 'chainpilot_deployment_ready',
          help: '1 when the deployment is started, reconciled and its feed connected recently',
          labelNames: ['deployment'],
          registers: [],
          collect() {
            this.reset();
            // through the slot itself, not the render's snapshot (test/daemon/metrics-snapshot.test.ts counts the read)
            for (const s of slots()) this.set({ deployment: s.name }, s.handle?.health().ready === true ? 1 : 0);
          },
        }),
      );
    },
    restarted: (deployment) => restarts.inc({ deployment }),
  };
}
