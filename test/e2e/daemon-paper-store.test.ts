/**
 * Paper deployments under the daemon keep their book in `<data-dir>/stores/<name>.db`: one on the
 * shared embedded simulator resumes its positions exactly after the supervisor restarts it (a
 * reload whose start fails, then a backoff restart), and one on a remote endpoint resumes them
 * after the daemon itself is stopped and started again on the same --data-dir. A kill through
 * `POST kill` survives both, and a daemon process killed with SIGKILL. A new daemon's embedded
 * simulator is a new market: that book starts afresh, still killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schemas from '../../src/service/api-schemas.js';
import type { RunningDaemon } from '../../src/service/daemon/run-daemon.js';
import type { SharedEndpoints } from '../../src/service/daemon/shared-endpoints.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/start-simulator.js';
import { startTestDaemon, stopTestDaemon } from '../helpers/daemon.js';
import { waitFor } from './support/wait-for.js';
import { roundTripDeployment } from '../runtime/fixtures/round-trip-deployment.js';

const TOKEN = 'daemon-paper-store-token-0123456789';

let dir = '';
let remoteSim: RunningSimulator;
let daemon: RunningDaemon | undefined;
let endpoints: SharedEndpoints | undefined;

async function startOne(): Promise<RunningDaemon> {
  const t = await startTestDaemon({
    dir,
    paths: [join(dir, 'deployments')],
    token: TOKEN,
    env: { REMOTE_KEY: remoteSim.apiKey },
    endpoints: { datastream: { backoffBaseMs: 50, backoffCapMs: 200 } },
    daemon: { backoff: { initialMs: 200, maxMs: 1_000 } },
  });
  ({ daemon, endpoints } = t);
  return t.daemon;
}

async function stopOne(): Promise<void> {
  await stopTestDaemon({ daemon, endpoints });
  daemon = undefined;
  endpoints = undefined;
}

let baseUrl = '';
const api = async (path: string, method = 'GET', body?: unknown): Promise<unknown> => {
  const url = daemon?.url ?? baseUrl;
  if (!url) throw new Error('no daemon');
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return res.json() as Promise<unknown>;
};
const detail = async (name: string) => schemas.deploymentDetailBody.parse(await api(`/api/deployments/${name}`));

/** The book as the API shows it: positions without their marks, realised PnL, and cash (equity minus marked value). */
async function book(name: string): Promise<{ positions: unknown[]; realised: string; cash: bigint }> {
  const d = await detail(name);
  const value = d.positions.reduce((sum, p) => sum + BigInt(p.valueLamports ?? '0'), 0n);
  return {
    positions: d.positions.map((p) => ({
      strategyId: p.strategyId,
      mint: p.mint,
      tokenRaw: p.tokenRaw,
      decimals: p.decimals,
      costLamports: p.costLamports,
      realisedLamports: p.realisedLamports,
      openedAt: p.openedAt,
    })),
    realised: d.summary?.realisedLamports ?? '',
    cash: BigInt(d.summary?.equityLamports ?? '0') - value,
  };
}

/** Two positions, each half sold, nothing in flight, every position priced. */
const settled = async (name: string): Promise<boolean> => {
  const d = await detail(name);
  return d.positions.length === 2 && (d.summary?.fills ?? 0) >= 4 && d.positions.every((p) => p.valueLamports !== null) && d.pending.length === 0;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cp-daemon-store-'));
  mkdirSync(join(dir, 'deployments'));
  mkdirSync(join(dir, 'logs'));
  remoteSim = await startSimulator({ seed: 13, speed: 60 });
  writeFileSync(
    join(dir, 'deployments', 'remote.yaml'),
    roundTripDeployment('book-remote', [
      '  remote:',
      `    baseUrl: ${remoteSim.urls.base}`,
      `    datastreamUrl: ${remoteSim.urls.datastream}`,
      '    apiKey: ${REMOTE_KEY}',
    ]),
  );
  writeFileSync(
    join(dir, 'deployments', 'sim.yaml'),
    roundTripDeployment('book-sim', ['  simulator:', '    seed: 5', '    speed: 60'], [`  decisionLog: ${join(dir, 'logs', 'book-sim.jsonl')}`]),
  );
  await startOne();
}, 120_000);

let child: ChildProcess | undefined;

