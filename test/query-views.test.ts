/**
 * `lint --queries` judges no query on a view (issue 26): MongoDB supports no index operations on a view
 * (https://www.mongodb.com/docs/manual/core/views/#index-use-and-sort-operations). A note names the view's source;
 * rules/query-indexes/view.test.ts covers the rule, test/views.live.test.ts both on SecantusDB.
 */
import { describe, expect, it } from 'vitest';
import { lintQueries, queryEntries, snapshotIndexes } from '../src/spec/queries';
import type { CollectionSnapshot } from '../src/core/types';
import { parseQueriesText } from '../src/workload/queries-file';
import { collectionOf, snapshotOf } from './support/fixtures';

const ON_PAID = '{"find": "paid", "filter": {"customerId": 3}, "sort": {"total": -1}, "$db": "app"}';
const ON_ORDERS = '{"find": "orders", "filter": {"customerId": 3}, "sort": {"total": -1}, "$db": "app"}';
const paid: CollectionSnapshot = {
  ...collectionOf('paid', { type: 'view', stats: null, indexes: [] }),
  viewOn: 'orders',
};

describe('lint --queries judges no query on a view', () => {
  it('a note names the source; no finding, no createIndex', () => {
    const entries = queryEntries(parseQueriesText(`${ON_PAID}\n${ON_ORDERS}`));
    const idx = snapshotIndexes(snapshotOf([collectionOf('orders'), paid]));
    const out = lintQueries({
      file: 'queries.jsonl',
      entries,
      indexesOf: idx.indexesOf,
      ...(idx.viewOn ? { viewOn: idx.viewOn } : {}),
      source: 'snapshot',
      config: {},
    });
    expect(out.findings.map((f) => f.target.collection)).toEqual(['orders']);
    const note = out.notes.find((n) => n.target?.collection === 'paid');
    expect(note?.message).toMatch(/no index operations on a view .* runs on "orders"/s);
  });
});
