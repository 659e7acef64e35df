import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { CollectionStats, IndexSnapshot } from '../../src/core/types';
import {
  collectionOf,
  ran,
  sampleOf,
  snapshotOf,
  unsupported,
  withData,
  withServer,
} from '../../test/support/fixtures';
import { formatBytes as B } from '../../src/core/format';
import { ruleTester, runRule, snapshotProblems } from '../../test/support/rule-tester';
import { idProfile, type NaturalOrder, naturalOrder, naturalOrderRanks } from './collect';
import type { IdProfile } from './id-profile';
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
    uuidStrings: 0,
    sizeBytes: { p50: 12, max: 12, mean: 12 },
    leadingByteEntropy: [0, 0.5, 3.2, 6.9],
    ...over,
  };
}

const uuid4: Partial<IdProfile> = {
  types: { uuid: N },
  uuidVersions: { '4': N },
  sizeBytes: { p50: 21, max: 21, mean: 21 },
  leadingByteEntropy: [7.4, 7.4, 7.5, 7.4],
};
// v4 strings as profileIds leaves them: entropy of the decoded bytes
const uuid4String: Partial<IdProfile> = {
  types: { string: N },
  uuidVersions: { '4': N },
  uuidStrings: N,
  sizeBytes: { p50: 41, max: 41, mean: 41 },
  leadingByteEntropy: [7.4, 7.4, 7.5, 7.4],
};
const uuid7: Partial<IdProfile> = {
  types: { uuid: N },
  uuidVersions: { '7': N },
  sizeBytes: { p50: 21, max: 21, mean: 21 },
  leadingByteEntropy: [0, 0.9, 5.1, 7.3],
};
const dates: Partial<IdProfile> = {
  types: { date: N },
  sizeBytes: { p50: 8, max: 8, mean: 8 },
  leadingByteEntropy: [0, 0, 0.4, 3.1],
};
const ints: Partial<IdProfile> = {
  types: { int: N },
  sizeBytes: { p50: 4, max: 4, mean: 4 },
  leadingByteEntropy: [0, 0, 0, 0],
};
const scan = (ranks: number[]): NaturalOrder => ({ ranks, source: 'natural-scan' });

/** 200,000 documents, 200,000,000 bytes (190.7 MB): over the 100 MB clustering line. */
const LARGE: CollectionStats = {
  count: 200_000,
  sizeBytes: 200_000_000,
  avgObjSize: 1000,
  storageSizeBytes: 80_000_000,
  totalIndexSizeBytes: 14_000_000,
  nindexes: 3,
  blockCompressor: 'snappy',
};
const large = { stats: LARGE };
const idIndex: IndexSnapshot = { name: '_id_', key: { _id: 1 }, sizeBytes: 6_000_000 };
const userIdx: IndexSnapshot = { name: 'userId_1', key: { userId: 1 }, sizeBytes: 4_000_000 };
const createdIdx: IndexSnapshot = { name: 'createdAt_1', key: { createdAt: 1 }, sizeBytes: 4_000_000 };
const createdField = { createdAt: { present: N, types: { date: N } } };

/**
 * A sampled collection with a secondary index. `natural`: what the rule's collector read, the _ids' ranks in natural
 * order (in order by default; undefined: nothing stored, as on a clustered collection, which it does not read).
 * `timed`: plus an index on the sample's date field `createdAt` (time-ordered access).
 */
function coll(
  name: string,
  id: IdProfile,
  over: Parameters<typeof collectionOf>[1] = {},
  natural: NaturalOrder | undefined = scan(inOrder),
  timed = false,
) {
  const c = collectionOf(name, {
    sample: sampleOf([{ bytes: 100, createdAt: null, measuredOnServer: false, arrays: [], largestFields: [] }], {
      requested: N,
      size: N,
      fields: timed ? createdField : {},
    }),
    indexes: timed ? [idIndex, userIdx, createdIdx] : [idIndex, userIdx],
    ...over,
  });
  const profiled = withData(c, idProfile, id);
  return natural ? withData(profiled, naturalOrder, natural) : profiled;
}

