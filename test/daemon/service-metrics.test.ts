/**
 * The daemon's service metrics with real parts: a daemon on loopback runs a paper deployment on the
 * shared embedded simulator and a live deployment on its own simulator ledger; /metrics, parsed
 * with the real Prometheus parser, shows the JSON-RPC histogram move for the methods the live
 * executor calls, the journal histogram for its writes, and the event → intent histogram for both.
 * A simulator answering 429 moves the retry and 429 counters of the REST client.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor, silentLogger, systemClock } from '../../src/core/index.js';
import { createDaemonMetrics } from '../../src/service/daemon/daemon-metrics.js';
import { createMemoryWatch } from '../../src/service/daemon/memory-budget.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import { createServiceMetrics } from '../../src/service/daemon/service-metrics.js';
import { simulatorMetrics } from '../../src/service/daemon/simulator-metrics.js';
import type { SharedEndpoints } from '../../src/service/daemon/shared-endpoints.js';
import { createRestPorts } from '../../src/runtime/compose/rest-ports.js';
import { startSimulator } from '../../src/sim/start-simulator.js';
import { startTestDaemon, stopTestDaemon } from '../helpers/daemon.js';
import { MOMENTUM_STRATEGY, paperSimYaml } from '../helpers/paper-yaml.js';
import { waitFor } from '../e2e/support/wait-for.js';
import { expectBounded, parseMetrics, scrapeDaemon, series, total, type Scrape } from './support/scrape.js';

const TOKEN = 'service-metrics-token-0123456789abcdef';
let dir = '';
let daemon: RunningDaemon;
let endpoints: SharedEndpoints;
const wallet = Keypair.generate();

const scrape = (): Promise<Scrape> => scrapeDaemon(daemon.url, TOKEN);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-service-metrics-'));
  const walletPath = join(dir, 'wallet.json');
  writeFileSync(walletPath, JSON.stringify([...wallet.secretKey]), { mode: 0o600 });
  writeFileSync(join(dir, 'paper.yaml'), paperSimYaml('paper-m', { seed: 42, strategies: [MOMENTUM_STRATEGY] }));
  writeFileSync(
    join(dir, 'live.yaml'),
    readFileSync('config/live-sim.yaml', 'utf8')
      .replace('name: live-sim', 'name: live-m\nmode: live')
      .replace('./wallet.json', walletPath)
      .replace('./data/live-sim.journal.sqlite', join(dir, 'live-m.sqlite'))
      .replace('speed: 60', 'speed: 30')
      .replace('logLevel: warn', 'logLevel: silent'),
  );
  const metrics = createServiceMetrics();
  ({ daemon, endpoints } = await startTestDaemon({
    dir,
    token: TOKEN,
    endpoints: {
      telemetry: metrics,
      base: (loaded) => (loaded.deployment.name === 'live-m' ? { confirmation: { confirm: 'live-m' } } : {}),
    },
    daemon: { metricsExtensions: [metrics.metrics] },
  }));
}, 60_000);

afterAll(async () => {
  await stopTestDaemon({ daemon, endpoints });
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('daemon service metrics', () => {
  it('a live deployment (mode: live) moves the JSON-RPC histogram by method and the journal histogram; trading moves event → intent; no label names a mint or the wallet', async () => {
    const before = await scrape();
    // The live start-up already called the RPC (network check, reconciliation, balance read).
    expect(total(before, 'chainpilot_rpc_request_duration_seconds', { deployment: 'live-m', method: 'getBalance' })).toBeGreaterThan(0);
    const landed = await waitFor(
      'a landed live intent and a paper intent',
      async () => {
        const f = await scrape();
        const sent = total(f, 'chainpilot_rpc_request_duration_seconds', { deployment: 'live-m', method: 'sendTransaction' });
        const paperIntents = total(f, 'chainpilot_event_to_intent_seconds', { deployment: 'paper-m' });
        const fills = total(f, 'chainpilot_fills_total', { deployment: 'live-m' });
        // a buy placed after a price wait is not timed (no event was being dispatched): wait for a timed one
        const liveIntents = total(f, 'chainpilot_event_to_intent_seconds', { deployment: 'live-m' });
        return sent > 0 && paperIntents > 0 && fills > 0 && liveIntents > 0 ? f : undefined;
      },
      50_000,
    );

    // JSON-RPC: one series per method the executor used, each with observations.
    const rpc = series(landed, 'chainpilot_rpc_request_duration_seconds', { deployment: 'live-m' });
    const methods = new Set(rpc.map((m) => m.labels['method']));
    for (const m of ['getVersion', 'getBalance', 'simulateTransaction', 'sendTransaction', 'getSignatureStatuses']) expect(methods, `method ${m}`).toContain(m);
    for (const m of rpc) expect(m.sum, `time of ${m.labels['method']}`).toBeGreaterThan(0);

    // Journal: a landed intent was created, signed, sent and resolved (nothing is journaled between create and the signed attempt).
    for (const op of ['create', 'recordSigned', 'markSent', 'resolve']) {
      expect(total(landed, 'chainpilot_journal_write_duration_seconds', { deployment: 'live-m', method: op }), `journal ${op}`).toBeGreaterThan(0);
    }
    // Event → intent: paper and live intents placed while an event was dispatched, labelled by strategy.
    expect(total(landed, 'chainpilot_event_to_intent_seconds', { deployment: 'paper-m', strategy: 'curve-momentum' })).toBeGreaterThan(0);
    expect(total(landed, 'chainpilot_event_to_intent_seconds', { deployment: 'live-m' })).toBeGreaterThan(0);
    // The swap service's REST latency is counted under its api.
    expect(total(landed, 'chainpilot_http_request_duration_seconds', { api: 'swap', method: 'POST' })).toBeGreaterThan(0);

    // Later scrapes keep moving (counts never go back).
    const later = await waitFor('more JSON-RPC calls', async () => {
      const f = await scrape();
      return total(f, 'chainpilot_rpc_request_duration_seconds', { deployment: 'live-m' }) >
        total(landed, 'chainpilot_rpc_request_duration_seconds', { deployment: 'live-m' })
        ? f
        : undefined;
    });
    const mints = daemon.decisions.recent({ limit: 10_000 }).flatMap((e) => ('mint' in e.value ? [e.value.mint] : []));
    expect(mints.length).toBeGreaterThan(0);
    expectBounded(later, [...new Set(mints), wallet.publicKey.toBase58()]);
  }, 90_000);
});

describe('docs/deploy.md', () => {
  it('names every chainpilot series the daemon serves', async () => {
    const service = createServiceMetrics();
    const text = await createDaemonMetrics({
      slots: () => [],
      extensions: [service.metrics, simulatorMetrics(() => []), createMemoryWatch({ limitBytes: 2 ** 31, clock: systemClock() }).metrics],
      processMetrics: false,
    }).render();
    const names = parseMetrics(text)
      .families.map((f) => f.name)
      .filter((n) => n.startsWith('chainpilot_'));
    expect(names).toContain('chainpilot_rpc_request_duration_seconds');
    expect(names).toContain('chainpilot_queue_depth');
    expect(names).toContain('chainpilot_daemon_rss_bytes');
    const doc = readFileSync('docs/deploy.md', 'utf8');
    // A row may abbreviate siblings: `chainpilot_feed_reconnects_total`, `_gaps_total`.
    const named = (n: string): boolean =>
      doc.includes(`\`${n}\``) || doc.includes(`\`${n}{`) || n.split('_').some((_, k) => k >= 2 && doc.includes(`\`_${n.split('_').slice(k).join('_')}\``));
    expect(names.filter((n) => !named(n))).toEqual([]);
  });
});

describe('REST retries and 429s', () => {
  it('a simulator that answers 429 moves the retry and 429 counters of the data API, and each look-up is counted once', async () => {
    const sim = await startSimulator({
      seed: 3,
      speed: 60,
      log: silentLogger(),
      faults: { rest: { rateLimitShare: 0.5, retryAfterSeconds: 0, serverErrorShare: 0 } },
    });
    const metrics = createServiceMetrics();
    const registry = createDaemonMetrics({ slots: () => [], extensions: [metrics.metrics], processMetrics: false });
    const rest = createRestPorts({ baseUrl: sim.urls.base, apiKey: sim.apiKey, redactor: createRedactor(), clock: systemClock(), telemetry: metrics.endpoint });
    try {
      const empty = parseMetrics(await registry.render());
      expect(total(empty, 'chainpilot_http_retries_total')).toBe(0);
      const looked = 12;
      const results = await Promise.allSettled(Array.from({ length: looked }, () => rest.data.get('/tokens/trending', undefined)));
      const f = parseMetrics(await registry.render());
      const retries = total(f, 'chainpilot_http_retries_total', { api: 'data-api' });
      const limited = total(f, 'chainpilot_http_rate_limited_total', { api: 'data-api' });
      expect(retries).toBeGreaterThan(0);
      // Every 429 answer is counted: the retried ones, plus the ones that ended a look-up.
      const endedBy429 = results.filter((r) => r.status === 'rejected' && String((r.reason as { code?: string }).code) === 'HTTP_RATE_LIMITED').length;
      expect(limited).toBeGreaterThanOrEqual(retries);
      expect(limited).toBe(retries + endedBy429);
      expect(total(f, 'chainpilot_http_errors_total', { api: 'data-api', code: 'HTTP_RATE_LIMITED' })).toBe(endedBy429);
      expect(total(f, 'chainpilot_http_request_duration_seconds', { api: 'data-api', method: 'GET' })).toBe(looked);
      expectBounded(f, [sim.apiKey]);
    } finally {
      await rest.close();
      await sim.stop();
    }
  }, 30_000);
});
