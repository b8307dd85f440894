/**
 * The daemon's front thread, main-thread side: the control app listens on a loopback port of its
 * own, and a worker thread (front-worker.ts) listens on the daemon's address, answers `GET /metrics`
 * and `GET /api/deployments` from copies the main thread makes when asked, and passes every other
 * request on to the app. On a busy machine the main thread, which runs every deployment, gets a
 * share of a core smaller than the deployments ask for, and a request it had to read would wait
 * behind their turns; the front thread mostly sleeps and is given a core soon after a request
 * arrives (docs/daemon.md, "The front thread").
 *
 * `changed()` announces a discrete change (a slot's state, a reload, the memory state): a copy
 * begun before it is no longer served, the next request waits for one begun after it. The front
 * thread's event-loop delay is kept for `/metrics` (`chainpilot_front_eventloop_lag_*`).
 */
import type { Worker } from 'node:worker_threads';
import type { FastifyInstance } from 'fastify';
import { Gauge } from 'prom-client';
import { ChainpilotError, describeError, type Logger } from '../../../core/index.js';
import { siblingModule, startModuleWorker } from '../../../runtime/module-worker.js';
import type { MetricsExtension } from '../../service-port.js';
import { LAG_REPORT_MS, type FrontData, type FromFront, type ToFront } from './front-messages.js';

/**
 * How old the data of a copy `chainpilot daemon`'s front thread serves at once may be (wall ms;
 * `x-metrics-age-ms` says how old it is). The main thread renders `/metrics` at most every 0.5 s
 * while scraped and its renders are at most 1 s old when a copy is made; on a machine busy enough
 * that a render takes seconds of wall time, a copy up to this old is served rather than the request
 * kept waiting for the next one (docs/daemon.md, "The front thread").
 */
export const FRONT_STALE_MS = 5_000;

/** How often the list's copy is made unasked while it is asked for (wall ms; the list's rows are at most 1 s old). */
export const LIST_WARM_EVERY_MS = 1_000;
/** How long after the last request for it the list's copy is kept warm (wall ms). */
export const LIST_KEEP_WARM_MS = 5 * 60_000;

/** The routes the front thread answers from copies. */
export const FRONT_PATHS: readonly string[] = ['/metrics', '/api/deployments'];

export interface FrontThreadOptions {
  readonly host: string;
  readonly port: number;
  readonly app: FastifyInstance;
  readonly token: string;
  /** How old a copy's data may be and still be served at once (wall ms). */
  readonly staleMs: number;
  readonly log: Logger;
  /** `/metrics`' content type (for the renders sent unasked). */
  readonly metricsContentType: string;
  /** Where the thread's event-loop delay goes (createFrontLagMetrics). */
  readonly lag: FrontLagMetrics;
}

/** The front thread's event-loop delay as `/metrics` series (built before the thread, with the daemon's metrics). */
export interface FrontLagMetrics {
  readonly metrics: MetricsExtension;
  report(p99Seconds: number, maxSeconds: number): void;
}

export function createFrontLagMetrics(): FrontLagMetrics {
  const over = `over its last ${LAG_REPORT_MS / 1000} s`;
  const p99 = new Gauge({
    name: 'chainpilot_front_eventloop_lag_p99_seconds',
    help: `Event-loop delay p99 of the thread that reads and answers the control API, ${over}`,
    registers: [],
  });
  const max = new Gauge({
    name: 'chainpilot_front_eventloop_lag_max_seconds',
    help: `Event-loop delay maximum of the thread that reads and answers the control API, ${over}`,
    registers: [],
  });
  return {
    metrics: (registry) => {
      registry.registerMetric(p99);
      registry.registerMetric(max);
    },
    report(p, m) {
      p99.set(p);
      max.set(m);
    },
  };
}

export interface FrontThread {
  /** `http://host:port` the front thread listens on. */
  readonly url: string;
  /** A discrete change: copies begun before it are not served any more. */
  changed(): void;
  /** A `/metrics` render that completed (begun at `startedAt`, `performance.now()`): sent to the thread as its new copy. */
  rendered(text: string, startedAt: number): void;
  /** Closes the listening socket and its connections and ends the thread, then the app's loopback listener. */
  close(): Promise<void>;
}

