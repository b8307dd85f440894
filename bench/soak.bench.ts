/**
 * Memory soak (`npm run bench soak`; skipped by a plain `npm run bench`, it takes minutes): the
 * simulator alone, and a paper deployment on the simulator at maximum speed, each for SOAK_HOURS
 * simulated hours (default 48) in its own child process, RSS sampled once per simulated hour
 * after a full GC. The baseline is the same child's RSS at the end of warm-up (SOAK_WARMUP_HOURS,
 * default 12: retention windows of trades 3 h and dead tokens 6 h have filled by then); the ratio
 * is the largest RSS after warm-up over that baseline, and must stay within 1.2 (flat within 20%).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Bench, BenchRow } from './harness.js';
import type { SoakSample } from './soak/soak-sample.js';

const WARMUP = Number(process.env['SOAK_WARMUP_HOURS'] ?? 12);

function runChild(script: string): Promise<SoakSample[]> {
  return new Promise((resolve, reject) => {
    const path = fileURLToPath(new URL(`./soak/${script}`, import.meta.url));
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', path], { stdio: ['ignore', 'pipe', 'inherit'] });
    const samples: SoakSample[] = [];
    let buf = '';
    child.stdout.on('data', (b: Buffer) => {
      buf += b.toString();
      for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        const s = JSON.parse(line) as SoakSample;
        samples.push(s);
        if (process.env['SOAK_VERBOSE']) process.stderr.write(`${script} ${line}\n`);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(samples) : reject(new Error(`${script} exited with ${code}`))));
  });
}

function rows(name: string, samples: readonly SoakSample[]): BenchRow[] {
  const base = samples.find((s) => s.hour === WARMUP) ?? samples.at(-1)!;
  const after = samples.filter((s) => s.hour >= WARMUP);
  const peak = Math.max(...after.map((s) => s.rssMb));
  const last = samples.at(-1)!;
  return [
    { name: `${name}: RSS after warm-up (h${base.hour})`, value: base.rssMb, unit: 'MB', note: `heap ${base.heapUsedMb} MB` },
    {
      name: `${name}: peak RSS h${WARMUP}..h${last.hour}`,
      value: peak,
      unit: 'MB',
      ratio: peak / base.rssMb,
      note: `limit 1.2; end RSS ${last.rssMb} MB, heap ${last.heapUsedMb} MB, ${last.wallSec}s wall`,
    },
  ];
}

const bench: Bench = {
  name: 'soak',
  async run() {
    if (process.argv[2] !== 'soak') return [{ name: 'skipped (run `npm run bench soak`)', value: 0, unit: '' }];
    return [...rows('simulator alone', await runChild('sim-soak.ts')), ...rows('paper on simulator, max speed', await runChild('paper-soak.ts'))];
  },
};
export default bench;
