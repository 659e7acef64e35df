/**
 * vitest globalSetup of a live-test project: starts the project's server (its name is the server kind, see
 * vitest.config.ts), proves what it can do, prints both, seeds the demo blog once for the files that only read it
 * (SHARED_BLOG), and hands the URI, kind, capabilities and that database's name to the tests through `inject`.
 */
import type { TestProject } from 'vitest/node';
import {
  type EmbeddedKind,
  EMBEDDED_KINDS,
  type RunningServer,
  serverFromEnv,
  startEmbedded,
} from '../src/servers/embedded';
import { dropDb, seedBlog } from './support/seed';
import { describeCapabilities, probeTestServer, type ServerCapabilities } from './support/server-capabilities';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
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

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const name = project.name;
  const say = (line: string): void => {
    process.stdout.write(`[mongo-advisor tests] ${line}\n`);
  };
  let server: RunningServer;
  if (name === 'MONGODB_URI') {
    const fromEnv = serverFromEnv();
    if (!fromEnv) throw new Error('the MONGODB_URI test project runs only when MONGODB_URI is set');
    server = fromEnv;
  } else if ((EMBEDDED_KINDS as readonly string[]).includes(name)) {
    // Only slow steps log (a cold FerretDB build, a first SecantusDB install).
    server = await startEmbedded(
      name as EmbeddedKind,
      (line) => process.stderr.write(`[mongo-advisor tests] ${name}: ${line}\n`),
      { testCommands: true },
    );
  } else {
    throw new Error(`test/global-setup.ts: no server for project ${JSON.stringify(name)}`);
  }
  let capabilities: ServerCapabilities;
  try {
    capabilities = await probeTestServer(server.uri);
  } catch (err) {
    await server.stop();
    throw err;
  }
  say(`${name}: ${server.description} — ${capabilities.server}`);
  for (const line of describeCapabilities(capabilities)) say(line);
  try {
    await seedBlog(server.uri, SHARED_BLOG);
  } catch (err) {
    await server.stop();
    throw err;
  }
  project.provide('mongoUri', server.uri);
  project.provide('serverKind', server.kind);
  project.provide('capabilities', capabilities);
  project.provide('blogDb', SHARED_BLOG);
  return async () => {
    // a server the run did not start (MONGODB_URI) keeps nothing of the run's; an embedded one goes whole (SecantusDB
    // takes seconds to drop the blog)
    if (server.kind === 'MONGODB_URI') await dropDb(server.uri, SHARED_BLOG).catch(() => undefined);
    await server.stop();
  };
}
