/**
 * Profiles of the standing fuzz tests. `npm test` runs the fast profile (a few seconds each);
 * `npm run test:e2e` sets FUZZ_PROFILE=long for many more runs. Runs are seeded (FUZZ_SEED
 * overrides the seed to replay a failure fast-check printed); inputs that ever failed are kept in
 * each test's `examples` so they run first, every time.
 */
import type { Parameters } from 'fast-check';

const long = process.env.FUZZ_PROFILE === 'long';

/** fast-check parameters for one property: seeded, bounded in runs and in wall time. */
export function fuzzParams<T>(fast: { numRuns: number; seed: number }, examples: T[] = []): Parameters<T> {
  const seed = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : fast.seed;
  return {
    seed,
    numRuns: long ? fast.numRuns * 20 : fast.numRuns,
    // a slow shared machine shortens the run instead of failing it
    interruptAfterTimeLimit: long ? 120_000 : 8_000,
    markInterruptAsFailure: false,
    examples,
  };
}

/** Test timeout that fits the profile. */
export const FUZZ_TIMEOUT_MS = long ? 300_000 : 30_000;
