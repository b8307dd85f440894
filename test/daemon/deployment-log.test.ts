/**
 * A deployment's own `telemetry.logLevel` under the daemon: the daemon's `--log-level` is only the
 * default. Real daemon shell on loopback, two paper deployments on the shared embedded simulator,
 * every log line captured from the daemon's destination.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadDeployment } from '../../src/config/index.js';
import { createLogger, createRedactor } from '../../src/core/index.js';
import { deploymentLog } from '../../src/service/daemon/deployment-log.js';
import { runDaemonShell } from '../../src/service/daemon/daemon-shell.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import { waitFor } from '../e2e/support/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-deployment-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, telemetry: string): void =>
  writeFileSync(
    join(dir, `${name}.yaml`),
    `version: 1
name: ${name}
endpoints:
  simulator: { seed: 7, speed: 60 }
strategies:
  - use: curve-momentum
    params: { milestonePct: 25, buySol: "0.1", minHolders: 5 }
risk: { maxTradeSol: "0.5", maxOpenPositions: 5, maxExposureSol: "2" }
store: { path: ${join(dir, `${name}.db`)} }
${telemetry}`,
  );

interface Line {
  readonly level: number;
  readonly deployment?: string;
  readonly msg?: string;
}

it('writes each deployment at its own log level, and at the daemon level when its file sets none', async () => {
  file('quiet', 'telemetry: { logLevel: warn }\n');
  file('plain', '');
  const lines: Line[] = [];
  const stop = new AbortController();
  let daemon: RunningDaemon | undefined;
  const exit = runDaemonShell({
    paths: [dir],
    listen: '127.0.0.1:0',
    dataDir: join(dir, 'data'),
    logLevel: 'info',
    logDestination: { write: (l: string) => void lines.push(JSON.parse(l) as Line) },
    env: { ...process.env, CHAINPILOT_API_TOKEN: 'deployment-log-token-0123456789abcdef' },
    out: () => undefined,
    signal: stop.signal,
    onReady: (d) => (daemon = d),
  });
  try {
    // both deployments running: each has logged its start (the risk day) by then, if its level lets it
    await waitFor('both deployments running', () => {
      const states = daemon?.supervisor.list().map((s) => s.state) ?? [];
      return states.length === 2 && states.every((s) => s === 'running');
    });
    const info = (name: string): Line[] => lines.filter((l) => l.deployment === name && l.level === 30);
    // a deployment without its own level takes the daemon's (info): its start is logged
    expect(info('plain').map((l) => l.msg)).toContain('risk day started');
    // one that sets warn writes no info line, though the daemon is at info
    expect(info('quiet')).toEqual([]);
  } finally {
    stop.abort();
    expect(await exit).toBe(0);
  }
}, 60_000);

it('lets a deployment log below the daemon level when its file asks for it', () => {
  const path = join(dir, 'debug.yaml');
  writeFileSync(path, 'version: 1\nname: loud\nstrategies: [{ use: curve-momentum }]\ntelemetry: { logLevel: debug }\n');
  const lines: Line[] = [];
  const daemonLog = createLogger({ redactor: createRedactor(), level: 'warn', destination: { write: (l: string) => void lines.push(JSON.parse(l) as Line) } });
  deploymentLog(daemonLog, loadDeployment(path)).child({ deployment: 'loud' }).debug('a debug line');
  deploymentLog(daemonLog, loadDeployment(join(dir, 'plain.yaml')))
    .child({ deployment: 'plain' })
    .info('an info line');
  expect(lines.map((l) => [l.deployment, l.msg])).toEqual([['loud', 'a debug line']]);
});
