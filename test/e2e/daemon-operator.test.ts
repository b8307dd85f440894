/**
 * The daemon as an operator sees it, on real sockets: a paper deployment on a standalone simulator
 * reached through a TCP proxy that can go silent (sockets open, no byte forwarded), one on the
 * embedded simulator whose strategy fails on every event, and a webhook receiver on 127.0.0.1.
 * A silent feed turns /readyz 503 and sends a notification, and both recover with the feed; a
 * halted strategy shows the deployment `degraded` everywhere; pause → resume → kill → unkill leaves
 * no stale cause, and one kill is one webhook that carries its reason.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifySchema } from '../../src/config/index.js';
import { createRedactor, silentLogger } from '../../src/core/index.js';
import * as schemas from '../../src/service/api-schemas.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import type { SharedEndpoints } from '../../src/service/daemon/shared-endpoints.js';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER, verifyWebhook } from '../../src/service/notify/channels.js';
import { createNotifyHub, type NotifyHub } from '../../src/service/notify/notify-hub.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { startTestDaemon, stopTestDaemon } from '../helpers/daemon.js';
import { waitFor } from './support/wait-for.js';

const TOKEN = 'daemon-operator-token-abcdef0123456789';
const SECRET = 'operator-webhook-secret-0123456789';
let dir = '';
let daemon: RunningDaemon;
let endpoints: SharedEndpoints;
let remoteSim: RunningSimulator;
let proxy: TcpProxy;
let hub: NotifyHub;
let hooks: Server;
const received: {
  headers: IncomingHttpHeaders;
  body: string;
  json: { id: string; event: string; deployment: string; text: string; data: Record<string, unknown> };
}[] = [];

const api = async (path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: unknown }> => {
  const res = await fetch(`${daemon.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== '' ? { authorization: `Bearer ${init.token ?? TOKEN}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as unknown };
};
const detail = async (name: string) => schemas.deploymentDetailBody.parse((await api(`/api/deployments/${name}`)).body);
const readyOf = async (name: string) => {
  const r = await api('/readyz', { token: '' });
  return { status: r.status, entry: schemas.readyBody.parse(r.body).deployments.find((d) => d.name === name) };
};
const hooksOf = (deployment: string, event: string) => received.filter((r) => r.json.deployment === deployment && r.json.event === event);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-operator-'));
  hooks = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers, body, json: JSON.parse(body) as (typeof received)[number]['json'] });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  const hookPort = (hooks.address() as { port: number }).port;
  remoteSim = await startSimulator({ seed: 11, speed: 60 });
  const u = new URL(remoteSim.urls.datastream);
  proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
  writeFileSync(
    join(dir, 'quiet.yaml'),
    `version: 1
name: quiet
endpoints:
  remote:
    baseUrl: ${remoteSim.urls.base}
    datastreamUrl: ws://127.0.0.1:${proxy.port}${u.pathname.replace(/\/$/, '')}
    apiKey: \${REMOTE_KEY}
strategies:
  - use: graduation-sniper
    params: { buySol: "0.1" }
feed: { staleAfter: 2s }
telemetry: { logLevel: silent }
`,
  );
  writeFileSync(
    join(dir, 'shaky.yaml'),
    `version: 1
name: shaky
endpoints:
  simulator: { seed: 5, speed: 120 }
strategies:
  - use: ${join(process.cwd(), 'test/e2e/fixtures/throw-on-launch.ts')}
engine: { haltAfterErrors: 3, errorWindow: 1h }
telemetry: { logLevel: silent }
`,
  );
  const notify = notifySchema.parse({ webhook: { url: `http://127.0.0.1:${hookPort}/hook`, secret: SECRET, retries: 0 } });
  hub = createNotifyHub({ daemonConfig: notify, idPrefix: 'op', redactor: createRedactor([SECRET]), log: silentLogger() });
  ({ daemon, endpoints } = await startTestDaemon({
    dir,
    token: TOKEN,
    env: { REMOTE_KEY: remoteSim.apiKey },
    endpoints: { datastream: { backoffBaseMs: 50, backoffCapMs: 200 } },
    daemon: { metricsExtensions: [hub.metrics] },
  }));
  hub.attach(daemon);
}, 120_000);

afterAll(async () => {
  await stopTestDaemon({ daemon, endpoints });
  await hub?.stop({ drainMs: 0 });
  await proxy?.close();
  await remoteSim?.stop();
  hooks?.closeAllConnections();
  await new Promise<void>((r) => (hooks ? hooks.close(() => r()) : r()));
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('operating the daemon', () => {
  it('turns /readyz 503 when the feed goes silent with its socket open, notifies at the pause and at the recovery, and turns 200 again', async () => {
    await waitFor('quiet ready', async () => ((await readyOf('quiet')).entry?.ready ? true : undefined));
    proxy.stall();
    const down = await waitFor('quiet not ready', async () => {
      const r = await readyOf('quiet');
      return r.entry && !r.entry.ready ? r : undefined;
    });
    expect(down.status).toBe(503);
    expect(down.entry?.reasons.join(' ')).toMatch(/entries paused for the feed: RUNTIME_FEED_LOST: the feed is stale/);
    // The socket never dropped: this is the feed watch's stale, not a disconnect.
    const d = await detail('quiet');
    expect(d.feed?.connected).toBe(true);
    expect(d.state).toBe('paused');
    expect(d.cause?.code).toBe('RUNTIME_FEED_LOST');
    const lost = await waitFor('a feed-lost webhook', () => hooksOf('quiet', 'feed').find((h) => /market feed lost \(stale\)/.test(h.json.text)));
    expect(
      verifyWebhook({
        body: lost.body,
        signature: String(lost.headers[SIGNATURE_HEADER]),
        timestamp: String(lost.headers[TIMESTAMP_HEADER]),
        secret: SECRET,
        nowMs: Date.now(),
      }),
    ).toBe('ok');
    proxy.unstall();
    const up = await waitFor('quiet ready again', async () => {
      const r = await readyOf('quiet');
      return r.entry?.ready ? r : undefined;
    });
    expect(up.entry?.reasons).toEqual([]);
    await waitFor('a feed-back webhook', () => hooksOf('quiet', 'feed').find((h) => /market feed back/.test(h.json.text)));
    expect((await detail('quiet')).cause).toBeNull();
  }, 120_000);

  it('shows a deployment whose strategy the error policy halted as degraded in status, /readyz, /metrics and a notification', async () => {
    const d = await waitFor('shaky degraded', async () => {
      const x = await detail('shaky');
      return x.state === 'degraded' ? x : undefined;
    });
    expect(d.cause?.code).toBe('ENGINE_STRATEGY_HALTED');
    expect(d.cause?.message).toMatch(/strategy throw-on-launch halted after 3 errors/);
    const r = await readyOf('shaky');
    expect(r.entry?.ready).toBe(false);
    expect(r.entry?.reasons.join(' ')).toMatch(/ENGINE_STRATEGY_HALTED/);
    const res = await fetch(`${daemon.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    const families = parsePrometheusTextFormat(await res.text()) as unknown as {
      name: string;
      metrics: { labels?: Record<string, string>; value?: string }[];
    }[];
    const state = families.find((f) => f.name === 'chainpilot_deployment_state');
    expect(state?.metrics.find((m) => m.labels?.['deployment'] === 'shaky' && m.labels['state'] === 'degraded')?.value).toBe('1');
    const note = await waitFor('a degraded notification', () => hooksOf('shaky', 'fatal')[0]);
    expect(note.json.text).toMatch(/^shaky: degraded: ENGINE_STRATEGY_HALTED: strategy throw-on-launch halted/);
  }, 120_000);

  it('after pause, resume, kill and unkill shows no stale cause; while killed the cause is the kill reason; one kill is one webhook with the reason', async () => {
    const act = async (verb: string, reason?: string) => {
      const r = await api(`/api/deployments/quiet/${verb}`, { method: 'POST', body: reason === undefined ? {} : { reason } });
      expect(r.status).toBe(200);
      return schemas.actionResultBody.parse(r.body);
    };
    await act('pause', 'maintenance');
    expect((await detail('quiet')).cause).toEqual({ code: 'RUNTIME_ENTRIES_PAUSED', message: 'paused by the operator: maintenance' });
    await act('resume');
    expect((await detail('quiet')).cause).toBeNull();
    expect(await act('kill', 'rug-wave')).toMatchObject({ state: 'killed', killed: true });
    const killed = await detail('quiet');
    expect(killed.cause).toEqual({ code: 'RISK_KILL_SWITCH', message: 'kill switch on: rug-wave' });
    expect(killed.risk?.killReason).toBe('rug-wave');
    await act('unkill');
    const after = await detail('quiet');
    expect(after.state).toBe('running');
    expect(after.cause).toBeNull();
    expect((await api('/api/deployments')).body).toMatchObject({
      deployments: expect.arrayContaining([expect.objectContaining({ name: 'quiet', cause: null })]),
    });
    // The event log holds one `killed` state for the one kill, stamped on the daemon's clock.
    const kills = daemon.events.recent({ limit: 1000, deployment: 'quiet', filter: (e) => e.type === 'state' && e.state === 'killed' });
    expect(kills).toHaveLength(1);
    expect(Math.abs(kills[0]!.value.at - Date.now())).toBeLessThan(60_000);
    const hook = await waitFor('the kill webhook', () => hooksOf('quiet', 'killSwitch')[0]);
    expect(hook.json.data['reason']).toBe('rug-wave');
    // Both copies of a kill used to be queued together: once the queue is empty, every copy has arrived.
    await waitFor('the webhook queue to empty', () => hub.stats()['daemon']?.['webhook']?.queued === 0);
    expect(hooksOf('quiet', 'killSwitch')).toHaveLength(1);
  }, 120_000);
});
