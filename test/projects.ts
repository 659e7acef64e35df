/**
 * Which test files need a live server, and which servers they run on. vitest.config.ts builds one project per
 * server from this (the live files run once on each), a `programs` project for the files that start real programs
 * without a server (PROGRAM_TEST_FILES) and one `unit` project for the rest (run once, no server, no build).
 */
export const LIVE_TEST_FILES = [
  'rules/*/live.test.ts',
  'test/*.live.test.ts',
  'test/*.e2e.test.ts',
  'test/servers.test.ts',
  'test/audit-html.test.ts',
  'test/cli-lint.test.ts',
  'test/cli-snapshot.test.ts',
  'test/cli-spec.test.ts',
  'test/snippet.test.ts',
] as const;

/**
 * Live files whose subject is not the server: the CLI's flags, input files, snapshot files, the HTML report, the
 * mongosh plugin's own behaviour. Each runs on one embedded server only, the one named, when the run has it (a run
 * on MONGODB_URI or mongodb-memory-server runs every file); the other server's differences are covered by the files
 * about them. The reason is part of the entry: say why when adding one.
 */
export const ONE_SERVER: Readonly<Record<string, { server: (typeof DEFAULT_TEST_SERVERS)[number]; why: string }>> = {
  'test/cli-snapshot.test.ts': {
    server: 'secantusdb',
    why: 'snapshot files: the server is only where the snapshot is read from',
  },
  'test/audit-html.test.ts': { server: 'secantusdb', why: "the HTML report's layout and data, from one audit" },
  'test/workload-input.e2e.test.ts': {
    server: 'secantusdb',
    why: '--log/--queries input handling, judged before the server matters',
  },
  'test/mongosh.e2e.test.ts': {
    server: 'secantusdb',
    why: "the plugin's loading, options and output in a real mongosh; servers differ in the CLI's tests",
  },
  'test/mongosh-interrupt.e2e.test.ts': {
    server: 'secantusdb',
    why: 'Ctrl-C during confirmations: SecantusDB runs every experiment long enough to interrupt one',
  },
  'test/cli-flags.e2e.test.ts': { server: 'ferretdb', why: "the CLI's flags and their messages" },
  'test/cli-usage.e2e.test.ts': {
    server: 'ferretdb',
    why: "the CLI's exit codes and messages for bad input; the findings each server gives are cli.e2e's",
  },
  'test/interrupt.e2e.test.ts': {
    server: 'secantusdb',
    why:
      "the CLI's signal handling at each phase (SecantusDB's experiments on one collection reach every phase); how " +
      "each server drops a database is scratch-cleanup's subject",
  },
  'test/readme-sample.e2e.test.ts': {
    server: 'secantusdb',
    why:
      "the README's sample is the demo's report, and the demo picks SecantusDB where no mongod can be had; the " +
      "header's naming of FerretDB is checked in cli-usage",
  },
  'test/progress.e2e.test.ts': { server: 'secantusdb', why: 'the progress lines of the CLI and of mongosh' },
  'test/terminal-safe.live.test.ts': {
    server: 'secantusdb',
    why: 'names escaped on the terminal; SecantusDB samples every collection, so every format gets a name',
  },
  'test/first-hour.e2e.test.ts': { server: 'secantusdb', why: "the README's first steps: server, mongosh, plugin" },
  'test/mongosh-script.e2e.test.ts': {
    server: 'secantusdb',
    why: "the shell's async rewriter awaiting the plugin's results in a script; the servers differ elsewhere",
  },
  'test/snippet.test.ts': { server: 'secantusdb', why: "the mongosh snippet's packaging and loading" },
  'test/shop-done.live.test.ts': {
    server: 'secantusdb',
    why: "issue 27's Done-when is about a profiler at level 2, which FerretDB lacks (it seeded the shop, then skipped)",
  },
  'test/many-collections.live.test.ts': {
    server: 'secantusdb',
    why: 'grouping a large listing: creating 2,000 collections on FerretDB (SQLite) takes minutes',
  },
  'test/cli-lint.test.ts': { server: 'ferretdb', why: "lint's gates, formats and exit codes" },
  'test/cli-spec.test.ts': { server: 'ferretdb', why: 'the spec file: checked offline, drift read from any server' },
  'test/names.e2e.test.ts': {
    server: 'ferretdb',
    why:
      "names MongoDB refuses and the server's own databases are refused before a command is sent (the file asserts " +
      'it): the server never answers',
  },
  'test/workload-overlap.live.test.ts': {
    server: 'secantusdb',
    why: 'the CLI reading --log alongside the collect: the order of its work and its output, not the server',
  },
  'test/index-proof-size.live.test.ts': {
    server: 'secantusdb',
    why:
      "the proof's copy size and the sentence saying what set it, alike on any server that proves; FerretDB's " +
      "explain names no plan, so its proofs stop: index-proof.live shows that and the rule's sentence on FerretDB",
  },
  'test/interrupt-random.e2e.test.ts': {
    server: 'ferretdb',
    why:
      "interrupts at random moments; every phase with every signal is interrupt.e2e's on SecantusDB, so this is the " +
      "CLI's live interrupt on FerretDB",
  },
};

