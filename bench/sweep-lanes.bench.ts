/**
 * A 64-cell sweep over 6 simulated hours of config/paper-sim.yaml (seed 5), as a user runs it:
 * whole `chainpilot sweep` processes from the prepared cache (built by a first sweep), in
 * alternating pairs, with the load at each pair:
 * - `--workers 2` ÷ `--workers 1` by wall time (this thread and one worker thread against this
 *   thread alone; issue 40's goal ≥ 1.7 on a 2-core machine) and what the second lane costs in CPU;
 * - `--workers 1` ÷ `--workers 0`: both run every cell in this thread (the ratio shows the lane
 *   pool costs nothing when there is one lane);
 * - with `BENCH_SWEEP_BEFORE=DIR` (a built checkout of the code before, e.g. `git archive` of main
 *   plus `npm run build`), the same pairs of that code's CLI, `--workers 2` ÷ `--workers 1`, on the
 *   same recording in the same rounds.
 * Every sweep's sweep.json must be byte-identical to the first one's (else the bench fails).
 * `BENCH_SWEEP_RECORDING=DIR` reuses a recording (recording 6 hours takes about a minute);
 * `BENCH_SWEEP_PAIRS` sets the rounds (default 3). Each child reports its own CPU seconds
 * (bench/support/cpu-report.mjs, every thread counted).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRedactor } from '../src/core/index.js';
import { loadDeployment } from '../src/config/index.js';
import { recordSimulator } from '../src/research/record/record-sim.js';
import { loadNote, median, type Bench, type BenchRow } from './harness.js';
import { inTurn, measuredProcess } from './support/measured-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const THREAD_CPU = fileURLToPath(new URL('./support/thread-cpu.mjs', import.meta.url));
const PAIRS = Number(process.env['BENCH_SWEEP_PAIRS'] ?? 3);
const FILE = 'config/paper-sim.yaml';
const GRID = [
  '--set',
  'strategies[curve-momentum].params.minHolders=5,10,15,20',
  '--set',
  'strategies[curve-momentum].params.confirmMs=2000,5000,8000,10000',
  '--set',
  'risk.maxOpenPositions=2,4,6,8',
];

interface Run {
  readonly wallS: number;
  readonly cpuS: number;
  /** CPU seconds of each lane's thread: this thread first, then the worker threads (empty off Linux). */
  readonly laneCpuS: readonly number[];
  readonly json: string;
}

/** Each JavaScript thread's CPU seconds as bench/support/thread-cpu.mjs left them: the main thread first. */
function laneCpu(dir: string): number[] {
  const rows = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as { threadId: number; cpuS: number });
  return rows.sort((a, b) => a.threadId - b.threadId).map((r) => r.cpuS);
}

/** One `chainpilot sweep` process of the checkout at `root`; rejects on a non-zero exit. */
async function sweep(root: string, rec: string, workers: number, dir: string): Promise<Run> {
  const out = join(dir, `out-${process.hrtime.bigint()}`);
  const threads = join(dir, `threads-${process.hrtime.bigint()}`);
  mkdirSync(threads);
  const { wallS, cpuS } = await measuredProcess(
    [join(root, 'bin/chainpilot.js'), 'sweep', FILE, '--data', rec, ...GRID, '--workers', String(workers), '--out', out],
    dir,
    { preload: [THREAD_CPU], env: { BENCH_THREAD_CPU_DIR: threads }, label: `sweep --workers ${workers} (${root})` },
  );
  const json = readFileSync(join(out, 'sweep.json'), 'utf8');
  rmSync(out, { recursive: true, force: true });
  const laneCpuS = laneCpu(threads);
  rmSync(threads, { recursive: true, force: true });
  return { wallS, cpuS, laneCpuS, json };
}

interface Pairs {
  readonly base: number[];
  readonly cand: number[];
  readonly ratio: number[];
  readonly cpuBase: number[];
  readonly cpuCand: number[];
  readonly loads: string[];
  /** Each pair's CPU seconds by lane thread (this thread first) and in helper threads, of the candidate. */
  readonly split: string[];
  /** Each pair's wall ratio as the CPU times bound it on two idle cores (see `projected`). */
  readonly projected: number[];
}

const pairs = (): Pairs => ({ base: [], cand: [], ratio: [], cpuBase: [], cpuCand: [], loads: [], split: [], projected: [] });

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);

/** `r`'s CPU seconds by lane and in the helper threads (GC, compilers, thread pool): `7.9 + 7.3 lanes, 5.2 helpers`. */
const splitOf = (r: Run): string => `${r.laneCpuS.map((c) => c.toFixed(1)).join(' + ')} lanes, ${(r.cpuS - sum(r.laneCpuS)).toFixed(1)} helpers`;

