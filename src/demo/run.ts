import { rules } from '../../rules';
import { MongoClient } from 'mongodb';
import { DriverAdapter } from '../adapters/driver';
import { check } from '../check';
import { formatText } from '../report/text';
import { connectionError } from '../cli/errors';
import { UserError } from '../core/errors';
import { type RunningServer, startServer } from '../servers/embedded';
import { DEMO_SETTINGS, seedDemo } from './seed';

export const DEMO_DB = 'mongo_advisor_demo_blog';

interface DemoIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

/** Starts a server the way the tests do, seeds the blog, runs check with confirmation, prints it, cleans up. */
export async function runDemo(opts: { confirm: boolean; color: boolean; verbose?: boolean; io: DemoIo }): Promise<number> {
  const { io } = opts;
  io.err('Starting a server: MONGODB_URI if set, else the first that starts of mongod (mongodb-memory-server), SecantusDB (WiredTiger, Python), FerretDB (SQLite, Go)…');
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
      throw server.kind === 'MONGODB_URI' ? new UserError(`${e.message} (from MONGODB_URI: fix it, or unset it to let the demo start an embedded server)`) : e;
    }
    io.err(`Seeding ${DEMO_DB}: posts with 1, 10, 100, 1,000 and 10,000 comments of 1 KB, sessions (UUID _id), events (ObjectId _id), 12 per-tenant collections, logs, carts (string UUID _id, items keyed by SKU), a clustered collection…`);
    await seedDemo(client, DEMO_DB);
    const adapter = await DriverAdapter.connect(server.uri);
    try {
      io.err(`Running: mongo-advisor check ${adapter.source} --db ${DEMO_DB}${opts.confirm ? '' : ' --no-confirm'}`);
      const result = await check(adapter, { db: DEMO_DB, rules, confirm: opts.confirm, settings: DEMO_SETTINGS, log: (l) => io.err(`  ${l}`) });
      io.out(formatText(result, { color: opts.color, verbose: opts.verbose === true }));
      return 0;
    } finally {
      await adapter.close();
    }
  } finally {
    await client.db(DEMO_DB).dropDatabase().catch(() => undefined);
    await client.close().catch(() => undefined);
    await server.stop();
  }
}
