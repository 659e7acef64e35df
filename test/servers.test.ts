import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MongoClient, ObjectId } from 'mongodb';
import { startServer } from '../src/servers/embedded';
import { serversFor } from './global-setup';
import { testWorkers } from './projects';
import { liveUri } from './support/live-uri';

const DB_NAME = 'mongo_advisor_test_servers';

describe('test server (from globalSetup)', () => {
  const uri = liveUri();
  const kind = inject('serverKind');
  let client: MongoClient;

  beforeAll(async () => {
    client = new MongoClient(uri, { serverSelectionTimeoutMS: 15_000 });
    await client.connect();
    await client.db(DB_NAME).dropDatabase();
  });

  afterAll(async () => {
    if (!client) return;
    try {
      await client.db(DB_NAME).dropDatabase();
    } finally {
      await client.close();
    }
  });

  it('provides a known server kind and a mongodb:// URI', () => {
    expect(['MONGODB_URI', 'mongodb-memory-server', 'ferretdb', 'secantusdb']).toContain(kind);
    expect(uri).toMatch(/^mongodb(\+srv)?:\/\//);
  });

  // SecantusDB: one per worker (its one Python thread at a time would serialise both workers' files); every server
  // of the project holds the shared blog, and this file's worker reads its own.
  it('starts the servers serversFor says, each seeded with the shared blog; this worker reads its own', async () => {
    const uris = inject('mongoUris');
    expect(new Set(uris).size).toBe(uris.length);
    if (kind !== 'MONGODB_URI') expect(uris).toHaveLength(serversFor(kind, testWorkers()));
    expect(uris).toContain(uri);
    expect(uris.indexOf(uri)).toBe((Number(process.env.VITEST_POOL_ID ?? '1') - 1) % uris.length);
    for (const u of uris) {
      const c = new MongoClient(u, { serverSelectionTimeoutMS: 15_000 });
      try {
        expect(await c.db(inject('blogDb')).collection('posts').estimatedDocumentCount()).toBeGreaterThan(0);
      } finally {
        await c.close();
      }
    }
  });

  it('answers ping', async () => {
    const res = await client.db('admin').command({ ping: 1 });
    expect(res.ok).toBe(1);
  });

  it('inserts and reads back a document, then drops the database', async () => {
    const coll = client
      .db(DB_NAME)
      .collection<{ _id: ObjectId; name: string; n: number; tags: string[]; nested: { at: Date } }>('docs');
    const at = new Date('2024-01-02T03:04:05.000Z');
    const { insertedId, acknowledged } = await coll.insertOne({
      _id: new ObjectId(),
      name: 'alpha',
      n: 42,
      tags: ['a', 'b'],
      nested: { at },
    });
    expect(acknowledged).toBe(true);

    const found = await coll.findOne({ _id: insertedId });
    expect(found).not.toBeNull();
    expect(found?._id.equals(insertedId)).toBe(true);
    expect(found?.name).toBe('alpha');
    expect(found?.n).toBe(42);
    expect(found?.tags).toEqual(['a', 'b']);
    expect(found?.nested.at.toISOString()).toBe(at.toISOString());
    expect(await coll.countDocuments({ n: { $gte: 40 } })).toBe(1);

    await client.db(DB_NAME).dropDatabase();
    const dbs = await client.db('admin').admin().listDatabases();
    expect(dbs.databases.map((d) => d.name)).not.toContain(DB_NAME);
  });
});

describe('startServer with MONGODB_URI', () => {
  it('uses the variable as is, hides the password and does not stop it', async () => {
    const saved = process.env.MONGODB_URI;
    process.env.MONGODB_URI = 'mongodb://user:secret@db.example:27017/';
    try {
      const server = await startServer();
      expect(server.kind).toBe('MONGODB_URI');
      expect(server.uri).toBe('mongodb://user:secret@db.example:27017/');
      expect(server.description).toBe('MONGODB_URI at mongodb://user:****@db.example:27017/');
      await expect(server.stop()).resolves.toBeUndefined();
      // Options can carry secrets too (AWS session tokens): the description drops the query string.
      process.env.MONGODB_URI = 'mongodb://db.example:27017/?authMechanismProperties=AWS_SESSION_TOKEN:tok-secret';
      expect((await startServer()).description).not.toContain('tok-secret');
    } finally {
      if (saved === undefined) delete process.env.MONGODB_URI;
      else process.env.MONGODB_URI = saved;
    }
  });
});
