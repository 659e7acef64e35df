import { type Db, MongoClient } from 'mongodb';
import { seedDemo } from '../../src/demo/seed';

/** Seeds the demo blog's posts, sessions and events into `db` on the test server (the core of `npm run demo`'s
 * data). */
export async function seedBlog(uri: string, db: string): Promise<void> {
  await withClient(uri, (client) => seedDemo(client, db, { extras: false }));
}

/** Runs `f` with a client of `uri`, closed after it whatever happens. */
async function withClient<T>(uri: string, f: (client: MongoClient) => Promise<T>): Promise<T> {
  const client = await MongoClient.connect(uri);
  try {
    return await f(client);
  } finally {
    await client.close();
  }
}

/**
 * What a file could change in the shared blog without meaning to, as one comparable string: each collection's name,
 * options (validator included), document count and indexes. test/global-setup.ts reads it after seeding and again at
 * the end of the run: a difference fails the run.
 */
export async function blogState(uri: string, db: string): Promise<string> {
  return await withClient(uri, async (client) => {
    const d = client.db(db);
    const colls = (await d.listCollections().toArray()).sort((a, b) => a.name.localeCompare(b.name));
    const state = [];
    for (const c of colls) {
      const indexes = (await d.collection(c.name).indexes()).map((i) => [i.name, i.key]).sort();
      const count = await d.collection(c.name).countDocuments();
      state.push({ name: c.name, options: 'options' in c ? c.options : {}, count, indexes });
    }
    return JSON.stringify(state);
  });
}

export async function dropDb(uri: string, db: string): Promise<void> {
  await withClient(uri, (client) => client.db(db).dropDatabase());
}

/** Twenty `orders` documents `{ status: 'open', n }`: what the workload files' log lines find (by status). */
export async function seedOpenOrders(db: Db): Promise<void> {
  await db.collection('orders').insertMany(Array.from({ length: 20 }, (_, i) => ({ status: 'open', n: i })));
}
