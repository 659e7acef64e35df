import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'rules/**/*.test.ts', 'src/**/*.test.ts'],
    // Starts (and on first use builds) the server; vitest puts no timeout on
    // globalSetup itself, so a cold FerretDB build cannot time it out.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    minWorkers: 1,
  },
});
