import { MongoClient, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DriverAdapter } from '../../src/adapters/driver';
import { collectSnapshot } from '../../src/collect';
import type { Snapshot } from '../../src/core/types';
import { runRule } from '../../test/support/rule-tester';
import rule from './index';

const DB = 'mongo_advisor_test_clustered_trap';

describe('clustered-trap (live)', () => {
  const uri = inject('mongoUri');
  const kind = inject('serverKind');
  let client: MongoClient;
  let clustered = false;
  let why = '';
  const ids = Array.from({ length: 50 }, () => new ObjectId());

  beforeAll(async () => {
    client = await MongoClient.connect(uri);
    const db = client.db(DB);
    await db.dropDatabase();
    await db.collection('plain').insertMany(ids.slice(0, 5).map((_id, i) => ({ _id, i })));
    await db.createCollection('events', { clusteredIndex: { key: { _id: 1 }, unique: true } });
    const info = await db.listCollections({ name: 'events' }).toArray();
    clustered = (info[0] as { options?: { clusteredIndex?: unknown } } | undefined)?.options?.clusteredIndex !== undefined;
    if (!clustered) why = `this server (${kind}) accepted clusteredIndex but listCollections shows none: clustered collections are not supported`;
    await db.collection('events').insertMany(ids.map((_id, i) => ({ _id, i })));
  });

  afterAll(async () => {
    await client?.db(DB).dropDatabase();
    await client?.close();
  });

  it('explain of a delete at verbosity queryPlanner deletes nothing', async () => {
    const db = client.db(DB);
    const reply = await db.command({ explain: { delete: 'plain', deletes: [{ q: { _id: { $in: [ids[0], ids[1]] } }, limit: 0 }] }, verbosity: 'queryPlanner' });
    expect(reply.ok).toBe(1);
    expect(await db.collection('plain').countDocuments()).toBe(5);
  });

  it('reads plan stage names on clustered collections, never the _ids', async () => {
    if (!clustered) {
      console.log(`[clustered-trap live] skipped: ${why}`);
      return;
    }
    const adapter = await DriverAdapter.connect(uri);
    let snap: Snapshot;
    try {
      snap = await collectSnapshot(adapter, { db: DB });
    } finally {
      await adapter.close();
    }
    const events = snap.databases[0]?.collections.find((c) => c.name === 'events');
    expect(events?.clustered).toBe(true);
    const e = events?.clusteredExplain;
    console.log(`[clustered-trap live] ${snap.server.version}: find ${e?.find?.join(' > ') ?? e?.reason ?? ''}; deleteMany ${e?.deleteMany?.join(' > ') ?? ''}`);
    expect(e?.find?.length).toBeGreaterThan(0);
    expect(e?.deleteMany?.[0]).toBe('DELETE');
    const json = JSON.stringify(snap);
    for (const id of ids.slice(0, 2)) expect(json).not.toContain(id.toHexString());
    expect(await client.db(DB).collection('events').countDocuments()).toBe(ids.length);
    const findings = runRule(rule, snap);
    const scans = [...(e?.find ?? []), ...(e?.deleteMany ?? [])].includes('COLLSCAN');
    expect(findings.length).toBe(scans ? 1 : 0);
  });

  it('leaves regular collections alone', async () => {
    const adapter = await DriverAdapter.connect(uri);
    try {
      const snap = await collectSnapshot(adapter, { db: DB, collections: ['plain'] });
      expect(snap.databases[0]?.collections[0]?.clusteredExplain).toBeUndefined();
    } finally {
      await adapter.close();
    }
  });
});
