/**
 * Execution's family: what reconciliation of the intents in flight reports, read from the
 * handles' stats at scrape time (absent for a deployment whose handle has no reconciliation yet).
 */
import type { DeploymentStats } from '../../../runtime/handle/deployment-handle.js';
import type { MetricsExtension } from '../../service-port.js';
import { perDeployment, type RunningDeployments } from './handle-snapshots.js';

type Reconciliation = NonNullable<DeploymentStats['reconciliation']>;

/** The reconciliation counters, read through `running` at each scrape. */
export function executionMetrics(running: RunningDeployments): MetricsExtension {
  return (registry) => {
    const counter = (name: string, help: string, pick: (r: Reconciliation) => number): void =>
      registry.registerMetric(
        perDeployment(running, 'counter', name, help, (h) => {
          const r = h.stats().reconciliation;
          return r ? pick(r) : undefined;
        }),
      );
    counter('chainpilot_submits_unknown_total', 'Submits whose outcome was unknown; the intent stayed in flight until a report', (r) => r.submitsUnknown);
    counter(
      'chainpilot_reports_unknown_intent_total',
      'Execution reports for intents the engine did not hold (logged and reconciled, never dropped)',
      (r) => r.unknownReports,
    );
  };
}
