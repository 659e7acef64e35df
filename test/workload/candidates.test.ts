import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { IndexShape } from '../../src/lib/index-keys';
import { adviseIndexes, esrKeys, indexName, type Advice, type CandidateOptions } from '../../src/workload/candidates';
import { branchesOf, serveShape } from '../../src/workload/serve';
import { formatShape, shapesOf, type QueryShape } from '../../src/workload/shape';

const shapes = (...cmds: Record<string, unknown>[]): QueryShape[] => cmds.flatMap((c) => shapesOf(c, 'shop'));
const none = (): IndexShape[] => [];
const keys = (a: Advice): string[] => a.candidates.map((c) => `${c.coll}:${c.name}`);
const ix = (name: string, key: Record<string, number>): IndexShape => ({ name, key });
const keysFor = (...cmds: Record<string, unknown>[]): string[] => keys(adviseIndexes(shapes(...cmds), none));

const byCustomer = { find: 'orders', filter: { status: 'paid', customerId: new ObjectId() }, sort: { createdAt: -1 } };
const byStatus = { find: 'orders', filter: { status: 'open' }, sort: { createdAt: -1 }, limit: 50 };
const countByStatus = { count: 'orders', query: { status: 'open' } };
const skuSearch = { find: 'products', filter: { sku: /ab-12/i } };
const withOrders = {
  aggregate: 'customers',
  pipeline: [
    { $match: { region: 'EU' } },
    { $lookup: { from: 'orders', localField: '_id', foreignField: 'customerId', as: 'o' } },
  ],
};
const expiry = { q: { status: 'open', date: { $lt: new Date() } }, u: { $set: { status: 'x' } }, multi: true };
const expire = { update: 'orders', updates: [expiry] };
const events = { find: 'events', filter: { type: 'click', ts: { $gte: new Date(0), $lt: new Date() } } };
// Distinct values counted on a sample (the query-indexes rule's figures): higher is more selective.
const selectivity: CandidateOptions['selectivity'] = (f) => ({ customerId: 60, status: 5, type: 4 })[f];

describe('adviseIndexes: the shop workload', () => {
  it('orders equality fields by selectivity, then the sort with its direction', () => {
    const a = adviseIndexes(shapes(byCustomer), none, { selectivity });
    expect(a.candidates).toEqual([
      expect.objectContaining({
        key: { customerId: 1, status: 1, createdAt: -1 },
        name: 'customerId_1_status_1_createdAt_-1',
      }),
    ]);
    const reversed = adviseIndexes(shapes(byCustomer), none, { selectivity: (f) => (f === 'status' ? 900 : 100) });
    expect(keys(reversed)).toEqual(['orders:status_1_customerId_1_createdAt_-1']);
  });
  it('breaks selectivity ties by name, and needs no selectivity', () => {
    expect(keys(adviseIndexes(shapes(byCustomer), none))).toEqual(['orders:customerId_1_status_1_createdAt_-1']);
  });
  it('puts fields the sample did not count after the counted ones, by name among themselves', () => {
    const four = shapes({ find: 'o', filter: { d: 1, c: 2, b: 3, a: 4 } });
    const counted = { c: 2, d: 2 } as Record<string, number>;
    expect(keys(adviseIndexes(four, none, { selectivity: (f) => counted[f] }))).toEqual(['o:c_1_d_1_a_1_b_1']);
    const tie = { a: 7, b: 7, c: 7, d: 7 } as Record<string, number>;
    expect(keys(adviseIndexes(four, none, { selectivity: (f) => tie[f] }))).toEqual(['o:a_1_b_1_c_1_d_1']);
  });
  it("reads each collection's own figures", () => {
    const both = shapes({ find: 'o', filter: { a: 1, b: 2 } }, { find: 'p', filter: { a: 1, b: 2 } });
    const byColl: Record<string, Record<string, number>> = { o: { a: 10, b: 2 }, p: { a: 2, b: 10 } };
    const sel: CandidateOptions['selectivity'] = (f, db, coll) => (db === 'shop' ? byColl[coll]?.[f] : undefined);
    expect(keys(adviseIndexes(both, none, { selectivity: sel }))).toEqual(['o:a_1_b_1', 'p:b_1_a_1']);
  });
  it('serves a count by status with the same index, status first (equality order is free)', () => {
    const [c, s] = shapes(byCustomer, countByStatus);
    const a = adviseIndexes([c as QueryShape, s as QueryShape], none, { selectivity });
    expect(a.candidates).toHaveLength(1);
    expect(a.candidates[0]).toMatchObject({
      key: { status: 1, customerId: 1, createdAt: -1 },
      serves: [c?.id, s?.id].sort(),
      weight: 2,
    });
  });
  it('gives the workload its candidates; flags the case-insensitive sku regex and proposes nothing for it', () => {
    const all = shapes(byCustomer, byStatus, skuSearch, withOrders, expire, events);
    const a = adviseIndexes(all, none, { selectivity });
    expect(keys(a).sort()).toEqual([
      'customers:region_1',
      'events:type_1_ts_1',
      'orders:customerId_1_status_1_createdAt_-1',
      'orders:status_1_createdAt_-1',
      'orders:status_1_date_1',
    ]);
    // The $lookup's equality on orders.customerId is served by the index led by customerId.
    const lookup = all.find((s) => s.command === 'lookup') as QueryShape;
    const byCust = a.candidates.find((c) => c.name.startsWith('customerId'));
    expect(byCust?.serves).toContain(lookup.id);
    expect(byCust?.serves).toHaveLength(2);
    const sku = all.find((s) => s.coll === 'products') as QueryShape;
    expect(a.skipped).toEqual([{ shapeId: sku.id, db: 'shop', coll: 'products', reason: 'no-indexable-field' }]);
    expect(a.flags).toEqual([{ shapeId: sku.id, path: 'sku', what: 'unbounded-regex' }]);
  });
  it('proposes nothing an existing index already serves', () => {
    const existing: Record<string, IndexShape[]> = {
      events: [ix('_id_', { _id: 1 }), ix('type_ts', { type: 1, ts: 1 })],
      orders: [ix('cust', { customerId: 1, createdAt: -1 })],
    };
    const all = shapes(events, withOrders);
    const a = adviseIndexes(all, (_db, coll) => existing[coll] ?? [], { selectivity });
    expect(keys(a)).toEqual(['customers:region_1']);
    expect(a.skipped.map((s) => [s.coll, s.reason, s.index])).toEqual([
      ['events', 'served', 'type_ts'],
      ['orders', 'served', 'cust'],
    ]);
  });
  it('still proposes the right order beside an index in the wrong one', () => {
    const wrong = [ix('createdAt_status', { createdAt: -1, status: 1 })];
    expect(keys(adviseIndexes(shapes(byStatus), () => wrong))).toEqual(['orders:status_1_createdAt_-1']);
  });
});

