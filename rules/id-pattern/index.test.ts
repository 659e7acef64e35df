import { describe, expect, it } from 'vitest';
import type { IdProfile, IndexSnapshot } from '../../src/core/types';
import { collectionOf, sampleOf, snapshotOf, unsupported, withServer } from '../../test/support/fixtures';
import { ruleTester } from '../../test/support/rule-tester';
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
    sample: sampleOf([{ bytes: 100, createdAt: null, measuredOnServer: false, arrays: [], largestFields: [] }], { requested: N, size: N, id }),
    indexes: [
      { name: '_id_', key: { _id: 1 }, sizeBytes: 40_000, accesses: null },
      { name: 'userId_1', key: { userId: 1 }, sizeBytes: 30_000, accesses: null },
    ],
    ...over,
  });
}

const onId = (collection: string) => ({ db: 'app', collection, path: '_id' });
const clusteredCopy = (name: string) => ({ action: 'clustered collection (when you next create it)', commands: [`db.createCollection("${name}_clustered", { clusteredIndex: { key: { _id: 1 }, unique: true } })`] });
const sizeOnly = (bytes: number): IndexSnapshot[] => [
  { name: '_id_', key: { _id: 1 }, sizeBytes: bytes, accesses: null },
  { name: 'type_1', key: { type: 1 }, sizeBytes: bytes, accesses: null },
];
// every other _id out of place: rho 0.5 (> 0.3, < 0.99)
const weak = inOrder.map((i) => (i % 2 === 0 ? i : N - i));

