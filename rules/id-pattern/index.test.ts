import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { IdProfile, IndexSnapshot } from '../../src/core/types';
import { collectionOf, ran, sampleOf, snapshotOf, unsupported, withData, withServer } from '../../test/support/fixtures';
import { ruleTester, snapshotProblems } from '../../test/support/rule-tester';
import { type NaturalOrder, naturalOrder, naturalOrderRanks } from './collect';
import { planInsertBatch, uuid4Hex, uuid7Hex } from './confirm';
import rule from './index';

const N = 200;
const inOrder = Array.from({ length: N }, (_, i) => i);
// a fixed shuffle (random order with respect to insertion)
const shuffled = inOrder.map((i) => (i * 7919) % N);

function ids(over: Partial<IdProfile>): IdProfile {
  return { types: { objectId: N }, uuidVersions: {}, sizeBytes: { p50: 12, max: 12, mean: 12 }, leadingByteEntropy: [0, 0.5, 3.2, 6.9], ...over };
}

const uuid4: Partial<IdProfile> = { types: { uuid: N }, uuidVersions: { '4': N }, sizeBytes: { p50: 21, max: 21, mean: 21 }, leadingByteEntropy: [7.4, 7.4, 7.5, 7.4] };
const scan = (ranks: number[]): NaturalOrder => ({ ranks, source: 'natural-scan' });

/**
 * A sampled collection with a secondary index. `natural`: what the rule's collector read, the _ids' ranks in natural
 * order (in order by default; undefined: nothing stored, as on a clustered collection, which it does not read).
 */
function coll(name: string, id: IdProfile, over: Parameters<typeof collectionOf>[1] = {}, natural: NaturalOrder | undefined = scan(inOrder)) {
  const c = collectionOf(name, {
    sample: sampleOf([{ bytes: 100, createdAt: null, measuredOnServer: false, arrays: [], largestFields: [] }], { requested: N, size: N, id }),
    indexes: [
      { name: '_id_', key: { _id: 1 }, sizeBytes: 40_000 },
      { name: 'userId_1', key: { userId: 1 }, sizeBytes: 30_000 },
    ],
    ...over,
  });
  return natural ? withData(c, naturalOrder, natural) : c;
}

const onId = (collection: string) => ({ db: 'app', collection, path: '_id' });
const clusteredCopy = (name: string) => ({ action: 'clustered collection (when you next create it)', commands: [`db.createCollection("${name}_clustered", { clusteredIndex: { key: { _id: 1 }, unique: true } })`] });
const sizeOnly = (bytes: number): IndexSnapshot[] => [
  { name: '_id_', key: { _id: 1 }, sizeBytes: bytes },
  { name: 'type_1', key: { type: 1 }, sizeBytes: bytes },
];
// every other _id out of place: rho 0.5 (> 0.3, < 0.99)
const weak = inOrder.map((i) => (i % 2 === 0 ? i : N - i));

const noSecondary: IndexSnapshot[] = [{ name: '_id_', key: { _id: 1 }, sizeBytes: 4096 }];

