/**
 * A real daemon on loopback with `--memory-limit`: a set whose estimate exceeds the ceiling is
 * refused at start with its code; a running daemon refuses a reload that would not fit and keeps
 * its set; RSS near the ceiling (a fake reader: the only fake) turns /readyz 503 with the memory
 * reason, shows in /metrics and notifies the daemon-wide webhook, and clears when RSS drops back.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { isChainpilotError } from '../../src/core/index.js';
import * as schemas from '../../src/service/api-schemas.js';
import { runDaemonShell } from '../../src/service/daemon/daemon-shell.js';
import type { MemoryReading } from '../../src/service/daemon/memory-budget.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import { waitFor } from '../e2e/support/wait-for.js';

const MIB = 1024 * 1024;
const TOKEN = 'memory-limit-token-0123456789abcdef';
const SECRET = 'memory-limit-webhook-secret-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'cp-memory-limit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const deployment = (sub: string, name: string, seed: number): void =>
  writeFileSync(
    join(dir, sub, `${name}.yaml`),
    `version: 1
name: ${name}
endpoints:
  simulator: { seed: ${seed}, speed: 60 }
strategies:
  - use: curve-momentum
    params: { milestonePct: 25, buySol: "0.1", minHolders: 5 }
risk: { maxTradeSol: "0.5", maxOpenPositions: 5, maxExposureSol: "2" }
store: { path: ${join(dir, `${name}.db`)} }
telemetry: { logLevel: silent }
`,
  );

const env: Record<string, string | undefined> = { ...process.env, CHAINPILOT_API_TOKEN: TOKEN, MEM_HOOK_SECRET: SECRET };
const quiet = { write: () => undefined };

it('refuses to start a set whose estimate exceeds the memory limit, with RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED', async () => {
  mkdirSync(join(dir, 'small'));
  deployment('small', 'one', 7);
  let ready = false;
  const err = await runDaemonShell({
    paths: [join(dir, 'small')],
    listen: '127.0.0.1:0',
    dataDir: join(dir, 'data-small'),
    env,
    logDestination: quiet,
    out: () => undefined,
    // one simulator at its 512 MB heap limit + one deployment + the base: about 664 MB
    memoryLimitBytes: 300 * MIB,
    onReady: () => (ready = true),
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isChainpilotError(err) ? err.code : err).toBe('RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED');
  expect((err as Error).message).toContain('1 simulator(s)');
  expect(ready).toBe(false);
}, 60_000);

it('turns /readyz 503 with the memory reason and notifies when RSS nears the limit, refuses a reload that cannot fit, and clears below 80 %', async () => {
  mkdirSync(join(dir, 'set'));
  deployment('set', 'paper-m', 7);
  const hooks: { event: string; text: string; data: Record<string, unknown> }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      hooks.push(JSON.parse(body) as (typeof hooks)[number]);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  const port = a && typeof a === 'object' ? a.port : 0;
  env['MEM_HOOK_URL'] = `http://127.0.0.1:${port}/hook`;
  const notifyFile = join(dir, 'notify.yaml');
  writeFileSync(notifyFile, `notify:\n  webhook:\n    url: \${MEM_HOOK_URL}\n    secret: \${MEM_HOOK_SECRET}\n    retryBase: 10\n    retryMax: 50\n`);

  let reading: MemoryReading = { rssBytes: 400 * MIB, heapUsedBytes: 120 * MIB };
  const stop = new AbortController();
  let daemon: RunningDaemon | undefined;
  const exit = runDaemonShell({
    paths: [join(dir, 'set')],
    listen: '127.0.0.1:0',
    dataDir: join(dir, 'data'),
    env,
    logDestination: quiet,
    out: () => undefined,
    notifyFile,
    memoryLimitBytes: 1024 * MIB,
    memoryReader: () => reading,
    memoryEveryMs: 20,
    signal: stop.signal,
    onReady: (d) => (daemon = d),
  });
  let failed: unknown;
  exit.catch((e: unknown) => (failed = e));
  const running = (): RunningDaemon | undefined => {
    if (failed !== undefined) throw failed;
    return daemon;
  };
  const get = async (path: string): Promise<Response> =>
    fetch(`${(await waitFor('the daemon', running)).url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const readyz = async () => {
    const res = await get('/readyz');
    return { status: res.status, body: schemas.readyBody.parse(await res.json()) };
  };
  try {
    await waitFor('the daemon', running);
    expect((await readyz()).body.reasons).toEqual([]);

    reading = { rssBytes: 950 * MIB, heapUsedBytes: 130 * MIB };
    const high = await waitFor('the memory reason on /readyz', async () => {
      const r = await readyz();
      return r.body.reasons?.some((x) => x.startsWith('RUNTIME_DAEMON_MEMORY_HIGH: RSS 950 MB')) === true && r;
    });
    expect(high.status).toBe(503);
    await waitFor('the memory notification', () => hooks.some((h) => h.event === 'memory' && h.data['high'] === true));
    expect(hooks.find((h) => h.event === 'memory')?.text).toContain('daemon: memory high: RSS 950 MB of the 1024 MB limit');
    const metrics = await (await get('/metrics')).text();
    expect(metrics).toMatch(/^chainpilot_daemon_rss_bytes 996147200$/m);
    expect(metrics).toMatch(/^chainpilot_daemon_memory_high 1$/m);
    expect(metrics).toMatch(/^chainpilot_daemon_memory_limit_bytes 1073741824$/m);

    // a second feed (another simulator at 512 MB) would need about 1177 MB: refused, the set kept
    deployment('set', 'paper-n', 8);
    const res = await fetch(`${daemon?.url}/api/reload`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(409);
    expect(schemas.errorBody.parse(await res.json()).error.code).toBe('RUNTIME_DAEMON_MEMORY_BUDGET_EXCEEDED');
    expect(daemon?.supervisor.list().map((s) => s.name)).toEqual(['paper-m']);

    // 85 % is above the 80 % line: still high; below it the reason goes and a second notice is sent
    reading = { rssBytes: 870 * MIB, heapUsedBytes: 130 * MIB };
    await waitFor('a sample at 870 MB', async () => (await readyz()).body.reasons?.some((x) => x.includes('RSS 870 MB')) === true);
    reading = { rssBytes: 700 * MIB, heapUsedBytes: 130 * MIB };
    await waitFor('the memory reason to clear', async () => (await readyz()).body.reasons?.length === 0);
    await waitFor('the all-clear notification', () => hooks.some((h) => h.event === 'memory' && h.data['high'] === false));
    expect(hooks.filter((h) => h.event === 'memory').map((h) => h.data['high'])).toEqual([true, false]);
  } finally {
    stop.abort();
    expect(await exit).toBe(0);
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}, 90_000);