const onId = (collection: string) => ({ db: 'app', collection, path: '_id' });
const clusteredCopy = (name: string) => ({
  action: 'clustered collection (when you next create it)',
  commands: [
    `db.getSiblingDB("app").createCollection("${name}_clustered", ` +
      '{ clusteredIndex: { key: { _id: 1 }, unique: true } })',
  ],
});
const sizeOnly = (bytes: number): IndexSnapshot[] => [
  { name: '_id_', key: { _id: 1 }, sizeBytes: bytes },
  { name: 'createdAt_1', key: { createdAt: 1 }, sizeBytes: bytes },
];
// every other _id out of place: rho 0.5 (> 0.3, < 0.99)
const weak = inOrder.map((i) => (i % 2 === 0 ? i : N - i));

const noSecondary: IndexSnapshot[] = [{ name: '_id_', key: { _id: 1 }, sizeBytes: 4096 }];
const small200 = { stats: { ...LARGE, count: 200, sizeBytes: 200_000 } };

ruleTester(rule, {
  valid: [
    {
      name: 'capped collection with monotonic _id: no clustered advice',
      snapshot: snapshotOf([coll('log', ids({}), { ...large, capped: true }, scan(inOrder), true)]),
    },
    // the collector does not read a clustered collection's natural order: nothing stored
    {
      name: 'already clustered on ObjectId',
      snapshot: snapshotOf([coll('events', ids({}), { ...large, clustered: true }, undefined, true)]),
    },
    { name: 'nothing sampled', snapshot: snapshotOf([collectionOf('empty')]) },
    {
      name: 'too few _ids to judge their order: nothing to say',
      snapshot: snapshotOf([coll('tiny', ids({ leadingByteEntropy: [0, 0, 0, 0] }), large, scan([0, 1, 2]))]),
    },
    {
      name: 'server older than 5.3: no clustered suggestion',
      snapshot: withServer(snapshotOf([coll('events', ids({}), large, scan(inOrder), true)]), {
        version: '5.0.3',
        capabilities: { clusteredCollections: unsupported('server version 5.0.3 is older than 5.3') },
      }),
    },
    {
      name: 'a snapshot taken with the rule off: not checked, and said so (never a silent pass)',
      snapshot: ran(snapshotOf([coll('sessions', ids(uuid4), {}, scan(shuffled))])),
      notes: [{ includes: ['id-pattern: not checked', 'collector id-pattern', 'was not collected'] }],
    },
    // the public sample datasets: ObjectId _ids on a few hundred to 20,000 documents — clustering cannot pay there
    {
      name: 'ObjectId on 200 documents, even with a time index: no clustered advice (under the 100 MB line)',
      snapshot: snapshotOf([coll('theaters', ids({}), small200, scan(inOrder), true)]),
    },
    {
      name: 'random UUID v4 on a small collection: no clustered advice, for or against',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), {}, scan(shuffled))]),
    },
    {
      name: 'no size read (collStats refused): no clustered advice',
      snapshot: snapshotOf([coll('events', ids({}), { stats: null }, scan(inOrder), true)]),
    },
    // no evidence that an _id range would be used (no TTL index, no index on a time field): no finding
    {
      name: 'ObjectId on 200 MB without time-ordered access: no clustered advice',
      snapshot: snapshotOf([coll('events', ids({}), large)]),
    },
    // an increasing integer carries no time: a time index is no evidence of _id ranges, and nothing else can be read
    {
      name: 'increasing 32-bit integer _id on 200 MB with a time index: no clustered advice',
      snapshot: snapshotOf([coll('orders', ids(ints), large, scan(inOrder), true)]),
    },
    // a "v4" whose leading bytes are not random (a sequential GUID with the version digit set) is not called random
    {
      name: 'UUID v4 with ordered leading bytes: not judged random',
      snapshot: snapshotOf([
        coll('guids', ids({ ...uuid4, leadingByteEntropy: [0, 0.2, 1, 4] }), large, scan(inOrder)),
      ]),
    },
  ],
  invalid: [
    {
      name: 'UUID v4 _id on 200 MB: advise against clustering, judged by its version and bytes',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), large, scan(shuffled))]),
      findings: [
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('sessions'),
          message:
            '`_id` is UUID v4 (16 bytes) and random (version 4, leading bytes 97% of maximal entropy): ' +
            'clustered on such keys, inserts land all over the tree, and every secondary index entry would ' +
            'grow by 8 bytes (≈ ' +
            B(1_600_000) +
            ' here).',
          // the secondary index penalty from the real index sizes: 200,000 documents x 1 secondary index x (16 - 8)
          // bytes
          evidence: {
            secondaryIndexes: 1,
            secondaryIndexExtraBytes: 1_600_000,
            secondaryIndexBytes: 4_000_000,
            order: 'random',
            orderBasis: 'uuid-version',
            uuidVersion: 4,
            idType: 'UUID v4',
            naturalOrderIds: N,
          },
          recommendation: {
            action: 'keep this a regular collection',
            reasonIncludes: [
              'a published benchmark on MongoDB 6.0.5 (20M documents inserted 1,000 per insert_many)',
              'Here: about ' + B(1_600_000) + " more in its 1 secondary index: 40% of today's " + B(4_000_000) + '.',
            ],
          },
        },
      ],
    },
    {
      // The old flake: 20-50 sampled random _ids sometimes correlate with insertion order. The version decides.
      name: 'UUID v4 whose sampled _ids happen to follow insertion order (ρ = 1): still random',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), large, scan(inOrder))]),
      findings: [
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('sessions'),
          messageIncludes: 'and random (version 4, leading bytes 97% of maximal entropy)',
          evidence: { monotonicity: 1, order: 'random', orderBasis: 'uuid-version' },
          recommendation: { action: 'keep this a regular collection' },
        },
      ],
    },
    {
      name: 'the natural-order read failed: a random _id is still told by its version and bytes',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), large, { ranks: [], source: 'none' })]),
      findings: [
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('sessions'),
          data: {
            label: 'UUID v4',
            bytes: 16,
            order: 'version 4, leading bytes 97% of maximal entropy',
            perEntry: 8,
            penalty: B(1_600_000),
          },
          evidence: { monotonicity: null, naturalOrderIds: null, order: 'random' },
          recommendation: { action: 'keep this a regular collection' },
        },
      ],
    },
    {
      name: 'the natural-order read failed and the leading bytes do not tell: said so',
      snapshot: snapshotOf([coll('events', ids({}), large, { ranks: [], source: 'none' })]),
      findings: [
        {
          messageId: 'orderUnread',
          severity: 'info',
          target: onId('events'),
          message: '`_id` order could not be judged: the natural-order read failed.',
          evidence: { monotonicity: null, order: 'unknown' },
          recommendation: null,
        },
      ],
    },
    {
      name: 'monotonic ObjectId on 200 MB with an index on its time field: recommend clustering (info), nothing else',
      snapshot: snapshotOf([coll('events', ids({}), large, scan(inOrder), true)]),
      findings: [
        {
          messageId: 'recommendClustered',
          severity: 'info',
          target: onId('events'),
          message:
            '`_id` is ObjectId (12 bytes), monotonic (ρ = 1.00 against insertion order), on ' +
            B(200_000_000) +
            (' of data, and index `createdAt_1` reads by the date `createdAt` while the `_id` itself is ' +
              'time-ordered: a clustered collection would keep documents in `_id` order, one tree instead of ' +
              'two, and time ranges could read `_id` ranges. Secondary indexes here: about ') +
            B(1_600_000) +
            " more in its 2 secondary indexes: 20% of today's " +
            B(8_000_000) +
            '.',
          evidence: {
            monotonicity: 1,
            naturalOrderIds: N,
            order: 'monotonic',
            orderBasis: 'natural-order',
            secondaryIndexes: 2,
            secondaryIndexExtraBytes: 1_600_000,
            secondaryIndexBytes: 8_000_000,
            clusteredSupport: 'fixture',
            timeIndex: 'createdAt_1',
            ttlIndex: false,
          },
          recommendation: {
            ...clusteredCopy('events'),
            reasonIncludes: [
              "this collection's figure is in the finding",
              'The MongoDB manual: a clustered collection stores documents in `_id` order',
            ],
          },
        },
      ],
    },
    {
      // v7 leads with a millisecond timestamp: time-ordered by its version, even when bulk-imported out of order
      name: 'UUID v7 on 200 MB with a time index: monotonic by its version, whatever the natural order',
      snapshot: snapshotOf([coll('events7', ids(uuid7), large, scan(shuffled), true)]),
      findings: [
        {
          messageId: 'recommendClustered',
          severity: 'info',
          target: onId('events7'),
          messageIncludes: [
            '`_id` is UUID v7 (16 bytes), monotonic (version 7, leading bytes 0% of maximal entropy)',
            'Secondary indexes here: about ' + B(3_200_000) + ' more in its 2 secondary indexes: 40%',
          ],
          evidence: { order: 'monotonic', orderBasis: 'uuid-version', uuidVersion: 7 },
          recommendation: clusteredCopy('events7'),
        },
      ],
    },
    {
      // a date _id (8 bytes): no index-growth claim; a TTL index on such a collection is replaced by the clustered TTL
      name: 'date _id with a TTL index: recommend clustering, and no index growth claimed for an 8-byte key',
      snapshot: snapshotOf([
        coll(
          'metrics',
          ids(dates),
          { ...large, indexes: [idIndex, { ...createdIdx, expireAfterSeconds: 86_400 }] },
          scan(inOrder),
          true,
        ),
      ]),
      findings: [
        {
          messageId: 'recommendClusteredNoGrowth',
          severity: 'info',
          target: onId('metrics'),
          message:
            '`_id` is date (8 bytes), monotonic (ρ = 1.00 against insertion order), on ' +
            B(200_000_000) +
            (' of data, and index `createdAt_1` reads by the date `createdAt` while the `_id` itself is ' +
              'time-ordered: a clustered collection would keep documents in `_id` order, one tree instead of ' +
              'two, and time ranges could read `_id` ranges. Its secondary index entries would hold this ' +
              '8-byte `_id` in place of the 8-byte recordId, so they would not grow.'),
          evidence: { secondaryIndexExtraBytes: 0, timeIndex: 'createdAt_1', ttlIndex: true },
          recommendation: {
            ...clusteredCopy('metrics'),
            reasonIncludes:
              '`createdAt_1` is a TTL index: a clustered collection created with expireAfterSeconds expires ' +
              'documents by their date `_id` and replaces it.',
          },
        },
      ],
    },
    {
      name: 'random UUID v4 strings: judged random on their bytes, and the binary form with the bytes saved',
      snapshot: snapshotOf([coll('accounts', ids(uuid4String), {}, scan(inOrder))]),
      findings: [
        {
          messageId: 'uuidAsString',
          severity: 'info',
          target: onId('accounts'),
          // 1,000 documents x (41 - 21) bytes; the _id index only: userId_1 holds the recordId, not the _id
          message:
            '`_id` holds UUID v4 values as 36-character strings. Stored as binary UUIDs (subtype 4) each ' +
            'value takes 21 bytes instead of 41: about ' +
            B(20_000) +
            ' less across 1,000 documents, and 20 less per key in 1,000 index entries (`_id_`): about ' +
            B(20_000) +
            '.',
          evidence: {
            order: 'random',
            orderBasis: 'uuid-version',
            uuidAsString: true,
            uuidVersion: 4,
            idType: 'UUID v4 string',
            indexesHoldingId: 1,
            documentBytesSaved: 20_000,
            indexBytesSaved: 20_000,
          },
          recommendation: {
            action: 'binary UUID _id (subtype 4)',
            reasonIncludes: [
              'other secondary indexes hold the 8-byte recordId and do not change',
              'from MongoDB 8.0, $toUUID converts',
              'a string never matches its binary UUID',
            ],
            commands: [
              'db.getSiblingDB("app").getCollection("accounts").aggregate([{ $set: { _id: { $toUUID: "$_id" } }' +
                ' }, { $out: ' +
                '"accounts_binary" }])',
            ],
          },
        },
      ],
    },
    {
      name:
        'UUID v4 strings on 200 MB with an index naming _id: the saving counts it, and clustering is advised ' +
        'against',
      snapshot: snapshotOf([
        coll(
          'accounts',
          ids(uuid4String),
          {
            ...large,
            indexes: [idIndex, userIdx, { name: 'userId_1__id_1', key: { userId: 1, _id: 1 }, sizeBytes: 9_000_000 }],
          },
          scan(shuffled),
        ),
      ]),
      findings: [
        {
          messageId: 'uuidAsString',
          severity: 'info',
          target: onId('accounts'),
          data: {
            label: 'UUID v4',
            documents: '200,000',
            documentBytes: B(4_000_000),
            indexEntries: '400,000',
            indexes: '`_id_`, `userId_1__id_1`',
            indexBytes: B(8_000_000),
            keyBytes: 20,
            stringBytes: 41,
            binaryBytes: 21,
          },
          recommendation: { action: 'binary UUID _id (subtype 4)' },
        },
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('accounts'),
          // 200,000 x 2 secondary indexes x (36 - 8) bytes
          messageIncludes:
            '`_id` is UUID v4 string (36 bytes) and random (version 4, leading bytes 97% of maximal ' +
            'entropy): clustered on such keys, inserts land all over the tree, and every secondary index ' +
            'entry would grow by 28 bytes (≈ ' +
            B(11_200_000) +
            ' here).',
          recommendation: { action: 'keep this a regular collection' },
        },
      ],
    },
    {
      name: 'UUID v4 strings without a document count: the per-value saving only',
      snapshot: snapshotOf([coll('accounts', ids(uuid4String), { stats: null }, scan(inOrder))]),
      findings: [
        {
          messageId: 'uuidAsStringUncounted',
          severity: 'info',
          target: onId('accounts'),
          message:
            '`_id` holds UUID v4 values as 36-character strings. Stored as binary UUIDs (subtype 4) each ' +
            'value takes 21 bytes instead of 41, and each key in `_id_` 20 bytes less; the document count ' +
            'could not be read, so no total is given.',
          recommendation: { action: 'binary UUID _id (subtype 4)' },
        },
      ],
    },
    {
      name: 'mixed _id types: one finding, no clustered advice even where it would otherwise be given',
      snapshot: snapshotOf([coll('mixed', ids({ types: { objectId: 150, string: 50 } }), large, scan(inOrder), true)]),
      findings: [
        {
          messageId: 'mixedTypes',
          severity: 'warn',
          target: onId('mixed'),
          message:
            '`_id` mixes types: ObjectId 75%, string 25%. An equality match finds one type only (a UUID and ' +
            'its string never match) and ranges and sorts split by type: normalise `_id` when writing. No ' +
            'clustering advice until it is one type.',
          recommendation: { action: 'one _id type', commands: [] },
        },
      ],
    },
    {
      name: 'binary and string UUIDs mixed: one finding that names the UUID strings',
      snapshot: snapshotOf([
        coll(
          'mixed',
          ids({ types: { uuid: 100, string: 100 }, uuidVersions: { '4': 200 }, uuidStrings: 100 }),
          large,
          scan(shuffled),
        ),
      ]),
      findings: [
        {
          messageId: 'mixedTypes',
          severity: 'warn',
          target: onId('mixed'),
          data: { mix: 'UUID 50%, UUID string 50%' },
        },
      ],
    },
    {
      name: 'clustered on random UUIDs (any size)',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), { clustered: true }, undefined)]),
      findings: [
        {
          messageId: 'clusteredOnRandom',
          severity: 'warn',
          target: onId('sessions'),
          message:
            'This clustered collection has a random `_id` (UUID v4: version 4, leading bytes 97% of maximal ' +
            'entropy): inserts land all over the tree. Clustering is fixed at creation: plan a regular ' +
            'collection or a monotonic `_id` (ObjectId, UUID v7).',
          recommendation: null,
        },
      ],
    },
    {
      // MongoDB keys a clustered collection's records by _id: a $natural scan returns _ids sorted, whatever the
      // insertion order. Natural-order ranks stored for a clustered collection are not read; the version decides.
      name: 'clustered on random UUIDs, with natural-order ranks as MongoDB returns them (_id order): not read',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), { clustered: true }, scan(inOrder))]),
      findings: [
        {
          messageId: 'clusteredOnRandom',
          severity: 'warn',
          target: onId('sessions'),
          data: { label: 'UUID v4', order: 'version 4, leading bytes 97% of maximal entropy' },
          evidence: { monotonicity: null, naturalOrderIds: null, order: 'random', orderBasis: 'uuid-version' },
        },
      ],
    },
    {
      name: 'clustered on random UUID strings: the binary form, and the clustered warning; every index holds the _id',
      snapshot: snapshotOf([coll('sessions', ids(uuid4String), { clustered: true }, undefined)]),
      findings: [
        {
          messageId: 'uuidAsString',
          severity: 'info',
          target: onId('sessions'),
          messageIncludes: 'and 20 less per key in 2,000 index entries (`_id_`, `userId_1`): about ' + B(40_000) + '.',
          evidence: { indexesHoldingId: 2, indexBytesSaved: 40_000 },
          recommendation: { reasonIncludes: 'On this clustered collection every index entry holds the `_id`.' },
        },
        {
          messageId: 'clusteredOnRandom',
          severity: 'warn',
          target: onId('sessions'),
          messageIncludes: 'random `_id` (UUID v4 string: version 4, leading bytes 97% of maximal entropy)',
        },
      ],
    },
    {
      name: 'large string _id: advise against clustering',
      snapshot: snapshotOf([
        coll('docs', ids({ types: { string: N }, sizeBytes: { p50: 45, max: 50, mean: 45 } }), large),
      ]),
      findings: [
        {
          messageId: 'adviseAgainstClusteredLarge',
          severity: 'info',
          target: onId('docs'),
          // a large but monotonic key: no claim that inserts scatter
          message:
            '`_id` is string (40 bytes) and large (over 16 bytes): clustered on such keys, every secondary ' +
            'index entry would grow by 32 bytes (≈ ' +
            B(6_400_000) +
            ' here).',
          recommendation: {
            action: 'keep this a regular collection',
            reason:
              'Every secondary index entry of a clustered collection holds the _id (40 bytes) instead of an ' +
              '8-byte recordId. Here: about ' +
              B(6_400_000) +
              " more in its 1 secondary index: 160% of today's " +
              B(4_000_000) +
              '.',
          },
        },
      ],
    },
    {
      name: 'the smallIdBytes line is an option',
      snapshot: snapshotOf([coll('events', ids({}), large)]),
      options: { smallIdBytes: 10 },
      findings: [
        {
          messageId: 'adviseAgainstClusteredLarge',
          severity: 'info',
          target: onId('events'),
          data: { label: 'ObjectId', bytes: 12, smallIdBytes: 10, perEntry: 4, penalty: B(800_000) },
          recommendation: { action: 'keep this a regular collection' },
        },
      ],
    },
    {
      name: 'the clustering size line is an option: at 0, ObjectId on 200 documents with a time index gets the advice',
      snapshot: snapshotOf([coll('theaters', ids({}), small200, scan(inOrder), true)]),
      options: { clusterMinBytes: 0 },
      findings: [
        {
          messageId: 'recommendClustered',
          severity: 'info',
          target: onId('theaters'),
          messageIncludes: 'on ' + B(200_000) + ' of data',
          recommendation: clusteredCopy('theaters'),
        },
      ],
    },
    {
      name: 'a correlation between the two lines',
      snapshot: snapshotOf([
        coll(
          'half',
          ids({ leadingByteEntropy: [0, 0, 0, 0] }),
          large,
          scan(inOrder.map((i) => (i % 4 === 0 ? N - 1 - i : i))),
        ),
      ]),
      findings: [
        {
          messageId: 'orderUnknown',
          severity: 'info',
          target: onId('half'),
          message:
            '`_id` order could not be judged: the correlation with insertion order is 0.50, between random ' +
            '(< 0.3) and monotonic (≥ 0.7).',
          evidence: { monotonicity: 0.5, naturalOrderIds: N, order: 'unclear' },
          recommendation: null,
        },
      ],
    },
    {
      name: 'the analyzeShardKey line (0.7) is an option: at 0.99 a weaker order is not monotonic',
      snapshot: snapshotOf([coll('e', ids({}), large, scan(weak), true)]),
      options: { monotonicThreshold: 0.99 },
      findings: [
        {
          messageId: 'orderUnknown',
          severity: 'info',
          target: onId('e'),
          messageIncludes: 'between random (< 0.3) and monotonic (≥ 0.99)',
        },
      ],
    },
    {
      name:
        'unmeasured index sizes are not "no secondary indexes": a server that reports 0 bytes leaves the ' +
        'share unknown',
      snapshot: snapshotOf([coll('events', ids({}), { ...large, indexes: sizeOnly(0) }, scan(inOrder), true)]),
      findings: [
        {
          messageId: 'recommendClustered',
          severity: 'info',
          target: onId('events'),
          messageIncludes:
            'Secondary indexes here: about ' +
            B(800_000) +
            ' more in its 1 secondary index; the server reported no size for them, so the share is unknown.',
          evidence: { secondaryIndexes: 1, secondaryIndexBytes: null },
          recommendation: clusteredCopy('events'),
        },
      ],
    },
    {
      name: 'random _id and no secondary index: nothing would grow here today',
      snapshot: snapshotOf([coll('sessions', ids(uuid4), { ...large, indexes: noSecondary }, scan(shuffled))]),
      findings: [
        {
          messageId: 'adviseAgainstClustered',
          severity: 'info',
          target: onId('sessions'),
          messageIncludes: 'would grow by 8 bytes (≈ 0 B here)',
          recommendation: {
            action: 'keep this a regular collection',
            reasonIncludes: 'Here: the collection has no secondary index today, so none would grow.',
          },
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
    const oids = Array.from(
      { length: 5 },
      (_, i) => new ObjectId((1_700_000_000 + i).toString(16).padStart(8, '0') + '0'.repeat(16)),
    );
    expect(naturalOrderRanks(oids)).toEqual([0, 1, 2, 3, 4]);
    expect(naturalOrderRanks([...oids].reverse())).toEqual([4, 3, 2, 1, 0]);
  });

  it('keeps ranks, never values: its schema refuses anything but whole numbers', () => {
    const holding = (data: unknown) =>
      snapshotProblems(
        snapshotOf([withData(coll('events', ids({}), {}, undefined), naturalOrder, data as NaturalOrder)]),
        [naturalOrder],
      ).join('\n');
    expect(holding(scan([1, 0, 2]))).toBe('');
    expect(holding({ ranks: ['64b0c0ffee00000000000001'], source: 'natural-scan' })).toMatch(/ranks/);
    expect(holding({ ranks: [0.5], source: 'natural-scan' })).toMatch(/ranks/);
    expect(holding({ ranks: [0], source: 'natural-scan', ids: ['x'] })).not.toBe('');
  });
});

describe('id-pattern details', () => {
  it('copies into a collection the database does not hold: $out replaces one that exists', () => {
    const held = [collectionOf('accounts_binary'), collectionOf('accounts_binary_2')];
    const f = runRule(rule, snapshotOf([coll('accounts', ids(uuid4String), {}, scan(inOrder)), ...held])).find(
      (x) => x.messageId === 'uuidAsString',
    );
    expect(f?.recommendation?.commands?.[0]).toContain('{ $out: "accounts_binary_3" }');
  });

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
    expect(planInsertBatch([3_000_000, 20_000, 20_000], 500, 50_000)).toEqual({
      picks: [1, 2],
      bytes: 40_000,
      tooLarge: 1,
    });
    expect(planInsertBatch([5_000_000, 3_000_000], 500, 1_000_000)).toEqual({
      picks: [1],
      bytes: 3_000_000,
      tooLarge: 2,
    });
    expect(planInsertBatch([], 500, 1000)).toEqual({ picks: [], bytes: 0, tooLarge: 0 });
  });
});
