/**
 * Sweeps and searches over one simulator recording: the same sweep.json, sweep.csv and sweep.html
 * with 0 to 3 lanes; walk-forward folds whose in-sample and out-of-sample windows share
 * no recorded line; successive halving pruning on in-sample data and reproducible for a seed; an
 * objective exported by a module; the spaces a strategy declares searched when no --set is given.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { loadRecording } from '../../src/research/backtest/backtest-job.js';
import { readRecording } from '../../src/research/replay/recording-reader.js';
import { runBacktest } from '../../src/research/backtest/run-backtest.js';
import { CACHE_DIR_NAME } from '../../src/research/replay/prepared-cache.js';
import { runSweep } from '../../src/research/backtest/run-sweep.js';
import { parseSetOption } from '../../src/research/backtest/sweep-grid.js';
import { foldWindows } from '../../src/research/backtest/walk-forward.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-sweep-'));
const file = 'config/paper-sim.yaml';
const rec = join(dir, 'rec');
beforeAll(async () => {
  await recordSimulator({ seed: 5, durationMs: 20 * 60_000, loaded: loadDeployment(file), dir: rec, redactor: createRedactor() });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const axes = [parseSetOption('strategies[curve-momentum].params.confirmMs=2000,5000'), parseSetOption('risk.maxOpenPositions=2,6')];
const read = (sub: string, f: string): string => readFileSync(join(dir, sub, f), 'utf8');

describe('sweep', () => {
  it('writes byte-identical outputs with --workers 0, 1, 2 and 3 (this thread, and 1 or 2 worker threads beside it), over two rolling walk-forward folds', async () => {
    const base = { file, data: [rec], axes, folds: 2, walkForwardPct: 70, minTrades: 1 };
    const zero = await runSweep({ ...base, outDir: join(dir, 'w0'), workers: 0 });
    // The first sweep built the recording's prepared cache; the others and their workers read it.
    expect(readdirSync(join(rec, CACHE_DIR_NAME)).filter((f) => f.endsWith('.cpreplay')).length).toBe(1);
    await runSweep({ ...base, outDir: join(dir, 'w1'), workers: 1 });
    await runSweep({ ...base, outDir: join(dir, 'w2'), workers: 2 });
    await runSweep({ ...base, outDir: join(dir, 'w3'), workers: 3 });
    for (const f of ['sweep.json', 'sweep.csv', 'sweep.html']) {
      expect(read('w1', f)).toBe(read('w0', f));
      expect(read('w2', f)).toBe(read('w0', f));
      expect(read('w3', f)).toBe(read('w0', f));
    }
    expect(zero.cells.length).toBe(4);
    expect(zero.windows.map((w) => w.name)).toEqual(['fold1-in', 'fold1-out', 'fold2-in', 'fold2-out']);
    // Rolling folds: equal in-sample lengths, each ending the millisecond before its out-of-sample window.
    const [i1, o1, i2, o2] = zero.windows;
    expect(i1!.toMs! + 1).toBe(o1!.fromMs);
    expect(i2!.toMs! + 1).toBe(o2!.fromMs);
    expect(o1!.toMs! + 1).toBe(o2!.fromMs);
    expect(i2!.toMs! - i2!.fromMs!).toBe(i1!.toMs! - i1!.fromMs!);
    // Selection is on in-sample only; the headline is the selected cells' out-of-sample results.
    for (const f of zero.folds) {
      const best = Math.max(...zero.cells.filter((c) => c.windows[f.inSample]!.trades >= 1).map((c) => c.scores[f.inSample] ?? -Infinity));
      if (f.inSampleScore !== null) expect(f.inSampleScore).toBe(best);
      expect(f.result).toEqual(zero.cells.find((c) => c.index === f.selected)!.windows[f.outOfSample!]);
    }
    expect(zero.headline.outOfSample).toBe(true);
    expect(zero.headline.trades).toBe(zero.folds.reduce((n, f) => n + (f.result?.trades ?? 0), 0));
    expect(new Set(zero.cells.map((c) => c.windows['fold1-in']!.fingerprint)).size).toBe(4);
    expect(read('w0', 'sweep.html')).toContain('Heatmap: profitFactor');
  }, 300_000);

  it('replays every recorded line of a split in exactly one window: in-sample and out-of-sample frames add up to the whole', async () => {
    const { recording } = loadRecording([rec]);
    const lines = readRecording([rec]).lines;
    const { first, last } = recording.span;
    expect(first).toBe(lines.find((l) => l.kind === 'start')!.t);
    expect(last).toBe(lines.findLast((l) => l.kind === 'end')!.t);
    const loaded = loadDeployment(file);
    const [fold] = foldWindows(first, last, { folds: 1, inSamplePct: 70, mode: 'rolling' });
    // Put the split on a recorded frame's instant: the case that used to be replayed in both windows.
    const splitLine = lines.find((l) => l.kind === 'frame' && l.t > fold!.outOfSample.fromMs)!;
    const whole = await runBacktest({ loaded, recording });
    const inS = await runBacktest({ loaded, recording, fromMs: first, toMs: splitLine.t - 1 });
    const outS = await runBacktest({ loaded, recording, fromMs: splitLine.t, toMs: last });
    expect(inS.feed.frames + outS.feed.frames).toBe(whole.feed.frames);
    expect(inS.feed.frames).toBeGreaterThan(0);
    expect(outS.feed.frames).toBeGreaterThan(0);
    const anchored = foldWindows(first, last, { folds: 3, inSamplePct: 60, mode: 'anchored' });
    expect(anchored.map((f) => f.inSample.fromMs)).toEqual([first, first, first]);
    expect(anchored[2]!.outOfSample.toMs).toBe(last);
  }, 120_000);

  it('prunes with successive halving on in-sample windows, the same for a seed, with an objective exported by a module', async () => {
    const objective = join(dir, 'objective.mjs');
    writeFileSync(objective, 'export function fewestFees(m) { return m.trades === 0 ? null : -Number(m.feesSol); }\n');
    const o = {
      file,
      data: [rec],
      axes: [parseSetOption('strategies[curve-momentum].params.confirmMs=1000,2000,3000,5000,8000'), parseSetOption('risk.maxOpenPositions=1,2,4,6')],
      search: 'halving' as const,
      budget: 9,
      seed: 11,
      objective: `${objective}#fewestFees`,
      minTrades: 0,
      walkForwardPct: 70,
      workers: 1,
    };
    const a = await runSweep({ ...o, outDir: join(dir, 'h1') });
    await runSweep({ ...o, outDir: join(dir, 'h2'), workers: 0 });
    expect(read('h2', 'sweep.json')).toBe(read('h1', 'sweep.json'));
    expect(a.search).toEqual({ method: 'halving', budget: 9, seed: 11 });
    expect(a.cells.length).toBe(9);
    // Rung 0 runs all 9 on the last third of the in-sample window; 3 go on to the whole of it; the best of those runs out of sample.
    expect(a.windows.map((w) => w.name)).toEqual(['fold1-in@0', 'fold1-in', 'fold1-out']);
    expect(a.cells.filter((c) => c.windows['fold1-in@0']).length).toBe(9);
    expect(a.cells.filter((c) => c.windows['fold1-in']).length).toBe(3);
    expect(a.cells.filter((c) => c.windows['fold1-out']).length).toBe(1);
    const rung = a.windows[0]!;
    expect(rung.toMs).toBe(a.windows[1]!.toMs);
    expect(rung.fromMs!).toBeGreaterThan(a.windows[1]!.fromMs!);
    const selected = a.cells.find((c) => c.index === a.folds[0]!.selected)!;
    expect(selected.windows['fold1-out']).toBeDefined();
    expect(a.objective.name).toContain('#fewestFees');
    // Another seed draws other cells.
    const b = await runSweep({ ...o, seed: 12, outDir: join(dir, 'h3') });
    expect(b.cells.map((c) => c.index)).not.toEqual(a.cells.map((c) => c.index));
  }, 300_000);

  it('searches the spaces the strategies declare when no --set is given', async () => {
    const r = await runSweep({ file, data: [rec], search: 'random', budget: 2, seed: 3, outDir: join(dir, 'declared'), workers: 0, objective: 'calmar' });
    expect(r.axes.map((a) => a.path)).toEqual([
      'strategies[curve-momentum].params.milestonePct',
      'strategies[curve-momentum].params.confirmMs',
      'strategies[curve-momentum].params.minHolders',
      'strategies[curve-momentum].params.maxTop10Pct',
    ]);
    expect(r.axes[0]!.values).toEqual([30, 40, 50, 60, 70]);
    expect(r.cells.length).toBe(2);
    expect(r.headline.outOfSample).toBe(false);
  }, 120_000);

  it('refuses a value the strategy parameters refuse before any work, and stops with BACKTEST_CELL_FAILED naming a cell that throws while it runs', async () => {
    await expect(
      runSweep({
        file,
        data: [rec],
        axes: [parseSetOption('strategies[curve-momentum].params.milestonePct=50,150')],
        outDir: join(dir, 'badparam'),
        workers: 0,
      }),
    ).rejects.toMatchObject({ code: 'STRATEGY_INVALID_PARAMS', message: expect.stringContaining('milestonePct') });
    // A strategy whose rooms() throws for one value: only running the cell finds it.
    writeFileSync(
      join(dir, 'throws.mjs'),
      // (no import: a worker thread resolves modules from the file's own directory, which has no node_modules here)
      `const params = { safeParse: (v) => ({ success: true, data: { n: (v && v.n) || 1 } }) };
export default { id: 'throws', params, rooms(p) { if (p.n >= 2) throw new Error('n = ' + p.n + ' is cursed'); return []; } };
`,
    );
    const deployment = join(dir, 'throws.yaml');
    writeFileSync(deployment, `${readFileSync(file, 'utf8').split('strategies:')[0]!}strategies:\n  - use: ./throws.mjs\n`);
    // Cells 1 to 3 fail: every lane count names the first of them, whichever lane failed first.
    for (const workers of [0, 2, 3])
      await expect(
        runSweep({ file: deployment, data: [rec], axes: [parseSetOption('strategies[0].params.n=1,2,3,4')], outDir: join(dir, `fail${workers}`), workers }),
      ).rejects.toMatchObject({ code: 'BACKTEST_CELL_FAILED', message: expect.stringMatching(/sweep cell 1 failed: n = 2 is cursed/) });
  }, 120_000);

  it('refuses to put a deployment holding a literal secret on a queue, before connecting', async () => {
    const literal = join(dir, 'literal-key.yaml');
    writeFileSync(
      literal,
      `${readFileSync('config/paper-sim.yaml', 'utf8')}notify:\n  webhook: { url: "https://hooks.example/x", secret: "a-literal-secret-0123456789" }\n`,
    );
    await expect(runSweep({ file: literal, data: [rec], axes, outDir: join(dir, 'lit'), redisUrl: 'redis://127.0.0.1:1' })).rejects.toMatchObject({
      code: 'BACKTEST_INVALID_OPTION',
      message: expect.stringContaining('holds a secret in its text'),
    });
  });

  it('refuses a --set path that names no strategy, before any work', async () => {
    await expect(
      runSweep({ file, data: [rec], axes: [parseSetOption('strategies[nope].params.x=1,2')], outDir: join(dir, 'bad'), workers: 0 }),
    ).rejects.toMatchObject({ code: 'BACKTEST_INVALID_OPTION', message: expect.stringContaining('strategies[nope]') });
  });
});