describe('adviseIndexes: ESR choices', () => {
  it('offers the range before the sort as an alternative to time', () => {
    const a = adviseIndexes(shapes({ find: 'o', filter: { s: 1, total: { $gt: 5 } }, sort: { at: -1 } }), none);
    expect(a.candidates[0]).toMatchObject({ name: 's_1_at_-1_total_1', rangeFirst: { name: 's_1_total_1_at_-1' } });
    const noSort = adviseIndexes(shapes({ find: 'o', filter: { s: 1, total: { $gt: 5 } } }), none);
    expect(noSort.candidates[0]?.rangeFirst).toBeUndefined();
  });
  it('puts an $in of over 200 values after the sort, and keeps a small one first', () => {
    const many = Array.from({ length: 201 }, (_, i) => i);
    expect(keysFor({ find: 'o', filter: { s: { $in: many } }, sort: { at: 1 } })).toEqual(['o:at_1_s_1']);
    expect(keysFor({ find: 'o', filter: { s: { $in: [1, 2] } }, sort: { at: 1 } })).toEqual(['o:s_1_at_1']);
    expect(keysFor({ find: 'o', filter: { s: { $in: many } } })).toEqual(['o:s_1']);
    // …and that order, once built, counts as serving the shape.
    const built = adviseIndexes(shapes({ find: 'o', filter: { s: { $in: many } }, sort: { at: 1 } }), () => [
      ix('at_s', { at: 1, s: 1 }),
    ]);
    expect([keys(built), built.skipped.map((x) => x.reason)]).toEqual([[], ['served']]);
  });
  it('reads a range on the sort field from the sort', () => {
    const byTime = { find: 'events', filter: { type: 1, ts: { $gt: 0 } }, sort: { ts: -1 } };
    expect(keysFor(byTime)).toEqual(['events:type_1_ts_-1']);
  });
  it('keeps several sort keys with their relative directions', () => {
    expect(keysFor({ find: 'o', filter: { a: 1 }, sort: { b: -1, c: 1 } })).toEqual(['o:a_1_b_-1_c_1']);
  });
});