/** The live files a server's project leaves out: those ONE_SERVER gives to another server of this run. */
export function excludedOn(server: string, servers: readonly string[]): string[] {
  return Object.entries(ONE_SERVER)
    .filter(([, o]) => o.server !== server && servers.includes(o.server) && servers.includes(server))
    .map(([file]) => file);
}

export const ALL_TEST_FILES = ['test/**/*.test.ts', 'rules/**/*.test.ts', 'src/**/*.test.ts'] as const;

/**
 * Files without a server that start real programs: the built CLI (dist/, so they need `npm run build`), the
 * TypeScript compiler, ESLint, Chromium. vitest.config.ts gives them a `programs` project of their own, run by
 * `npm test`, so that the `unit` project (`npm run test:unit`, the inner loop) needs no build and stays fast: these
 * took about 70% of its time.
 */
export const PROGRAM_TEST_FILES = [
  'test/cli-linger.test.ts',
  'test/cli-output.test.ts',
  'test/cli-uri.test.ts',
  'test/config-boundary.test.ts',
  'test/cycles.test.ts',
  'test/input-limits.test.ts',
  'test/layers.test.ts',
  'test/public-api.test.ts',
  'test/report-escaping.test.ts',
  'test/report-html.test.ts',
  'test/snapshot-shape.test.ts',
] as const;

/**
 * How many test files run at once: `MONGO_ADVISOR_TEST_WORKERS` when set (a whole number from 1), else 2.
 */
export function testWorkers(env: NodeJS.ProcessEnv = process.env): number {
  const given = Number(env.MONGO_ADVISOR_TEST_WORKERS);
  return Number.isInteger(given) && given >= 1 ? given : 2;
}

export const DEFAULT_TEST_SERVERS = ['ferretdb', 'secantusdb'] as const;

/**
 * The servers of this run: `MONGODB_URI` alone when it is set; else `MONGO_ADVISOR_TEST_SERVERS` (a comma list of
 * ferretdb, secantusdb, mongodb-memory-server); else FerretDB and SecantusDB.
 */
export function testServers(env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.MONGODB_URI?.trim()) return ['MONGODB_URI'];
  const listed = env.MONGO_ADVISOR_TEST_SERVERS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return listed?.length ? listed : [...DEFAULT_TEST_SERVERS];
}

/**
 * The files that take longest (half a minute or more on this 2-core machine, measured on a full run), longest first:
 * test/support/sequencer.ts starts them first on a run without vitest's cache of durations (a fresh clone), so no
 * worker is left with one of them at the end. Keep it short and roughly ordered; a file missing here only runs later.
 */
export const SLOW_FIRST: readonly string[] = [
  'test/shop-done.live.test.ts',
  'test/cli-flags.e2e.test.ts',
  'test/cli.e2e.test.ts',
  'test/paste-safe.e2e.test.ts',
  'test/mongosh-interrupt.e2e.test.ts',
  'test/mongosh.e2e.test.ts',
  'test/one-answer.live.test.ts',
  'rules/embed-reference/live.test.ts',
  'test/progress.e2e.test.ts',
  'test/profile-optin.e2e.test.ts',
  'rules/query-indexes/live.test.ts',
  'test/interrupt.e2e.test.ts',
  'test/interrupt-random.e2e.test.ts',
  'test/workload-input.e2e.test.ts',
  'rules/id-pattern/live.test.ts',
  'rules/validator/live.test.ts',
  'test/exact-commands.live.test.ts',
  'test/readme-sample.e2e.test.ts',
  'test/index-proof-size.live.test.ts',
];
