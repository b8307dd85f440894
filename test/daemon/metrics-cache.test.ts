/**
 * The /metrics and /api/deployments caches of a real daemon (`runDaemonShell`, its default 1 s
 * age) on loopback, two paper deployments on the embedded simulator: a scrape is served a render at
 * most 1 s old when the front thread got it (and a copy at most FRONT_STALE_MS old) and says how old; a discrete change (a pause) shows in the very next scrape and the
 * very next list; values that move all the time (frames) keep moving from scrape to scrape; a
 * deployment removed by a reload leaves no series and no row behind, its event-fed counters
 * included.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runDaemonShell } from '../../src/service/daemon/daemon-shell.js';
import { FRONT_STALE_MS } from '../../src/service/daemon/front/front-thread.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import { waitFor } from '../e2e/support/wait-for.js';
import { paperDeploymentYaml } from './support/paper-file.js';
import { scrapeDaemon, series, total, type Scrape } from './support/scrape.js';

const TOKEN = 'metrics-cache-token-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'cp-metrics-cache-'));
const conf = join(dir, 'conf');
const stop = new AbortController();
let daemon: RunningDaemon | undefined;
let exit: Promise<number> | undefined;

const deployment = (name: string): void => writeFileSync(join(conf, `${name}.yaml`), paperDeploymentYaml(name));

const scrape = async (): Promise<{ s: Scrape; ageMs: number }> => {
  const s = await scrapeDaemon(daemon?.url ?? '', TOKEN);
  return { s, ageMs: s.ageMs };
};
const list = async (): Promise<{ name: string; state: string }[]> =>
  (
    (await (await fetch(`${daemon?.url ?? ''}/api/deployments`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      deployments: { name: string; state: string }[];
    }
  ).deployments;
const post = (path: string): Promise<Response> =>
  fetch(`${daemon?.url ?? ''}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  });
/** Event-fed series of `name` (counters and histograms the daemon moves on deployment events). */
const eventFed = (s: Scrape, name: string): number =>
  ['chainpilot_intents_total', 'chainpilot_denials_total', 'chainpilot_fills_total', 'chainpilot_event_to_intent_seconds'].reduce(
    (n, f) => n + series(s, f, { deployment: name }).length,
    0,
  );

beforeAll(async () => {
  mkdirSync(conf);
  deployment('alpha');
  deployment('beta');
  exit = runDaemonShell({
    paths: [conf],
    listen: '127.0.0.1:0',
    dataDir: join(dir, 'data'),
    env: { ...process.env, CHAINPILOT_API_TOKEN: TOKEN },
    logDestination: { write: () => undefined },
    out: () => undefined,
    signal: stop.signal,
    onReady: (d) => (daemon = d),
  });
  await waitFor('the daemon', () => daemon);
  await waitFor('both running', () => daemon?.supervisor.list().every((s) => s.state === 'running') === true && daemon.supervisor.list().length === 2);
}, 60_000);

afterAll(async () => {
  stop.abort();
  await exit;
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

it('serves a render at most 1 s old, shows a pause in the very next scrape, and keeps moving values moving', async () => {
  expect((await list()).map((d) => [d.name, d.state])).toEqual([
    ['alpha', 'running'],
    ['beta', 'running'],
  ]);
  const first = await scrape();
  const second = await scrape();
  // (a render is at most 1 s old when the front thread gets it, and it serves copies up to FRONT_STALE_MS old)
  for (const r of [first, second]) expect(r.ageMs).toBeLessThanOrEqual(FRONT_STALE_MS);
  expect(series(second.s, 'chainpilot_deployment_state', { deployment: 'alpha', state: 'running' })[0]?.value).toBe(1);

  expect((await post('/api/deployments/alpha/pause')).status).toBe(200);
  await waitFor('alpha paused', () => daemon?.supervisor.get('alpha')?.state === 'paused');
  expect((await list()).find((d) => d.name === 'alpha')?.state).toBe('paused');
  const next = await scrape();
  expect(series(next.s, 'chainpilot_deployment_state', { deployment: 'alpha', state: 'paused' })[0]?.value).toBe(1);
  expect(series(next.s, 'chainpilot_deployment_state', { deployment: 'alpha', state: 'running' })[0]?.value).toBe(0);

  const frames = total(next.s, 'chainpilot_feed_frames_received_total', { deployment: 'beta' });
  await waitFor(
    'more frames in a later scrape',
    async () => total((await scrape()).s, 'chainpilot_feed_frames_received_total', { deployment: 'beta' }) > frames,
  );
}, 60_000);

it('drops every series of a deployment a reload removed, its event-fed counters included', async () => {
  await waitFor('beta has event-fed series', async () => eventFed((await scrape()).s, 'beta') > 0);
  rmSync(join(conf, 'beta.yaml'));
  const diff = await daemon?.reload();
  expect(diff?.removed).toEqual(['beta']);
  const after = await scrape();
  expect(after.s.text).not.toMatch(/deployment="beta"/);
  expect((await list()).map((d) => d.name)).toEqual(['alpha']);
  expect(eventFed(after.s, 'alpha') + series(after.s, 'chainpilot_deployment_state', { deployment: 'alpha' }).length).toBeGreaterThan(0);
}, 90_000);
