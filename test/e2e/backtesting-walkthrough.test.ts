/**
 * The search → report walk-through of docs/backtesting.md, run as written: every command of its
 * block through the real CLI (`node bin/chainpilot.js`), in order, in an empty directory; then the
 * two lines of "Sweeps on many machines" against the test's Redis, whose sweep.json must equal the
 * local one byte for byte.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { BacktestReport } from '../../src/research/report/report-types.js';
import type { SweepOutput } from '../../src/research/report/sweep-output.js';
import { REDIS_URL, useRedis } from '../helpers/redis.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(join(ROOT, 'docs/backtesting.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'cp-walk-'));
symlinkSync(join(ROOT, 'bin'), join(dir, 'bin'));
symlinkSync(join(ROOT, 'config'), join(dir, 'config'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** The command lines of the first ```sh block after `heading`. */
function commandsAfter(heading: string): string[][] {
  const at = doc.indexOf(heading);
  expect(at).toBeGreaterThan(0);
  const block = /```sh\n([\s\S]*?)\n```/.exec(doc.slice(at))![1]!;
  return (
    block
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter((l) => l.length > 0)
      // words as the shell splits them: a '...' word is one word, its quotes removed
      .map((l) => (l.match(/'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^'(.*)'$/, '$1')))
  );
}

function run(words: readonly string[]): { stdout: string; stderr: string } {
  expect(words.slice(0, 2)).toEqual(['node', 'bin/chainpilot.js']);
  const r = spawnSync(process.execPath, words.slice(1), { cwd: dir, encoding: 'utf8', timeout: 240_000 });
  if (r.status !== 0) throw new Error(`${words.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { stdout: r.stdout, stderr: r.stderr };
}

const json = <T>(f: string): T => JSON.parse(readFileSync(join(dir, f), 'utf8')) as T;

describe('docs/backtesting.md walk-through: search → report', () => {
  it('runs every command as written and gets what the text says', () => {
    const lines = commandsAfter('### Walk-through: search → report');
    expect(lines.map((w) => w[2])).toEqual(['record', 'sweep', 'sweep', 'backtest', 'report']);
    run(lines[0]!);

    const halving = run(lines[1]!);
    const s = json<SweepOutput>('sweep-out/sweep.json');
    expect(s.search).toEqual({ method: 'halving', budget: 9, seed: 7 });
    expect(s.objective).toEqual({ name: 'calmar', minTrades: 3 });
    expect(s.walkForward).toEqual({ folds: 2, inSamplePct: 70, mode: 'rolling' });
    expect(s.axes.map((a) => a.path)).toEqual([
      'strategies[curve-momentum].params.confirmMs',
      'strategies[curve-momentum].params.minHolders',
      'risk.maxOpenPositions',
    ]);
    expect(s.headline.outOfSample).toBe(true);
    expect(halving.stdout).toContain(`out of sample (2 folds, selected in-sample by calmar): ${s.headline.netPnlSol} SOL over ${s.headline.trades} trades`);
    expect(halving.stdout).toMatch(/fold 1: cell \d+/);
    // Progress ends with a true rate: cells per wall second, not 0.
    const rate = [...halving.stderr.matchAll(/\((\d+)\/(\d+) cells, ([\d.,]+) cells\/s\)/g)].at(-1);
    expect(rate).not.toBeNull();
    expect(rate![1]).toBe(rate![2]);
    expect(Number(rate![3]!.replace(/,/g, ''))).toBeGreaterThan(0);

    const random = run(lines[2]!);
    const r = json<SweepOutput>('sweep-random/sweep.json');
    expect(r.search).toEqual({ method: 'random', budget: 4, seed: 3 });
    expect(r.cells.length).toBe(4);
    expect(r.walkForward).toEqual({ folds: 3, inSamplePct: 60, mode: 'anchored' });
    // it searches axes the recording holds: no warning before, no cell blind to its curve milestone after
    expect(r.axes.map((a) => a.path)).toEqual(['strategies[curve-momentum].params.confirmMs', 'strategies[curve-momentum].params.minHolders']);
    expect(random.stderr).not.toContain('warning:');
    expect(r.cells.flatMap((c) => c.silentRooms?.kinds.map((k) => k.kind) ?? []).filter((k) => k.includes('curve:'))).toEqual([]);
    expect(new Set(r.windows.filter((w) => w.name.endsWith('-in')).map((w) => w.fromMs)).size).toBe(1);

    run(lines[3]!);
    const report = json<BacktestReport>('backtest-out/report.json');
    expect(report.extras?.byExitRule.length).toBeGreaterThan(0);
    expect(report.extras?.hourly.hours).toBe(1);
    const before = readFileSync(join(dir, 'backtest-out/report.html'), 'utf8');
    rmSync(join(dir, 'backtest-out/report.html'));
    run(lines[4]!);
    expect(readFileSync(join(dir, 'backtest-out/report.html'), 'utf8')).toBe(before);
  }, 600_000);

  it('runs the two lines of "Sweeps on many machines" and gets the local sweep.json byte for byte', async (ctx) => {
    if (!(await useRedis())) return ctx.skip();
    const local = readFileSync(join(dir, 'sweep-out/sweep.json'), 'utf8');
    const prefix = ['--queue-prefix', `walk${randomUUID().slice(0, 8)}`];
    const [worker, sweep] = commandsAfter('### Sweeps on many machines (BullMQ)').map((w) => [
      ...w.map((x) => (x === 'redis://10.0.0.5:6379' ? REDIS_URL : x === '/shared/recordings' ? 'recordings' : x)),
      ...prefix,
    ]);
    expect(worker![2]).toBe('worker');
    const child = spawn(process.execPath, worker!.slice(1), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (b: Buffer) => {
        out += b.toString();
        if (out.includes('running sweep cells')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`worker exited ${code}`)));
    });
    rmSync(join(dir, 'sweep-out'), { recursive: true });
    run(sweep!);
    expect(readFileSync(join(dir, 'sweep-out/sweep.json'), 'utf8')).toBe(local);
  }, 300_000);
});
