/**
 * What a search costs, in one run, over 2 simulated hours of config/paper-sim.yaml (27 cells drawn
 * from a 90-cell space, one 70/30 walk-forward fold, objective calmar):
 * - baseline: random search in this thread (27 cells × in-sample and out-of-sample windows);
 * - successive halving of the same 27 cells in this thread (ratio: its CPU time over random's; the
 *   design expects about 1/4: 27 × 1/9 + 9 × 1/3 + 3 in-sample windows and one out-of-sample);
 * - random search on 2 worker threads (ratio: wall-time speed-up over this thread; the target is
 *   >= 1.8 on 2 free cores, which a shared machine may not give).
 * Each row's note gives the out-of-sample headline, so a cheaper search that selects worse shows it.
 * CPU time is the process's user + system time, worker threads included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createRedactor } from '../src/core/index.js';
import { loadDeployment } from '../src/config/index.js';
import { recordSimulator } from '../src/research/record/record-sim.js';
import { runSweep, type SweepOptions } from '../src/research/backtest/run-sweep.js';
import { parseSetOption } from '../src/research/backtest/sweep-grid.js';
import type { Bench, BenchRow } from './harness.js';

const FILE = 'config/paper-sim.yaml';

async function measure(o: SweepOptions): Promise<{ cpuS: number; wallS: number; note: string }> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await runSweep(o);
  const c = process.cpuUsage(c0);
  return {
    cpuS: (c.user + c.system) / 1e6,
    wallS: (performance.now() - t0) / 1000,
    note: `${r.cells.length} cells; out of sample ${r.headline.netPnlSol} SOL over ${r.headline.trades} trades (cell ${r.folds[0]?.selected ?? 'none'})`,
  };
}

const bench: Bench = {
  name: 'search',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'cp-bench-search-'));
    try {
      const rec = join(dir, 'rec');
      await recordSimulator({ seed: 42, durationMs: 2 * 3_600_000, loaded: loadDeployment(FILE), dir: rec, redactor: createRedactor() });
      const base: SweepOptions = {
        file: FILE,
        data: [rec],
        axes: [
          parseSetOption('strategies[curve-momentum].params.confirmMs=1000,2000,3000,5000,8000,10000'),
          parseSetOption('strategies[curve-momentum].params.minHolders=5,10,20,30,40'),
          parseSetOption('risk.maxOpenPositions=2,4,6'),
        ],
        budget: 27,
        seed: 1,
        walkForwardPct: 70,
        objective: 'calmar',
        minTrades: 3,
        outDir: join(dir, 'out'),
      };
      // Warm-up: builds the prepared cache and loads the modules.
      await runSweep({ ...base, budget: 1, search: 'random', workers: 0 });
      const random = await measure({ ...base, search: 'random', workers: 0 });
      const halving = await measure({ ...base, search: 'halving', workers: 0 });
      const threads = await measure({ ...base, search: 'random', workers: 2 });
      return [
        { name: 'random, 27 cells, this thread (baseline)', value: random.cpuS, unit: 'CPU s', ratio: 1, note: random.note },
        { name: 'halving, 27 cells, this thread', value: halving.cpuS, unit: 'CPU s', ratio: halving.cpuS / random.cpuS, note: halving.note },
        {
          name: 'random, 27 cells, 2 worker threads',
          value: threads.wallS,
          unit: 'wall s',
          ratio: random.wallS / threads.wallS,
          note: `speed-up over this thread's ${random.wallS.toFixed(1)} wall s; ${threads.note}`,
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
