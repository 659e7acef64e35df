/**
 * Finds a MongoDB-compatible server for the demo, the tests and the benchmarks:
 *
 *   1. `MONGODB_URI` from the environment (used as is, never stopped by us);
 *   2. else the first of `order` that starts. The default order (the demo's) is the most faithful first:
 *      - `mongodb-memory-server`: a real mongod, where it can be downloaded;
 *      - `secantusdb`: SecantusDB over the WiredTiger library, installed with pip (needs Python 3.10+);
 *      - `ferretdb`: FerretDB 1.24 on SQLite, built with Go.
 *
 * Every attempt that fails leaves a one-line reason, which ends up in the chosen server's `description` or, when
 * nothing works, in the thrown error.
 */
import { redactUri } from '../core/format';
import { type Log, noLog, oneLine, type RunningServer, type ServerKind } from './child';
import { startFerret } from './ferretdb';
import { startMemoryServer } from './memory-server';
import { startSecantus } from './secantusdb';

export type { RunningServer, ServerKind } from './child';
export { ensureFerretBinary } from './ferretdb';
export { ensureSecantus } from './secantusdb';

export type EmbeddedKind = Exclude<ServerKind, 'MONGODB_URI'>;
export const EMBEDDED_KINDS: readonly EmbeddedKind[] = ['mongodb-memory-server', 'secantusdb', 'ferretdb'];

const NAMES: Record<EmbeddedKind, string> = {
  'mongodb-memory-server': 'mongodb-memory-server',
  secantusdb: 'SecantusDB',
  ferretdb: 'FerretDB',
};

export interface StartServerOptions {
  /** Progress messages for slow steps (a cold FerretDB build, a first SecantusDB install). */
  log?: Log;
  /** Which embedded servers to try, in order (default EMBEDDED_KINDS). `MONGODB_URI` still wins. */
  order?: readonly EmbeddedKind[];
  /** Whether `MONGODB_URI` wins (default true); `mongo-advisor server` starts an embedded one whatever it says. */
  useEnv?: boolean;
}

/**
 * Starts one embedded server of the given kind (no fallback). `testCommands`: enable test-only commands such as
 * `configureFailPoint` where the server can (SecantusDB); for the test suite only.
 */
export async function startEmbedded(
  kind: EmbeddedKind,
  log: Log = noLog,
  opts: { testCommands?: boolean } = {},
): Promise<RunningServer> {
  switch (kind) {
    case 'mongodb-memory-server':
      return await startMemoryServer();
    case 'secantusdb':
      return await startSecantus(log, opts);
    case 'ferretdb':
      return await startFerret(log);
  }
}

/** The server named by `MONGODB_URI`, or null. */
export function serverFromEnv(): RunningServer | null {
  const envUri = process.env.MONGODB_URI?.trim();
  if (!envUri) return null;
  return { uri: envUri, kind: 'MONGODB_URI', description: `MONGODB_URI at ${redactUri(envUri)}`, stop: async () => {} };
}

export async function startServer(opts: StartServerOptions = {}): Promise<RunningServer> {
  const fromEnv = opts.useEnv === false ? null : serverFromEnv();
  if (fromEnv) return fromEnv;
  const log = opts.log ?? noLog;
  const skipped: string[] = [];
  for (const kind of opts.order ?? EMBEDDED_KINDS) {
    try {
      const server = await startEmbedded(kind, log);
      if (skipped.length > 0) server.description += ` (${skipped.join('; ')})`;
      return server;
    } catch (err) {
      skipped.push(`${NAMES[kind]} unavailable: ${oneLine(err)}`);
    }
  }
  throw new Error(
    'no MongoDB-compatible server could be started:\n' +
      skipped.map((s) => `  - ${s}\n`).join('') +
      'To fix this, set MONGODB_URI to a server you can use (e.g. MONGODB_URI=mongodb://127.0.0.1:27017/), ' +
      'or install Python 3.10+ with venv and pip (SecantusDB is installed from PyPI), ' +
      'or install Go >= 1.22 (https://go.dev/dl/) so FerretDB can be built, ' +
      'or give mongodb-memory-server network access to download mongod.',
  );
}
