import type { CollectionSnapshot, IndexSnapshot } from '../../src/core/types';
import { makeRecord, opKindOf, type RecordFacts } from '../../src/workload/record';
import { collectionOf, snapshotOf, withData } from '../../test/support/fixtures';
import { ruleTester } from '../../test/support/rule-tester';
import { queryWorkload, workloadData } from '../../src/collect/workload';
import rule from './index';
import { fieldSelectivity, type FieldSelectivity } from './selectivity';

const ix = (name: string, key: Record<string, 1 | -1>): IndexSnapshot => ({ name, key, sizeBytes: 40_000 });
const ID = ix('_id_', { _id: 1 });

const BY_STATUS = { find: 'orders', filter: { status: 'paid', customerId: 7 }, sort: { createdAt: -1 }, limit: 20 };
const STATUS_SHAPE = 'db.orders.find({ customerId: ?number, status: ?string }).sort({ createdAt: -1 }).limit(?)';
// Equality fields tie without selectivity figures: by name (candidates.ts); the sort, then the ranges, follow.
const ESR_COMMAND =
  'db.getSiblingDB("app").getCollection("orders").createIndex({ customerId: 1, status: 1, createdAt: -1 }, {' +
  ' name: "customerId_1_status_1_createdAt_-1" })';

/** A snapshot of `app` whose workload collector read these commands, each run `calls` times with these facts. */
function snapshotWith(
  orders: IndexSnapshot[],
  commands: Record<string, unknown>[],
  facts: Partial<RecordFacts> = {},
  calls = 4,
  extra: CollectionSnapshot[] = [],
  selectivity?: FieldSelectivity,
) {
  const plain = collectionOf('orders', { indexes: orders });
  const colls = [selectivity ? withData(plain, fieldSelectivity, selectivity) : plain, ...extra];
  const records = commands.flatMap((command) =>
    Array.from({ length: calls }, () =>
      makeRecord(
        { source: 'log', ns: { db: 'app', coll: String(Object.values(command)[0]) }, op: opKindOf(command), ...facts },
        command,
      ),
    ),
  );
  const data = workloadData(records, 'app', colls, () => undefined);
  return snapshotOf(colls, { databases: [withData({ name: 'app', collections: colls }, queryWorkload, data)] });
}

const counts = { durationMillis: 120, keysExamined: 0, docsExamined: 10_000, nreturned: 20, planSummary: 'COLLSCAN' };

/** The (folded) shape id the collector gives a command's first shape. */
function idOf(command: Record<string, unknown>, coll = 'orders'): string {
  const colls = [collectionOf('orders'), collectionOf('customers')];
  const rec = makeRecord(
    { source: 'log', ns: { db: 'app', coll: String(Object.values(command)[0]) }, op: 'find' },
    command,
  );
  return (
    workloadData([rec], 'app', colls, () => undefined).collections.find((c) => c.name === coll)?.shapes[0]?.id ?? ''
  );
}
const target = (command: Record<string, unknown>, coll = 'orders') => ({
  db: 'app',
  collection: coll,
  path: `shape ${idOf(command, coll)}`,
});

const SORTED = { find: 'orders', filter: { status: 'paid' }, sort: { createdAt: -1 } };
const REGEX = { find: 'orders', filter: { sku: { $regex: 'MARKER_SKU_1', $options: 'i' } } };
const UNANCHORED = { find: 'orders', filter: { sku: { $regex: 'MARKER_SKU_2' } } };
const LOOKUP = {
  aggregate: 'customers',
  pipeline: [{ $lookup: { from: 'orders', localField: '_id', foreignField: 'customerId', as: 'o' } }],
  cursor: {},
};
const small = collectionOf('orders', {
  stats: { ...(collectionOf('x').stats as NonNullable<CollectionSnapshot['stats']>), count: 300 },
});

