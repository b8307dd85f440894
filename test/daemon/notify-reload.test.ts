/**
 * A deployment's own `notify:` block under a real daemon (`runDaemonShell`): the daemon reads it
 * once per start of the deployment, not per message, and a reload of the changed file starts the
 * deployment again with the new block. Paper deployment on the embedded simulator, webhooks to two
 * loopback receivers: fills go to the first; after the file names the second and the daemon
 * reloads, fills go to the second.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runDaemonShell } from '../../src/service/daemon/daemon-shell.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import { waitFor } from '../e2e/support/wait-for.js';
import { paperDeploymentYaml } from './support/paper-file.js';

const TOKEN = 'notify-reload-token-0123456789abcdef';
const SECRET = 'notify-reload-webhook-secret-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'cp-notify-reload-'));
const conf = join(dir, 'conf');
const stop = new AbortController();
let daemon: RunningDaemon | undefined;
let exit: Promise<number> | undefined;

/** A loopback webhook receiver that keeps the bodies it was sent. */
async function receiver(): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  return { url: `http://127.0.0.1:${a && typeof a === 'object' ? a.port : 0}/hook`, bodies, server };
}
const receivers: Awaited<ReturnType<typeof receiver>>[] = [];

/** The deployment file, its webhook URL from `${hookVar}` (a URL is a secret path: only `${ENV}`). */
const deployment = (hookVar: string): void =>
  writeFileSync(
    join(conf, 'alpha.yaml'),
    paperDeploymentYaml('alpha', `notify:\n  webhook: { url: "\${${hookVar}}", secret: "\${HOOK_SECRET}", retries: 0 }\n`),
  );
const fills = (bodies: readonly string[]): number => bodies.filter((b) => b.includes('"event":"fills"')).length;

beforeAll(async () => {
  mkdirSync(conf);
  receivers.push(await receiver(), await receiver());
  deployment('HOOK_A');
  exit = runDaemonShell({
    paths: [conf],
    listen: '127.0.0.1:0',
    dataDir: join(dir, 'data'),
    env: { ...process.env, CHAINPILOT_API_TOKEN: TOKEN, HOOK_SECRET: SECRET, HOOK_A: receivers[0]!.url, HOOK_B: receivers[1]!.url },
    logDestination: { write: () => undefined },
    out: () => undefined,
    signal: stop.signal,
    onReady: (d) => (daemon = d),
  });
  await waitFor('the daemon', () => daemon);
  await waitFor('alpha running', () => daemon?.supervisor.get('alpha')?.state === 'running');
}, 60_000);

afterAll(async () => {
  stop.abort();
  await exit;
  for (const r of receivers) r.server.close();
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

it('sends to the block the deployment started with, and to the new block after a reload of the changed file', async () => {
  const [first, second] = [receivers[0]!, receivers[1]!];
  await waitFor('a fill notification at the first receiver', () => fills(first.bodies) > 0, 45_000);
  expect(second.bodies).toEqual([]);
  deployment('HOOK_B');
  const diff = await daemon?.reload();
  expect(diff?.changed).toEqual(['alpha']);
  await waitFor('alpha running again', () => daemon?.supervisor.get('alpha')?.state === 'running');
  await waitFor('a fill notification at the second receiver', () => fills(second.bodies) > 0, 45_000);
  // the secret reached the receivers only as a signature, never in a body
  for (const b of [...first.bodies, ...second.bodies]) expect(b).not.toContain(SECRET);
}, 120_000);
