/**
 * Simulators apart from the daemon's heap: two paper deployments on two embedded simulators (two
 * seeds), each simulator in its own worker thread with a heap limit. One simulator is forced past
 * its limit (the worker's test hook allocates until V8 ends it): that worker alone dies and is
 * restarted on the same port, its deployment sees a feed loss and reconnects, and the other
 * deployment keeps trading on its own simulator without a gap. The daemon never restarts anything.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedactor, silentLogger } from '../../src/core/index.js';
import { startIsolatedSim } from '../../src/runtime/embedded/isolated-sim.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import type { SharedEndpoints } from '../../src/service/daemon/shared-endpoints.js';
import { simulatorMetrics } from '../../src/service/daemon/simulator-metrics.js';
import { scrapeDaemon, total } from './support/scrape.js';
import { startTestDaemon, stopTestDaemon } from '../helpers/daemon.js';
import { MOMENTUM_STRATEGY, paperSimYaml } from '../helpers/paper-yaml.js';
import { waitFor } from '../e2e/support/wait-for.js';

const TOKEN = 'isolated-sim-token-0123456789abcdef';
let dir = '';
let daemon: RunningDaemon;
let endpoints: SharedEndpoints;

const file = (name: string, seed: number): void => writeFileSync(join(dir, `${name}.yaml`), paperSimYaml(name, { seed, strategies: [MOMENTUM_STRATEGY] }));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-isolated-sim-'));
  file('steady', 6);
  file('victim', 5);
  ({ daemon, endpoints } = await startTestDaemon({
    dir,
    token: TOKEN,
    endpoints: { simulator: { maxHeapMb: 256, testHooks: true } },
    daemon: (shared) => ({ metricsExtensions: [simulatorMetrics(() => shared.simulators())] }),
  }));
}, 60_000);

afterAll(async () => {
  await stopTestDaemon({ daemon, endpoints });
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

const handle = (name: string) => {
  const h = daemon.supervisor.get(name)?.handle;
  if (!h) throw new Error(`no handle for ${name}`);
  return h;
};
const simOf = (seed: number) => {
  const s = endpoints.simulators().find((e) => e.key.startsWith(`sim:${seed}:`))?.sim;
  if (!s) throw new Error(`no simulator for seed ${seed}`);
  return s;
};

it('restarts only the simulator forced past its heap limit, while the deployment on the other simulator keeps trading', async () => {
  await waitFor('both deployments trading', () => handle('steady').stats().summary.intents > 0 && handle('victim').health().feed.frames > 0, 60_000);
  const victimSim = simOf(5);
  const steadySim = simOf(6);
  expect(victimSim.heap()?.limitBytes).toBeGreaterThan(0);
  const steadyIntents = handle('steady').stats().summary.intents;
  const victimFrames = handle('victim').health().feed.frames;

  victimSim.allocate();
  await waitFor('the victim simulator restarted and serving', () => victimSim.restarts() === 1 && victimSim.stats() !== undefined, 60_000);
  // its deployment lost its feed and took it up again on the restarted simulator
  await waitFor(
    'the victim deployment reconnected and receiving',
    () => {
      const f = handle('victim').health().feed;
      return f.reconnects > 0 && f.state === 'open' && (victimSim.stats()?.framesSent ?? 0) > 0 && f.frames > victimFrames;
    },
    60_000,
  );
  // the other deployment traded on through it: more intents, its feed never lost, its simulator never restarted
  await waitFor('the steady deployment placed more intents', () => handle('steady').stats().summary.intents > steadyIntents, 60_000);
  expect(handle('steady').health().feed.reconnects).toBe(0);
  expect(steadySim.restarts()).toBe(0);
  // /metrics: the restart and both workers' heaps, one series per simulator
  const m = await scrapeDaemon(daemon.url, TOKEN);
  expect(total(m, 'chainpilot_simulator_restarts_total', { simulator: '5:120' })).toBe(1);
  expect(total(m, 'chainpilot_simulator_restarts_total', { simulator: '6:120' })).toBe(0);
  expect(total(m, 'chainpilot_simulator_heap_used_bytes', { simulator: '6:120' })).toBeGreaterThan(0);
  expect(total(m, 'chainpilot_simulator_heap_limit_bytes', { simulator: '6:120' })).toBeGreaterThan(200 * 1024 * 1024);
  // the daemon restarted no deployment: both slots are the ones it started
  for (const name of ['steady', 'victim']) {
    expect(daemon.supervisor.get(name)?.restarts).toBe(0);
    expect(daemon.supervisor.get(name)?.state).toBe('running');
  }
}, 180_000);

it('refuses to start a simulator whose heap limit cannot hold one, with SIM_WORKER_FAILED', async () => {
  await expect(startIsolatedSim({ seed: 1, speed: 1, redactor: createRedactor(), log: silentLogger(), maxHeapMb: 2 })).rejects.toMatchObject({
    code: 'SIM_WORKER_FAILED',
  });
}, 60_000);
