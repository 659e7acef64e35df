import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSlowQueryLog } from '../../src/workload/log-reader';
import { workloadData } from '../../src/collect/workload';
import { makeRecord, opKindOf, type WorkloadRecord } from '../../src/workload/record';
import { collectionOf } from '../../test/support/fixtures';
import { embedLogLines, embedOperations, embedRecords, type EmbedSeed, MIX } from '../../test/support/embed-workload';
import { paceOf } from './collect';
import { deciding, mixClaim, mixOf, readsClaim } from './confirm';
import { parentKeyNames, singular, workloadPairs } from './pairs';

// The seed's ids stand in as numbers: the analysis reads shapes, never values.
const ids = (n: number, from: number) => Array.from({ length: n }, (_, i) => from + i) as unknown[];
const seed = {
  orders: ids(40, 1),
  items: ids(120, 100).map((id, i) => ({ id, orderId: 1 + (i % 40) })),
  posts: ids(5, 1000),
  comments: ids(50, 2000),
  users: ids(30, 3000),
  events: ids(300, 4000),
} as unknown as EmbedSeed;

/** Records as the shared workload collector holds them for the database (every collection they name is checked). */
const dataFrom = (records: readonly WorkloadRecord[]) => {
  const names = [...new Set(records.map((r) => r.ns.coll))];
  return workloadData(
    records,
    'app',
    names.map((n) => collectionOf(n)),
    () => undefined,
  );
};

const tallyOf = (commands: { coll: string; command: Record<string, unknown>; times: number }[]) =>
  dataFrom(
    commands.flatMap((c) =>
      Array.from({ length: c.times }, () =>
        makeRecord({ source: 'log', ns: { db: 'app', coll: c.coll }, op: opKindOf(c.command) }, c.command),
      ),
    ),
  );

describe('workloadPairs: the pairs read together and what each side receives', () => {
  const d = dataFrom(embedRecords('app', embedOperations('app', seed)));
  const { pairs, collections } = workloadPairs(d, 2);
  const ops = (name: string) => collections.find((c) => c.name === name);

  it('finds the two $lookup pairs with their calls and time, and no pair for the audit trail', () => {
    expect(pairs.map((p) => `${p.parent}.${p.localField} → ${p.child}.${p.foreignField} as ${p.as}`)).toEqual([
      'orders._id → order_items.orderId as items',
      'posts._id → comments.postId as comments',
    ]);
    expect(pairs[0]).toMatchObject({ basis: 'lookup', joinCalls: MIX.orderViews, joinMillis: 4 * MIX.orderViews });
    expect(pairs[1]).toMatchObject({ basis: 'lookup', joinCalls: MIX.postViews, fields: [] });
  });

  it('counts inserts (by document), updates by _id, and reads by _id alone', () => {
    expect(ops('order_items')).toMatchObject({ inserts: MIX.itemInserts, updates: MIX.itemUpdates, updatesById: 2 });
    expect(ops('comments')).toMatchObject({ inserts: MIX.commentInserts, updatesById: MIX.commentUpdates });
    expect(ops('users')).toMatchObject({ reads: MIX.userReads, readsById: MIX.userReads, inserts: 0 });
    expect(ops('audit_events')).toMatchObject({ readsById: MIX.eventReads, readsByKey: 0, inserts: MIX.eventInserts });
    // the lookup's own shape on the child is the aggregate's call, not a read of the child
    expect(ops('order_items')?.reads).toBe(0);
  });

  it('infers a pair from a find by the parent key beside a find by _id at matching rates, and says so', () => {
    const byId = { coll: 'users', command: { find: 'users', filter: { _id: 7 } } };
    const byKey = { coll: 'audit_events', command: { find: 'audit_events', filter: { userId: 7 } } };
    const matched = workloadPairs(
      tallyOf([
        { ...byId, times: 50 },
        { ...byKey, times: 40 },
      ]),
      2,
    ).pairs;
    expect(matched).toEqual([
      {
        parent: 'users',
        localField: '_id',
        child: 'audit_events',
        foreignField: 'userId',
        as: 'audit_events',
        basis: 'shapePair',
        joinCalls: 40,
        joinMillis: null,
        fields: [],
      },
    ]);
    // rates 5x apart: not read together
    expect(
      workloadPairs(
        tallyOf([
          { ...byId, times: 50 },
          { ...byKey, times: 10 },
        ]),
        2,
      ).pairs,
    ).toEqual([]);
    // a key not named after the parent: no pair
    const other = { coll: 'audit_events', command: { find: 'audit_events', filter: { actor: 7 } }, times: 50 };
    expect(workloadPairs(tallyOf([{ ...byId, times: 50 }, other]), 2).pairs).toEqual([]);
  });

  it('reads the fields a $project keeps of the joined children: an extended reference', () => {
    const command = {
      aggregate: 'orders',
      pipeline: [
        { $match: { _id: 1 } },
        { $lookup: { from: 'order_items', localField: '_id', foreignField: 'orderId', as: 'items' } },
        { $project: { total: 1, 'items.sku': 1, 'items.qty': 1 } },
      ],
      cursor: {},
    };
    const [pair] = workloadPairs(tallyOf([{ coll: 'orders', command, times: 3 }]), 2).pairs;
    expect(pair?.fields).toEqual(['qty', 'sku']);
  });

  it('makes one candidate per pair of collections, whatever the shapes that join them', () => {
    const view = (match: Record<string, unknown>) => ({
      aggregate: 'orders',
      pipeline: [
        { $match: match },
        { $lookup: { from: 'order_items', localField: '_id', foreignField: 'orderId', as: 'items' } },
      ],
      cursor: {},
    });
    const d = tallyOf([
      { coll: 'orders', command: view({ _id: 1 }), times: 5 },
      { coll: 'orders', command: view({ status: 'paid' }), times: 7 },
    ]);
    const { pairs } = workloadPairs(d, 2);
    expect(pairs.map((p) => [p.parent, p.child, p.joinCalls])).toEqual([['orders', 'order_items', 12]]);
  });

  it('leaves out a $lookup with a sub-pipeline (no local and foreign fields to embed by)', () => {
    const command = {
      aggregate: 'orders',
      pipeline: [{ $lookup: { from: 'order_items', pipeline: [{ $match: { x: 1 } }], as: 'items' } }],
      cursor: {},
    };
    expect(workloadPairs(tallyOf([{ coll: 'orders', command, times: 3 }]), 2).pairs).toEqual([]);
  });

  it('names parent keys after the singular of the collection', () => {
    expect(singular('orders')).toBe('order');
    expect(singular('categories')).toBe('category');
    expect(singular('addresses')).toBe('address');
    expect(parentKeyNames('users')).toEqual(['userId', 'user_id', 'userID']);
  });
});

