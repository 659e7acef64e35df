import { describe, expect, it } from 'vitest';
import type { IdProfile } from '../../src/core/types';
import { collectionOf, snapshotOf } from '../../test/support/fixtures';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import { planInsertBatch, uuid4Hex, uuid7Hex } from './confirm';
import rule from './index';

const N = 200;
const inOrder = Array.from({ length: N }, (_, i) => i);
// a fixed shuffle (random order with respect to insertion)
const shuffled = inOrder.map((i) => (i * 7919) % N);

function ids(over: Partial<IdProfile>): IdProfile {
  return {
    types: { objectId: N },
    uuidVersions: {},
    sizeBytes: { p50: 12, max: 12, mean: 12 },
    leadingByteEntropy: [0, 0.5, 3.2, 6.9],
    naturalOrderRanks: inOrder,
    naturalOrderSource: 'natural-scan',
    ...over,
  };
}

const uuid4: Partial<IdProfile> = { types: { uuid: N }, uuidVersions: { '4': N }, sizeBytes: { p50: 21, max: 21, mean: 21 }, leadingByteEntropy: [7.4, 7.4, 7.5, 7.4], naturalOrderRanks: shuffled };

function coll(name: string, id: IdProfile, over: Parameters<typeof collectionOf>[1] = {}) {
  return collectionOf(name, {
    sample: { method: '$sample', random: true, requested: N, size: N, docs: [{ bytes: 100, createdAt: null, measuredOnServer: false, arrays: [], largestFields: [] }], id, fields: {}, timeSource: null },
    indexes: [
      { name: '_id_', key: { _id: 1 }, sizeBytes: 40_000, accesses: null },
      { name: 'userId_1', key: { userId: 1 }, sizeBytes: 30_000, accesses: null },
    ],
    ...over,
  });
}

ruleTester(rule, {
  valid: [
    { name: 'ObjectId _id on a regular collection only gets the clustered suggestion (info)', snapshot: snapshotOf([coll('events', ids({}))]), allowInfo: true },
    { name: 'capped collection with monotonic _id: no clustered advice', snapshot: snapshotOf([coll('log', ids({}), { capped: true })]) },
    { name: 'already clustered on ObjectId', snapshot: snapshotOf([coll('events', ids({}), { clustered: true })]) },
    { name: 'nothing sampled', snapshot: snapshotOf([collectionOf('empty')]) },
    { name: 'too few _ids to judge their order: nothing to say', snapshot: snapshotOf([coll('tiny', ids({ naturalOrderRanks: [0, 1, 2], leadingByteEntropy: [0, 0, 0, 0] }))]) },
    {
      name: 'server older than 5.3: no clustered suggestion',
      snapshot: (() => {
        const s = snapshotOf([coll('events', ids({}))]);
        s.server.capabilities.clusteredCollections = { supported: false, evidence: 'server version 5.0.3 is older than 5.3' };
        return s;
      })(),
    },
  ],
  invalid: [
    { name: 'UUID v4 _id: advise against clustering', snapshot: snapshotOf([coll('sessions', ids(uuid4))]), expect: [{ messageId: 'adviseAgainstClustered', messageIncludes: 'UUID v4' }] },
    { name: 'monotonic ObjectId: recommend clustering', snapshot: snapshotOf([coll('events', ids({}))]), expect: [{ messageId: 'recommendClustered', severity: 'info' }] },
    {
      name: 'mixed _id types',
      snapshot: snapshotOf([coll('mixed', ids({ types: { objectId: 150, string: 50 } }))]),
      expect: [{ messageId: 'mixedTypes', severity: 'warn', messageIncludes: 'objectId 75%' }],
    },
    { name: 'clustered on random UUIDs', snapshot: snapshotOf([coll('sessions', ids(uuid4), { clustered: true })]), expect: [{ messageId: 'clusteredOnRandom', severity: 'warn' }] },
    {
      // MongoDB keys a clustered collection's records by _id: a $natural scan returns _ids sorted, whatever the
      // insertion order. The leading bytes still tell random UUIDs.
      name: 'clustered on random UUIDs, read in natural order as MongoDB returns it (_id order)',
      snapshot: snapshotOf([coll('sessions', ids({ ...uuid4, naturalOrderRanks: inOrder }), { clustered: true })]),
      expect: [{ messageId: 'clusteredOnRandom', severity: 'warn' }],
    },
    {
      name: 'large string _id: advise against clustering',
      snapshot: snapshotOf([coll('docs', ids({ types: { string: N }, sizeBytes: { p50: 45, max: 50, mean: 45 } }))]),
      expect: [{ messageId: 'adviseAgainstClustered', messageIncludes: 'large (over 16 bytes): keep this a regular collection — clustered on such keys, every secondary index entry' }],
    },
    {
      name: 'a correlation between the two lines',
      snapshot: snapshotOf([coll('half', ids({ naturalOrderRanks: inOrder.map((i) => (i % 4 === 0 ? N - 1 - i : i)), leadingByteEntropy: [0, 0, 0, 0] }))]),
      expect: [{ messageId: 'orderUnknown', messageIncludes: 'between random' }],
    },
  ],
});

