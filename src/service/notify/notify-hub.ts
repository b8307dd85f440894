/**
 * Notifications for a whole daemon: follows its two event logs, turns what matters into
 * notifications, and hands each to the daemon-wide notifier (`--notify FILE`) and to the
 * deployment's own (`notify:` in its file). Sends a daily summary per deployment when its risk
 * day (`risk.dayBoundary`) rolls over. Counters per scope and channel are exported to /metrics.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { NotifyConfig } from '../../config/index.js';
import { createLifecycle, lifecycleMembers, systemClock, type Clock, type Lifecycle, type Logger, type Redactor } from '../../core/index.js';
import type { DaemonView, MetricsExtension } from '../service-port.js';
import { createEventMapper, dailySummaryDraft, fromDecision, type Draft } from './messages.js';
import { createNotifier, type ChannelStats, type Notifier } from './notifier.js';

export interface NotifyHubOptions {
  /** The daemon-wide `notify:` block. */
  readonly daemonConfig?: NotifyConfig;
  /** The deployment's own `notify:` block (the same object while its file is unchanged). */
  readonly deploymentConfig?: (deployment: string) => NotifyConfig | undefined;
  readonly idPrefix: string;
  readonly redactor: Redactor;
  readonly log: Logger;
  readonly now?: () => number;
  /** The clock stop deadlines run on (default: the system clock). */
  readonly clock?: Clock;
  /** How often the day boundary is checked (default 60 s). */
  readonly dayCheckEveryMs?: number;
}

/** Counters by scope (`daemon` or a deployment's name), then by channel. */
export type NotifyHubReport = Readonly<Record<string, Readonly<Record<string, ChannelStats>>>>;

/**
 * A {@link Lifecycle} built running (it follows the logs once `attach`ed). `stop({ drainMs })`
 * stops the day check and stops every notifier with the same deadline (default 5 s); its report is
 * the final counters.
 */
export interface NotifyHub extends Lifecycle<NotifyHubReport> {
  /** Register with `startDaemon({ metricsExtensions })`. */
  readonly metrics: MetricsExtension;
  /** Starts following the daemon's logs. */
  attach(view: DaemonView): void;
  /** A daemon-wide notice (memory near the ceiling): to the daemon-wide notifier only, `deployment` is `daemon`. */
  daemonNotice(d: Omit<Draft, 'deployment' | 'at'>): void;
  /** Sends the daily summaries if the UTC day changed since the last check (timer; tests call it). */
  checkDay(): void;
  stats(): NotifyHubReport;
}

const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

