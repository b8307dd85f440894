/**
 * The daemon's front thread (src/service/daemon/front/): a real daemon with two paper deployments on
 * the embedded simulator, its control API read and answered by a worker thread. `GET
 * /api/deployments` and `GET /metrics` are answered while the main thread, which runs the
 * deployments, is blocked (a request it had to read would wait for it), the list also after a quiet
 * spell (its copy is kept warm while it is asked for); a pause made through the
 * front thread shows in the very next list and scrape (a copy made before a discrete change is not
 * served); everything else (a wrong token, the manual verbs, probes) is passed on to the control app;
 * the thread's own event-loop delay is among the series.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FRONT_STALE_MS } from '../../src/service/daemon/front/front-thread.js';
import { startTestDaemon, stopTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../e2e/support/wait-for.js';
import { paperDeploymentYaml } from './support/paper-file.js';
import { parseMetrics, series } from './support/scrape.js';

const TOKEN = 'front-thread-token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'cp-front-thread-'));
const conf = join(dir, 'conf');
let t: TestDaemon | undefined;
const url = (): string => t?.daemon.url ?? '';

const get = (path: string, token = TOKEN): Promise<Response> => fetch(`${url()}${path}`, { headers: { authorization: `Bearer ${token}` } });
const states = async (res: Response): Promise<Record<string, string>> =>
  Object.fromEntries(((await res.json()) as { deployments: { name: string; state: string }[] }).deployments.map((d) => [d.name, d.state]));

/** GET `path` by curl, a process of its own, while this thread is blocked until curl is done (or has given up after 10 s). */
function getWhileBlocked(path: string): { status: number; front: string | undefined; body: string } {
  const out = execFileSync('curl', ['-s', '-i', '--max-time', '10', '-H', `authorization: Bearer ${TOKEN}`, `${url()}${path}`], { encoding: 'utf8' });
  const [head = '', body = ''] = out.split('\r\n\r\n', 2);
  return { status: Number(/^HTTP\/[\d.]+ (\d+)/.exec(head)?.[1]), front: /^x-front: (\S+)/im.exec(head)?.[1], body };
}

beforeAll(async () => {
  mkdirSync(conf);
  for (const name of ['alpha', 'beta']) writeFileSync(join(conf, `${name}.yaml`), paperDeploymentYaml(name));
  t = await startTestDaemon({ dir: conf, token: TOKEN, daemon: { front: { staleMs: FRONT_STALE_MS }, metricsMaxAgeMs: 1_000, listMaxAgeMs: 1_000 } });
  await waitFor('both running', () => t?.daemon.supervisor.list().every((s) => s.state === 'running') === true);
}, 60_000);

afterAll(async () => {
  if (t) await stopTestDaemon(t);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

it('answers the list and the scrape while the main thread is blocked', async () => {
  // the first request of each waits for a copy; the copy then answers the next ones
  for (const path of ['/api/deployments', '/metrics']) expect((await get(path)).status).toBe(200);
  const list = getWhileBlocked('/api/deployments');
  const scrape = getWhileBlocked('/metrics');
  expect([list.status, list.front]).toEqual([200, 'copy']);
  expect((JSON.parse(list.body) as { deployments: { name: string }[] }).deployments.map((d) => d.name)).toEqual(['alpha', 'beta']);
  expect([scrape.status, scrape.front]).toEqual([200, 'copy']);
  expect(series(parseMetrics(scrape.body), 'chainpilot_deployment_state', { deployment: 'alpha', state: 'running' })[0]?.value).toBe(1);
}, 60_000);

it('keeps the list warm while it is asked for: a request after a quiet spell longer than FRONT_STALE_MS is still answered from a copy', async () => {
  expect((await get('/api/deployments')).status).toBe(200);
  await new Promise((r) => setTimeout(r, FRONT_STALE_MS + 1_500)); // longer than a copy may be served: only a copy made since serves
  const list = getWhileBlocked('/api/deployments');
  expect([list.status, list.front]).toEqual([200, 'copy']);
}, 60_000);

it('shows a pause made through it in the very next list and scrape', async () => {
  expect(await states(await get('/api/deployments'))).toEqual({ alpha: 'running', beta: 'running' });
  expect((await get('/metrics')).status).toBe(200); // a copy from before the pause, younger than FRONT_STALE_MS
  const paused = await fetch(`${url()}/api/deployments/alpha/pause`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(paused.status).toBe(200);
  const list = await get('/api/deployments');
  expect(await states(list)).toEqual({ alpha: 'paused', beta: 'running' });
  const scrape = parseMetrics(await (await get('/metrics')).text());
  expect(series(scrape, 'chainpilot_deployment_state', { deployment: 'alpha', state: 'paused' })[0]?.value).toBe(1);
  expect(series(scrape, 'chainpilot_deployment_state', { deployment: 'alpha', state: 'running' })[0]?.value).toBe(0);
  expect((await fetch(`${url()}/api/deployments/alpha/resume`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  expect((await states(await get('/api/deployments')))['alpha']).toBe('running');
}, 60_000);

it('passes everything else on to the control app, and reports its own event-loop delay', async () => {
  const refused = await get('/api/deployments', 'a-wrong-token');
  expect(refused.status).toBe(401);
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('RUNTIME_API_UNAUTHORIZED');
  expect(refused.headers.get('x-front')).toBeNull();
  expect((await fetch(`${url()}/healthz`)).status).toBe(200);
  const detail = await get('/api/deployments/beta');
  expect(detail.status).toBe(200);
  expect(((await detail.json()) as { name: string }).name).toBe('beta');
  expect((await get('/api/deployments/nobody')).status).toBe(404);
  const scrape = parseMetrics(await (await get('/metrics')).text());
  expect(series(scrape, 'chainpilot_front_eventloop_lag_p99_seconds')).toHaveLength(1);
}, 60_000);
