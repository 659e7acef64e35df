/**
 * vitest globalSetup: starts one MongoDB-compatible server for the whole run
 * (see src/servers/embedded.ts for how it is chosen) and hands its URI to the
 * tests through `inject('mongoUri')`.
 */
import type { TestProject } from 'vitest/node';
import { startServer } from '../src/servers/embedded';

declare module 'vitest' {
  export interface ProvidedContext {
    mongoUri: string;
    serverKind: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startServer({
    // Only slow steps log (a cold FerretDB build); keep stdout to one line.
    log: (line) => process.stderr.write(`[mongo-advisor tests] ${line}\n`),
  });
  process.stdout.write(`[mongo-advisor tests] server: ${server.description}\n`);
  project.provide('mongoUri', server.uri);
  project.provide('serverKind', server.kind);
  return async () => {
    await server.stop();
  };
}
