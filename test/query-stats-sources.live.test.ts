import { describe, expect, it } from 'vitest';
import { useLiveDb } from './support/live-db';
import { readOnly } from '../src/adapters/read-only';
import { readQueryStats } from '../src/workload/query-stats';
import { readCollectionScans, readDatabaseScans } from '../src/workload/collection-scans';

const DB = 'mongo_advisor_test_query_stats';

/** A reason is one sentence for a report: one line, no stack frame, no "[object Object]". */
function expectSentence(reason: string): void {
  expect(reason).not.toMatch(/\n|\bat .+:\d+:\d+|\[object Object\]|undefined/);
  expect(reason).toMatch(/\.$/);
}

describe('$queryStats and $collStats queryExecStats as workload sources', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('orders').insertMany(Array.from({ length: 50 }, (_, i) => ({ i, status: `s${i % 5}` })));
  });

  it('reads $queryStats through the read-only gate, or says in one sentence why not', async () => {
    await live.db.collection('orders').find({ status: 's1' }).toArray();
    const read = await readQueryStats(readOnly(live.adapter), { db: DB, maxTimeMS: 10_000, limit: 50 });
    if ('reason' in read) {
      console.log(`[${live.kind}] $queryStats: ${read.reason}`);
      expectSentence(read.reason);
      return;
    }
    // A server that has it (a mongod 8.0 with query stats on): shapes of this database only, none to replay.
    console.log(`[${live.kind}] $queryStats: ${read.entries} entries, ${read.records.length} records`);
    for (const r of read.records) {
      expect(r).toMatchObject({ source: 'queryStats', ns: { db: DB }, shapeOnly: true });
      expect(r.appName).not.toBe('mongo-advisor');
    }
    expect(read.notes.join(' ')).toMatch(/no command|holds no query/);
  });

  it('counts collection scans per collection, or says in one sentence why the server does not', async () => {
    const gate = readOnly(live.adapter);
    const before = await readCollectionScans(gate, DB, 'orders', { maxTimeMS: 10_000 });
    if ('reason' in before) {
      console.log(`[${live.kind}] collectionScans: ${before.reason}`);
      expectSentence(before.reason);
      const all = await readDatabaseScans(gate, DB, ['orders', 'missing'], { maxTimeMS: 10_000 });
      expect(all.scans.size).toBe(0);
      expect(all.reason).toBe(before.reason);
      return;
    }
    // Five finds on an unindexed field: five collection scans, none tailable.
    for (let i = 0; i < 5; i++)
      await live.db
        .collection('orders')
        .find({ status: `s${i}` })
        .toArray();
    const after = await readCollectionScans(gate, DB, 'orders', { maxTimeMS: 10_000 });
    if ('reason' in after) throw new Error(after.reason);
    console.log(`[${live.kind}] collectionScans: ${before.total} → ${after.total}`);
    expect(after.total - before.total).toBeGreaterThanOrEqual(5);
    expect(after.nonTailable - before.nonTailable).toBeGreaterThanOrEqual(5);
    const all = await readDatabaseScans(gate, DB, ['orders', 'missing'], { maxTimeMS: 10_000 });
    expect(all.reason).toBeNull();
    expect([...all.scans.keys()]).toEqual(['orders']);
  });
});