ruleTester(rule, {
  valid: [
    { name: 'capped collection with monotonic _id: no clustered advice', snapshot: snapshotOf([coll('log', ids({}), { capped: true })]) },
    // the collector does not read a clustered collection's natural order: nothing stored
    { name: 'already clustered on ObjectId', snapshot: snapshotOf([coll('events', ids({}), { clustered: true }, undefined)]) },
    { name: 'nothing sampled', snapshot: snapshotOf([collectionOf('empty')]) },
    { name: 'too few _ids to judge their order: nothing to say', snapshot: snapshotOf([coll('tiny', ids({ leadingByteEntropy: [0, 0, 0, 0] }), {}, scan([0, 1, 2]))]) },
    {
      name: 'server older than 5.3: no clustered suggestion',
      snapshot: withServer(snapshotOf([coll('events', ids({}))]), { version: '5.0.3', capabilities: { clusteredCollections: unsupported('server version 5.0.3 is older than 5.3') } }),
    },
    {
      name: 'a snapshot taken with the rule off: not checked, and said so (never a silent pass)',
      snapshot: ran(snapshotOf([coll('sessions', ids(uuid4), {}, scan(shuffled))])),
      notes: [{ includes: ['id-pattern: not checked', 'collector id-pattern', 'was not collected'] }],
    },
  ],
  invalid: [
    {
      name: 'UUID v4 _id: advise against clustering',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), {}, scan(shuffled))]),
      findings: [
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('sessions'),
          message:
            '`_id` is UUID v4 (16 bytes) and random (ρ = -0.01, leading bytes 97% of maximal entropy): keep this a regular collection — clustered on such keys, inserts land all over the tree, and every secondary index entry would grow by 8 bytes (≈ 7.8 KB here).',
          // the secondary index penalty from the real index sizes: 1,000 documents x 1 secondary index x (16 - 8) bytes
          evidence: { secondaryIndexes: 1, secondaryIndexExtraBytes: 8000, secondaryIndexBytes: 30_000, order: 'random', idType: 'UUID v4', naturalOrderIds: N },
          recommendation: { action: 'regular collection', reasonIncludes: ['Random keys scatter inserts across a clustered tree', "Here: about 7.8 KB more in its 1 secondary index: 27% of today's 29.3 KB."] },
        },
      ],
    },
    {
      // the leading bytes alone tell random UUIDs; ρ is said to be unknown, never made up
      name: 'the natural-order read failed: a random _id is still told by its leading bytes',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), {}, { ranks: [], source: 'none' })]),
      findings: [
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('sessions'),
          data: { label: 'UUID v4', bytes: 16, rho: 'n/a', entropyPercent: 97, perEntry: 8, penalty: '7.8 KB' },
          evidence: { monotonicity: null, naturalOrderIds: null, order: 'random' },
          recommendation: { action: 'regular collection' },
        },
      ],
    },
    {
      name: 'the natural-order read failed and the leading bytes do not tell: said so',
      snapshot: snapshotOf([coll('events', ids({}), {}, { ranks: [], source: 'none' })]),
      findings: [{ messageId: 'orderUnread', severity: 'info', target: onId('events'), message: '`_id` order could not be judged: the natural-order read failed.', evidence: { monotonicity: null, order: 'unknown' }, recommendation: null }],
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
          message: '`_id` is ObjectId (12 bytes), monotonic (ρ = 1.00): a clustered collection would store documents in `_id` order, one tree instead of two. Secondary indexes here: about 3.9 KB more in its 1 secondary index: 13% of today\'s 29.3 KB.',
          evidence: { monotonicity: 1, naturalOrderIds: N, order: 'monotonic', secondaryIndexes: 1, secondaryIndexExtraBytes: 4000, secondaryIndexBytes: 30_000, clusteredSupport: 'fixture' },
          recommendation: { ...clusteredCopy('events'), reasonIncludes: 'the figure for this collection is in the finding' },
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
      snapshot: snapshotOf([coll('sessions', ids(uuid4), { clustered: true }, undefined)]),
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
      // insertion order. Natural-order ranks stored for a clustered collection are not read; the leading bytes still
      // tell random UUIDs.
      name: 'clustered on random UUIDs, with natural-order ranks as MongoDB returns them (_id order): not read',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), { clustered: true }, scan(inOrder))]),
      findings: [{ messageId: 'clusteredOnRandom', severity: 'warn', target: onId('sessions'), data: { label: 'UUID v4' }, evidence: { monotonicity: null, naturalOrderIds: null, order: 'random' } }],
    },
    {
      name: 'large string _id: advise against clustering',
      snapshot: snapshotOf([coll('docs', ids({ types: { string: N }, sizeBytes: { p50: 45, max: 50, mean: 45 } }))]),
      findings: [
        {
          messageId: 'adviseAgainstClusteredLarge',
          severity: 'info',
          target: onId('docs'),
          // a large but monotonic key: no claim that inserts scatter
          message: '`_id` is string (40 bytes) and large (over 16 bytes): keep this a regular collection — clustered on such keys, every secondary index entry would grow by 32 bytes (≈ 31.3 KB here).',
          recommendation: {
            action: 'regular collection',
            reason: "Every secondary index entry of a clustered collection holds the _id (40 bytes) instead of an 8-byte recordId. Here: about 31.3 KB more in its 1 secondary index: 107% of today's 29.3 KB.",
          },
        },
      ],
    },
    {
      name: 'the smallIdBytes line is an option',
      snapshot: snapshotOf([coll('events', ids({}))]),
      options: { smallIdBytes: 10 },
      findings: [{ messageId: 'adviseAgainstClusteredLarge', severity: 'info', target: onId('events'), data: { label: 'ObjectId', bytes: 12, smallIdBytes: 10, perEntry: 4, penalty: '3.9 KB' }, recommendation: { action: 'regular collection' } }],
    },
    {
      name: 'a correlation between the two lines',
      snapshot: snapshotOf([coll('half', ids({ leadingByteEntropy: [0, 0, 0, 0] }), {}, scan(inOrder.map((i) => (i % 4 === 0 ? N - 1 - i : i))))]),
      findings: [
        {
          messageId: 'orderUnknown',
          severity: 'info',
          target: onId('half'),
          message: '`_id` order could not be judged: the correlation with insertion order is 0.50, between random (< 0.3) and monotonic (≥ 0.7).',
          evidence: { monotonicity: 0.5, naturalOrderIds: N, order: 'unclear' },
          recommendation: null,
        },
      ],
    },
    {
      name: 'the analyzeShardKey line (0.7) is an option: at 0.99 a weaker order is not monotonic',
      snapshot: snapshotOf([coll('e', ids({}), {}, scan(weak))]),
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
          messageIncludes: 'Secondary indexes here: about 3.9 KB more in its 1 secondary index; the server reported no size for them, so the share is unknown.',
          evidence: { secondaryIndexes: 1, secondaryIndexBytes: null },
          recommendation: { ...clusteredCopy('events'), reasonIncludes: 'the figure for this collection is in the finding' },
        },
      ],
    },
    {
      name: 'no secondary index: said so',
      snapshot: snapshotOf([coll('events', ids({}), { indexes: noSecondary })]),
      findings: [
        {
          messageId: 'recommendClustered',
          severity: 'info',
          target: onId('events'),
          messageIncludes: 'Secondary indexes here: the collection has no secondary index today, so none would grow.',
          evidence: { secondaryIndexes: 0 },
          recommendation: { ...clusteredCopy('events'), reasonIncludes: 'the figure for this collection is in the finding' },
        },
      ],
    },
    {
      name: 'random _id and no secondary index: nothing would grow here today',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), { indexes: noSecondary }, scan(shuffled))]),
      findings: [
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('sessions'),
          messageIncludes: 'would grow by 8 bytes (≈ 0 B here)',
          recommendation: { action: 'regular collection', reasonIncludes: 'Here: the collection has no secondary index today, so none would grow.' },
        },
      ],
    },
  ],
});

