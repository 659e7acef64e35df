import { rules } from '../../rules';
import { MongoClient } from 'mongodb';
import { DriverAdapter } from '../adapters/driver';
import { check } from '../check';
import type { CheckResult } from '../core/types';
import { heartbeat } from '../lib/heartbeat';
import { connectionError } from '../cli/errors';
import { UserError } from '../core/errors';
import { type RunningServer, startServer } from '../servers/embedded';
import { DEMO_DB, DEMO_SEEDS, DEMO_SETTINGS, seedDemo } from './seed';

export { DEMO_DB } from './seed';
export { serve } from './serve';

interface DemoIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

/**
 * Starts a server the way the tests do, seeds the blog, runs check (with confirmation unless asked not to), cleans
 * up, and hands the result back: the CLI renders it and judges it as `check` does (formats, -o, --fail-on).
 */
export async function runDemo(opts: {
  confirm: boolean;
  io: DemoIo;
  /** The configuration file's rule settings (`demo --config`), over the demo's own. */
  rules?: Record<string, unknown>;
}): Promise<CheckResult> {
  const { io } = opts;
  io.err(
    'Starting a server: MONGODB_URI if set, else the first that starts of mongod (mongodb-memory-server), ' +
      'SecantusDB (WiredTiger, Python), FerretDB (SQLite, Go)…',
  );
  let server: RunningServer;
  try {
    server = await startServer({ log: (l) => io.err(`  ${l}`) });
  } catch (err) {
    // Says which servers were tried, why each failed, and what to install or set.
    throw new UserError((err as Error).message.trim());
  }
  io.err(`Server: ${server.description}`);
  const client = new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 });
  try {
    try {
      await client.connect();
    } catch (err) {
      const e = connectionError(err, server.uri);
      throw server.kind === 'MONGODB_URI'
        ? new UserError(`${e.message} (from MONGODB_URI: fix it, or unset it to let the demo start an embedded server)`)
        : e;
    }
    io.err(`Seeding ${DEMO_DB}: ${DEMO_SEEDS}…`);
    await seedDemo(client, DEMO_DB);
    const adapter = await DriverAdapter.connect(server.uri);
    const lines = heartbeat((l) => io.err(`  ${l}`));
    try {
      io.err(`Running: mongo-advisor check ${adapter.source} --db ${DEMO_DB}${opts.confirm ? '' : ' --no-confirm'}`);
      const log = (l: string): void => lines.say(l);
      const settings = { ...DEMO_SETTINGS, rules: { ...DEMO_SETTINGS.rules, ...(opts.rules ?? {}) } };
      return await check(adapter, { db: DEMO_DB, rules, confirm: opts.confirm, settings, log });
    } finally {
      lines.stop();
      await adapter.close();
    }
  } finally {
    await client
      .db(DEMO_DB)
      .dropDatabase()
      .catch(() => undefined);
    await client.close().catch(() => undefined);
    await server.stop();
  }
}
