/**
 * A tiny benchmark harness. Machines are shared and noisy: every benchmark reports its result as a
 * ratio against a baseline measured in the same run, never as an absolute pass/fail.
 */
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
