/**
 * Issue 40's table, measured as a user runs it: whole `chainpilot backtest` processes (node start-up,
 * modules, reading the recording, the run, the report) over recordings of config/paper-sim.yaml on
 * the embedded simulator (seed 5) of 24 hours (about 123,000 lines) and 1 hour, in alternating
 * rounds (the order reversed every other round), each child reporting its own CPU seconds (every
 * thread) and peak RSS (bench/support/cpu-report.mjs):
 * - first pass (`--no-cache`, 24 h: streamed from the file) ÷ a `node` process that only gunzips
 *   and JSON.parses every line of it, by CPU seconds (baseline ÷ backtest; goal ≥ 0.5);
 * - events per CPU second from the prepared form, marginal: (lines of 24 h − lines of 1 h) ÷ (CPU of
 *   the 24 h backtest − CPU of the 1 h one), both from the prepared cache (goal ≥ 250,000);
 * - peak RSS of the 24 h backtest ÷ the 1 h one, streamed and from the cache (goal ≤ 1.5).
 * The recordings are made once and kept in $TMPDIR/chainpilot-bench-recordings (1 h: ~10 s, 24 h:
 * minutes); `BACKTEST_SCALE_ROUNDS` sets the rounds (default 3).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { createRedactor } from '../src/core/index.js';
import { loadDeployment } from '../src/config/index.js';
import { recordSimulator } from '../src/research/record/record-sim.js';
import { resolveRecordingFiles } from '../src/research/replay/recording-reader.js';
import { loadNote, median, type Bench } from './harness.js';
import { measuredProcess as timed, PARSE_ONLY, type MeasuredRun as ProcessRun } from './support/measured-process.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env['BACKTEST_SCALE_ROUNDS'] ?? 3);
const STORE = join(tmpdir(), 'chainpilot-bench-recordings');

/** The recording of `hours` simulated hours (made once, then kept). */
async function recording(hours: number): Promise<string> {
  const dir = join(STORE, `paper-sim-seed5-${hours}h`);
  if (!existsSync(join(dir, 'done'))) {
    rmSync(dir, { recursive: true, force: true });
    await recordSimulator({ seed: 5, durationMs: hours * 3_600_000, loaded: loadDeployment('config/paper-sim.yaml'), dir, redactor: createRedactor() });
    await import('node:fs').then((fs) => fs.writeFileSync(join(dir, 'done'), ''));
  }
  return dir;
}

const linesOf = (files: readonly string[]): number =>
  files.reduce(
    (n, f) =>
      n +
      gunzipSync(readFileSync(f))
        .toString('utf8')
        .split('\n')
        .filter((l) => l.length > 0).length -
      1,
    0,
  );

const bench: Bench = {
  name: 'backtest-scale',
  async run() {
    const h1 = await recording(1);
    const h24 = await recording(24);
    const files24 = resolveRecordingFiles(h24);
    const lines1 = linesOf(resolveRecordingFiles(h1));
    const lines24 = linesOf(files24);
    const dir = mkdtempSync(join(tmpdir(), 'cp-bench-scale-'));
    try {
      const cli = join(ROOT, 'bin/chainpilot.js');
      const backtest = (rec: string, cache: boolean): Promise<ProcessRun> =>
        timed([cli, 'backtest', 'config/paper-sim.yaml', '--data', rec, '--out', join(dir, 'out'), ...(cache ? [] : ['--no-cache'])], dir);
      // build both caches first (.chainpilot-cache beside each recording): the rows below read them
      for (const rec of [h1, h24]) rmSync(join(rec, '.chainpilot-cache'), { recursive: true, force: true });
      const build24 = await backtest(h24, true);
      await backtest(h1, true);
      const steps: [string, () => Promise<ProcessRun>][] = [
        ['parse', () => timed(['-e', PARSE_ONLY, ...files24], dir)],
        ['stream24', () => backtest(h24, false)],
        ['stream1', () => backtest(h1, false)],
        ['cache24', () => backtest(h24, true)],
        ['cache1', () => backtest(h1, true)],
      ];
      const got = new Map<string, ProcessRun[]>(steps.map(([k]) => [k, []]));
      const loads: string[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        for (const [k, run] of r % 2 === 0 ? steps : [...steps].reverse()) got.get(k)!.push(await run());
        loads.push(loadNote());
      }
      const cpu = (k: string): number => median(got.get(k)!.map((x) => x.cpuS));
      const rss = (k: string): number => median(got.get(k)!.map((x) => x.rssMb));
      const per = (k: string, i: number): ProcessRun => got.get(k)![i]!;
      const byRound = (f: (i: number) => number): number => median(Array.from({ length: ROUNDS }, (_, i) => f(i)));
      const note = `median of ${ROUNDS} alternating rounds; ${loads.join(', ')}`;
      return [
        { name: 'node: gunzip + JSON.parse, 24 h (baseline)', value: cpu('parse'), unit: 'CPU s', note: `${lines24} lines; ${note}` },
        {
          name: 'backtest first pass (--no-cache, streamed), 24 h',
          value: cpu('stream24'),
          unit: 'CPU s',
          ratio: byRound((i) => per('parse', i).cpuS / per('stream24', i).cpuS),
          note: `ratio = baseline ÷ backtest CPU, goal ≥ 0.5`,
        },
        { name: 'backtest building the prepared cache, 24 h (first run)', value: build24.cpuS, unit: 'CPU s', note: 'one run, before the rounds' },
        { name: 'backtest from the prepared cache, 24 h', value: cpu('cache24'), unit: 'CPU s' },
        { name: 'backtest from the prepared cache, 1 h', value: cpu('cache1'), unit: 'CPU s' },
        {
          name: 'events per CPU second from the prepared form, marginal (24 h − 1 h)',
          value: byRound((i) => (lines24 - lines1) / (per('cache24', i).cpuS - per('cache1', i).cpuS)),
          unit: 'lines/CPU s',
          note: `(${lines24} − ${lines1} lines) ÷ CPU difference per round, goal ≥ 250,000`,
        },
        {
          name: 'peak RSS, 24 h ÷ 1 h, from the prepared cache',
          value: rss('cache24'),
          unit: 'MB (24 h)',
          ratio: byRound((i) => per('cache24', i).rssMb / per('cache1', i).rssMb),
          note: `1 h: ${rss('cache1').toFixed(0)} MB; goal ≤ 1.5`,
        },
        {
          name: 'peak RSS, 24 h ÷ 1 h, streamed (--no-cache)',
          value: rss('stream24'),
          unit: 'MB (24 h)',
          ratio: byRound((i) => per('stream24', i).rssMb / per('stream1', i).rssMb),
          note: `1 h: ${rss('stream1').toFixed(0)} MB; goal ≤ 1.5`,
        },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
export default bench;
