/**
 * Prometheus metrics of a daemon (prom-client, text format on `/metrics`). Names follow Prometheus
 * conventions: `chainpilot_` prefix, base units, `_total` counters, `_seconds` histograms. Labels
 * are bounded: `deployment`, `strategy`, `room_family`, `code`, `side`, `outcome`, `state`; never
 * a token mint or a wallet. Counters move on deployment events; gauges are read from the handles
 * when the text is rendered. The service clients, journal and queue series come from
 * service-metrics.ts, registered as an extension.
 *
 * Rendering (issue 31): at a hundred deployments the text holds about 7,000 series. A render yields
 * the event loop between metric families once it has run 5 ms (the deployments trade in between;
 * one family is never split), and with `maxAgeMs` a scrape is served the last render while it is
 * younger than that and no discrete change (a slot's state, an alert, a reload, `changed()`)
 * happened after it began; while scrapes keep coming a refresher renders once per scrape interval,
 * `maxAgeMs / 2` before the next scrape is due (at most every `maxAgeMs / 2`), so a scrape seldom
 * waits and a daemon scraped every 15 s renders about once per scrape. A background render that fails is counted
 * (`chainpilot_metrics_render_failures_total`); the next scrape renders again and answers its error.
 */
import { BoundedMap } from '../../core/bounded-map.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import type { DeploymentEvent } from '../../runtime/handle/deployment-handle.js';
import type { MetricsExtension, SlotState, SlotView } from '../service-port.js';

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
const LAMPORTS_PER_SOL = 1e9;
/** A render yields the event loop once it has spent this long (wall ms) since its last turn. */
const RENDER_SLICE_MS = 5;
const sol = (lamports: bigint): number => Number(lamports) / LAMPORTS_PER_SOL;

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
  /** A discrete change (slot state, reload, memory state): the next scrape renders afresh. */
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
}): DaemonMetrics {
  const maxAgeMs = o.maxAgeMs ?? 0;
  const keepWarmMs = o.keepWarmMs ?? 5 * 60_000;
  const registry = new Registry();
  if (o.processMetrics !== false) collectDefaultMetrics({ register: registry });
  // One health and one stats snapshot per deployment and scrape (a dozen gauges read them; at a
  // hundred deployments reading each afresh made most of a scrape's time). Forgotten when a render
  // starts and at the end of the event-loop turn that took them (a read of `registry` itself).
  type Handle = NonNullable<SlotView['handle']>;
  const healthOf = new Map<Handle, ReturnType<Handle['health']>>();
  const statsOf = new Map<Handle, ReturnType<Handle['stats']>>();
  let forgetting = false;
  let rendering = 0;
  const forgetSoon = (): void => {
    // a render spans many turns: its snapshots last until it ends
    if (forgetting || rendering > 0) return;
    forgetting = true;
    setImmediate(() => {
      forgetting = false;
      healthOf.clear();
      statsOf.clear();
    });
  };
  type View = Pick<Handle, 'health' | 'stats'>;
  const snapshot = (h: Handle): View => ({
    health() {
      const v = healthOf.get(h) ?? h.health();
      healthOf.set(h, v);
      forgetSoon();
      return v;
    },
    stats() {
      const v = statsOf.get(h) ?? h.stats();
      statsOf.set(h, v);
      forgetSoon();
      return v;
    },
  });
  const running = (): { slot: SlotView; h: View }[] => o.slots().flatMap((slot) => (slot.handle ? [{ slot, h: snapshot(slot.handle) }] : []));

  new Gauge({
    name: 'chainpilot_deployment_state',
    help: 'Current state of each deployment (1 for the current state, 0 otherwise)',
    labelNames: ['deployment', 'mode', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of o.slots()) for (const st of SLOT_STATES) this.set({ deployment: s.name, mode: s.mode, state: st }, s.state === st ? 1 : 0);
    },
  });
  const restarts = new Counter({
    name: 'chainpilot_deployment_restarts_total',
    help: 'Restarts of a deployment by the daemon after a failure',
    labelNames: ['deployment'],
    registers: [registry],
  });
  new Gauge({
    name: 'chainpilot_deployment_ready',
    help: '1 when the deployment is started, reconciled and its feed connected recently',
    labelNames: ['deployment'],
    registers: [registry],
    collect() {
      this.reset();
      for (const s of o.slots()) this.set({ deployment: s.name }, s.handle?.health().ready === true ? 1 : 0);
    },
  });

  // Feed health, per deployment (the feed may be shared: each deployment reports what it sees).
  const feedCounter = (name: string, help: string, pick: (f: ReturnType<NonNullable<SlotView['handle']>['health']>['feed']) => number): void => {
    new Counter({
      name,
      help,
      labelNames: ['deployment'],
      registers: [registry],
      collect() {
        this.reset();
        for (const { slot, h } of running()) this.inc({ deployment: slot.name }, pick(h.health().feed));
      },
    });
  };
  feedCounter('chainpilot_feed_frames_received_total', 'Datastream frames received', (f) => f.frames);
  feedCounter('chainpilot_feed_reconnects_total', 'Datastream reconnects', (f) => f.reconnects);
  feedCounter('chainpilot_feed_gaps_total', 'Gaps in the Datastream (disconnected periods)', (f) => f.gaps);
  feedCounter('chainpilot_feed_dropped_total', 'Messages dropped by bounded delivery queues', (f) => f.dropped);
  feedCounter('chainpilot_feed_backfill_failures_total', 'REST backfills after a gap that failed', (f) => f.backfillFailures);
  new Counter({
    name: 'chainpilot_feed_frames_rejected_total',
    help: 'Frames or rows rejected by the client, by room family',
    labelNames: ['deployment', 'room_family'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { slot, h } of running()) {
        for (const [family, r] of Object.entries(h.health().feed.rejectedByFamily)) this.inc({ deployment: slot.name, room_family: family }, r.count);
      }
    },
  });
  new Gauge({
    name: 'chainpilot_feed_connected',
    help: '1 while the Datastream socket is open',
    labelNames: ['deployment'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { slot, h } of running()) this.set({ deployment: slot.name }, h.health().feed.connected ? 1 : 0);
    },
  });
  new Gauge({
    name: 'chainpilot_feed_last_frame_age_seconds',
    help: 'Seconds since the last Datastream frame (run clock)',
    labelNames: ['deployment'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { slot, h } of running()) {
        const health = h.health();
        if (health.feed.lastFrameAt !== undefined) this.set({ deployment: slot.name }, Math.max(0, health.at - health.feed.lastFrameAt) / 1000);
      }
    },
  });

  const reconciled = (name: string, help: string, pick: (r: { submitsUnknown: number; unknownReports: number }) => number): void => {
    new Counter({
      name,
      help,
      labelNames: ['deployment'],
      registers: [registry],
      collect() {
        this.reset();
        for (const { slot, h } of running()) {
          const r = h.stats().reconciliation;
          if (r) this.inc({ deployment: slot.name }, pick(r));
        }
      },
    });
  };
  reconciled('chainpilot_submits_unknown_total', 'Submits whose outcome was unknown; the intent stayed in flight until a report', (r) => r.submitsUnknown);
  reconciled(
    'chainpilot_reports_unknown_intent_total',
    'Execution reports for intents the engine did not hold (logged and reconciled, never dropped)',
    (r) => r.unknownReports,
  );

  // Trading, from events.
  const intents = new Counter({
    name: 'chainpilot_intents_total',
    help: 'Intents placed (passed the risk gate)',
    labelNames: ['deployment', 'strategy', 'side'],
    registers: [registry],
  });
  const outcomes = new Counter({
    name: 'chainpilot_intent_outcomes_total',
    help: 'Intents by final state: landed, rejected, failed, expired',
    labelNames: ['deployment', 'outcome'],
    registers: [registry],
  });
  const denials = new Counter({
    name: 'chainpilot_denials_total',
    help: 'Decisions denied by the risk gate, by code',
    labelNames: ['deployment', 'strategy', 'code'],
    registers: [registry],
  });
  const fills = new Counter({
    name: 'chainpilot_fills_total',
    help: 'Fills (landed or paper-filled trades)',
    labelNames: ['deployment', 'strategy', 'side'],
    registers: [registry],
  });
  const alerts = new Counter({
    name: 'chainpilot_alerts_total',
    help: 'Alerts raised by deployments, by code and level',
    labelNames: ['deployment', 'code', 'level'],
    registers: [registry],
  });
  const decisionLatency = new Histogram({
    name: 'chainpilot_intent_to_fill_seconds',
    help: 'Run-clock time from an intent to its fill',
    labelNames: ['deployment'],
    registers: [registry],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
  });
  const renderFailures = new Counter({
    name: 'chainpilot_metrics_render_failures_total',
    help: 'Background renders of /metrics that threw (the next scrape renders again and answers the error)',
    registers: [registry],
  });
  const intentAt = new BoundedMap<string, number>(10_000);
  const eventToIntent = new Histogram({
    name: 'chainpilot_event_to_intent_seconds',
    help: 'Run-clock time from the receipt of the domain event that triggered a decision to its intent being placed',
    labelNames: ['deployment', 'strategy'],
    registers: [registry],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });

  // Portfolio and risk, read at scrape time.
  const portfolioGauge = (name: string, help: string, pick: (h: View) => number | undefined): void => {
    new Gauge({
      name,
      help,
      labelNames: ['deployment'],
      registers: [registry],
      collect() {
        this.reset();
        for (const { slot, h } of running()) {
          const v = pick(h);
          if (v !== undefined) this.set({ deployment: slot.name }, v);
        }
      },
    });
  };
  portfolioGauge('chainpilot_open_positions', 'Open positions', (h) => h.stats().summary.openPositions);
  portfolioGauge('chainpilot_equity_sol', 'Equity: cash plus marked positions, in SOL', (h) => sol(h.stats().summary.equityLamports));
  portfolioGauge('chainpilot_realised_pnl_sol', 'Realised PnL in SOL', (h) => sol(h.stats().summary.realisedLamports));
  portfolioGauge('chainpilot_unrealised_pnl_sol', 'Unrealised PnL in SOL', (h) => sol(h.stats().summary.unrealisedLamports));
  portfolioGauge('chainpilot_fees_sol', 'Network and priority fees paid in SOL', (h) => sol(h.stats().summary.feesLamports));
  portfolioGauge('chainpilot_pending_intents', 'Intents not yet in a terminal state', (h) => h.stats().pending.length);
  portfolioGauge('chainpilot_daily_loss_sol', 'Loss so far in the current risk day, in SOL', (h) => sol(h.stats().risk.dailyLossLamports));
  portfolioGauge('chainpilot_daily_loss_limit_sol', 'Daily loss limit in SOL (absent when none is set)', (h) => {
    const l = h.stats().risk.dailyLossLimitLamports;
    return l === undefined ? undefined : sol(l);
  });
  portfolioGauge('chainpilot_kill_switch', '1 while the kill switch is on', (h) => (h.stats().risk.killed ? 1 : 0));
  portfolioGauge('chainpilot_daily_halt', '1 while the daily-loss halt is on', (h) => (h.stats().risk.dailyHalted ? 1 : 0));

  for (const extend of o.extensions ?? []) extend(registry);

  const yieldTurn = (): Promise<void> => new Promise((r) => setImmediate(r));
  /** Same text as `registry.metrics()`, in 5 ms slices; one health and stats read per deployment. */
  const renderNow = async (): Promise<string> => {
    rendering++;
    if (rendering === 1) {
      healthOf.clear();
      statsOf.clear();
    }
    try {
      const parts: string[] = [];
      let slice = performance.now();
      for (const m of registry.getMetricsAsArray()) {
        parts.push(await registry.getSingleMetricAsString(m.name));
        // families until a slice's time is spent, then a turn for the deployments
        if (performance.now() - slice >= RENDER_SLICE_MS) {
          await yieldTurn();
          slice = performance.now();
        }
      }
      return `${parts.join('\n\n')}\n`;
    } finally {
      rendering--;
      if (rendering === 0) {
        healthOf.clear();
        statsOf.clear();
      }
    }
  };

  // The scrape cache: wall time (performance.now), as the lag and request histograms.
  let last: { text: string; at: number } | undefined;
  let inFlight: Promise<{ text: string; at: number }> | undefined;
  let changedAt = -Infinity;
  let scrapedAt = -Infinity;
  let refresher: NodeJS.Timeout | undefined;
  let closed = false;
  const refresh = (): Promise<{ text: string; at: number }> =>
    (inFlight ??= (async () => {
      const at = performance.now();
      try {
        const text = await renderNow();
        if (!last || at >= last.at) last = { text, at };
        return { text, at };
      } finally {
        inFlight = undefined;
        scheduleRefresh();
      }
    })());
  // Between scrapes (an average of the last gaps): a render is timed to begin `maxAgeMs / 2` before
  // the next scrape is due, once per scrape, and no more often than every `maxAgeMs / 2`.
  let scrapeEvery: number | undefined;
  const scheduleRefresh = (): void => {
    const now = performance.now();
    // (not before a second scrape has shown how often they come)
    if (closed || maxAgeMs <= 0 || refresher || scrapeEvery === undefined || now - scrapedAt > keepWarmMs) return;
    const lead = maxAgeMs / 2;
    const every = Math.max(scrapeEvery, lead);
    let next = scrapedAt + every;
    while (last && last.at >= next - lead) next += every; // already rendered for that one
    const due = Math.max(next - lead, (last?.at ?? now) + lead) - now;
    refresher = setTimeout(
      () => {
        refresher = undefined;
        refresh().catch(() => renderFailures.inc()); // the next scrape renders again and answers its error
      },
      Math.max(0, due),
    );
    refresher.unref();
  };
  const fresh = (r: { at: number } | undefined, now: number): r is { text: string; at: number } =>
    r !== undefined && r.at > changedAt && now - r.at <= maxAgeMs;

  return {
    registry,
    contentType: registry.contentType,
    restarted: (deployment) => {
      restarts.inc({ deployment });
      changedAt = performance.now();
    },
    render: renderNow,
    async scrape() {
      const now = performance.now();
      if (Number.isFinite(scrapedAt)) scrapeEvery = scrapeEvery === undefined ? now - scrapedAt : 0.7 * scrapeEvery + 0.3 * (now - scrapedAt);
      scrapedAt = now;
      let r = last;
      if (maxAgeMs <= 0 || !fresh(r, now)) {
        // a render that began after the change will do; one in flight may have begun before it
        r = await refresh();
        if (r.at <= changedAt) r = await refresh();
      } else scheduleRefresh();
      return { text: r.text, ageMs: Math.max(0, performance.now() - r.at) };
    },
    changed() {
      changedAt = performance.now();
    },
    async forget(deployment) {
      changedAt = performance.now();
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
    },
    close() {
      closed = true;
      if (refresher) clearTimeout(refresher);
      refresher = undefined;
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
              decisionLatency.observe({ deployment }, Math.max(0, e.at - at) / 1000);
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
          changedAt = performance.now();
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
