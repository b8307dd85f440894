/**
 * The feed's family, per deployment (a feed may be shared: each deployment reports what it sees),
 * read from the handles' health at scrape time.
 */
import { Counter } from 'prom-client';
import type { FeedHealth } from '../../../runtime/handle/deployment-handle.js';
import type { MetricsExtension } from '../../service-port.js';
import { perDeployment, type RunningDeployments } from './handle-snapshots.js';

/** The feed's series, read through `running` at each scrape. */
export function feedMetrics(running: RunningDeployments): MetricsExtension {
  return (registry) => {
    const counter = (name: string, help: string, pick: (f: FeedHealth) => number): void =>
      registry.registerMetric(perDeployment(running, 'counter', name, help, (h) => pick(h.health().feed)));
    counter('chainpilot_feed_frames_received_total', 'Datastream frames received', (f) => f.frames);
    counter('chainpilot_feed_reconnects_total', 'Datastream reconnects', (f) => f.reconnects);
    counter('chainpilot_feed_gaps_total', 'Gaps in the Datastream (disconnected periods)', (f) => f.gaps);
    counter('chainpilot_feed_dropped_total', 'Messages dropped by bounded delivery queues', (f) => f.dropped);
    counter('chainpilot_feed_backfill_failures_total', 'REST backfills after a gap that failed', (f) => f.backfillFailures);
    registry.registerMetric(
      new Counter({
        name: 'chainpilot_feed_frames_rejected_total',
        help: 'Frames or rows rejected by the client, by room family',
        labelNames: ['deployment', 'room_family'],
        registers: [],
        collect() {
          this.reset();
          for (const { slot, h } of running()) {
            for (const [family, r] of Object.entries(h.health().feed.rejectedByFamily)) this.inc({ deployment: slot.name, room_family: family }, r.count);
          }
        },
      }),
    );
    registry.registerMetric(
      perDeployment(running, 'gauge', 'chainpilot_feed_connected', '1 while the Datastream socket is open', (h) => (h.health().feed.connected ? 1 : 0)),
    );
    registry.registerMetric(
      perDeployment(running, 'gauge', 'chainpilot_feed_last_frame_age_seconds', 'Seconds since the last Datastream frame (run clock)', (h) => {
        const health = h.health();
        return health.feed.lastFrameAt === undefined ? undefined : Math.max(0, health.at - health.feed.lastFrameAt) / 1000;
      }),
    );
  };
}
