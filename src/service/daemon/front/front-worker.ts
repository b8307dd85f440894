/**
 * The daemon's front thread (a worker thread; started by front-thread.ts): it owns the control
 * API's listening socket, so that a request is read and answered by a thread that is not the one
 * the deployments trade on. `GET /metrics` and `GET /api/deployments` with the right bearer token
 * are answered from the latest copy the main thread made of them, at once, when that copy shows
 * every discrete change the main thread has announced and its data is at most `staleMs` old; else
 * the request waits for the next copy. Every request of those asks the main thread for a newer copy
 * (one question in flight per path). Everything else (the other routes, a wrong or missing token,
 * the dashboard's streams) is passed on, bodies streamed both ways, to the control app listening on
 * a loopback port of the main thread. The thread's own event-loop delay is reported every
 * `LAG_REPORT_MS`, so its lag is measured beside the main thread's.
 */
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { ChainpilotError } from '../../../core/errors.js';
import { bearerMatches } from '../bearer.js';
import { LAG_REPORT_MS, type FrontAnswer, type FrontData, type FromFront, type ToFront } from './front-messages.js';

const data = workerData as FrontData;
const main = parentPort;
if (!main)
  throw new ChainpilotError('RUNTIME_DAEMON_LISTEN_FAILED', 'front-worker.ts runs as a worker thread (front-thread.ts starts it)', { retry: 'not_retryable' });
const tell = (m: FromFront): void => main.postMessage(m);

interface Waiter {
  /** The change count the answer must show. */
  readonly need: number;
  readonly res: ServerResponse;
}
const copies = new Map<string, FrontAnswer>();
const waiters = new Map<string, Waiter[]>();
const asked = new Set<string>();
/** The main thread's change count as last announced. */
let gen = 0;

const ask = (path: string): void => {
  if (asked.has(path)) return;
  asked.add(path);
  tell({ kind: 'want', path });
};

/** `x-front`: `copy` when the request was answered from the copy at hand, `waited` when it waited for a new one. */
const send = (res: ServerResponse, a: FrontAnswer, how: 'copy' | 'waited'): void => {
  const headers: Record<string, string> = { 'content-type': a.contentType, 'content-length': String(a.body.byteLength), 'x-front': how };
  if (a.path === '/metrics') headers['x-metrics-age-ms'] = String(Math.round(a.ageMs + Math.max(0, Date.now() - a.at)));
  res.writeHead(a.status, headers);
  res.end(a.body);
};

const fresh = (a: FrontAnswer): boolean => a.gen >= gen && a.ageMs + (Date.now() - a.at) <= data.staleMs;

function answerFromCopy(path: string, res: ServerResponse): void {
  ask(path);
  const copy = copies.get(path);
  if (copy && fresh(copy)) {
    send(res, copy, 'copy');
    return;
  }
  const list = waiters.get(path) ?? [];
  list.push({ need: gen, res });
  waiters.set(path, list);
}

/** When an answer's data was read. */
const dataAt = (a: FrontAnswer): number => a.at - a.ageMs;

function received(a: FrontAnswer): void {
  if (a.asked) asked.delete(a.path);
  const copy = copies.get(a.path);
  // an unasked render can overtake the answer to a want: the copy kept is the newer one
  if (a.status === 200 && (!copy || a.gen > copy.gen || dataAt(a) >= dataAt(copy))) copies.set(a.path, a);
  const list = waiters.get(a.path) ?? [];
  const still = list.filter((w) => {
    if (a.gen < w.need) return true;
    if (!w.res.destroyed) send(w.res, a, 'waited');
    return false;
  });
  waiters.set(a.path, still);
  if (still.length > 0) ask(a.path); // a change was announced after this answer began: one more
}

const agent = new Agent({ keepAlive: true });

/** Passes the request on to the control app on the main thread, and its answer back. */
function passOn(req: IncomingMessage, res: ServerResponse): void {
  const up = request({ host: '127.0.0.1', port: data.backendPort, method: req.method, path: req.url, headers: req.headers, agent }, (r) => {
    res.writeHead(r.statusCode ?? 502, r.headers);
    r.pipe(res);
  });
  up.on('error', (e) => {
    tell({ kind: 'proxy-failed', method: req.method ?? '', path: req.url ?? '', message: e.message });
    if (res.headersSent) return void res.destroy();
    const body = JSON.stringify({ error: { code: 'RUNTIME_API_INTERNAL', message: 'internal error; see the daemon log' } });
    res.writeHead(502, { 'content-type': 'application/json; charset=utf-8' }).end(body);
  });
  // the client went away (a dashboard stream closed): so does the request to the app
  res.on('close', () => {
    if (!res.writableFinished) up.destroy();
  });
  req.pipe(up);
}

const server = createServer((req, res) => {
  const path = req.url ?? '';
  if (req.method === 'GET' && data.paths.includes(path) && bearerMatches(req.headers.authorization, data.token)) answerFromCopy(path, res);
  else passOn(req, res);
});

const lag = monitorEventLoopDelay({ resolution: 10 });
lag.enable();
const lagTimer = setInterval(() => {
  tell({ kind: 'lag', p99Seconds: lag.percentile(99) / 1e9, maxSeconds: lag.max / 1e9 });
  lag.reset();
}, LAG_REPORT_MS);

main.on('message', (m: ToFront) => {
  if (m.kind === 'answer') received(m);
  else if (m.kind === 'changed') gen = Math.max(gen, m.gen);
  else {
    clearInterval(lagTimer);
    lag.disable();
    agent.destroy();
    server.closeAllConnections();
    server.close(() => {
      tell({ kind: 'closed' });
      main.close();
    });
  }
});

server.on('error', (e) => tell({ kind: 'listen-failed', message: e.message }));
server.listen({ host: data.host, port: data.port }, () => {
  const a = server.address();
  if (a && typeof a === 'object') tell({ kind: 'listening', address: a.address, family: a.family, port: a.port });
});
