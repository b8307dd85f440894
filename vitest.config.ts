import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on the reference machine: keep parallelism modest so socket tests stay honest.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
