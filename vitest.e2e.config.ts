/** `npm run test:e2e`: the slow end-to-end tests under test/e2e (crash, soak, packaging, browser). */
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/e2e/**/*.test.ts'],
    exclude: [...configDefaults.exclude],
    testTimeout: 120_000,
    hookTimeout: 1_200_000,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