describe('adviseIndexes: merging, skips and caps', () => {
  it('drops a prefix for the longer key that serves both, and merges a reversed sort', () => {
    const a = adviseIndexes(
      shapes(
        { find: 'o', filter: { a: 1 } },
        { find: 'o', filter: { a: 1, b: 2 } },
        { find: 'o', filter: { a: 1, b: 2 }, sort: { at: 1 } },
        { find: 'o', filter: { a: 1, b: 2 }, sort: { at: -1 } },
      ),
      none,
    );
    expect(keys(a)).toEqual(['o:a_1_b_1_at_-1']);
    expect(a.candidates[0]?.serves).toHaveLength(4);
  });
  it('proposes one index per branch of an $or, none when a branch cannot use one', () => {
    const or = shapes({ find: 'o', filter: { $or: [{ a: 1 }, { b: { $gt: 1 } }] } });
    const a = adviseIndexes(or, none);
    expect(keys(a)).toEqual(['o:a_1', 'o:b_1']);
    expect(a.candidates.every((c) => c.serves[0] === or[0]?.id)).toBe(true);
    const half = adviseIndexes(shapes({ find: 'o', filter: { $or: [{ a: 1 }, { b: /x/i }] } }), none);
    expect([keys(half), half.skipped.map((s) => s.reason)]).toEqual([[], ['or-branch-unindexable']]);
    const served = adviseIndexes(or, () => [ix('a', { a: 1 })]);
    expect(keys(served)).toEqual(['o:b_1']);
  });
  it('skips _id alone, $text and geo, and shapes with nothing to bound', () => {
    const a = adviseIndexes(
      shapes(
        { find: 'o', filter: { _id: 1 } },
        { find: 't', filter: { $text: { $search: 'x' }, lang: 'en' } },
        { find: 'g', filter: { loc: { $near: [0, 0] } } },
        { find: 'w', filter: { $where: 'true' } },
        { aggregate: 'n', pipeline: [{ $geoNear: { near: [0, 0], distanceField: 'd' } }, { $match: { k: 1 } }] },
      ),
      none,
    );
    expect(a.candidates).toEqual([]);
    const reasons = a.skipped.map((s) => `${s.coll}:${s.reason}`);
    expect(reasons).toEqual(['g:text-or-geo', 'n:text-or-geo', 'o:id-only', 't:text-or-geo', 'w:no-indexable-field']);
    expect(a.flags.map((f) => `${f.what}:${f.path ?? ''}`)).toEqual(['$near:loc', '$geoNear:', '$text:', '$where:']);
  });
  it('caps a key at 16 fields', () => {
    const filter = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`f${String(i).padStart(2, '0')}`, i]));
    const [c] = adviseIndexes(shapes({ find: 'o', filter }), none).candidates;
    expect(Object.keys(c?.key ?? {})).toHaveLength(16);
  });
  it('keeps the heaviest candidates up to the cap per collection, and says which shapes were cut', () => {
    const cmds = ['a', 'b', 'c', 'd', 'e'].map((f) => ({ find: 'o', filter: { [f]: 1 } }));
    const all = shapes(...cmds, { find: 'p', filter: { z: 1 } });
    const weight = (id: string): number => all.findIndex((s) => s.id === id) + 1;
    const a = adviseIndexes(all, none, { weight });
    expect(keys(a)).toEqual(['o:e_1', 'o:d_1', 'o:c_1', 'p:z_1']);
    expect(a.skipped.map((s) => s.shapeId).sort()).toEqual([all[0]?.id, all[1]?.id].sort());
    expect(a.skipped.every((s) => s.reason === 'over-cap')).toBe(true);
    expect(keys(adviseIndexes(all, none, { weight, maxPerCollection: 1 }))).toEqual(['o:e_1', 'p:z_1']);
  });
  it('gives the same advice whatever the order of the shapes', () => {
    const or = { find: 'o', filter: { $or: [{ a: 1 }, { b: 2 }] } };
    const all = shapes(byCustomer, byStatus, skuSearch, withOrders, expire, events, or);
    const one = adviseIndexes(all, none, { selectivity });
    expect(adviseIndexes([...all].reverse(), none, { selectivity })).toEqual(one);
  });
});

describe('adviseIndexes: collation', () => {
  it('builds the candidate with the collation its shapes query under, apart from the simple one', () => {
    const ci = { find: 'products', filter: { name: 'x' }, collation: { locale: 'en', strength: 2 } };
    const all = shapes(ci, { find: 'products', filter: { name: 'y' } });
    const a = adviseIndexes(all, none);
    expect(a.candidates.map((c) => [c.name, c.collation])).toEqual([
      ['name_1', undefined],
      ['name_1', { locale: 'en', strength: 2 }],
    ]);
    expect(adviseIndexes([...all].reverse(), none)).toEqual(a);
    const ciIndex = { name: 'ci', key: { name: 1 }, collation: { locale: 'en', strength: 2 } };
    const served = adviseIndexes(shapes(ci), () => [ciIndex]);
    expect(served.skipped.map((s) => s.reason)).toEqual(['served']);
  });
});

