import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { parse as parseYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { manualClock, silentLogger } from '../../src/core/index.js';
import { parseDeployment } from '../../src/config/index.js';
import type { DecisionEntry } from '../../src/runtime/handle/deployment-handle.js';
import * as schemas from '../../src/service/api-schemas.js';
import { bearerMatches, buildControlApp } from '../../src/service/daemon/control-app.js';
import { createDaemonMetrics } from '../../src/service/daemon/daemon-metrics.js';
import { createEventLog } from '../../src/service/event-log.js';
import { switchDeployment } from '../../src/service/operator-actions.js';
import { fakeSupervisor, HELD_MINT } from './fake-handle.js';

const TOKEN = 'test-token-0123456789abcdef';
const auth = { authorization: `Bearer ${TOKEN}` };

async function setup(daemonReasons?: () => readonly string[], plugins?: readonly FastifyPluginAsync[]) {
  const clock = manualClock(1_700_000_000_000);
  const { sup, byName: handles } = fakeSupervisor(clock, {
    onEvent: (name, ev) => {
      metrics.observe(name, ev);
      if (ev.type === 'decision') decisions.append(name, ev.entry);
    },
  });
  const decisions = createEventLog<DecisionEntry>(1_000, () => undefined);
  const metrics = createDaemonMetrics({ slots: () => sup.list(), processMetrics: false });
  const specs = ['alpha', 'beta'].map((n) => ({
    file: `/d/${n}.yaml`,
    hash: 'h',
    loaded: parseDeployment(`version: 1\nname: ${n}\nstrategies:\n  - use: graduation-sniper\n`, `/d/${n}.yaml`),
  }));
  await sup.apply(specs);
  const app = buildControlApp({
    supervisor: sup,
    decisions,
    metrics,
    token: TOKEN,
    version: '0.0.0-test',
    clock,
    log: silentLogger(),
    reload: () => sup.apply(specs),
    ...(daemonReasons ? { daemonReasons } : {}),
    ...(plugins ? { plugins } : {}),
  });
  return { app, handles, clock, sup };
}

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe('daemon control API', () => {
  it('compares bearer tokens exactly', () => {
    expect(bearerMatches(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearerMatches(`Bearer ${TOKEN}x`, TOKEN)).toBe(false);
    expect(bearerMatches(TOKEN, TOKEN)).toBe(false);
    expect(bearerMatches(undefined, TOKEN)).toBe(false);
    expect(bearerMatches('Bearer ', TOKEN)).toBe(false);
  });

  it('refuses a missing or wrong token with 401 and accepts the right one; probes need none', async () => {
    const { app } = await setup();
    close = () => app.close();
    for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: TOKEN }]) {
      const r = await app.inject({ method: 'GET', url: '/api/deployments', headers });
      expect(r.statusCode).toBe(401);
      expect(schemas.errorBody.parse(r.json()).error.code).toBe('RUNTIME_API_UNAUTHORIZED');
      expect(r.body).not.toContain(TOKEN);
    }
    // The browser's icon request carries no data: no token needed, and no 401 in the console.
    expect((await app.inject({ method: 'GET', url: '/favicon.ico' })).statusCode).toBe(204);
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
    const ok = await app.inject({ method: 'GET', url: '/api/deployments', headers: auth });
    expect(ok.statusCode).toBe(200);
    expect(schemas.deploymentListBody.parse(ok.json()).deployments.map((d) => [d.name, d.state])).toEqual([
      ['alpha', 'running'],
      ['beta', 'running'],
    ]);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('readyz turns 503 with reasons when a feed is cut and 200 after it reconnects', async () => {
    const { app, handles } = await setup();
    close = () => app.close();
    handles.get('beta')!.setFeed({ connected: false, state: 'reconnecting' });
    const down = await app.inject({ method: 'GET', url: '/readyz' });
    expect(down.statusCode).toBe(503);
    const body = schemas.readyBody.parse(down.json());
    expect(body.deployments.find((d) => d.name === 'beta')).toMatchObject({ ready: false, reasons: ['feed not connected'] });
    expect(body.deployments.find((d) => d.name === 'alpha')?.ready).toBe(true);
    handles.get('beta')!.setFeed({ connected: true, state: 'open' });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });

  it('readyz turns 503 with a daemon-wide reason while every deployment is ready, and 200 once it clears', async () => {
    let reasons: string[] = ['RUNTIME_DAEMON_MEMORY_HIGH: RSS 950 MB is 93 % of the memory limit 1024 MB'];
    const { app } = await setup(() => reasons);
    close = () => app.close();
    const down = await app.inject({ method: 'GET', url: '/readyz' });
    expect(down.statusCode).toBe(503);
    const body = schemas.readyBody.parse(down.json());
    expect(body.reasons).toEqual(reasons);
    expect(body.deployments.every((d) => d.ready)).toBe(true);
    reasons = [];
    const up = await app.inject({ method: 'GET', url: '/readyz' });
    expect(up.statusCode).toBe(200);
    expect(schemas.readyBody.parse(up.json()).reasons).toEqual([]);
  });

  it('serves details, paged decisions and fills that agree with their schemas', async () => {
    const { app, handles, clock } = await setup();
    close = () => app.close();
    const h = handles.get('alpha')!;
    const at = clock.now();
    const emit = (entry: DecisionEntry): void => h.emit({ type: 'decision', at, entry });
    emit({ kind: 'intent', at, intentId: 'i1', strategyId: 's', side: 'buy', mint: 'M1', amountIn: '100', referencePrice: null, reason: 'r' });
    emit({ kind: 'denied', at, strategyId: 's', side: 'buy', mint: 'M2', amountIn: '100', code: 'RISK_MAX_OPEN_POSITIONS', reason: 'full' });
    emit({
      kind: 'fill',
      at: at + 250,
      intentId: 'i1',
      strategyId: 's',
      side: 'buy',
      mint: 'M1',
      solAmount: '100',
      tokenAmount: '5',
      feeLamports: '5000',
      price: '20',
    });
    const detail = await app.inject({ method: 'GET', url: '/api/deployments/alpha', headers: auth });
    expect(schemas.deploymentDetailBody.parse(detail.json()).risk?.dailyLossLimitLamports).toBe('1000000000');
    const decisions = schemas.pageBody.parse((await app.inject({ method: 'GET', url: '/api/deployments/alpha/decisions?limit=2', headers: auth })).json());
    expect(decisions.entries.map((e) => e.entry['kind'])).toEqual(['intent', 'denied']);
    const rest = schemas.pageBody.parse(
      (await app.inject({ method: 'GET', url: `/api/deployments/alpha/decisions?after=${decisions.next}`, headers: auth })).json(),
    );
    expect(rest.entries.map((e) => e.entry['kind'])).toEqual(['fill']);
    const fills = schemas.pageBody.parse((await app.inject({ method: 'GET', url: '/api/deployments/alpha/fills', headers: auth })).json());
    expect(fills.entries).toHaveLength(1);
    expect((await app.inject({ method: 'GET', url: '/api/deployments/beta/fills', headers: auth })).json()).toMatchObject({ entries: [] });
    const nope = await app.inject({ method: 'GET', url: '/api/deployments/nope', headers: auth });
    expect(nope.statusCode).toBe(404);
    expect(schemas.errorBody.parse(nope.json()).error.code).toBe('RUNTIME_API_NOT_FOUND');
    const bad = await app.inject({ method: 'GET', url: '/api/deployments/alpha/fills?limit=0', headers: auth });
    expect(bad.statusCode).toBe(400);
    expect(schemas.errorBody.parse(bad.json()).error).toMatchObject({ code: 'RUNTIME_API_BAD_REQUEST', message: expect.stringMatching(/^limit: /) });
  });

  it('kill, unkill, pause and resume reach the handle', async () => {
    const { app, handles } = await setup();
    close = () => app.close();
    const r = await app.inject({ method: 'POST', url: '/api/deployments/alpha/kill', headers: auth, payload: { reason: 'operator: rug wave' } });
    expect(schemas.actionResultBody.parse(r.json())).toEqual({ name: 'alpha', state: 'killed', killed: true });
    await app.inject({ method: 'POST', url: '/api/deployments/alpha/unkill', headers: auth });
    await app.inject({ method: 'POST', url: '/api/deployments/alpha/pause', headers: auth });
    await app.inject({ method: 'POST', url: '/api/deployments/alpha/resume', headers: auth });
    expect(handles.get('alpha')!.calls).toEqual(['start', 'kill:operator: rug wave', 'unkill', 'pause:paused through the control API', 'resume']);
    expect(handles.get('beta')!.calls).toEqual(['start']);
  });

  it('refuses a mint that is not a 32-byte base58 address with 400 naming the field, before the deployment sees it (every route taking a mint)', async () => {
    const { app, handles } = await setup();
    close = () => app.close();
    const bad = [
      '../../../etc/passwd',
      'So1111111111111111111111111111111111111111', // base58, 31 bytes
      '0OIl1111111111111111111111111111111', // characters outside the alphabet
      '1'.repeat(33), // 33 zero bytes
    ];
    for (const mint of bad) {
      for (const [route, payload] of [
        ['entries', { mint, spendLamports: '1000' }],
        ['positions/close', { mint }],
      ] as const) {
        const r = await app.inject({ method: 'POST', url: `/api/deployments/alpha/${route}`, headers: auth, payload });
        expect(r.statusCode, `${route} ${mint}`).toBe(400);
        expect(schemas.errorBody.parse(r.json()).error).toMatchObject({
          code: 'RUNTIME_API_BAD_REQUEST',
          message: expect.stringMatching(/^mint: mint must be a token mint address: base58 text of 32 bytes/),
        });
      }
    }
    expect(handles.get('alpha')!.calls).toEqual(['start']);
    // a real address reaches the deployment (which answers from its own state)
    const ok = await app.inject({ method: 'POST', url: '/api/deployments/alpha/positions/close', headers: auth, payload: { mint: HELD_MINT } });
    expect(ok.statusCode).toBe(200);
    expect(handles.get('alpha')!.calls).toEqual(['start', `manual:close:${HELD_MINT}:10000:api`]);
  });

  it('metrics parse as Prometheus text, follow the naming rules and move with events', async () => {
    const { app, handles, clock } = await setup();
    close = () => app.close();
    const scrape = async () => parsePrometheusTextFormat((await app.inject({ method: 'GET', url: '/metrics', headers: auth })).body);
    const value = (families: ReturnType<typeof parsePrometheusTextFormat>, name: string, labels: Record<string, string>): number | undefined => {
      const f = families.find((x) => x.name === name);
      const m = f?.metrics.find((x) => 'value' in x && Object.entries(labels).every(([k, v]) => x.labels?.[k] === v));
      return m && 'value' in m ? Number(m.value) : undefined;
    };
    const before = await scrape();
    for (const f of before) {
      expect(f.name).toMatch(/^chainpilot_[a-z_]+$/);
      if (f.type === 'COUNTER') expect(f.name).toMatch(/_total$/);
      for (const m of f.metrics)
        for (const k of Object.keys(m.labels ?? {}))
          expect(['deployment', 'strategy', 'room_family', 'code', 'method', 'side', 'outcome', 'state', 'mode', 'level']).toContain(k);
    }
    expect(value(before, 'chainpilot_feed_frames_received_total', { deployment: 'alpha' })).toBe(0);
    handles.get('alpha')!.setFeed({ frames: 42, rejectedByFamily: { latest: { count: 3, sample: 'token.mint missing' } } });
    const at = clock.now();
    handles.get('alpha')!.emit({
      type: 'decision',
      at,
      entry: { kind: 'denied', at, strategyId: 's', side: 'buy', mint: 'M', amountIn: '1', code: 'RISK_COOLDOWN', reason: 'x' },
    });
    handles.get('alpha')!.setReconciliation({ submitsUnknown: 2, unknownReports: 1 });
    const after = await scrape();
    expect(value(after, 'chainpilot_submits_unknown_total', { deployment: 'alpha' })).toBe(2);
    expect(value(after, 'chainpilot_reports_unknown_intent_total', { deployment: 'alpha' })).toBe(1);
    expect(value(after, 'chainpilot_feed_frames_received_total', { deployment: 'alpha' })).toBe(42);
    expect(value(after, 'chainpilot_feed_frames_rejected_total', { deployment: 'alpha', room_family: 'latest' })).toBe(3);
    expect(value(after, 'chainpilot_denials_total', { deployment: 'alpha', code: 'RISK_COOLDOWN' })).toBe(1);
    expect(value(after, 'chainpilot_deployment_state', { deployment: 'alpha', state: 'running' })).toBe(1);
    expect(value(after, 'chainpilot_equity_sol', { deployment: 'alpha' })).toBe(10);
  });

  it('publishes an OpenAPI document generated from the schemas', async () => {
    const { app } = await setup();
    close = () => app.close();
    const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json', headers: auth })).json() as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/metrics', '/api/deployments/{name}/kill', '/api/reload']));
    expect(JSON.stringify(doc.paths['/api/deployments/{name}'])).toContain('dailyLossLimitLamports');
  });

  it('serves /metrics to the scrape config of docs/deploy.md: the token in credentials_file as a bearer token', async () => {
    const { app } = await setup();
    close = () => app.close();
    const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const block = /```yaml\n# prometheus\.yml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
    const job = (parseYaml(block) as { scrape_configs: { authorization: { type: string; credentials_file: string } }[] }).scrape_configs[0]!;
    expect(job.authorization.type).toBe('Bearer');
    // What Prometheus does: read the file (trailing newline trimmed) and send `<type> <credentials>`.
    const dir = mkdtempSync(join(tmpdir(), 'cp-scrape-'));
    const file = join(dir, basename(job.authorization.credentials_file));
    writeFileSync(file, `${TOKEN}\n`);
    const header = `${job.authorization.type} ${readFileSync(file, 'utf8').trim()}`;
    rmSync(dir, { recursive: true, force: true });
    const r = await app.inject({ method: 'GET', url: '/metrics', headers: { authorization: header } });
    expect(r.statusCode).toBe(200);
    expect(r.body).toContain('chainpilot_deployment_state');
  });

  it('answers with server codes of its own: an uncoded failure is RUNTIME_API_INTERNAL, an action on a deployment not running RUNTIME_API_NOT_RUNNING', async () => {
    const boom: FastifyPluginAsync = async (app) => {
      app.get('/api/boom', async () => {
        throw new Error('secret detail');
      });
    };
    const { app, sup } = await setup(undefined, [boom]);
    close = () => app.close();
    const r = await app.inject({ method: 'GET', url: '/api/boom', headers: auth });
    expect(r.statusCode).toBe(500);
    expect(schemas.errorBody.parse(r.json()).error).toEqual({ code: 'RUNTIME_API_INTERNAL', message: 'internal error; see the daemon log' });
    const slot = sup.get('alpha')!;
    expect(await switchDeployment({ ...slot, state: 'restarting', handle: undefined }, 'kill', 'x')).toMatchObject({
      ok: false,
      status: 409,
      code: 'RUNTIME_API_NOT_RUNNING',
    });
  });
});
