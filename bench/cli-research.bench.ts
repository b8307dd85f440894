/**
 * Backtests and sweeps as users run them: whole `chainpilot` processes (node start-up, module
 * loading, reading the recording, the run, the report), against a whole `node` process that only
 * gunzips and JSON.parses the same recording, in alternating pairs. The recording is 6 simulated
 * hours of the embedded simulator with config/paper-sim.yaml running (about 30,000 lines).
 * - backtest, first pass (`--no-cache`): wall time and CPU seconds of the process ÷ the baseline's
 *   (the rate ratio is baseline ÷ backtest; goal ≥ 0.8);
 * - sweep of 16 cells, `--workers 2` ÷ `--workers 1` (from the prepared cache, built first): the
 *   wall-time speed-up (goal ≥ 1.8) and what the extra worker costs in CPU seconds. On a machine
 *   whose other load already takes the second core, no speed-up can show: read the CPU row too.
 * Each child reports its own CPU time (bench/support/cpu-report.mjs, every thread counted).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRedactor } from '../src/core/index.js';
import { loadDeployment } from '../src/config/index.js';
import { recordSimulator } from '../src/research/record/record-sim.js';
import { resolveRecordingFiles } from '../src/research/replay/recording-reader.js';
import { loadNote, median, type Bench } from './harness.js';
import { inTurn, measuredProcess as timed, PARSE_ONLY, type MeasuredRun as ProcessRun } from './support/measured-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PAIRS = Number(process.env['BENCH_CLI_PAIRS'] ?? 3);

const bench: Bench = {
  name: 'cli-research',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'cp-bench-cli-'));
    try {
      const rec = join(dir, 'rec');
      await recordSimulator({ seed: 42, durationMs: 6 * 60 * 60_000, loaded: loadDeployment('config/paper-sim.yaml'), dir: rec, redactor: createRedactor() });
      const files = resolveRecordingFiles(rec);
      const cli = join(ROOT, 'bin/chainpilot.js');
      const parse = (): Promise<ProcessRun> => timed(['-e', PARSE_ONLY, ...files], dir);
      const backtest = (): Promise<ProcessRun> => timed([cli, 'backtest', 'config/paper-sim.yaml', '--data', rec, '--no-cache', '--out', join(dir, 'bt')], dir);
      const grid = ['--set', 'strategies[curve-momentum].params.milestonePct=30,40,50,60', '--set', 'strategies[curve-momentum].params.minHolders=5,10,15,20'];
      const sweep = (workers: number): Promise<ProcessRun> =>
        timed([cli, 'sweep', 'config/paper-sim.yaml', '--data', rec, ...grid, '--workers', String(workers), '--out', join(dir, `sw${workers}`)], dir);
      await sweep(1); // builds the prepared cache next to the recording; the sweeps below load it
      const bt = { ratio: [] as number[], cpuRatio: [] as number[], base: [] as number[], run: [] as number[] };
      const sw = { speedup: [] as number[], cpu: [] as number[], one: [] as number[], two: [] as number[] };
      const loads: string[] = [];
      for (let i = 0; i < PAIRS; i++) {
        const [b, r] = await inTurn(parse, backtest, i % 2 === 1);
        bt.ratio.push(b.wallS / r.wallS);
        bt.cpuRatio.push(b.cpuS / r.cpuS);
        bt.base.push(b.wallS);
        bt.run.push(r.wallS);
        const [one, two] = await inTurn(
          () => sweep(1),
          () => sweep(2),
          i % 2 === 1,
        );
        sw.speedup.push(one.wallS / two.wallS);
        sw.cpu.push(two.cpuS / one.cpuS);
        sw.one.push(one.wallS);
        sw.two.push(two.wallS);
        loads.push(loadNote());
      }
      const note = `median of ${PAIRS} alternating pairs; ${loads.join(', ')}`;
      return [
        {
          name: 'node: gunzip + JSON.parse of the recording (baseline)',
          value: median(bt.base),
          unit: 's wall',
          note: `whole process; ${files.length} file(s)`,
        },
        {
          name: 'chainpilot backtest, first pass (--no-cache)',
          value: median(bt.run),
          unit: 's wall',
          ratio: median(bt.ratio),
          note: `ratio = baseline ÷ backtest time, goal ≥ 0.8; by CPU seconds ${median(bt.cpuRatio).toFixed(3)}; ${note}`,
        },
        { name: 'chainpilot sweep, 16 cells, --workers 1', value: median(sw.one), unit: 's wall', note: 'from the prepared cache' },
        {
          name: 'chainpilot sweep, 16 cells, --workers 2',
          value: median(sw.two),
          unit: 's wall',
          ratio: median(sw.speedup),
          note: `speed-up (1 worker ÷ 2 workers time), goal ≥ 1.8; CPU seconds 2 workers ÷ 1: ${median(sw.cpu).toFixed(3)}; ${note}`,
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
