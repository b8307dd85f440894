import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Slow end-to-end tests (crash, soak, packaging, browser) run with `npm run test:e2e`.
    exclude: [...configDefaults.exclude, 'test/e2e/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on the reference machine: keep parallelism modest so socket tests stay honest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