describe('id-pattern natural order', () => {
  it('ranks _ids in MongoDB sort order, position by position', () => {
    expect(naturalOrderRanks([3, 1, 2])).toEqual([2, 0, 1]);
    // numbers sort before strings, strings before ObjectIds, whatever the order read
    expect(naturalOrderRanks(['a', new ObjectId('000000000000000000000001'), 7])).toEqual([1, 2, 0]);
    const oids = Array.from({ length: 5 }, (_, i) => new ObjectId((1_700_000_000 + i).toString(16).padStart(8, '0') + '0'.repeat(16)));
    expect(naturalOrderRanks(oids)).toEqual([0, 1, 2, 3, 4]);
    expect(naturalOrderRanks([...oids].reverse())).toEqual([4, 3, 2, 1, 0]);
  });

  it('keeps ranks, never values: its schema refuses anything but whole numbers', () => {
    const holding = (data: unknown) => snapshotProblems(snapshotOf([withData(coll('events', ids({}), {}, undefined), naturalOrder, data as NaturalOrder)]), [naturalOrder]).join('\n');
    expect(holding(scan([1, 0, 2]))).toBe('');
    expect(holding({ ranks: ['64b0c0ffee00000000000001'], source: 'natural-scan' })).toMatch(/ranks/);
    expect(holding({ ranks: [0.5], source: 'natural-scan' })).toMatch(/ranks/);
    expect(holding({ ranks: [0], source: 'natural-scan', ids: ['x'] })).not.toBe('');
  });
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