export async function startFrontThread(o: FrontThreadOptions): Promise<FrontThread> {
  const backend = await o.app.listen({ host: '127.0.0.1', port: 0 });
  const backendPort = Number(new URL(backend).port);
  const data: FrontData = { host: o.host, port: o.port, backendPort, token: o.token, paths: FRONT_PATHS, staleMs: o.staleMs };
  const worker = startModuleWorker(siblingModule('front-worker', import.meta.url), { ...data });
  const tell = (m: ToFront): void => worker.postMessage(m);
  let gen = 0;
  /** `performance.now()` of the last `changed()`. */
  let changedAt = -Infinity;
  let closing = false;
  // The list's copy is kept warm while it is asked for (a `/metrics` copy comes with every render,
  // which the scrape cache times by the scrapes): every LIST_WARM_EVERY_MS for LIST_KEEP_WARM_MS after a request.
  let listWantedAt = -Infinity;
  const listWarm = setInterval(() => {
    if (!closing && performance.now() - listWantedAt <= LIST_KEEP_WARM_MS) void answer('/api/deployments', false);
  }, LIST_WARM_EVERY_MS);
  listWarm.unref();

  /** Makes a copy of GET `path` through the app, and sends it (an error is an answer too: the waiting requests get it). */
  const answer = async (path: string, asked = true): Promise<void> => {
    const begun = gen;
    try {
      const r = await o.app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${o.token}` } });
      const age = Number(r.headers['x-metrics-age-ms'] ?? 0);
      const body = new Uint8Array(r.rawPayload);
      tell({
        kind: 'answer',
        path,
        gen: begun,
        status: r.statusCode,
        contentType: String(r.headers['content-type'] ?? 'text/plain'),
        ageMs: age,
        at: Date.now(),
        body,
        asked,
      });
    } catch (e) {
      o.log.error({ err: describeError(e), path }, 'the front thread asked for a copy and the control app failed');
      const body = new TextEncoder().encode(JSON.stringify({ error: { code: 'RUNTIME_API_INTERNAL', message: 'internal error; see the daemon log' } }));
      tell({ kind: 'answer', path, gen: begun, status: 500, contentType: 'application/json; charset=utf-8', ageMs: 0, at: Date.now(), body, asked });
    }
  };

  const url = await new Promise<string>((resolve, reject) => {
    worker.on('message', (m: FromFront) => {
      if (m.kind === 'want') {
        void answer(m.path);
        if (m.path === '/api/deployments') listWantedAt = performance.now();
      } else if (m.kind === 'listening') resolve(`http://${m.family === 'IPv6' ? `[${m.address}]` : m.address}:${m.port}`);
      else if (m.kind === 'listen-failed') reject(new ChainpilotError('RUNTIME_DAEMON_LISTEN_FAILED', m.message, { retry: 'not_retryable' }));
      else if (m.kind === 'proxy-failed')
        o.log.error({ method: m.method, path: m.path, err: m.message }, 'the front thread could not pass a request on to the control app');
      else if (m.kind === 'lag') o.lag.report(m.p99Seconds, m.maxSeconds);
    });
    worker.on('error', (e) => {
      o.log.error({ err: describeError(e) }, 'the control API front thread failed');
      reject(e);
    });
    worker.on('exit', (code) => {
      if (!closing) o.log.error({ code }, 'the control API front thread exited: the control API does not answer until the daemon restarts');
      reject(new ChainpilotError('RUNTIME_DAEMON_LISTEN_FAILED', `the front thread exited (${code}) before it listened`, { retry: 'not_retryable' }));
    });
  }).catch(async (e: unknown) => {
    closing = true;
    clearInterval(listWarm);
    await worker.terminate();
    await o.app.close();
    throw e;
  });

  return {
    url,
    changed() {
      gen += 1;
      changedAt = performance.now();
      tell({ kind: 'changed', gen });
    },
    rendered(text, startedAt) {
      if (closing) return;
      // a render begun before the last change does not show it
      const shows = startedAt >= changedAt ? gen : gen - 1;
      const body = new TextEncoder().encode(text);
      const ageMs = performance.now() - startedAt;
      tell({ kind: 'answer', path: '/metrics', gen: shows, status: 200, contentType: o.metricsContentType, ageMs, at: Date.now(), body, asked: false });
    },
    async close() {
      closing = true;
      clearInterval(listWarm);
      await closeWorker(worker);
      await o.app.close();
    },
  };
}

/** Asks the thread to close its socket and end; ends it after 2 s if it has not. */
async function closeWorker(worker: Worker): Promise<void> {
  const exited = new Promise<void>((r) => worker.once('exit', () => r()));
  worker.postMessage({ kind: 'close' } satisfies ToFront);
  const timer = setTimeout(() => void worker.terminate(), 2_000);
  await exited;
  clearTimeout(timer);
}