describe('esrKeys and indexName', () => {
  it('builds E, S, R from one conjunction', () => {
    const [s] = shapes({ find: 'o', filter: { r: { $lt: 1 }, e: 1 }, sort: { s: -1 } });
    const [b] = branchesOf(s as QueryShape) ?? [];
    const k = esrKeys(b ?? [], s?.sort ?? [], () => 0);
    expect(k).toEqual({ esr: { e: 1, s: -1, r: 1 }, ers: { e: 1, r: 1, s: -1 } });
    expect(indexName({ 'a.b': 1, c: -1 })).toBe('a.b_1_c_-1');
  });
});

describe('no value reaches the advice', () => {
  it('plants markers in the queries and finds none in candidates, skips or flags', () => {
    const MARK = 'MARKER_c4d1';
    const NUM = 5550123;
    const all = shapes(
      { find: 'orders', filter: { status: MARK, n: { $gt: NUM }, s: { $in: [MARK, NUM] } }, sort: { at: -1 } },
      { find: 'orders', filter: { $or: [{ a: MARK }, { b: new RegExp(MARK, 'i') }] } },
      { update: 'orders', updates: [{ q: { c: MARK, d: { $lte: NUM } }, u: { $set: { e: MARK } } }] },
      { find: 'products', filter: { sku: { $regex: `^${MARK}`, $options: 'i' }, $where: `"${MARK}"` } },
    );
    const text = JSON.stringify(adviseIndexes(all, none));
    expect(text).toContain('status');
    expect(text).not.toContain(MARK);
    expect(text).not.toContain(String(NUM));
  });
});

describe('adviseIndexes: its candidates, once built, serve what they say', () => {
  const many = Array.from({ length: 300 }, (_, i) => i);
  const workload = shapes(
    byCustomer,
    byStatus,
    countByStatus,
    skuSearch,
    withOrders,
    expire,
    events,
    { find: 'o', filter: { a: 1, b: { $gt: 2 }, c: { $in: [1, 2, 3] } }, sort: { d: -1, e: 1 } },
    { find: 'o', filter: { $or: [{ a: 1, f: 2 }, { g: { $lt: 3 } }] }, sort: { d: 1 } },
    { find: 'o', filter: { items: { $elemMatch: { sku: 'x', qty: { $gte: 2 } } } } },
    { find: 'o', filter: { h: { $in: many } }, sort: { d: -1 } },
    { find: 'o', filter: { name: /^ab/ }, collation: { locale: 'en', strength: 2 } },
    { distinct: 'o', key: 'a', query: { b: { $exists: true } } },
  );
  const first = adviseIndexes(workload, none, { selectivity, maxPerCollection: 50 });
  const built = (db: string, coll: string): IndexShape[] =>
    first.candidates
      .filter((c) => c.db === db && c.coll === coll)
      .map((c) => ({ name: c.name, key: c.key, ...(c.collation ? { collation: c.collation } : {}) }));
  it('serves every shape it names, fully', () => {
    expect(first.candidates.length).toBeGreaterThan(6);
    for (const c of first.candidates) {
      for (const id of c.serves) {
        const shape = workload.find((s) => s.id === id) as QueryShape;
        const index: IndexShape = { name: c.name, key: c.key, ...(c.collation ? { collation: c.collation } : {}) };
        const branches = serveShape(shape, [index]).branches;
        expect(
          branches.some((b) => b?.level === 'full'),
          `${c.name} for ${formatShape(shape)}`,
        ).toBe(true);
      }
    }
  });
  it('proposes no key that is a prefix of another of its collection under the same collation', () => {
    const prefix = (a: Record<string, number>, b: Record<string, number>): boolean => {
      const [ka, kb] = [Object.entries(a), Object.entries(b)];
      return ka.length < kb.length && ka.every(([k, d], i) => kb[i]?.[0] === k && kb[i]?.[1] === d);
    };
    const same = (a: (typeof first.candidates)[number], b: (typeof first.candidates)[number]): boolean =>
      a.coll === b.coll && JSON.stringify(a.collation ?? null) === JSON.stringify(b.collation ?? null);
    for (const a of first.candidates) {
      for (const b of first.candidates) expect(same(a, b) && prefix(a.key, b.key), `${a.name} < ${b.name}`).toBe(false);
    }
  });
  it('proposes nothing more once they exist', () => {
    const again = adviseIndexes(workload, built, { selectivity, maxPerCollection: 50 });
    expect(again.candidates).toEqual([]);
    const advised = new Set(first.candidates.flatMap((c) => c.serves));
    expect(again.skipped.filter((s) => advised.has(s.shapeId)).every((s) => s.reason === 'served')).toBe(true);
  });
});
