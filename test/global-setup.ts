/**
 * vitest globalSetup of a live-test project: starts the project's server (its name is the server kind, see
 * vitest.config.ts), proves what it can do, prints both, and hands the URI, kind and capabilities to the tests
 * through `inject`.
 */
import type { TestProject } from 'vitest/node';
import {
  type EmbeddedKind,
  EMBEDDED_KINDS,
  type RunningServer,
  serverFromEnv,
  startEmbedded,
} from '../src/servers/embedded';
import { describeCapabilities, probeTestServer, type ServerCapabilities } from './support/server-capabilities';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
    serverKind: string;
    capabilities: ServerCapabilities;
  }
}

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
  project.provide('mongoUri', server.uri);
  project.provide('serverKind', server.kind);
  project.provide('capabilities', capabilities);
  return async () => {
    await server.stop();
  };
}
