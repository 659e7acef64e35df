import { type Db, MongoClient } from 'mongodb';
import { seedDemo } from '../../src/demo/seed';

/** Seeds the demo blog's posts, sessions and events into `db` on the test server (the core of `npm run demo`'s
 * data). */
export async function seedBlog(uri: string, db: string): Promise<void> {
  const client = await MongoClient.connect(uri);
  try {
    await seedDemo(client, db, { extras: false });
  } finally {
    await client.close();
  }
}

export async function dropDb(uri: string, db: string): Promise<void> {
  const client = await MongoClient.connect(uri);
  try {
    await client.db(db).dropDatabase();
  } finally {
    await client.close();
  }
}

/** Twenty `orders` documents `{ status: 'open', n }`: what the workload files' log lines find (by status). */
export async function seedOpenOrders(db: Db): Promise<void> {
  await db.collection('orders').insertMany(Array.from({ length: 20 }, (_, i) => ({ status: 'open', n: i })));
}
