/**
 * Distributed sweeps on real Redis: `chainpilot sweep --redis` puts the cells on BullMQ and
 * `chainpilot worker --sweeps` processes (the real CLI, separate processes) run them. The results are
 * byte-identical to a local sweep; a worker SIGKILLed in the middle of a cell loses nothing (the
 * cell runs again on another worker); a worker whose copy of the recording differs refuses the cell
 * with BACKTEST_RECORDING_MISMATCH.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';
import { runSweep, type SweepOptions } from '../../src/research/backtest/run-sweep.js';
import { parseSetOption } from '../../src/research/backtest/sweep-grid.js';
import { SWEEP_QUEUE } from '../../src/research/backtest/sweep-queue.js';
import { REDIS_URL, useRedis } from '../helpers/redis.js';

const redisOk = await useRedis();
const dir = mkdtempSync(join(tmpdir(), 'cp-sweepq-'));
const file = 'config/paper-sim.yaml';
const rec = join(dir, 'rec');
const children: ChildProcess[] = [];

beforeAll(async () => {
  if (!redisOk) return;
  await recordSimulator({ seed: 5, durationMs: 20 * 60_000, loaded: loadDeployment(file), dir: rec, redactor: createRedactor() });
}, 60_000);
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `chainpilot worker --sweeps` as its own process and resolves once it takes jobs. */
async function startWorker(prefix: string, extra: readonly string[] = []): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['bin/chainpilot.js', 'worker', '--sweeps', '--redis', REDIS_URL, '--queue-prefix', prefix, '--lock-duration', '1500', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  let err = '';
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (b: Buffer) => {
      out += b.toString();
      if (out.includes('running sweep cells')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${err}`)));
  });
  return child;
}

const options = (outDir: string): SweepOptions => ({
  file,
  data: [rec],
  axes: [parseSetOption('strategies[curve-momentum].params.confirmMs=2000,5000'), parseSetOption('risk.maxOpenPositions=2,6')],
  folds: 3,
  walkForwardPct: 60,
  minTrades: 1,
  outDir: join(dir, outDir),
});
const read = (sub: string, f: string): string => readFileSync(join(dir, sub, f), 'utf8');
const prefixOf = (): string => `cpsweep${randomUUID().slice(0, 8)}`;

describe.skipIf(!redisOk)('sweeps on BullMQ', () => {
  it('gives the local result byte for byte with two worker processes, and again after a worker is killed mid-cell', async () => {
    await runSweep({ ...options('local'), workers: 0 });

    const prefix = prefixOf();
    await Promise.all([startWorker(prefix), startWorker(prefix)]);
    await runSweep({ ...options('queued'), redisUrl: REDIS_URL, queuePrefix: prefix });
    for (const f of ['sweep.json', 'sweep.csv', 'sweep.html']) expect(read('queued', f)).toBe(read('local', f));

    // One worker: kill it while a cell is active, then start another; the sweep finishes the same.
    for (const c of children.splice(0)) c.kill('SIGKILL');
    const prefix2 = prefixOf();
    const victim = await startWorker(prefix2);
    const sweep = runSweep({ ...options('killed'), redisUrl: REDIS_URL, queuePrefix: prefix2 });
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue(SWEEP_QUEUE, { connection, prefix: prefix2 });
    try {
      const deadline = Date.now() + 60_000;
      while ((await queue.getActiveCount()) === 0) {
        if (Date.now() > deadline) throw new Error('no cell became active');
        await new Promise((r) => setTimeout(r, 10));
      }
      victim.kill('SIGKILL');
      await startWorker(prefix2);
      await sweep;
      for (const f of ['sweep.json', 'sweep.csv', 'sweep.html']) expect(read('killed', f)).toBe(read('local', f));
      // The cell the victim held was taken again after its lock ran out.
      const jobs = await queue.getJobs(['completed']);
      expect(jobs.length).toBe(4);
      expect(jobs.some((j) => j.attemptsStarted >= 2 || j.stalledCounter >= 1)).toBe(true);
      await queue.obliterate({ force: true });
    } finally {
      await queue.close();
      await connection.quit();
    }
  }, 240_000);

  it('fails the sweep with BACKTEST_RECORDING_MISMATCH when a worker holds a different recording under the same name', async () => {
    const other = join(dir, 'other');
    await recordSimulator({ seed: 6, durationMs: 5 * 60_000, loaded: loadDeployment(file), dir: join(dir, 'rec6'), redactor: createRedactor() });
    mkdirSync(other, { recursive: true });
    const mine = readdirSync(rec).filter((f) => f.endsWith('.jsonl.gz'));
    const theirs = readdirSync(join(dir, 'rec6')).filter((f) => f.endsWith('.jsonl.gz'));
    expect(mine.length).toBe(1);
    copyFileSync(join(dir, 'rec6', theirs[0]!), join(other, mine[0]!));
    const prefix = prefixOf();
    await startWorker(prefix, ['--recordings', other]);
    await expect(runSweep({ ...options('mismatch'), redisUrl: REDIS_URL, queuePrefix: prefix })).rejects.toMatchObject({
      code: 'BACKTEST_CELL_FAILED',
      message: expect.stringContaining('BACKTEST_RECORDING_MISMATCH'),
    });
    const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
    await new Queue(SWEEP_QUEUE, { connection, prefix }).obliterate({ force: true });
    await connection.quit();
  }, 120_000);
});
