/**
 * Whole measured processes for the benches that time what a user runs (backtest-scale, cli-research,
 * sweep-lanes): `node [args]` with bench/support/cpu-report.mjs preloaded, its wall time, CPU seconds
 * of every thread and peak RSS; alternating pairs; the gunzip + JSON.parse baseline process.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CPU_REPORT = fileURLToPath(new URL('./cpu-report.mjs', import.meta.url));

export interface MeasuredRun {
  readonly wallS: number;
  readonly cpuS: number;
  readonly rssMb: number;
}

export interface MeasuredOptions {
  /** Further modules preloaded after the CPU report (`--import`). */
  readonly preload?: readonly string[];
  /** Further environment for the child. */
  readonly env?: Readonly<Record<string, string>>;
  /** How a failure names the process (default `node <args>`). */
  readonly label?: string;
}

/** Runs `node [args]` in the repository root with the CPU report preloaded (its file in `dir`); rejects on a non-zero exit. */
export async function measuredProcess(args: readonly string[], dir: string, o: MeasuredOptions = {}): Promise<MeasuredRun> {
  const report = join(dir, `cpu-${process.hrtime.bigint()}.json`);
  const preload = [CPU_REPORT, ...(o.preload ?? [])].flatMap((m) => ['--import', m]);
  const t0 = performance.now();
  const child = spawn(process.execPath, [...preload, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...o.env, BENCH_CPU_REPORT: report, NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => void (err += b.toString()));
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  const wallS = (performance.now() - t0) / 1000;
  if (code !== 0) throw new Error(`${o.label ?? `node ${args.join(' ')}`} exited ${code}: ${err.slice(-2000)}`);
  const { cpuS, maxRssKb } = JSON.parse(readFileSync(report, 'utf8')) as { cpuS: number; maxRssKb: number };
  return { wallS, cpuS, rssMb: maxRssKb / 1024 };
}

/** Runs `a` then `b`, or `b` then `a` when `swap`; returns their results as [a, b]. */
export async function inTurn<T>(a: () => Promise<T>, b: () => Promise<T>, swap: boolean): Promise<[T, T]> {
  if (!swap) {
    const x = await a();
    return [x, await b()];
  }
  const y = await b();
  return [await a(), y];
}

/** The baseline process's script (`node -e`): gunzips and JSON.parses every line of the files it is given. */
export const PARSE_ONLY = `
const { readFileSync } = require('node:fs');
const { gunzipSync } = require('node:zlib');
let n = 0;
for (const f of process.argv.slice(1)) {
  const text = gunzipSync(readFileSync(f)).toString('utf8');
  let s = 0;
  for (;;) { const e = text.indexOf('\\n', s); if (e < 0) break; JSON.parse(text.slice(s, e)); n++; s = e + 1; }
}
if (n === 0) process.exit(2);
`;
