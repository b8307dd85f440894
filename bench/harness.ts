/**
 * A tiny benchmark harness. Machines are shared and noisy: every benchmark reports its result as a
 * ratio against a baseline measured in the same run, never as an absolute pass/fail.
 */
import { loadavg } from 'node:os';

export interface BenchRow {
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** Value divided by the baseline's value (same unit), when there is a baseline. */
  readonly ratio?: number;
  readonly note?: string;
}

export interface Bench {
  readonly name: string;
  run(): Promise<BenchRow[]>;
}

/** Runs `fn` repeatedly for about `ms` milliseconds and returns operations per second. */
export function opsPerSecond(fn: () => void, ms = 1000, batch = 100): number {
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(ms) * 1_000_000n;
  let ops = 0;
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < batch; i++) fn();
    ops += batch;
    now = process.hrtime.bigint();
  }
  return ops / (Number(now - start) / 1e9);
}

/**
 * Runs `fn` repeatedly for about `ms` milliseconds of wall time and returns the process's CPU
 * microseconds (user + system) per call: for single-threaded synchronous work on a shared machine,
 * a measure that time other processes hold the core does not inflate.
 */
export function cpuMicrosPerOp(fn: () => void, ms = 1000, batch = 100): number {
  const deadline = performance.now() + ms;
  const c0 = process.cpuUsage();
  let ops = 0;
  while (performance.now() < deadline) {
    for (let i = 0; i < batch; i++) fn();
    ops += batch;
  }
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / ops;
}

/** Percentile (0..100) of a numeric sample, by nearest rank. */
export function percentile(sample: readonly number[], p: number): number {
  if (sample.length === 0) return Number.NaN;
  const sorted = [...sample].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export function formatRows(bench: string, rows: readonly BenchRow[]): string {
  return rows
    .map((r) => {
      const ratio = r.ratio === undefined ? '' : `  ratio ${r.ratio.toFixed(3)}`;
      const note = r.note ? `  (${r.note})` : '';
      return `${bench.padEnd(24)} ${r.name.padEnd(44)} ${r.value.toFixed(2).padStart(14)} ${r.unit}${ratio}${note}`;
    })
    .join('\n');
}

/** Median of a numeric sample (mean of the two middle values for an even count). */
export function median(sample: readonly number[]): number {
  if (sample.length === 0) return Number.NaN;
  const s = [...sample].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The 1-minute load average now, for the note of a row (figures on a shared machine need it). */
export function loadNote(): string {
  return `load ${loadavg()[0]!.toFixed(2)}`;
}

/**
 * Alternating pairs: runs `baseline` then `candidate` (swapping the order every other round) for
 * `rounds` rounds, each a call returning a measure (a rate or a time per operation). Returns the median of each and
 * the median of the per-round ratios candidate ÷ baseline, so the load of one moment falls on both.
 */
export async function alternatingPairs(
  baseline: () => number | Promise<number>,
  candidate: () => number | Promise<number>,
  rounds = 5,
): Promise<{ baseline: number; candidate: number; ratio: number; ratios: number[] }> {
  const b: number[] = [];
  const c: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let x: number;
    let y: number;
    if (r % 2 === 0) {
      x = await baseline();
      y = await candidate();
    } else {
      y = await candidate();
      x = await baseline();
    }
    b.push(x);
    c.push(y);
    ratios.push(y / x);
  }
  return { baseline: median(b), candidate: median(c), ratio: median(ratios), ratios };
}
