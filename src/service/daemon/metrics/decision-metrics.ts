/**
 * The engine's decisions family, fed by deployment events as they happen: intents, outcomes,
 * denials, fills, alerts, and the run-clock latencies event → intent and intent → fill.
 */
import { Counter, Histogram } from 'prom-client';
import { BoundedMap } from '../../../core/bounded-map.js';
import type { DeploymentEvent } from '../../../runtime/handle/deployment-handle.js';
import type { MetricsExtension } from '../../service-port.js';

export interface DecisionMetrics {
  /** Registers the family with the daemon's registry. */
  readonly metrics: MetricsExtension;
  /** Feeds one deployment event into the counters and histograms. */
  observe(deployment: string, event: DeploymentEvent): void;
}

export function decisionMetrics(): DecisionMetrics {
  const intents = new Counter({
    name: 'chainpilot_intents_total',
    help: 'Intents placed (passed the risk gate)',
    labelNames: ['deployment', 'strategy', 'side'],
    registers: [],
  });
  const outcomes = new Counter({
    name: 'chainpilot_intent_outcomes_total',
    help: 'Intents by final state: landed, rejected, failed, expired',
    labelNames: ['deployment', 'outcome'],
    registers: [],
  });
  const denials = new Counter({
    name: 'chainpilot_denials_total',
    help: 'Decisions denied by the risk gate, by code',
    labelNames: ['deployment', 'strategy', 'code'],
    registers: [],
  });
  const fills = new Counter({
    name: 'chainpilot_fills_total',
    help: 'Fills (landed or paper-filled trades)',
    labelNames: ['deployment', 'strategy', 'side'],
    registers: [],
  });
  const alerts = new Counter({
    name: 'chainpilot_alerts_total',
    help: 'Alerts raised by deployments, by code and level',
    labelNames: ['deployment', 'code', 'level'],
    registers: [],
  });
  const intentToFill = new Histogram({
    name: 'chainpilot_intent_to_fill_seconds',
    help: 'Run-clock time from an intent to its fill',
    labelNames: ['deployment'],
    registers: [],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
  });
  const eventToIntent = new Histogram({
    name: 'chainpilot_event_to_intent_seconds',
    help: 'Run-clock time from the receipt of the domain event that triggered a decision to its intent being placed',
    labelNames: ['deployment', 'strategy'],
    registers: [],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  /** When each intent in flight was placed (run clock), for intent → fill. */
  const intentAt = new BoundedMap<string, number>(10_000);

  return {
    metrics(registry) {
      for (const m of [intents, outcomes, denials, fills, alerts, intentToFill, eventToIntent]) registry.registerMetric(m);
    },
    observe(deployment, ev) {
      switch (ev.type) {
        case 'decision': {
          const e = ev.entry;
          if (e.kind === 'intent') {
            intents.inc({ deployment, strategy: e.strategyId, side: e.side });
            intentAt.set(e.intentId, e.at);
          } else if (e.kind === 'denied') denials.inc({ deployment, strategy: e.strategyId, code: e.code });
          else if (e.kind === 'fill') {
            fills.inc({ deployment, strategy: e.strategyId, side: e.side });
            outcomes.inc({ deployment, outcome: 'landed' });
            const at = intentAt.get(e.intentId);
            if (at !== undefined) {
              intentToFill.observe({ deployment }, Math.max(0, e.at - at) / 1000);
              intentAt.delete(e.intentId);
            }
          } else if (e.kind === 'unfilled') {
            outcomes.inc({ deployment, outcome: e.outcome });
            intentAt.delete(e.intentId);
          }
          return;
        }
        case 'alert':
          alerts.inc({ deployment, code: ev.code, level: ev.level });
          return;
        case 'intent':
          if (ev.eventReceivedAt !== undefined)
            eventToIntent.observe({ deployment, strategy: ev.intent.strategyId }, Math.max(0, ev.at - ev.eventReceivedAt) / 1000);
          return;
        case 'state':
        case 'fill':
        case 'intent-ended':
        case 'feed':
        case 'equity':
        case 'shutdown':
          return;
      }
    },
  };
}
