import { MongoClient } from 'mongodb';
import { seedDemo } from '../../src/demo/seed';

/** Seeds the demo blog into `db` on the test server (the same data `npm run demo` uses). */
export async function seedBlog(uri: string, db: string): Promise<void> {
  const client = await MongoClient.connect(uri);
  try {
    await seedDemo(client, db);
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
