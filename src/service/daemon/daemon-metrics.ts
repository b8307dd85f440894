/**
 * Prometheus metrics of a daemon (prom-client, text format on `/metrics`). Names follow Prometheus
 * conventions: `chainpilot_` prefix, base units, `_total` counters, `_seconds` histograms. Labels
 * are bounded: `deployment`, `strategy`, `room_family`, `code`, `side`, `outcome`, `state`; never
 * a token mint or a wallet.
 *
 * One registry, composed of families, each a module that registers what its part owns
 * (`metrics/`): the supervisor's slots (state, readiness, restarts), the feed, execution's
 * reconciliation, the engine's decisions (fed by deployment events as they happen), its portfolio
 * and risk gate, and the scrape cache's render failures; then the process's default metrics
 * before them and the extensions after them (service clients, journal and queue:
 * service-metrics.ts; simulators: simulator-metrics.ts; memory; notifications). Gauges are read
 * from the handles when the text is rendered, each handle's health and stats once per render
 * (metrics/handle-snapshots.ts).
 *
 * Rendering (issue 31): at a hundred deployments the text holds about 7,000 series. A render yields
 * the event loop between metric families once it has run 5 ms (metrics/sliced-render.ts), and with
 * `maxAgeMs` a scrape is served the last render while it is younger than that and no discrete
 * change happened after it began (metrics/scrape-cache.ts).
 */
import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';
import type { DeploymentEvent } from '../../runtime/handle/deployment-handle.js';
import type { MetricsExtension, SlotView } from '../service-port.js';
import { decisionMetrics } from './metrics/decision-metrics.js';
import { executionMetrics } from './metrics/execution-metrics.js';
import { feedMetrics } from './metrics/feed-metrics.js';
import { createHandleSnapshots } from './metrics/handle-snapshots.js';
import { portfolioMetrics } from './metrics/portfolio-metrics.js';
import { createScrapeCache } from './metrics/scrape-cache.js';
import { renderSliced } from './metrics/sliced-render.js';
import { slotMetrics } from './metrics/slot-metrics.js';

export interface DaemonMetrics {
  readonly registry: Registry;
  /** Feeds one deployment event into the counters. */
  observe(deployment: string, event: DeploymentEvent): void;
  /** Counts a restart of a deployment by the supervisor. */
  restarted(deployment: string): void;
  /** Prometheus text exposition, rendered now (yielding the event loop between families every 5 ms). */
  render(): Promise<string>;
  /**
   * The text a scrape gets: the last render while it is younger than `maxAgeMs` and no discrete
   * change came after it began, else a new one; `ageMs` is the time since that render began.
   */
  scrape(): Promise<{ readonly text: string; readonly ageMs: number }>;
  /** A discrete change (slot state, reload, memory state; not an alert): the next scrape renders afresh. */
  changed(): void;
  /** Drops the event-fed series of a deployment that was removed (the scrape-time ones go with its slot). */
  forget(deployment: string): Promise<void>;
  /** Stops the refresher. */
  close(): void;
  readonly contentType: string;
}

export function createDaemonMetrics(o: {
  readonly slots: () => readonly SlotView[];
  readonly extensions?: readonly MetricsExtension[];
  readonly processMetrics?: boolean;
  /**
   * How old a render a scrape may be served (wall milliseconds, default 0: every scrape renders).
   * Values that move all the time (frames, equity, ages) are at most this old; discrete changes
   * show in the next scrape.
   */
  readonly maxAgeMs?: number;
  /** Scrapes older than this stop the refresher (default 5 minutes). */
  readonly keepWarmMs?: number;
  /** Told of every render that completed, with the `performance.now()` it began at (the front thread's copies). */
  readonly onRender?: (text: string, startedAt: number) => void;
}): DaemonMetrics {
  const registry = new Registry();
  if (o.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const snapshots = createHandleSnapshots(o.slots);
  const render = async (): Promise<string> => {
    const startedAt = performance.now();
    const text = await snapshots.during(() => renderSliced(registry));
    o.onRender?.(text, startedAt);
    return text;
  };
  const cache = createScrapeCache({ render, maxAgeMs: o.maxAgeMs ?? 0, keepWarmMs: o.keepWarmMs ?? 5 * 60_000 });
  const slots = slotMetrics(o.slots);
  const decisions = decisionMetrics();
  const families: readonly MetricsExtension[] = [
    slots.metrics,
    feedMetrics(snapshots.running),
    executionMetrics(snapshots.running),
    decisions.metrics,
    portfolioMetrics(snapshots.running),
    cache.metrics,
    ...(o.extensions ?? []),
  ];
  for (const register of families) register(registry);

  return {
    registry,
    contentType: registry.contentType,
    restarted: (deployment) => {
      slots.restarted(deployment);
      cache.changed();
    },
    render,
    scrape: () => cache.scrape(),
    changed: () => cache.changed(),
    async forget(deployment) {
      cache.changed();
      await forgetDeployment(registry, deployment);
    },
    close: () => cache.close(),
    // An alert only moves `chainpilot_alerts_total`, a counter like the fills': it shows in a render at
    // most `maxAgeMs` old. The state an alert announces (degraded, halted, killed) reaches the cache as
    // the slot's state change (run-daemon.ts, `changed()`). Alerts used to empty the cache themselves:
    // a hundred deployments on one feed raise them together, and every scrape then waited for a render.
    observe: (deployment, ev) => decisions.observe(deployment, ev),
  };
}

/** Removes every series labelled `deployment` from the event-fed metrics of `registry`. */
async function forgetDeployment(registry: Registry, deployment: string): Promise<void> {
  for (const { name } of registry.getMetricsAsArray()) {
    const m: (Metric & { collect?: unknown; labelNames?: readonly string[] }) | undefined = registry.getSingleMetric<string>(name);
    // series filled at scrape time are rebuilt from the slots; those fed by events stay until removed
    if (!m || typeof m.collect === 'function' || !(m.labelNames ?? []).includes('deployment')) continue;
    const seen = new Set<string>();
    for (const v of (await m.get()).values) {
      if (v.labels['deployment'] !== deployment) continue;
      const labels = Object.fromEntries(Object.entries(v.labels).filter(([k]) => k !== 'le'));
      const key = JSON.stringify(labels);
      if (seen.has(key)) continue;
      seen.add(key);
      m.remove(labels);
    }
  }
}
