/**
 * vitest globalSetup of a live-test project: starts the project's server (its name is the server kind, see
 * vitest.config.ts) — one per worker where the server is one busy thread (serversFor) — proves what it can do, prints
 * both, seeds the demo blog once on each for the files that only read it (SHARED_BLOG), and hands the URIs, kind,
 * capabilities and that database's name to the tests through `inject` (a file reads its worker's URI with liveUri(),
 * test/support/live-uri.ts).
 */
import type { TestProject } from 'vitest/node';
import {
  type EmbeddedKind,
  EMBEDDED_KINDS,
  type RunningServer,
  serverFromEnv,
  startEmbedded,
} from '../src/servers/embedded';
import { redactUri } from '../src/core/format';
import { testWorkers } from './projects';
import { blogState, dropDb, seedBlog } from './support/seed';
import { describeCapabilities, probeTestServer, type ServerCapabilities } from './support/server-capabilities';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The project's servers, one per worker or one for all (serversFor): a file reads its own with liveUri(). */
    mongoUris: string[];
    serverKind: string;
    capabilities: ServerCapabilities;
    /** The demo blog (posts, sessions, events), seeded once per server: read it, never write to it (SHARED_BLOG). */
    blogDb: string;
  }
}

/**
 * The database of the demo blog every file that only reads it shares (check, lint, collect, audit, the mongosh plugin
 * write only to their scratch databases): seeding it took 3-5 s and dropping it 1 s per file on these servers.
 */
export const SHARED_BLOG = 'mongo_advisor_test_blog';

/**
 * How many servers of a kind the project starts. SecantusDB serves every connection from one Python process, which
 * runs one thread at a time: with both workers' files on one, each waited on the other's commands (the server busy
 * 0.8-1.1 of a core through its project's 9 minutes, the machine 78% busy), so each worker gets its own. FerretDB (Go)
 * serves connections on every core: one for all. A server the run did not start (MONGODB_URI) is the only one.
 */
export function serversFor(kind: string, workers: number = testWorkers()): number {
  return kind === 'secantusdb' ? Math.max(1, workers) : 1;
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const name = project.name;
  const say = (line: string): void => {
    process.stdout.write(`[mongo-advisor tests] ${line}\n`);
  };
  let servers: RunningServer[];
  if (name === 'MONGODB_URI') {
    const fromEnv = serverFromEnv();
    if (!fromEnv) throw new Error('the MONGODB_URI test project runs only when MONGODB_URI is set');
    servers = [fromEnv];
  } else if ((EMBEDDED_KINDS as readonly string[]).includes(name)) {
    // Only slow steps log (a cold FerretDB build, a first SecantusDB install). The first server installs what the
    // others then share; they start together.
    const start = (): Promise<RunningServer> =>
      startEmbedded(name as EmbeddedKind, (line) => process.stderr.write(`[mongo-advisor tests] ${name}: ${line}\n`), {
        testCommands: true,
      });
    servers = [await start()];
    const more = await Promise.allSettled(Array.from({ length: serversFor(name) - 1 }, start));
    for (const r of more) if (r.status === 'fulfilled') servers.push(r.value);
    const failed = more.find((r) => r.status === 'rejected');
    if (failed) {
      await stopAll(servers);
      throw failed.reason;
    }
  } else {
    throw new Error(`test/global-setup.ts: no server for project ${JSON.stringify(name)}`);
  }
  const server = servers[0] as RunningServer;
  let capabilities: ServerCapabilities;
  try {
    // the servers of a project are one binary started alike: the first answers for all
    capabilities = await probeTestServer(server.uri);
  } catch (err) {
    await stopAll(servers);
    throw err;
  }
  const more = servers.length > 1 ? ` (and ${servers.length - 1} more like it, one per worker)` : '';
  say(`${name}: ${server.description}${more} — ${capabilities.server}`);
  for (const line of describeCapabilities(capabilities)) say(line);
  let seeded: string[];
  try {
    await Promise.all(servers.map((s) => seedBlog(s.uri, SHARED_BLOG)));
    seeded = await Promise.all(servers.map((s) => blogState(s.uri, SHARED_BLOG)));
  } catch (err) {
    await stopAll(servers);
    throw err;
  }
  project.provide(
    'mongoUris',
    servers.map((s) => s.uri),
  );
  project.provide('serverKind', server.kind);
  project.provide('capabilities', capabilities);
  project.provide('blogDb', SHARED_BLOG);
  return async () => {
    // The files that share the blog only read it: one that wrote to it would make another file's assertion depend on
    // the order the files ran in. Its collections, options, counts and indexes must be as seeded.
    let changed: string[] = [];
    try {
      const now = await Promise.all(servers.map((s) => blogState(s.uri, SHARED_BLOG).catch((e) => String(e))));
      // named as the header names them: MONGODB_URI's credentials never printed
      changed = servers.flatMap((s, i) => (now[i] === seeded[i] ? [] : [`${redactUri(s.uri)}: ${now[i] ?? ''}`]));
    } finally {
      // a server the run did not start (MONGODB_URI) keeps nothing of the run's; an embedded one goes whole
      // (SecantusDB takes seconds to drop the blog)
      if (server.kind === 'MONGODB_URI') await dropDb(server.uri, SHARED_BLOG).catch(() => undefined);
      await stopAll(servers);
    }
    if (changed.length > 0)
      throw new Error(
        `a test file wrote to the shared blog ${SHARED_BLOG} (inject('blogDb')), which the files sharing it must ` +
          `only read: it is no longer as seeded (${seeded[0] ?? ''}) on ${changed.join('; ')}`,
      );
  };
}

async function stopAll(servers: readonly RunningServer[]): Promise<void> {
  await Promise.all(servers.map((s) => s.stop()));
}