describe('id-pattern details', () => {
  it('estimates the secondary index penalty from the real index sizes: (idSize - 8) bytes per entry', () => {
    const [f] = runRule(rule, snapshotOf([coll('sessions', ids(uuid4))]));
    // 1,000 documents x 1 secondary index x (16 - 8) bytes
    expect(f?.evidence.secondaryIndexExtraBytes).toBe(8000);
    expect(f?.evidence.secondaryIndexBytes).toBe(30_000);
  });

  it('uses the analyzeShardKey line (0.7) as an option', () => {
    const weak = inOrder.map((i) => (i % 2 === 0 ? i : N - i));
    const strict = runRule(rule, snapshotOf([coll('e', ids({ naturalOrderRanks: weak }))]), { monotonicThreshold: 0.99 });
    expect(strict.some((f) => f.messageId === 'recommendClustered')).toBe(false);
  });

  it('generates UUIDs of the right version', () => {
    expect(uuid4Hex()[12]).toBe('4');
    const a = uuid7Hex(1_700_000_000_000, 1);
    const b = uuid7Hex(1_700_000_000_001, 0);
    expect(a[12]).toBe('7');
    expect(a < b).toBe(true);
  });

  it('does not call unmeasured index sizes "no secondary indexes": a server that reports 0 bytes leaves the share unknown', () => {
    const unmeasured = coll('events', ids({}), { indexes: [{ name: '_id_', key: { _id: 1 }, sizeBytes: 0, accesses: null }, { name: 'type_1', key: { type: 1 }, sizeBytes: 0, accesses: null }] });
    const [f] = runRule(rule, snapshotOf([unmeasured]));
    expect(f?.message).toContain('1 secondary index today; the server reported no size for them, so the share is unknown');
    expect(f?.evidence.secondaryIndexBytes).toBeNull();
    const none = coll('events', ids({}), { indexes: [{ name: '_id_', key: { _id: 1 }, sizeBytes: 4096, accesses: null }] });
    expect(runRule(rule, snapshotOf([none]))[0]?.message).toContain('(no secondary indexes today)');
    const [against] = runRule(rule, snapshotOf([coll('sessions', ids(uuid4), { indexes: [{ name: '_id_', key: { _id: 1 }, sizeBytes: 4096, accesses: null }] })]));
    expect(against?.message).toContain('would grow by 8 bytes (none here today: the collection has no secondary index)');
  });
});

describe('id-pattern experiment batches', () => {
  it('fills a batch with the copied documents in turn, up to the count and the byte limit', () => {
    expect(planInsertBatch([100, 100, 100], 5, 10_000)).toEqual({ picks: [0, 1, 2, 0, 1], bytes: 500, tooLarge: 0 });
    expect(planInsertBatch([100, 300, 40, 100], 500, 450)).toEqual({ picks: [0, 1, 2], bytes: 440, tooLarge: 0 });
  });

  it('leaves out documents over the limit, and takes the smallest alone when every one is', () => {
    expect(planInsertBatch([3_000_000, 20_000, 20_000], 500, 50_000)).toEqual({ picks: [1, 2], bytes: 40_000, tooLarge: 1 });
    expect(planInsertBatch([5_000_000, 3_000_000], 500, 1_000_000)).toEqual({ picks: [1], bytes: 3_000_000, tooLarge: 2 });
    expect(planInsertBatch([], 500, 1000)).toEqual({ picks: [], bytes: 0, tooLarge: 0 });
  });
});
