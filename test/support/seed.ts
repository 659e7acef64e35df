import { MongoClient } from 'mongodb';
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
