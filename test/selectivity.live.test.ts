/**
 * Selectivity on the test servers. The query-indexes selectivity collector over documents the driver read back, and
 * what the order of a candidate's equality fields changes (docs/workload.md, Candidates): not the keys a query with
 * every one of them reads. MongoDB's ESR page says equality keys "can appear in any order relative to each other"
 * (https://www.mongodb.com/docs/manual/tutorial/equality-sort-range-guideline/); this pins it on the test servers:
 * the same points, whichever field leads, read the same keys. What the order does change is the prefix other queries
 * can use alone.
 */
import { describe, expect, it } from 'vitest';
import { fieldSelectivity } from '../rules/query-indexes/selectivity';
import { collectSnapshot } from '../src/collect';
import { dataOf } from '../src/core/collector';
import { useLiveDb } from './support/live-db';

const STATUSES = ['new', 'paid', 'shipped', 'delivered', 'cancelled'];

describe('selectivity on the test servers (live)', () => {
  const live = useLiveDb('mongo_advisor_test_equality_order', async (db) => {
    const docs = Array.from({ length: 2000 }, (_, i) => ({ status: STATUSES[i % 5], customerId: i % 97, at: i }));
    await db.collection('orders').insertMany(docs);
    await db.collection('orders').createIndexes([
      { key: { status: 1, customerId: 1 }, name: 'status_first' },
      { key: { customerId: 1, status: 1 }, name: 'customer_first' },
    ]);
  });

  const examined = async (filter: Record<string, unknown>, hint: string) => {
    const r = await live.db.command({ explain: { find: 'orders', filter, hint }, verbosity: 'executionStats' });
    const s = (r.executionStats ?? {}) as { totalKeysExamined?: number; nReturned?: number };
    return { keys: s.totalKeysExamined, returned: s.nReturned };
  };

  it('counts distinct values per path of the real documents, and writes no value', async () => {
    const snapshot = await collectSnapshot(live.adapter, {
      db: 'mongo_advisor_test_equality_order',
      collections: ['orders'],
      collectors: [fieldSelectivity],
    });
    const orders = snapshot.databases[0]?.collections.find((c) => c.name === 'orders');
    const data = dataOf(fieldSelectivity, orders);
    // 2,000 documents: read whole (under the core's whole-read line), so the counts are exact
    expect(data).toEqual({
      documents: 2000,
      leftOut: 0,
      paths: {
        _id: { present: 2000, distinct: 2000 },
        at: { present: 2000, distinct: 2000 },
        customerId: { present: 2000, distinct: 97 },
        status: { present: 2000, distinct: 5 },
      },
    });
    const text = JSON.stringify(snapshot);
    for (const value of STATUSES) expect(text).not.toContain(`"${value}"`);
  });

  it('reads the same keys with the most or the least selective field first', async (ctx) => {
    const filters = [
      { status: 'paid', customerId: 6 },
      { status: { $in: ['new', 'paid'] }, customerId: { $in: [1, 6, 11] } },
    ];
    for (const filter of filters) {
      const [a, b] = [await examined(filter, 'status_first'), await examined(filter, 'customer_first')];
      if (a.keys === undefined || b.keys === undefined) ctx.skip('the server gives no totalKeysExamined in explain');
      expect(a.returned).toBeGreaterThan(0);
      expect(b).toEqual(a);
      // only the matching keys: the bounds are points on both fields either way
      expect(a.keys).toBe(a.returned);
    }
  });
});
