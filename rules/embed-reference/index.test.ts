import { describe, expect, it } from 'vitest';
import type { CollectionSnapshot, IndexSnapshot } from '../../src/core/types';
import { collectionOf, snapshotOf, withData } from '../../test/support/fixtures';
import { runRule, ruleTester } from '../../test/support/rule-tester';
import { embedPairs, type MeasuredPair, type PairsData } from './collect';
import { none } from './analyze';
import { embedTables } from './table';
import rule from './index';

const ix = (name: string, key: Record<string, 1>): IndexSnapshot => ({ name, key, sizeBytes: 4096 });
const coll = (name: string, avgObjSize: number, indexes: IndexSnapshot[] = [ix('_id_', { _id: 1 })]) =>
  collectionOf(name, {
    indexes,
    stats: {
      count: 100,
      sizeBytes: 100 * avgObjSize,
      avgObjSize,
      storageSizeBytes: 0,
      totalIndexSizeBytes: 0,
      nindexes: indexes.length,
      blockCompressor: null,
    },
  });

const ops = (name: string, over: Partial<PairsData['collections'][number]> = {}) => ({ ...none(name), ...over });

/** 40 orders of 1-5 items, none added since (pace 0); posts of up to 5,000 comments, 100 a day at most. */
const ITEMS: MeasuredPair = {
  parent: 'orders',
  localField: '_id',
  child: 'order_items',
  foreignField: 'orderId',
  as: 'items',
  basis: 'lookup',
  joinCalls: 120,
  joinMillis: 480,
  fields: [],
  measured: {
    parents: 5,
    children: [1, 2, 3, 4, 5],
    perDay: [0, 0, 0, 0, 0],
    parentBytes: 120,
    childBytes: 70,
  },
};
const COMMENTS: MeasuredPair = {
  ...ITEMS,
  parent: 'posts',
  child: 'comments',
  foreignField: 'postId',
  as: 'comments',
  joinCalls: 12,
  joinMillis: 360,
  measured: { parents: 3, children: [10, 400, 5000], perDay: [0.2, 8, 100], parentBytes: 300, childBytes: 100 },
};

function snapshot(pairs: MeasuredPair[], collections: PairsData['collections'], colls: CollectionSnapshot[]) {
  const data: PairsData = { sources: ['file'], records: 500, pairs, collections };
  return snapshotOf(colls, { databases: [withData({ name: 'app', collections: colls }, embedPairs, data)] });
}

const SHOP = [
  coll('orders', 120),
  coll('order_items', 70, [ix('_id_', { _id: 1 }), ix('orderId_1', { orderId: 1 })]),
  coll('posts', 300),
  coll('comments', 100),
  coll('users', 80),
];
const ITEM_OPS = ops('order_items', { inserts: 8, updates: 2, updatesById: 2 });
const COMMENT_OPS = ops('comments', { inserts: 300, updates: 30, updatesById: 30 });

const orderData = {
  parent: 'orders',
  child: 'order_items',
  localField: '_id',
  foreignField: 'orderId',
  joinCalls: '120',
  parentOne: 'order',
  median: 3,
  p95: 5,
  max: 5,
  parentsRead: 5,
  projectedMax: 5,
  projectionDays: 365,
  embeddedBytes: '470 B',
  inserts: '8',
  updates: '2',
  updatesById: '2',
  deletes: '0',
  aloneReads: '0',
  as: 'items',
};

