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
    // One process per worker, reused from file to file, and one module registry in it: a file no longer pays a process
    // start and the import of the driver and the engine (a run's summed "collect" 166 s -> 45 s, its CPU 1,293 s ->
    // 1,047 s; measured 2026-11-29). vitest 3.2 reads this from the root config alone: one forks pool serves every
    // project, and a project's own `isolate` only reaches its workers, which never read it (set per project in
    // session 15, it left each file a fresh process). Files must restore what they change in the process (environment
    // variables, mocks: test/profiling-plan.live.test.ts imports afresh after its vi.mock).
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
          include: [...ALL_TEST_FILES],
          exclude: [...LIVE_TEST_FILES, ...PROGRAM_TEST_FILES, '**/node_modules/**'],
        },
      },
      {
        extends: true,
        test: {
          name: 'programs',
          include: [...PROGRAM_TEST_FILES],
          exclude: [...LIVE_TEST_FILES, '**/node_modules/**'],
        },
      },
      ...servers.map((name) => ({
        extends: true as const,
        test: {
          name,
          include: [...LIVE_TEST_FILES],
          // a file about something other than the server runs on one of them (test/projects.ts, ONE_SERVER)
          exclude: [...excludedOn(name, servers), '**/node_modules/**'],
          globalSetup: ['test/global-setup.ts'],
        },
      })),
    ],
  },
});
