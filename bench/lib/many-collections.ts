/**
 * A deployment of many collections for the collection-count bench, seeded once into a persistent SecantusDB store
 * under the cache folder and reused: SecantusDB creates a collection in about 4 ms, so 100,000 take about 7 minutes.
 *
 * Layout at size N (version 2): three databases `mc_<k>`: `mc_0` with N/2 tenant collections `tenant_<i>`, `mc_1`
 * and `mc_2` with N/4 each (empty, but every 1,000th holds 5 documents), and in each one real collection `orders`
 * (500 documents, an index on `customer` and a redundant one on `{customer, createdAt}`'s prefix twin), so the audit
 * has findings on a real collection among the tenants: at 100,000, `mc_0` is issue 29's case of one real collection
 * among 50,000 tenants. A document in `mc_meta.seeded` records a finished seed.
 */
import { type Db, MongoClient } from 'mongodb';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { mapPool } from '../../src/core/pool';
import { cacheDir } from '../../src/servers/child';
import { startSecantus } from '../../src/servers/secantusdb';
import type { RunningServer } from '../../src/servers/child';

export const LAYOUT_VERSION = 2;
/** Tenants per database at size N: half in the first, a quarter in each of the two others. */
export const SHARES = [0.5, 0.25, 0.25] as const;
/** Every `docsEvery`-th tenant holds a few documents (the rest are empty, as most tenants of such deployments are). */
export const DOCS_EVERY = 1000;

export function storagePath(size: number): string {
  return path.join(cacheDir(), `bench-many-collections-v${LAYOUT_VERSION}`, String(size));
}

const log = (l: string): void => void process.stderr.write(`${l}\n`);

/** Starts SecantusDB on the store for `size` collections, seeding it first when it is not complete. */
export async function manyCollections(size: number): Promise<RunningServer> {
  const dir = storagePath(size);
  fs.mkdirSync(dir, { recursive: true });
  const server = await startSecantus(log, { storagePath: dir });
  const client = await MongoClient.connect(server.uri);
  try {
    const done = await client
      .db('mc_meta')
      .collection('seeded')
      .findOne({ _id: 'done' as never });
    if (!done) await seed(client, size);
  } finally {
    await client.close();
  }
  return server;
}

async function seed(client: MongoClient, size: number): Promise<void> {
  const t0 = performance.now();
  let made = 0;
  for (const [k, share] of SHARES.entries()) {
    const per = Math.round(size * share);
    const db = client.db(`mc_${k}`);
    const have = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
    if (!have.has('orders')) await seedOrders(db);
    const todo = Array.from({ length: per }, (_, i) => i).filter((i) => !have.has(`tenant_${i}`));
    await mapPool(todo, 8, async (i) => {
      const name = `tenant_${i}`;
      await db.createCollection(name);
      if (i % DOCS_EVERY === 0)
        await db
          .collection(name)
          .insertMany(Array.from({ length: 5 }, (_, n) => ({ userId: n, createdAt: new Date(), note: `n${n}` })));
      if (++made % 2000 === 0) log(`  seeded ${made} of ${size} (${Math.round((performance.now() - t0) / 1000)} s)`);
    });
  }
  await client
    .db('mc_meta')
    .collection('seeded')
    .insertOne({ _id: 'done' as never, size, at: new Date() });
  log(`seeded ${size.toLocaleString('en-US')} collections in ${Math.round((performance.now() - t0) / 1000)} s`);
}

async function seedOrders(db: Db): Promise<void> {
  const orders = db.collection('orders');
  await orders.insertMany(
    Array.from({ length: 500 }, (_, i) => ({
      customer: `c${i % 37}`,
      createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000),
      total: (i * 7) % 300,
      status: i % 5 === 0 ? 'open' : 'closed',
    })),
  );
  await orders.createIndex({ customer: 1 });
  await orders.createIndex({ customer: 1, createdAt: -1 });
}

/** `node bench/run.mjs collection-count --seed-only --sizes …` seeds (or checks) the stores and stops. */
export async function seedOnly(sizes: readonly number[]): Promise<void> {
  for (const size of sizes) {
    const server = await manyCollections(size);
    await server.stop();
  }
}