/**
 * The wall ratio base ÷ cand the CPU times allow on two idle cores, measurable under any load: a
 * process takes at least its busiest lane thread's CPU time, and at least half its whole CPU time
 * (every thread, helpers included, shares the two cores). NaN without the split (not Linux).
 */
const projected = (base: Run, cand: Run): number => {
  const floor = (r: Run): number => Math.max(...r.laneCpuS, r.cpuS / 2);
  return base.laneCpuS.length && cand.laneCpuS.length ? floor(base) / floor(cand) : Number.NaN;
};

const bench: Bench = {
  name: 'sweep-lanes',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'cp-bench-sweep-'));
    try {
      let rec = process.env['BENCH_SWEEP_RECORDING'];
      if (!rec) {
        rec = join(dir, 'rec');
        await recordSimulator({ seed: 5, durationMs: 6 * 3_600_000, loaded: loadDeployment(FILE), dir: rec, redactor: createRedactor() });
      }
      const recording = rec;
      const before = process.env['BENCH_SWEEP_BEFORE'];
      const first = await sweep(ROOT, recording, 1, dir); // builds the prepared cache the sweeps below load
      const same = (r: Run, what: string): Run => {
        if (r.json !== first.json) throw new Error(`bench: ${what} wrote another sweep.json than --workers 1`);
        return r;
      };
      const run = (root: string, workers: number, what: string) => async (): Promise<Run> => same(await sweep(root, recording, workers, dir), what);
      const two = pairs();
      const zero = pairs();
      const old = pairs();
      const add = (p: Pairs, base: Run, cand: Run, ratio: number): void => {
        p.base.push(base.wallS);
        p.cand.push(cand.wallS);
        p.ratio.push(ratio);
        p.cpuBase.push(base.cpuS);
        p.cpuCand.push(cand.cpuS);
        p.loads.push(loadNote());
        p.split.push(`${splitOf(base)} → ${splitOf(cand)}`);
        p.projected.push(projected(base, cand));
        // each pair as it comes: a long run on a loaded machine shows something before its end
        process.stderr.write(
          `sweep-lanes: ${base.wallS.toFixed(1)} s ÷ ${cand.wallS.toFixed(1)} s wall = ${ratio.toFixed(3)}, CPU ${base.cpuS.toFixed(1)} / ${cand.cpuS.toFixed(1)} s (${splitOf(base)} → ${splitOf(cand)}; bound on idle cores ${projected(base, cand).toFixed(2)}), ${loadNote()}\n`,
        );
      };
      for (let i = 0; i < PAIRS; i++) {
        const swap = i % 2 === 1;
        const [w1, w2] = await inTurn(run(ROOT, 1, '--workers 1'), run(ROOT, 2, '--workers 2'), swap);
        add(two, w1, w2, w1.wallS / w2.wallS);
        const [w0, w1b] = await inTurn(run(ROOT, 0, '--workers 0'), run(ROOT, 1, '--workers 1'), swap);
        add(zero, w0, w1b, w0.wallS / w1b.wallS);
        if (before) {
          const [o1, o2] = await inTurn(run(before, 1, 'the code before, --workers 1'), run(before, 2, 'the code before, --workers 2'), swap);
          add(old, o1, o2, o1.wallS / o2.wallS);
        }
      }
      const note = (p: Pairs): string =>
        `median of ${PAIRS} alternating pairs; CPU s ${median(p.cpuBase).toFixed(2)} → ${median(p.cpuCand).toFixed(2)}; ${p.loads.join(', ')}`;
      const rows: BenchRow[] = [
        { name: '64-cell sweep, --workers 1 (this thread)', value: median(two.base), unit: 's wall', note: 'whole process, from the prepared cache' },
        {
          name: '64-cell sweep, --workers 2 (+1 worker thread)',
          value: median(two.cand),
          unit: 's wall',
          ratio: median(two.ratio),
          note: `speed-up (1 ÷ 2 wall), goal ≥ 1.7; ${note(two)}`,
        },
        {
          name: '64-cell sweep, 1 ÷ 2 lanes as CPU times bound it on idle cores',
          value: median(two.cpuCand),
          unit: 'CPU s (2 lanes)',
          ratio: median(two.projected),
          note: `max(busiest lane, all CPU ÷ 2) of --workers 1 ÷ of --workers 2; CPU s by thread: ${two.split.join('; ')}`,
        },
        {
          name: '64-cell sweep, --workers 1 vs 0',
          value: median(zero.cand),
          unit: 's wall',
          ratio: median(zero.ratio),
          note: `0 ÷ 1 wall (both this thread only); ${note(zero)}`,
        },
      ];
      if (before)
        rows.push({
          name: '64-cell sweep before, --workers 2 vs 1',
          value: median(old.cand),
          unit: 's wall',
          ratio: median(old.ratio),
          note: `the code at ${before}: 1 worker thread ÷ 2 worker threads wall; ${note(old)}`,
        });
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export default bench;
