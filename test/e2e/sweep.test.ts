/**
 * Sweeps: the grid of two parameters over one recording on worker threads gives the same
 * sweep.json with 1 worker and with 2; walk-forward reports an in-sample and an out-of-sample
 * window for every cell; a bad --set path is refused before any work, naming the path.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedactor } from '../../src/core/index.js';
import { loadDeployment } from '../../src/config/index.js';
import { CACHE_DIR_NAME } from '../../src/research/replay/prepared-cache.js';
import { runSweep } from '../../src/research/backtest/run-sweep.js';
import { parseSetOption } from '../../src/research/backtest/sweep-grid.js';
import { recordSimulator } from '../../src/research/record/record-sim.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-sweep-'));
const file = 'config/paper-sim.yaml';
beforeAll(async () => {
  await recordSimulator({ seed: 5, durationMs: 20 * 60_000, loaded: loadDeployment(file), dir: join(dir, 'rec'), redactor: createRedactor() });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const axes = [parseSetOption('strategies[curve-momentum].params.confirmMs=2000,5000'), parseSetOption('risk.maxOpenPositions=2,6')];

describe('sweep', () => {
  it('gives identical results with 1 and 2 worker threads, with walk-forward windows for every cell', async () => {
    const one = await runSweep({ file, data: [join(dir, 'rec')], axes, outDir: join(dir, 'w1'), workers: 1, walkForwardPct: 70, minTrades: 1 });
    // The first sweep built the recording's prepared cache; the second sweep and its workers read it.
    expect(readdirSync(join(dir, 'rec', CACHE_DIR_NAME)).filter((f) => f.endsWith('.cpreplay')).length).toBe(1);
    const two = await runSweep({ file, data: [join(dir, 'rec')], axes, outDir: join(dir, 'w2'), workers: 2, walkForwardPct: 70, minTrades: 1 });
    expect(readFileSync(join(dir, 'w2', 'sweep.json'), 'utf8')).toBe(readFileSync(join(dir, 'w1', 'sweep.json'), 'utf8'));
    expect(readFileSync(join(dir, 'w2', 'sweep.csv'), 'utf8')).toBe(readFileSync(join(dir, 'w1', 'sweep.csv'), 'utf8'));
    expect(two.cells.length).toBe(4);
    expect(one.windows).toEqual(['in-sample', 'out-of-sample']);
    for (const c of one.cells) {
      expect(Object.keys(c.windows)).toEqual(['in-sample', 'out-of-sample']);
      expect(c.windows['in-sample']!.fingerprint).not.toBe(c.windows['out-of-sample']!.fingerprint);
    }
    // Different parameters make different runs.
    expect(new Set(one.cells.map((c) => c.windows['in-sample']!.fingerprint)).size).toBe(4);
    expect([...one.ranking].sort()).toEqual([0, 1, 2, 3]);
    const html = readFileSync(join(dir, 'w1', 'sweep.html'), 'utf8');
    expect(html).toContain('Heatmap: profitFactor');
  }, 120_000);

  it('refuses a --set path that names no strategy, before any work', async () => {
    await expect(
      runSweep({ file, data: [join(dir, 'rec')], axes: [parseSetOption('strategies[nope].params.x=1,2')], outDir: join(dir, 'bad'), workers: 0 }),
    ).rejects.toMatchObject({ code: 'BACKTEST_INVALID_OPTION', message: expect.stringContaining('strategies[nope]') });
  });
});
