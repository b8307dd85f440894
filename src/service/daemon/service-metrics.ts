/**
 * The daemon's metrics of the service clients, the intent journal and queued execution (issues #12
 * and #16): the prom-client side of the client's observer port (`HttpTelemetry`) and of
 * `DeploymentTelemetry`. The clients and journals know nothing of Prometheus; the daemon shell
 * creates this once, hands `endpoint` to the shared endpoints, `deployment(name)` to each
 * deployment's deps, and registers `metrics` with the daemon's registry.
 *
 * Labels stay bounded: `api` is one of `data-api`, `prediction`, `swap`, `rpc` (else `other`);
 * `method` is a JSON-RPC or HTTP method or a journal write (the first 64 distinct names, then
 * `other`); `code` is an error code. Never a token mint or a wallet.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { HttpTelemetry } from '../../client/http/index.js';
import type { QueueExecutionStats } from '../../executors/queue/queue-executor.js';
import type { DeploymentTelemetry } from '../../runtime/compose/deployment-telemetry.js';
import type { MetricsExtension } from '../service-port.js';

const APIS: ReadonlySet<string> = new Set(['data-api', 'prediction', 'swap', 'rpc']);
const MAX_METHODS = 64;
/** How long a scrape waits for a queue's stats (Redis commands queue while it reconnects). */
const QUEUE_STATS_TIMEOUT_MS = 2_000;

export interface ServiceMetrics {
  /** Registers every series with the daemon's registry (`metricsExtensions`). */
  readonly metrics: MetricsExtension;
  /** Observer of a shared endpoint's clients (REST look-ups and backfill, shared by deployments). */
  readonly endpoint: HttpTelemetry;
  /** Telemetry of one deployment's own parts (JSON-RPC, swap, journal, queue). */
  deployment(name: string): DeploymentTelemetry;
}

export interface ServiceMetricsOptions {
  /** How long a scrape waits for one deployment's queue stats (default 2 000 ms). */
  readonly queueStatsTimeoutMs?: number;
}

