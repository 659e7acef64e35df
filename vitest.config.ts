import { defineConfig } from 'vitest/config';
import {
  ALL_TEST_FILES,
  excludedOn,
  LIVE_TEST_FILES,
  PROGRAM_TEST_FILES,
  testServers,
  testWorkers,
} from './test/projects';
import SlowFirstSequencer from './test/support/sequencer';

// One project per server for the live tests (test/projects.ts), one `programs` project for the files that start real
// programs without a server (the built CLI, tsc, ESLint, Chromium), one `unit` project for the rest (no server, no
// build: `npm run test:unit`).
const servers = testServers();
if (!process.env.MONGO_ADVISOR_TESTS_ANNOUNCED) {
  // vitest loads this file once per project: say it once.
  process.env.MONGO_ADVISOR_TESTS_ANNOUNCED = '1';
  process.stdout.write(
    `[mongo-advisor tests] live tests run on: ${servers.join(', ')} (MONGODB_URI or ` +
      `MONGO_ADVISOR_TEST_SERVERS choose)\n`,
  );
}

export default defineConfig({
  test: {
    testTimeout: 120_000,
    // vitest puts no timeout on globalSetup itself, so a cold FerretDB build or SecantusDB install cannot time it out.
    hookTimeout: 300_000,
    pool: 'forks',
    // the pool reads this from the root config alone (vitest 3.2 creates one forks pool for every project)
    poolOptions: { forks: { isolate: false } },
    fileParallelism: true,
    maxWorkers: testWorkers(),
    minWorkers: 1,
    reporters: ['default', './test/support/skip-reporter.ts'],
    // the longest files first on a fresh clone (no cache of durations): test/projects.ts SLOW_FIRST
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // one module registry per worker, not per file: importing the driver and the engine again for each of ~90
          // files took about 85 of the project's 106 s (measured 2026-11-29; 31 s without). These files hold no
          // process-wide state between them (each passes alone and in any order).
          isolate: false,
          include: [...ALL_TEST_FILES],
          exclude: [...LIVE_TEST_FILES, ...PROGRAM_TEST_FILES, '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'programs',
          // as in unit: the programs these files start are processes of their own; the files' own imports are shared
          isolate: false,
          include: [...PROGRAM_TEST_FILES],
          exclude: [...LIVE_TEST_FILES, '**/node_modules/**'],
        },
      },
      ...servers.map((name) => ({
        extends: true as const,
        test: {
          name,
          // as in unit: one module registry per worker (importing the driver and the engine again for each live file
          // took about 100 s summed over a run); a file that mocks a module imports what uses it afresh
          // (test/profiling-plan.live.test.ts)
          isolate: false,
          include: [...LIVE_TEST_FILES],
          // a file about something other than the server runs on one of them (test/projects.ts, ONE_SERVER)
          exclude: [...excludedOn(name, servers), '**/node_modules/**'],
          globalSetup: ['test/global-setup.ts'],
        },
      })),
    ],
  },
});
