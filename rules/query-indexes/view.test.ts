/**
 * Queries on a view (issue 26): MongoDB supports no index operations on a view ("you cannot create, drop or
 * re-build indexes on the view directly", https://www.mongodb.com/docs/manual/core/views/#index-use-and-sort-operations),
 * so query-indexes proposes none there (it proposed, and "proved" on a copy of the view's output, an index on one):
 * one info finding names the source collection instead (test/query-views.test.ts: `lint --queries`).
 */
import { queryWorkload, workloadData } from '../../src/collect/workload';
import type { CollectionSnapshot } from '../../src/core/types';
import { parseQueriesText } from '../../src/workload/queries-file';
import { collectionOf, snapshotOf, withData } from '../../test/support/fixtures';
import { ruleTester } from '../../test/support/rule-tester';
import rule from './index';

const ON_PAID = '{"find": "paid", "filter": {"customerId": 3}, "sort": {"total": -1}, "$db": "app"}';
const ON_ORDERS = '{"find": "orders", "filter": {"customerId": 3}, "sort": {"total": -1}, "$db": "app"}';
const SHAPE = (coll: string): string => `db.${coll}.find({ customerId: ?number }).sort({ total: -1 })`;

/** `paid` as collect writes a view: no stats, no indexes, no sample, its source named. */
const paid = (viewOn?: string): CollectionSnapshot => ({
  ...collectionOf('paid', { type: 'view', stats: null, indexes: [] }),
  ...(viewOn ? { viewOn } : {}),
});

function snapshotWith(lines: string[], view: CollectionSnapshot) {
  const colls = [collectionOf('orders'), view];
  const records = lines.flatMap((l) => Array.from({ length: 3 }, () => parseQueriesText(l)).flat());
  const data = workloadData(records, 'app', colls, () => undefined);
  const id = (coll: string) => data.collections.find((c) => c.name === coll)?.shapes[0]?.id ?? '';
  return {
    snapshot: snapshotOf(colls, { databases: [withData({ name: 'app', collections: colls }, queryWorkload, data)] }),
    id,
  };
}

export const onView = snapshotWith([ON_PAID], paid('orders'));
const both = snapshotWith([ON_PAID, ON_ORDERS], paid('orders'));
const unnamed = snapshotWith([ON_PAID], paid());
const calls = { calls: '3 calls', time: 'time not recorded' };

ruleTester(rule, {
  valid: [{ name: 'a view nobody queries', snapshot: snapshotWith([], paid('orders')).snapshot }],
  invalid: [
    {
      name: 'a query on a view: no createIndex, the source collection named',
      snapshot: onView.snapshot,
      findings: [
        {
          messageId: 'onView',
          severity: 'info',
          target: { db: 'app', collection: 'paid', path: `shape ${onView.id('paid')}` },
          data: { shape: SHAPE('paid'), source: 'orders', ...calls },
          evidence: { viewOn: 'orders' },
          recommendation: { action: 'look for the index on `orders`', commands: [] },
        },
      ],
    },
    {
      name: "the same query on the view's source still gets its index there",
      snapshot: both.snapshot,
      findings: [
        {
          messageId: 'onView',
          severity: 'info',
          target: { db: 'app', collection: 'paid', path: `shape ${both.id('paid')}` },
          data: { shape: SHAPE('paid'), source: 'orders', ...calls },
        },
        {
          messageId: 'unindexedScan',
          severity: 'warn',
          target: { db: 'app', collection: 'orders', path: `shape ${both.id('orders')}` },
          recommendation: { commands: [/createIndex\(\{ customerId: 1, total: -1 \}/] },
        },
      ],
    },
    {
      name: 'a snapshot from before views named their source',
      snapshot: unnamed.snapshot,
      findings: [
        {
          messageId: 'onView',
          severity: 'info',
          target: { db: 'app', collection: 'paid', path: `shape ${unnamed.id('paid')}` },
          data: { shape: SHAPE('paid'), source: 'its source collection', ...calls },
        },
      ],
    },
  ],
});
