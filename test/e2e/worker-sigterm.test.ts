/**
 * `chainpilot worker` stops on SIGTERM within its drain time whatever Redis is doing: its own
 * redis-server (a free port) is killed under a running worker, or is down from the start (the
 * worker then waits on its first command, logging reconnects). Either way SIGTERM ends the process
 * within the drain time plus start-up slack.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getBase58Decoder } from '@solana/kit';
import { Keypair } from '@solana/web3.js';
import { afterAll, describe, expect, it } from 'vitest';
import { startOwnRedis, useRedis } from '../helpers/redis.js';

const redisOk = await useRedis(); // redis-server must be installed; the test starts its own
const DRAIN_MS = 1_500;
/** Exit bound after SIGTERM: the drain time plus the process's own shutdown (module unload, exit). */
const EXIT_BOUND_MS = DRAIN_MS + 5_000;
const dir = mkdtempSync(join(tmpdir(), 'cp-worker-sigterm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function deploymentFile(): string {
  const yaml = readFileSync('config/live-sim.yaml', 'utf8')
    .replace(
      /endpoints:\n {2}simulator:\n {4}seed: 42\n {4}speed: 60[^\n]*\n/,
      [
        'endpoints:',
        '  remote:',
        '    baseUrl: http://127.0.0.1:9',
        '    datastreamUrl: ws://127.0.0.1:9',
        '    apiKey: k',
        '    rpcUrl: http://127.0.0.1:9',
        '    swapUrl: http://127.0.0.1:9',
        '',
      ].join('\n'),
    )
    .replace('  keypairPath: ./wallet.json   # relative to the working directory', `  secretKey: ${getBase58Decoder().decode(Keypair.generate().secretKey)}`)
    .replace('execution:\n', 'execution:\n  queue:\n    url: redis://127.0.0.1:1\n');
  const file = join(dir, `w-${++files}.yaml`);
  writeFileSync(file, yaml);
  return file;
}

function startWorker(url: string, file: string): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['bin/chainpilot.js', 'worker', '--redis', url, '--drain-ms', String(DRAIN_MS), file], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (b: Buffer) => (text += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (text += b.toString()));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => text, exited };
}

async function until(what: string, ok: () => boolean, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resolves with the exit code, or 'still running' once `ms` passed after SIGTERM. */
async function exitWithin(exited: Promise<number | null>, ms: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const r = await Promise.race([exited, new Promise<'still running'>((res) => (timer = setTimeout(() => res('still running'), ms)))]);
  clearTimeout(timer);
  return r;
}

describe.skipIf(!redisOk)('chainpilot worker and SIGTERM while Redis is down', () => {
  it('exits within its drain time when its Redis was killed under it', { timeout: 120_000 }, async () => {
    const own = await startOwnRedis();
    const w = startWorker(own.url, deploymentFile());
    try {
      await until('the worker to start', () => w.output().includes('chainpilot worker: 1 wallet(s)'));
      await own.kill();
      await until('the worker to see Redis gone', () => /ECONNREFUSED|reconnecting/.test(w.output()));
      w.child.kill('SIGTERM');
      expect(await exitWithin(w.exited, EXIT_BOUND_MS)).toBe(0);
      expect(w.output()).toMatch(/stopped/);
    } finally {
      w.child.kill('SIGKILL');
      await own.stop();
    }
  });

  it('exits at once when Redis was down from the start (stuck on its first command)', { timeout: 120_000 }, async () => {
    const own = await startOwnRedis();
    await own.kill();
    const w = startWorker(own.url, deploymentFile());
    try {
      await until('the worker to log reconnects', () => /ECONNREFUSED|reconnecting/.test(w.output()));
      w.child.kill('SIGTERM');
      expect(await exitWithin(w.exited, EXIT_BOUND_MS)).toBe(0);
      expect(w.output()).toContain('stopped before the workers started');
    } finally {
      w.child.kill('SIGKILL');
      await own.stop();
    }
  });
});