ruleTester(rule, {
  valid: [
    {
      name: 'an index serves the shape fully',
      snapshot: snapshotWith([ID, ix('esr', { status: 1, customerId: 1, createdAt: -1 })], [BY_STATUS], counts),
    },
    {
      name: 'reads no more than 500 documents per call beyond what it returns',
      snapshot: snapshotWith([ID], [{ find: 'orders', filter: { status: 'paid' } }], { ...counts, docsExamined: 520 }),
    },
    {
      name: 'no counts, and a scan of 300 documents reads less than the line',
      snapshot: (() => {
        const recs = [
          makeRecord(
            { source: 'profiler', ns: { db: 'app', coll: 'orders' }, op: 'find' },
            { find: 'orders', filter: { status: 'paid' } },
          ),
        ];
        const data = workloadData(recs, 'app', [small], () => undefined);
        return snapshotOf([small], {
          databases: [withData({ name: 'app', collections: [small] }, queryWorkload, data)],
        });
      })(),
    },
  ],
  invalid: [
    {
      name: 'no index serves it and it reads far more than it returns (log counts)',
      snapshot: snapshotWith([ID], [BY_STATUS], counts),
      findings: [
        {
          messageId: 'unindexed',
          severity: 'warn',
          target: target(BY_STATUS),
          data: {
            shape: STATUS_SHAPE,
            calls: '4 calls',
            time: '480 ms in all',
            examined: 40_000,
            returned: 80,
            key: '{ customerId: 1, status: 1, createdAt: -1 }',
          },
          evidence: { calls: 4, docsExamined: 40_000, nreturned: 80, impact: 39_920 },
          recommendation: { commands: [ESR_COMMAND] },
        },
      ],
    },
    {
      name: 'equality fields most selective first, by the distinct values counted on the sample',
      snapshot: snapshotWith([ID], [BY_STATUS], counts, 4, [], {
        documents: 1000,
        leftOut: 0,
        paths: { customerId: { present: 1000, distinct: 60 }, status: { present: 990, distinct: 400 } },
      }),
      findings: [
        {
          messageId: 'unindexed',
          severity: 'warn',
          target: target(BY_STATUS),
          messageIncludes: ['The index { status: 1, customerId: 1, createdAt: -1 } would serve it.'],
          evidence: { distinctOnSample: '{"status":400,"customerId":60}', sampledDocuments: 1000 },
          recommendation: {
            commands: [
              'db.getSiblingDB("app").getCollection("orders").createIndex({ status: 1, customerId: 1,' +
                ' createdAt: -1 }, ' +
                '{ name: "status_1_customerId_1_createdAt_-1" })',
            ],
          },
        },
      ],
    },
    {
      name: 'no counts (SecantusDB profiler): no index serves it and the collection is large',
      snapshot: snapshotWith([ID], [BY_STATUS], { durationMillis: 5 }),
      findings: [
        {
          messageId: 'unindexedScan',
          severity: 'warn',
          target: target(BY_STATUS),
          messageIncludes: ['scans the collection (1,000 documents)'],
          recommendation: { commands: [ESR_COMMAND] },
        },
      ],
    },
    {
      name: 'an index holds the fields in an order that cannot serve it',
      snapshot: snapshotWith([ID, ix('createdAt_1_status_1', { createdAt: 1, status: 1 })], [SORTED], counts),
      findings: [
        {
          messageId: 'wrongOrder',
          severity: 'warn',
          target: target(SORTED),
          messageIncludes: ['Index `createdAt_1_status_1` { createdAt: 1, status: 1 }', '{ status: 1, createdAt: -1 }'],
        },
      ],
    },
    {
      name: 'a sort no index gives, on a shape reading little',
      snapshot: snapshotWith([ID, ix('status_1', { status: 1 })], [SORTED], { ...counts, docsExamined: 30 }),
      findings: [{ messageId: 'inMemorySort', severity: 'warn', target: target(SORTED) }],
    },
    {
      name: 'regexes no index bounds: no index proposed, the remedy said',
      snapshot: snapshotWith([ID], [REGEX, UNANCHORED], counts),
      findings: [
        {
          messageId: 'regexCaseInsensitive',
          severity: 'info',
          target: target(REGEX),
          data: { shape: 'db.orders.find({ sku: /…/i })', paths: 'sku', calls: '4 calls', time: '480 ms in all' },
          recommendation: { reasonIncludes: 'collation of strength 1 or 2' },
        },
        {
          messageId: 'regexUnanchored',
          severity: 'info',
          target: target(UNANCHORED),
          recommendation: { reasonIncludes: 'anchor the pattern' },
        },
      ],
    },
    {
      name: 'a proposal that makes an existing index a redundant prefix says so, with hide-then-drop for it',
      snapshot: snapshotWith([ID, ix('customerId_1', { customerId: 1 })], [BY_STATUS], counts),
      findings: [
        {
          messageId: 'partlyIndexed',
          severity: 'warn',
          target: target(BY_STATUS),
          messageIncludes: ['Index `customerId_1` serves', 'The index { customerId: 1, status: 1, createdAt: -1 }'],
          evidence: { proposed: 'customerId_1_status_1_createdAt_-1', redundantPrefixes: 'customerId_1' },
          recommendation: {
            action:
              'create the index { customerId: 1, status: 1, createdAt: -1 }; then hide and drop `customerId_1` ' +
              '{ customerId: 1 }, which is a prefix of it and redundant once it is built',
            reasonIncludes: 'build the new index first',
            // hide now (with how to undo it), drop later: the drop is never in the block pasted first
            commands: [
              ESR_COMMAND,
              'db.getSiblingDB("app").getCollection("orders").hideIndex("customerId_1")',
              '// to undo, if a query slows down: db.getSiblingDB("app").getCollection("orders").unhideIndex(' +
                '"customerId_1")',
            ],
            later: ['db.getSiblingDB("app").getCollection("orders").dropIndex("customerId_1")'],
          },
        },
      ],
    },
    {
      name: 'a $lookup whose foreign field has no index',
      snapshot: snapshotWith([ID], [LOOKUP], counts, 4, [collectionOf('customers')]),
      findings: [
        {
          messageId: 'lookupUnindexed',
          severity: 'warn',
          target: target(LOOKUP),
          recommendation: {
            commands: [
              'db.getSiblingDB("app").getCollection("orders").createIndex({ customerId: 1 }, { name: "customerId_1" })',
            ],
          },
        },
      ],
    },
  ],
});