describe('paceOf: children per day of one parent', () => {
  const now = Date.UTC(2026, 0, 31);
  const s = (daysAgo: number) => (now - daysAgo * 86_400_000) / 1000;
  it('is 0 when the children came together and none since (line items placed with the order)', () => {
    expect(paceOf(5, s(30), s(30), now, 1)).toBe(0);
  });
  it('is the children over the days since the first when they kept coming', () => {
    expect(paceOf(100, s(50), s(0), now, 1)).toBe(2);
  });
  it('gives no pace for a parent younger than minAgeDays, or ids without a time', () => {
    expect(paceOf(3, s(0.5), s(0.2), now, 1)).toBeNull();
    expect(paceOf(3, null, null, now, 1)).toBeNull();
  });
});

describe('mixOf: the workload proportions per timed run', () => {
  it('keeps the proportions, each kind present once at least', () => {
    expect(mixOf({ reads: 120, inserts: 8, updates: 2 })).toEqual({ reads: 18, inserts: 1, updates: 1 });
    expect(mixOf({ reads: 10, inserts: 10, updates: 0 })).toEqual({ reads: 10, inserts: 10, updates: 0 });
  });
});

describe('deciding: embed only when the reads and the mix both gain beyond the noise', () => {
  const arm = { label: 'a', samples: [1, 1, 1, 1, 1], complete: true };
  const timing = (low: number, high: number, mix: boolean) => ({
    embedded: arm,
    referenced: arm,
    ratio: { label: mix ? 'mix' : 'reads', median: (low + high) / 2, low, high, coverage: 0.96 },
    claim: mix ? mixClaim() : readsClaim(),
  });
  it('takes the mix when both are supported, the reads when they are not, a refuted one first', () => {
    const readsOk = timing(0.5, 0.8, false);
    const readsNear = timing(0.6, 0.95, false);
    const mixOk = timing(0.6, 0.85, true);
    const mixWorse = timing(1.2, 1.5, true);
    expect(deciding([readsOk, mixOk])).toBe(mixOk);
    expect(deciding([readsNear, mixOk])).toBe(readsNear); // the reads gain within the noise: not shown
    expect(deciding([readsNear, mixWorse])).toBe(mixWorse); // the writes make the mix worse: refuted
    expect(deciding([readsOk])).toBe(readsOk);
    expect(deciding([{ ...readsOk, embedded: { ...arm, complete: false } }, mixOk]).ratio.label).toBe('reads');
  });
});

describe('the same workload from a mongod JSON log', () => {
  it('gives the same pairs and the same counts as the records', async () => {
    const ops = embedOperations('app', seed);
    const { records, counts } = await readSlowQueryLog(Readable.from([embedLogLines('app', ops).join('\n') + '\n']));
    expect(counts.records).toBe(ops.length);
    const fromLog = workloadPairs(dataFrom(records), 2);
    const fromRecords = workloadPairs(dataFrom(embedRecords('app', ops)), 2);
    expect(fromLog.pairs).toEqual(fromRecords.pairs);
    const byName = (c: { name: string }[]) => [...c].sort((a, b) => a.name.localeCompare(b.name));
    expect(byName(fromLog.collections)).toEqual(byName(fromRecords.collections));
  });
});
