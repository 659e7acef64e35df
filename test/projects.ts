/**
 * Which test files need a live server, and which servers they run on. vitest.config.ts builds one project per
 * server from this (the live files run once on each) and one `unit` project for the rest (run once, no server).
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

export const ALL_TEST_FILES = ['test/**/*.test.ts', 'rules/**/*.test.ts', 'src/**/*.test.ts'] as const;

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