export function createServiceMetrics(o: ServiceMetricsOptions = {}): ServiceMetrics {
  const queueTimeoutMs = o.queueStatsTimeoutMs ?? QUEUE_STATS_TIMEOUT_MS;
  const methods = new Set<string>();
  const methodLabel = (m: string): string => {
    if (methods.has(m)) return m;
    if (methods.size >= MAX_METHODS || !/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(m)) return 'other';
    methods.add(m);
    return m;
  };
  const apiLabel = (api: string): string => (APIS.has(api) ? api : 'other');
  // Created unregistered; `metrics` registers them with the daemon's registry.
  const registered: (Counter | Gauge | Histogram)[] = [];

  // Service clients.
  const rpcSeconds = new Histogram({
    name: 'chainpilot_rpc_request_duration_seconds',
    help: 'JSON-RPC calls by method: real time the caller waited, retries included',
    labelNames: ['deployment', 'method'],
    registers: [],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const rpcErrors = new Counter({
    name: 'chainpilot_rpc_errors_total',
    help: 'JSON-RPC calls that failed, by method and error code (RPC errors in HTTP 200 included)',
    labelNames: ['deployment', 'method', 'code'],
    registers: [],
  });
  const httpSeconds = new Histogram({
    name: 'chainpilot_http_request_duration_seconds',
    help: 'REST requests (data API, prediction API, swap): real time the caller waited, retries included',
    labelNames: ['api', 'method'],
    registers: [],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  });
  const httpErrors = new Counter({
    name: 'chainpilot_http_errors_total',
    help: 'REST requests that failed, by API and error code',
    labelNames: ['api', 'code'],
    registers: [],
  });
  const retries = new Counter({
    name: 'chainpilot_http_retries_total',
    help: 'Reads retried after a 429, 5xx, 408, timeout or network error, by API',
    labelNames: ['api'],
    registers: [],
  });
  const rateLimited = new Counter({
    name: 'chainpilot_http_rate_limited_total',
    help: 'HTTP 429 answers received, by API (retried or not)',
    labelNames: ['api'],
    registers: [],
  });
  // Journal.
  const journalSeconds = new Histogram({
    name: 'chainpilot_journal_write_duration_seconds',
    help: 'Intent journal writes by method (create, markBuilt, recordSigned, markSent, resolve, deny, markReported)',
    labelNames: ['deployment', 'method'],
    registers: [],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  });
  const journalErrors = new Counter({
    name: 'chainpilot_journal_write_errors_total',
    help: 'Intent journal writes that threw, by method',
    labelNames: ['deployment', 'method'],
    registers: [],
  });
  registered.push(rpcSeconds, rpcErrors, httpSeconds, httpErrors, retries, rateLimited, journalSeconds, journalErrors);

  const client = (deployment: string | undefined): HttpTelemetry => ({
    request(api, method, seconds, outcome) {
      const a = apiLabel(api);
      if (a === 'rpc') {
        const labels = { deployment: deployment ?? '', method: methodLabel(method) };
        rpcSeconds.observe(labels, seconds);
        if (outcome !== 'ok') rpcErrors.inc({ ...labels, code: outcome });
      } else {
        httpSeconds.observe({ api: a, method: methodLabel(method) }, seconds);
        if (outcome !== 'ok') httpErrors.inc({ api: a, code: outcome });
      }
      // Every 429 either is retried (counted by `retry`) or ends the call with this code.
      if (outcome === 'HTTP_RATE_LIMITED') rateLimited.inc({ api: a });
    },
    retry(api, status) {
      const a = apiLabel(api);
      retries.inc({ api: a });
      if (status === 429) rateLimited.inc({ api: a });
    },
  });

  // Queued execution: one stats read per deployment and scrape, shared by the collectors below.
  const queues = new Map<string, () => Promise<QueueExecutionStats>>();
  let reading: Promise<Map<string, QueueExecutionStats>> | undefined;
  // The read of the current scrape. This family is registered before the other queue series, so a
  // render (all families at once, or one per turn: metrics/sliced-render.ts) starts the read here and the
  // others use it.
  let latest: Promise<Map<string, QueueExecutionStats>> | undefined;
  const statsFailures = new Counter({
    name: 'chainpilot_queue_stats_failures_total',
    help: "Scrapes that could not read a deployment's queue stats from Redis in time",
    labelNames: ['deployment'],
    registers: [],
    // This scrape's read counts in this scrape.
    collect: async () => {
      latest = snapshot();
      await latest;
    },
  });
  const readOne = async (name: string, read: () => Promise<QueueExecutionStats>): Promise<[string, QueueExecutionStats] | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      // a read that does not answer in time counts as a failure, like one that throws
      const timeout = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), queueTimeoutMs);
      });
      const stats = await Promise.race([read(), timeout]);
      if (stats !== undefined) return [name, stats];
      statsFailures.inc({ deployment: name });
      return undefined;
    } catch {
      statsFailures.inc({ deployment: name });
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  };
  const snapshot = (): Promise<Map<string, QueueExecutionStats>> =>
    (reading ??= Promise.all([...queues].map(([name, read]) => readOne(name, read))).then((rows) => {
      reading = undefined;
      return new Map(rows.flatMap((r) => (r ? [r] : [])));
    }));
  const queueSeries = (kind: 'gauge' | 'counter', name: string, help: string, pick: (s: QueueExecutionStats) => number | undefined): void => {
    const collect = async function (this: Gauge | Counter): Promise<void> {
      this.reset();
      for (const [deployment, s] of await (latest ??= snapshot())) {
        const v = pick(s);
        if (v === undefined) continue;
        if (this instanceof Gauge) this.set({ deployment }, v);
        else this.inc({ deployment }, v);
      }
    };
    const opts = { name, help, labelNames: ['deployment'] as const, registers: [], collect };
    registered.push(kind === 'gauge' ? new Gauge(opts) : new Counter(opts));
  };
  registered.push(statsFailures);
  queueSeries('gauge', 'chainpilot_queue_depth', "Jobs waiting in the deployment's wallet queue (waiting, delayed, prioritized, paused)", (s) => s.queueDepth);
  queueSeries('gauge', 'chainpilot_queue_active_jobs', 'Jobs of the wallet queue running now (0 or 1)', (s) => s.activeJobs);
  queueSeries('gauge', 'chainpilot_queue_workers', 'BullMQ workers connected to the wallet queue', (s) => s.activeWorkers);
  queueSeries(
    'counter',
    'chainpilot_queue_lease_takeovers_total',
    'Wallet leases taken from a holder that never released them (all time, from Redis)',
    (s) => s.leaseTakeovers,
  );
  queueSeries(
    'gauge',
    'chainpilot_queue_reports_behind',
    'Report stream entries not yet applied by the engine (undelivered plus unacknowledged)',
    (s) => s.reportsBehind,
  );
  queueSeries('gauge', 'chainpilot_queue_report_lag_seconds', 'Age of the last applied report when the engine applied it (absent before the first)', (s) =>
    s.reportLagMs === undefined ? undefined : s.reportLagMs / 1000,
  );
  queueSeries('counter', 'chainpilot_queue_reports_applied_total', 'Worker reports applied by the engine in this run', (s) => s.reportsApplied);
  queueSeries('counter', 'chainpilot_queue_duplicate_reports_total', 'Worker reports dropped as duplicates in this run', (s) => s.duplicateReports);
  queueSeries('counter', 'chainpilot_queue_loop_errors_total', 'Report-loop read errors and undecodable entries in this run', (s) => s.loopErrors);

  const endpoint = client(undefined);
  return {
    metrics: (registry) => {
      for (const m of registered) registry.registerMetric(m);
    },
    endpoint,
    deployment(name) {
      return {
        client: client(name),
        journalWrite(op, seconds, outcome) {
          journalSeconds.observe({ deployment: name, method: op }, seconds);
          if (outcome === 'error') journalErrors.inc({ deployment: name, method: op });
        },
        queue(read) {
          queues.set(name, read);
          return () => {
            if (queues.get(name) === read) queues.delete(name);
          };
        },
      };
    },
  };
}
