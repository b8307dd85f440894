/** One RSS sample of a soak child, printed as a JSON line the parent collects. */
export interface SoakSample {
  readonly hour: number;
  readonly rssMb: number;
  readonly heapUsedMb: number;
  readonly wallSec: number;
  readonly note?: Readonly<Record<string, number>>;
}

const MB = 1024 * 1024;

/** Samples memory after a full GC when the child runs with `--expose-gc` (steadier numbers), and prints it. */
export function printSample(hour: number, startedAt: number, note?: Readonly<Record<string, number>>): void {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const s: SoakSample = {
    hour,
    rssMb: Math.round(m.rss / MB),
    heapUsedMb: Math.round(m.heapUsed / MB),
    wallSec: Math.round((Date.now() - startedAt) / 1000),
    ...(note ? { note } : {}),
  };
  process.stdout.write(`${JSON.stringify(s)}\n`);
}