export function createNotifyHub(o: NotifyHubOptions): NotifyHub {
  const now = o.now ?? Date.now;
  const make = (config: NotifyConfig): Notifier =>
    createNotifier({ config, idPrefix: o.idPrefix, redactor: o.redactor, log: o.log, now, ...(o.clock ? { clock: o.clock } : {}) });
  const daemonNotifier = o.daemonConfig ? make(o.daemonConfig) : undefined;
  const own = new Map<string, { config: NotifyConfig; notifier: Notifier }>();
  const retired: Notifier[] = [];
  const mapEvent = createEventMapper();
  const haltNoticed = new Set<string>();
  let view: DaemonView | undefined;
  /** Start of each deployment's current risk day as last seen, and its daily loss then. */
  const dayStart = new Map<string, number>();
  const lastLoss = new Map<string, bigint>();
  let timer: NodeJS.Timeout | undefined;

  const ownNotifier = (deployment: string): Notifier | undefined => {
    const config = o.deploymentConfig?.(deployment);
    const cur = own.get(deployment);
    if (cur && cur.config === config) return cur.notifier;
    if (cur) {
      retired.push(cur.notifier);
      void cur.notifier.stop({ drainMs: 1_000 });
      own.delete(deployment);
    }
    if (!config) return undefined;
    const notifier = make(config);
    own.set(deployment, { config, notifier });
    return notifier;
  };
  const send = (d: Draft | undefined): void => {
    if (!d) return;
    daemonNotifier?.notify(d);
    ownNotifier(d.deployment)?.notify(d);
  };

  const notifiers = (): Notifier[] => [...(daemonNotifier ? [daemonNotifier] : []), ...[...own.values()].map((x) => x.notifier), ...retired];
  const stats = (): NotifyHubReport => {
    const out: Record<string, Record<string, ChannelStats>> = {};
    if (daemonNotifier) out['daemon'] = { ...daemonNotifier.stats() };
    for (const [name, { notifier }] of own) out[name] = { ...notifier.stats() };
    return out;
  };
  const life = createLifecycle(
    {
      name: 'notify hub',
      drain: async (_signal, drainMs) => {
        if (timer) clearInterval(timer);
        await Promise.all(notifiers().map((n) => n.stop({ drainMs })));
      },
      halt: async () => {
        if (timer) clearInterval(timer);
        // each notifier's stop is bounded by its own deadline; after a drain these are the same promises
        await Promise.all(notifiers().map((n) => n.stop({ drainMs: 0 })));
      },
      report: stats,
    },
    { log: o.log, clock: o.clock ?? systemClock(), defaultDrainMs: 5_000, running: true },
  );
  const hub: NotifyHub = {
    ...lifecycleMembers(life),
    metrics(registry: Registry) {
      const labelNames = ['scope', 'channel'] as const;
      const each = (fn: (labels: { scope: string; channel: string }, s: ChannelStats) => void): void => {
        for (const [scope, channels] of Object.entries(hub.stats())) for (const [channel, s] of Object.entries(channels)) fn({ scope, channel }, s);
      };
      const counter = (name: string, help: string, pick: (s: ChannelStats) => number): void => {
        new Counter({
          name,
          help,
          labelNames,
          registers: [registry],
          collect() {
            this.reset();
            each((l, s) => this.inc(l, pick(s)));
          },
        });
      };
      counter('chainpilot_notify_sent_total', 'Notifications delivered, per scope (daemon or deployment name) and channel', (s) => s.sent);
      counter('chainpilot_notify_failed_total', 'Notifications given up on after their retries', (s) => s.failed);
      counter('chainpilot_notify_dropped_total', 'Notifications dropped because the channel queue was full', (s) => s.dropped);
      counter('chainpilot_notify_retries_total', 'Retried notification sends', (s) => s.retries);
      new Gauge({
        name: 'chainpilot_notify_queued',
        help: 'Notifications waiting in the channel queue',
        labelNames,
        registers: [registry],
        collect() {
          this.reset();
          each((l, s) => this.set(l, s.queued));
        },
      });
    },
    attach(v) {
      view = v;
      v.decisions.subscribe((x) => {
        const e = x.value;
        if (e.kind === 'denied' && e.code === 'RISK_DAILY_LOSS_HALT') {
          const k = `${x.deployment}:${utcDay(e.at)}`;
          if (haltNoticed.has(k)) return;
          haltNoticed.add(k);
          send({
            key: `halt-${utcDay(e.at)}`,
            event: 'dailyLossHalt',
            deployment: x.deployment,
            at: now(),
            text: `${x.deployment}: daily loss limit reached: buys are denied until the next day (${e.reason})`,
            data: { code: e.code },
          });
          return;
        }
        // One clock for notification times: the daemon's (`now`); the decision's run-clock time stays in `data.runAt`.
        const d = fromDecision(x.deployment, x.seq, e);
        send(d && { ...d, at: now(), data: { ...d.data, runAt: e.at } });
      });
      v.events.subscribe((x) => send(mapEvent(x.deployment, x.seq, x.value)));
      timer = setInterval(() => hub.checkDay(), o.dayCheckEveryMs ?? 60_000);
      timer.unref();
    },
    daemonNotice(d) {
      daemonNotifier?.notify({ ...d, deployment: 'daemon', at: now() });
    },
    checkDay() {
      if (!view) return;
      // Each deployment's own risk day (risk.dayBoundary): a summary when it rolls over, for the day that ended.
      for (const slot of view.supervisor.list()) {
        const h = slot.handle;
        if (!h) continue;
        const st = h.stats();
        const started = st.risk.dayStartedAt;
        const before = dayStart.get(slot.name);
        dayStart.set(slot.name, started);
        if (before === undefined || before === started) continue;
        send(dailySummaryDraft(slot.name, utcDay(before), now(), { ...st.summary, dailyLossLamports: lastLoss.get(slot.name) ?? 0n }));
      }
      for (const slot of view.supervisor.list()) {
        const st = slot.handle?.stats();
        if (st) lastLoss.set(slot.name, st.risk.dailyLossLamports);
      }
    },
    stats,
  };
  return hub;
}
