/**
 * A database of one real collection among 2,000 alike-named tenants (issue 29 at a fast scale): read by groups, the
 * real collection still gets every finding a check of it alone gives, the tenants are one group named with its size,
 * the snapshot holds the group and its representatives (not 2,000 rows), and the round trips stay bounded by the
 * groups. SecantusDB has no `$listCatalog`: the fallback (one streamed listCollections) is what runs here.
 */
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DriverAdapter } from '../src/adapters/driver';
import { check } from '../src/index';
import { GROUP_DEFAULTS } from '../src/collect';
import { mapPool } from '../src/core/pool';
import type { CheckResult, Snapshot } from '../src/core/types';
import { recordingAdapter } from './support/recording';
import { liveUri } from './support/live-uri';

const DB = 'mongo_advisor_test_many_collections';
const TENANTS = 2_000;

describe('a database of 2,000 tenants and one real collection (live)', () => {
  const uri = liveUri();
  const kind = inject('serverKind');
  const skip = kind === 'ferretdb' ? 'creating 2,000 collections on FerretDB (SQLite) takes minutes' : null;
  let client: MongoClient;
  let grouped: CheckResult;
  let alone: CheckResult;
  let snap: Snapshot | undefined;
  let sent = 0;

  beforeAll(async () => {
    if (skip) return;
    client = await MongoClient.connect(uri);
    const db = client.db(DB);
    const have = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
    const todo = Array.from({ length: TENANTS }, (_, i) => `tenant_${i}`).filter((n) => !have.has(n));
    await mapPool(todo, 8, async (n) => {
      await db.createCollection(n);
    });
    await db.collection('tenant_7').insertMany([{ userId: 1 }, { userId: 2 }]);
    if (!have.has('orders')) {
      await db.collection('orders').insertMany(
        Array.from({ length: 300 }, (_, i) => ({
          customer: `c${i % 17}`,
          createdAt: new Date(1.7e12 + i),
          total: i,
        })),
      );
      await db.collection('orders').createIndex({ customer: 1 });
      await db.collection('orders').createIndex({ customer: 1, createdAt: -1 });
    }
    const adapter = await DriverAdapter.connect(uri);
    try {
      const recorded = recordingAdapter(adapter);
      grouped = await check(recorded, { db: DB, confirm: false, onSnapshot: (s) => void (snap = s) });
      sent = recorded.sent.length;
      alone = await check(adapter, { db: DB, collections: ['orders'], confirm: false });
    } finally {
      await adapter.close();
    }
  }, 240_000);

  afterAll(async () => {
    await client?.db(DB).dropDatabase();
    await client?.close();
  }, 120_000);

  it('gives the real collection every finding a check of it alone gives', (ctx) => {
    if (skip) return ctx.skip(skip);
    const key = (f: CheckResult['findings'][number]): string =>
      `${f.ruleId}/${f.messageId} ${f.target.collection ?? ''} ${f.target.index ?? ''} ${f.target.path ?? ''}`;
    const onOrders = alone.findings.filter((f) => f.target.collection === 'orders' && f.ruleId !== 'collection-count');
    expect(onOrders.length).toBeGreaterThan(0);
    expect(onOrders.some((f) => f.ruleId === 'index-usage')).toBe(true);
    const got = new Set(grouped.findings.map(key));
    for (const f of onOrders) expect(got, key(f)).toContain(key(f));
  });

  it('reads the tenants as one group through a bounded sample, and says so', (ctx) => {
    if (skip) return ctx.skip(skip);
    const db = snap?.databases[0];
    const group = db?.groups?.find((g) => g.pattern === 'tenant_{id}');
    expect(group).toMatchObject({ kind: 'collection', members: TENANTS });
    expect(group?.read.length).toBe(GROUP_DEFAULTS.groupSample);
    expect(group?.evidence.optionsRead).toBe(TENANTS);
    expect(group?.evidence.indexesRead).toBe(GROUP_DEFAULTS.groupSample);
    // Rows for what was read only: the representatives and the real collection.
    expect(db?.collections.length).toBe(GROUP_DEFAULTS.groupSample + 1);
    const tenants = grouped.findings.find(
      (f) => f.ruleId === 'collection-count' && f.messageId.startsWith('tenantCollections'),
    );
    expect(tenants?.message).toContain('2,000 collections');
    expect(tenants?.message).toContain('`tenant_{id}`');
    expect(tenants?.messageId).toBe('tenantCollectionsGroup');
    expect(tenants?.message).toMatch(
      /The audit read 30 of them in full .*: 30 of the 30 have the same indexes and (\d+) of the 30 are empty\./,
    );
    expect(tenants?.evidence).toMatchObject({ members: TENANTS, indexesRead: 30, sameIndexes: 30 });
  });

  it('falls back to listCollections where the server has no one-cursor catalogue, and says so', (ctx) => {
    if (skip) return ctx.skip(skip);
    // SecantusDB refuses $listCatalog ("Unrecognized pipeline stage name"); a real mongod 6.0+ answers it.
    if (kind !== 'secantusdb') return ctx.skip(`${kind} may have $listCatalog: the fallback is SecantusDB's case`);
    expect(snap?.databases[0]?.listing).toBe('full');
    expect(snap?.notes.map((n) => n.message)).toContainEqual(
      expect.stringContaining('the one-cursor catalogue ($listCatalog) was not available'),
    );
  });

  it('keeps round trips bounded by the groups, not the collections', (ctx) => {
    if (skip) return ctx.skip(skip);
    // An empty representative costs a count and a listIndexes; the real collection a few dozen reads at most.
    expect(sent).toBeLessThan(GROUP_DEFAULTS.groupSample * 4 + 100);
    expect(sent).toBeLessThan(TENANTS / 5);
  });
});