/** `chainpilot daemon` as a child process on `deployments` and `data`; resolves with its control URL. */
async function spawnDaemon(deployments: string, data: string): Promise<ChildProcess> {
  const c = spawn(process.execPath, ['bin/chainpilot.js', 'daemon', deployments, '--listen', '127.0.0.1:0', '--data-dir', data, '--log-level', 'warn'], {
    env: { ...process.env, CHAINPILOT_API_TOKEN: TOKEN, REMOTE_KEY: remoteSim.apiKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = c;
  let out = '';
  baseUrl = await new Promise<string>((resolve, reject) => {
    c.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /control API on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    c.once('exit', (code) => reject(new Error(`daemon exited with ${String(code)}:\n${out}`)));
  });
  return c;
}

async function killChild(): Promise<void> {
  const c = child;
  child = undefined;
  baseUrl = '';
  if (!c || c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise<void>((r) => c.once('exit', () => r()));
  c.kill('SIGKILL');
  await exited;
}

afterAll(async () => {
  await killChild();
  await stopOne();
  await remoteSim?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('paper deployments in the daemon keep their book', () => {
  it('resumes positions exactly after a supervisor restart on the shared simulator, still killed', async () => {
    await waitFor('book-sim to hold two half-sold positions', () => settled('book-sim'), 90_000);
    await api('/api/deployments/book-sim/kill', 'POST', { reason: 'hold the sim book' });
    const before = await book('book-sim');
    expect(existsSync(join(dir, 'data', 'stores', 'book-sim.db'))).toBe(true);
    // The next start fails (its decision log path is a directory) and is retried with backoff.
    const log = join(dir, 'logs', 'book-sim.jsonl');
    rmSync(log, { force: true });
    mkdirSync(log);
    appendFileSync(join(dir, 'deployments', 'sim.yaml'), '# changed\n');
    await api('/api/reload', 'POST');
    await waitFor('the restart to fail', async () => ((await detail('book-sim')).cause?.code === 'RUNTIME_START_FAILED' ? true : undefined), 30_000);
    rmSync(log, { recursive: true });
    const after = await waitFor(
      'book-sim to run again',
      async () => {
        const d = await detail('book-sim');
        return d.state === 'killed' && d.restarts > 0 && d.positions.every((p) => p.valueLamports !== null) ? d : undefined;
      },
      30_000,
    );
    expect(after.risk?.killReason).toBe('hold the sim book');
    expect(await book('book-sim')).toEqual(before);
  }, 150_000);

  it('resumes positions exactly after the daemon is stopped and started again on the same --data-dir, still killed', async () => {
    await waitFor('book-remote to hold two half-sold positions', () => settled('book-remote'), 90_000);
    await api('/api/deployments/book-remote/kill', 'POST', { reason: 'hold the remote book' });
    const before = await book('book-remote');
    await stopOne();

    await startOne();
    const after = await waitFor(
      'book-remote to run again',
      async () => {
        const d = await detail('book-remote');
        return d.state === 'killed' && d.positions.every((p) => p.valueLamports !== null) ? d : undefined;
      },
      60_000,
    );
    expect(after.risk?.killReason).toBe('hold the remote book');
    expect(await book('book-remote')).toEqual(before);
    expect(before.positions).toHaveLength(2);
    // The new daemon's embedded simulator is a new market: a fresh book, and the kill switch kept.
    const sim = await waitFor(
      'book-sim to start on the new simulator',
      async () => {
        const d = await detail('book-sim');
        return d.state === 'killed' ? d : undefined;
      },
      60_000,
    );
    expect(sim.positions).toEqual([]);
    expect(sim.risk?.killReason).toBe('hold the sim book');
  }, 180_000);

  it('resumes positions exactly after the daemon process is killed with SIGKILL and started again, still killed', async () => {
    await stopOne();
    const deployments = join(dir, 'crash');
    mkdirSync(deployments);
    writeFileSync(
      join(deployments, 'crash.yaml'),
      roundTripDeployment('book-crash', [
        '  remote:',
        `    baseUrl: ${remoteSim.urls.base}`,
        `    datastreamUrl: ${remoteSim.urls.datastream}`,
        '    apiKey: ${REMOTE_KEY}',
      ]),
    );
    const data = join(dir, 'crash-data');
    await spawnDaemon(deployments, data);
    await waitFor('book-crash to hold two half-sold positions', () => settled('book-crash'), 90_000);
    await api('/api/deployments/book-crash/kill', 'POST', { reason: 'hold through a crash' });
    const before = await book('book-crash');
    await killChild();
    // The lock file of the killed process is still there: the next daemon takes it over.
    expect(existsSync(join(data, 'stores', 'book-crash.db.lock'))).toBe(true);

    await spawnDaemon(deployments, data);
    const after = await waitFor(
      'book-crash to run again',
      async () => {
        const d = await detail('book-crash');
        return d.state === 'killed' && d.positions.every((p) => p.valueLamports !== null) ? d : undefined;
      },
      60_000,
    );
    expect(after.risk?.killReason).toBe('hold through a crash');
    expect(await book('book-crash')).toEqual(before);
    await killChild();
  }, 240_000);
});
