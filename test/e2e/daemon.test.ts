/**
 * The daemon with real deployments on real sockets: two paper deployments (one on the shared
 * embedded simulator, one on a standalone simulator reached through a TCP proxy the test can cut),
 * one live deployment on its own simulator ledger, and one whose strategy file cannot load. The
 * broken one fails and is retried with backoff while the other three trade; the API, /readyz and
 * /metrics show it; a reload adds, removes and changes deployments; cutting the feed turns /readyz
 * 503 and the reconnect turns it 200.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schemas from '../../src/service/api-schemas.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import type { SharedEndpoints } from '../../src/service/daemon/shared-endpoints.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { startTestDaemon, stopTestDaemon } from '../helpers/daemon.js';
import { MOMENTUM_STRATEGY, paperSimYaml, SNIPER_STRATEGY } from '../helpers/paper-yaml.js';
import { waitFor } from './support/wait-for.js';

let dir = '';
let daemon: RunningDaemon;
let endpoints: SharedEndpoints;
let remoteSim: RunningSimulator;
let proxy: TcpProxy;
const TOKEN = 'daemon-e2e-token-abcdef0123456789';

const paperYaml = (name: string, extra = ''): string => paperSimYaml(name, { seed: 42, strategies: [MOMENTUM_STRATEGY, SNIPER_STRATEGY], extra });

const api = async (path: string, init: { method?: string; token?: string; body?: unknown } = {}): Promise<{ status: number; body: unknown; text: string }> => {
  const res = await fetch(`${daemon.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token !== '' ? { authorization: `Bearer ${init.token ?? TOKEN}` } : {}),
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
};
const detail = async (name: string) => schemas.deploymentDetailBody.parse((await api(`/api/deployments/${name}`)).body);
const fillsOf = async (name: string): Promise<number> => (await detail(name)).summary?.fills ?? 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-daemon-'));
  remoteSim = await startSimulator({ seed: 7, speed: 120 });
  const u = new URL(remoteSim.urls.datastream);
  proxy = await startTcpProxy({ host: u.hostname, port: Number(u.port) });
  const wallet = Keypair.generate();
  const walletPath = join(dir, 'wallet.json');
  writeFileSync(walletPath, JSON.stringify([...wallet.secretKey]));
  chmodSync(walletPath, 0o600);
  writeFileSync(join(dir, 'a-paper.yaml'), paperYaml('paper-a'));
  writeFileSync(
    join(dir, 'b-remote.yaml'),
    paperYaml('paper-remote').replace(
      /endpoints:\n {2}simulator:\n {4}seed: 42\n {4}speed: 120\n/,
      `endpoints:
  remote:
    baseUrl: ${remoteSim.urls.base}
    datastreamUrl: ws://127.0.0.1:${proxy.port}${u.pathname.replace(/\/$/, '')}
    apiKey: \${REMOTE_KEY}
`,
    ),
  );
  writeFileSync(
    join(dir, 'c-live.yaml'),
    readFileSync('config/live-sim.yaml', 'utf8')
      .replace('name: live-sim', 'name: live-c')
      .replace('./wallet.json', walletPath)
      .replace('./data/live-sim.journal.sqlite', join(dir, 'live-c.sqlite'))
      .replace('speed: 60', 'speed: 30'),
  );
  writeFileSync(join(dir, 'broken.ts'), "throw new Error('this strategy file is broken on purpose');\nexport default {};\n");
  writeFileSync(join(dir, 'd-broken.yaml'), `version: 1\nname: broken-d\nstrategies:\n  - use: ./broken.ts\ntelemetry: { logLevel: silent }\n`);
  ({ daemon, endpoints } = await startTestDaemon({
    dir,
    token: TOKEN,
    env: { REMOTE_KEY: remoteSim.apiKey },
    endpoints: {
      datastream: { backoffBaseMs: 50, backoffCapMs: 200 },
      base: (loaded) => (loaded.deployment.name === 'live-c' ? { confirmation: { confirm: 'live-c' } } : {}),
    },
    daemon: { backoff: { initialMs: 200, maxMs: 1_000 } },
  }));
}, 120_000);

afterAll(async () => {
  await stopTestDaemon({ daemon, endpoints });
  await proxy?.close();
  await remoteSim?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('chainpilot daemon', () => {
  it('keeps three deployments trading while a broken one fails, and shows in the API, /readyz and /metrics', async () => {
    expect(daemon.initial.added).toEqual(['broken-d', 'live-c', 'paper-a', 'paper-remote']);
    // A strategy file that cannot load is a configuration error: failed, not retried until a reload.
    const broken = await waitFor('the broken deployment to fail', async () => {
      const d = await detail('broken-d');
      return d.state === 'failed' ? d : undefined;
    });
    expect(broken.cause).toMatchObject({ code: 'STRATEGY_LOAD_FAILED' });
    expect(broken.cause?.message).toMatch(/d-broken\.yaml:4:\d+ strategies\.0\.use: cannot load strategy file .*broken on purpose/);
    for (const name of ['paper-a', 'paper-remote', 'live-c']) {
      const before = await fillsOf(name);
      await waitFor(`${name} to fill after the failure`, async () => ((await fillsOf(name)) > before ? true : undefined), 90_000);
    }
    const ready = await api('/readyz', { token: '' });
    expect(ready.status).toBe(503);
    const readiness = schemas.readyBody.parse(ready.body);
    expect(readiness.deployments.find((d) => d.name === 'broken-d')?.ready).toBe(false);
    expect(
      readiness.deployments
        .filter((d) => d.ready)
        .map((d) => d.name)
        .sort(),
    ).toEqual(['live-c', 'paper-a', 'paper-remote']);
    const families = parsePrometheusTextFormat((await api('/metrics')).text);
    const state = families
      .find((f) => f.name === 'chainpilot_deployment_state')
      ?.metrics.find((m) => m.labels?.['deployment'] === 'broken-d' && m.value === '1');
    expect(state?.labels?.['state']).toBe('failed');
    const readyGauge = families.find((f) => f.name === 'chainpilot_deployment_ready')?.metrics.find((m) => m.labels?.['deployment'] === 'broken-d');
    expect(readyGauge?.value).toBe('0');
  }, 180_000);

  it('refuses a missing or wrong token and accepts the right one', async () => {
    expect((await api('/api/deployments', { token: '' })).status).toBe(401);
    expect((await api('/api/deployments', { token: 'wrong' })).status).toBe(401);
    expect((await api('/api/deployments')).status).toBe(200);
    expect((await api('/healthz', { token: '' })).status).toBe(200);
  });

  it('counts frames in /metrics as they arrive', async () => {
    const frames = async (): Promise<number> => {
      const f = parsePrometheusTextFormat((await api('/metrics')).text).find((x) => x.name === 'chainpilot_feed_frames_received_total');
      return Number(f?.metrics.find((m) => m.labels?.['deployment'] === 'paper-a')?.value ?? 0);
    };
    const first = await frames();
    await waitFor('more frames', async () => ((await frames()) > first ? true : undefined));
  });

  it('kill stops new buys at once and the kill switch shows in the API', async () => {
    const r = await api('/api/deployments/paper-a/kill', { method: 'POST', body: { reason: 'e2e' } });
    expect(schemas.actionResultBody.parse(r.body)).toMatchObject({ name: 'paper-a', state: 'killed', killed: true });
    // The cursor of the last decision before the kill: page to the end of the history.
    const killedAt = { next: 0 };
    for (;;) {
      const page = schemas.pageBody.parse((await api(`/api/deployments/paper-a/decisions?after=${killedAt.next}&limit=1000`)).body);
      killedAt.next = page.next;
      if (page.entries.length < 1000) break;
    }
    // Every buy decided after the kill is denied: wait for one such decision to prove it.
    const denial = await waitFor(
      'a buy decided after the kill',
      async () => {
        const page = schemas.pageBody.parse((await api(`/api/deployments/paper-a/decisions?after=${killedAt.next}&limit=1000`)).body);
        return page.entries.find((e) => e.entry['side'] === 'buy');
      },
      90_000,
    );
    expect(denial.entry['kind']).toBe('denied');
    expect((await api('/api/deployments/paper-a/unkill', { method: 'POST' })).status).toBe(200);
  }, 120_000);

  it('turns /readyz 503 when the feed is cut and 200 after the reconnect', async () => {
    await waitFor('ready', async () => ((await detail('paper-remote')).ready ? true : undefined));
    proxy.cut();
    const down = await waitFor('paper-remote not ready', async () => {
      const r = schemas.readyBody.parse((await api('/readyz', { token: '' })).body);
      const d = r.deployments.find((x) => x.name === 'paper-remote');
      return d && !d.ready ? d : undefined;
    });
    expect(down.reasons.join(' ')).toMatch(/feed/);
    proxy.restore();
    await waitFor('paper-remote ready again', async () => ((await detail('paper-remote')).ready ? true : undefined));
  }, 120_000);

  it('a reload adds, removes and changes deployments, and keeps the running version of an invalid file', async () => {
    writeFileSync(join(dir, 'e-new.yaml'), paperYaml('paper-e'));
    rmSync(join(dir, 'd-broken.yaml'));
    writeFileSync(join(dir, 'a-paper.yaml'), `${paperYaml('paper-a')}paper: { startingBalanceSol: "20" }\n`);
    writeFileSync(join(dir, 'b-remote.yaml'), 'version: 1\nname: paper-remote\nstrategies: [{ use: graduation-sniper }]\nrisk: { maxTradeSol: "lots" }\n');
    const diff = schemas.reloadBody.parse((await api('/api/reload', { method: 'POST' })).body);
    expect(diff.added).toEqual(['paper-e']);
    expect(diff.removed).toEqual(['broken-d']);
    expect(diff.changed).toEqual(['paper-a']);
    expect(diff.unchanged).toEqual(['live-c', 'paper-remote']);
    expect(diff.invalid).toHaveLength(1);
    expect(diff.invalid[0]).toMatchObject({ code: 'CONFIG_INVALID', kept: 'paper-remote' });
    expect(diff.invalid[0]?.message).toMatch(/b-remote\.yaml:4:\d+ risk\.maxTradeSol/);
    const list = schemas.deploymentListBody.parse((await api('/api/deployments')).body).deployments;
    expect(list.map((d) => d.name)).toEqual(['live-c', 'paper-a', 'paper-e', 'paper-remote']);
    await waitFor('paper-a restarted with 20 SOL', async () => ((await detail('paper-a')).summary?.equityLamports.length === 11 ? true : undefined));
    expect((await detail('paper-remote')).state).not.toBe('stopped');
  }, 120_000);
});