ruleTester(rule, {
  valid: [
    { name: 'capped collection with monotonic _id: no clustered advice', snapshot: snapshotOf([coll('log', ids({}), { capped: true })]) },
    { name: 'already clustered on ObjectId', snapshot: snapshotOf([coll('events', ids({}), { clustered: true })]) },
    { name: 'nothing sampled', snapshot: snapshotOf([collectionOf('empty')]) },
    { name: 'too few _ids to judge their order: nothing to say', snapshot: snapshotOf([coll('tiny', ids({ naturalOrderRanks: [0, 1, 2], leadingByteEntropy: [0, 0, 0, 0] }))]) },
    {
      name: 'server older than 5.3: no clustered suggestion',
      snapshot: withServer(snapshotOf([coll('events', ids({}))]), { version: '5.0.3', capabilities: { clusteredCollections: unsupported('server version 5.0.3 is older than 5.3') } }),
    },
  ],
  invalid: [
    {
      name: 'UUID v4 _id: advise against clustering',
      snapshot: snapshotOf([coll('sessions', ids(uuid4))]),
      findings: [
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('sessions'),
          message:
            '`_id` is UUID v4 (16 bytes) and random (ρ = -0.01, leading bytes 97% of maximal entropy): keep this a regular collection — clustered on such keys, inserts land all over the tree, and every secondary index entry would grow by 8 bytes (≈ 7.8 KB here).',
          // the secondary index penalty from the real index sizes: 1,000 documents x 1 secondary index x (16 - 8) bytes
          evidence: { secondaryIndexExtraBytes: 8000, secondaryIndexBytes: 30_000, order: 'random', idType: 'UUID v4' },
          recommendation: { action: 'regular collection', reasonIncludes: 'Random keys scatter inserts across a clustered tree' },
        },
      ],
    },
    {
      // also: ObjectId _id on a regular collection gets only the clustered suggestion, an info line
      name: 'monotonic ObjectId on a regular collection: recommend clustering (info), nothing else',
      snapshot: snapshotOf([coll('events', ids({}))]),
      findings: [
        {
          messageId: 'recommendClustered',
          severity: 'info',
          target: onId('events'),
          message:
            "`_id` is ObjectId (12 bytes), monotonic (ρ = 1.00): a clustered collection would store documents in `_id` order, one tree instead of two. Secondary indexes would grow by about 3.9 KB (13% of today's 29.3 KB in 1 secondary index).",
          evidence: { monotonicity: 1, order: 'monotonic', secondaryIndexExtraBytes: 4000, secondaryIndexBytes: 30_000, clusteredSupport: 'fixture' },
          recommendation: clusteredCopy('events'),
        },
      ],
    },
    {
      name: 'mixed _id types',
      snapshot: snapshotOf([coll('mixed', ids({ types: { objectId: 150, string: 50 } }))]),
      findings: [
        {
          messageId: 'mixedTypes',
          severity: 'warn',
          target: onId('mixed'),
          message: '`_id` mixes types: objectId 75%, string 25%. Range scans and a clustered key need one type.',
          recommendation: { action: 'one _id type', commands: [] },
        },
        // the main type, ObjectId, is still judged on its own
        { messageId: 'recommendClustered', severity: 'info', target: onId('mixed'), messageIncludes: '`_id` is ObjectId (12 bytes), monotonic (ρ = 1.00)', recommendation: clusteredCopy('mixed') },
      ],
    },
    {
      name: 'clustered on random UUIDs',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), { clustered: true })]),
      findings: [
        {
          messageId: 'clusteredOnRandom',
          severity: 'warn',
          target: onId('sessions'),
          message: 'This clustered collection has a random `_id` (UUID v4): inserts land all over the tree. Clustering is fixed at creation: plan a regular collection or a monotonic `_id` (ObjectId, UUID v7).',
          recommendation: null,
        },
      ],
    },
    {
      // MongoDB keys a clustered collection's records by _id: a $natural scan returns _ids sorted, whatever the
      // insertion order. The leading bytes still tell random UUIDs.
      name: 'clustered on random UUIDs, read in natural order as MongoDB returns it (_id order)',
      snapshot: snapshotOf([coll('sessions', ids({ ...uuid4, naturalOrderRanks: inOrder }), { clustered: true })]),
      findings: [{ messageId: 'clusteredOnRandom', severity: 'warn', target: onId('sessions'), data: { why: 'random', label: 'UUID v4' }, evidence: { monotonicity: null, order: 'random' } }],
    },
    {
      name: 'large string _id: advise against clustering',
      snapshot: snapshotOf([coll('docs', ids({ types: { string: N }, sizeBytes: { p50: 45, max: 50, mean: 45 } }))]),
      findings: [
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('docs'),
          // a large but monotonic key: no claim that inserts scatter
          message:
            '`_id` is string (40 bytes) and large (over 16 bytes): keep this a regular collection — clustered on such keys, every secondary index entry would grow by 32 bytes (≈ 31.3 KB here).',
          recommendation: { action: 'regular collection', reason: 'Every secondary index entry of a clustered collection holds the _id (40 bytes) instead of an 8-byte recordId.' },
        },
      ],
    },
    {
      name: 'a correlation between the two lines',
      snapshot: snapshotOf([coll('half', ids({ naturalOrderRanks: inOrder.map((i) => (i % 4 === 0 ? N - 1 - i : i)), leadingByteEntropy: [0, 0, 0, 0] }))]),
      findings: [
        {
          messageId: 'orderUnknown',
          severity: 'info',
          target: onId('half'),
          message: '`_id` order could not be judged: the correlation with insertion order is 0.50, between random (< 0.3) and monotonic (≥ 0.7).',
          recommendation: null,
        },
      ],
    },
    {
      name: "the analyzeShardKey line (0.7) is an option: at 0.99 a weaker order is not monotonic",
      snapshot: snapshotOf([coll('e', ids({ naturalOrderRanks: weak }))]),
      options: { monotonicThreshold: 0.99 },
      findings: [{ messageId: 'orderUnknown', severity: 'info', target: onId('e'), messageIncludes: 'between random (< 0.3) and monotonic (≥ 0.99)' }],
    },
    {
      name: 'unmeasured index sizes are not "no secondary indexes": a server that reports 0 bytes leaves the share unknown',
      snapshot: snapshotOf([coll('events', ids({}), { indexes: sizeOnly(0) })]),
      findings: [
        {
          messageId: 'recommendClustered',
          severity: 'info',
          target: onId('events'),
          messageIncludes: '1 secondary index today; the server reported no size for them, so the share is unknown',
          evidence: { secondaryIndexBytes: null },
          recommendation: clusteredCopy('events'),
        },
      ],
    },
    {
      name: 'no secondary index: said so',
      snapshot: snapshotOf([coll('events', ids({}), { indexes: [{ name: '_id_', key: { _id: 1 }, sizeBytes: 4096, accesses: null }] })]),
      findings: [{ messageId: 'recommendClustered', severity: 'info', target: onId('events'), messageIncludes: 'Secondary indexes would grow by about 0 B (no secondary indexes today).', recommendation: clusteredCopy('events') }],
    },
    {
      name: 'random _id and no secondary index: nothing would grow here today',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), { indexes: [{ name: '_id_', key: { _id: 1 }, sizeBytes: 4096, accesses: null }] })]),
      findings: [
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('sessions'),
          messageIncludes: 'would grow by 8 bytes (none here today: the collection has no secondary index)',
          recommendation: { action: 'regular collection' },
        },
      ],
    },
  ],
});

describe('id-pattern details', () => {
  it('generates UUIDs of the right version', () => {
    expect(uuid4Hex()[12]).toBe('4');
    const a = uuid7Hex(1_700_000_000_000, 1);
    const b = uuid7Hex(1_700_000_000_001, 0);
    expect(a[12]).toBe('7');
    expect(a < b).toBe(true);
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