ruleTester(rule, {
  valid: [
    { name: 'no pair read together (users and their audit trail read by _id alone)', snapshot: snapshot([], [], SHOP) },
    {
      name: 'fewer joins than minJoinCalls',
      snapshot: snapshot([{ ...ITEMS, joinCalls: 9, measured: null }], [ITEM_OPS], SHOP),
    },
    {
      name: 'children not counted: a note, no finding',
      snapshot: snapshot([{ ...ITEMS, measured: null }], [ITEM_OPS], SHOP),
      notes: [{ includes: 'the children of orders in order_items were not counted' }],
    },
    {
      name: 'the join finds no child for any parent read: a note, no finding',
      snapshot: snapshot(
        [
          {
            ...ITEMS,
            measured: { ...ITEMS.measured!, children: [0, 0, 0, 0, 0], perDay: [null, null, null, null, null] },
          },
        ],
        [ITEM_OPS],
        SHOP,
      ),
      notes: [{ includes: 'the join found no child in order_items for the 5 parents of orders read' }],
    },
  ],
  invalid: [
    {
      name: '(a) a few bounded items read with every order: embed, with the migration built by shell.ts',
      snapshot: snapshot([ITEMS], [ITEM_OPS], SHOP),
      findings: [
        {
          messageId: 'embedLookup',
          severity: 'info',
          target: { db: 'app', collection: 'orders', path: 'items' },
          data: orderData,
          evidence: { decision: 'embed', childrenMax: 5, projectedChildren: 5, embeddedBytes: 470, unbounded: null },
          recommendation: {
            action: 'embed',
            commands: [
              'db.getSiblingDB("app").getCollection("orders").aggregate([{ $lookup: { from: "order_items", ' +
                'localField: "_id", foreignField: "orderId", as: "items" } }, { $merge: { into: { db: "app", coll: ' +
                '"orders_embedded" }, on: "_id", whenMatched: "merge", whenNotMatched: "insert" } }])',
              /^\/\/ fill in the <…> first: .*\$match: \{ _id: \{ \$gte: <first _id of the batch>/,
            ],
          },
        },
      ],
    },
    {
      name: '(b) comments up to 5,000 and growing, written more than read: keep referenced, no embed advice',
      snapshot: snapshot([COMMENTS], [COMMENT_OPS], SHOP),
      findings: [
        {
          messageId: 'keepChildrenLookup',
          severity: 'info',
          target: { db: 'app', collection: 'posts', path: 'comments' },
          messageIncludes: ['most 5,000', 'at most 41,500 in 365 days', '300 inserts', 'under 250 children'],
          evidence: { decision: 'keepReferenced', unbounded: 'children', childrenMax: 5000, projectedChildren: 41500 },
          recommendation: {
            action: 'keep referenced',
            commands: ['db.getSiblingDB("app").getCollection("comments").createIndex({ postId: 1 })'],
          },
        },
      ],
    },
    {
      name: 'few children but large ones: over maxEmbeddedBytes, keep referenced',
      snapshot: snapshot([{ ...ITEMS, measured: { ...ITEMS.measured!, childBytes: 600_000 } }], [ITEM_OPS], SHOP),
      findings: [
        {
          messageId: 'keepBytesLookup',
          severity: 'info',
          target: { db: 'app', collection: 'orders', path: 'items' },
          messageIncludes: ['more than 1.91 MiB for one document', 'the limit is 16 MiB'],
          evidence: { decision: 'keepReferenced', unbounded: 'bytes' },
        },
      ],
    },
    {
      name: 'a read projecting two item fields: an extended reference of those fields',
      snapshot: snapshot([{ ...ITEMS, fields: ['qty', 'sku'] }], [ITEM_OPS], SHOP),
      findings: [
        {
          messageId: 'extendedLookup',
          severity: 'info',
          target: { db: 'app', collection: 'orders', path: 'items' },
          messageIncludes: 'The read keeps `qty`, `sku` of each child',
          evidence: { decision: 'extendedReference', fields: 'qty,sku' },
          recommendation: {
            action: 'extended reference',
            commands: [
              /\$set: \{ items: \{ \$map: \{ input: "\$items", as: "c", in: \{ _id: "\$\$c\._id", qty: /,
              /^\/\//,
            ],
          },
        },
      ],
    },
    {
      name: 'a pair inferred from the names and rates says so',
      snapshot: snapshot(
        [{ ...ITEMS, basis: 'shapePair', as: 'order_items' }],
        [ops('order_items', { reads: 120, readsByKey: 120 })],
        SHOP,
      ),
      findings: [
        {
          messageId: 'embedPaired',
          severity: 'info',
          target: { db: 'app', collection: 'orders', path: 'order_items' },
          messageIncludes: 'a pair inferred from the names and the rates, not seen in one operation',
          evidence: { basis: 'shapePair', childReadsAlone: 0 },
        },
      ],
    },
  ],
});

describe('embed-reference tables', () => {
  it('gives both directions per pair, one table per database', () => {
    const s = snapshot([ITEMS, COMMENTS], [ITEM_OPS, COMMENT_OPS], SHOP);
    const findings = runRule(rule, s);
    const [table, ...rest] = embedTables({ snapshot: s, options: {} as never, findings });
    expect(rest).toEqual([]);
    expect(table?.rows).toEqual([
      ['orders', 'order_items', 'embed', 120, '3 / 5 / 5', 5, 10, null],
      ['posts', 'comments', 'keep referenced', 12, '400 / 4540 / 5000', 41500, 330, null],
    ]);
  });
});
