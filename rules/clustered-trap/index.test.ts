import { describe, expect, it } from 'vitest';
import { reply as deleteBatched61 } from '../../test/fixtures/mongodb/explain-delete-clustered-in-batched-6.1';
import { reply as deleteCollscan605 } from '../../test/fixtures/mongodb/explain-delete-clustered-in-collscan-6.0.5';
import { reply as deleteSharded } from '../../test/fixtures/mongodb/explain-delete-sharded';
import { reply as findExpress80 } from '../../test/fixtures/mongodb/explain-find-clustered-eq-express-8.0';
import { reply as findBoundedClassic } from '../../test/fixtures/mongodb/explain-find-clustered-in-bounded-classic';
import { reply as findBoundedSbe } from '../../test/fixtures/mongodb/explain-find-clustered-in-bounded-sbe';
import { reply as findCollscan605 } from '../../test/fixtures/mongodb/explain-find-clustered-in-collscan-6.0.5';
import { collectionOf, ran, snapshotOf, withData } from '../../test/support/fixtures';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import type { Doc } from '../../src/core/adapter';
import { flaggedOps } from './confirm';
import { type ClusteredExplain, clusteredExplain, type ExplainedRun, planOf } from './collect';
import rule from './index';

/** What the collector stores for a MongoDB reply (test/fixtures/mongodb), read through planOf as it reads a live
 * one. */
function runOf(reply: Doc, kind: 'find' | 'delete'): ExplainedRun {
  const p = planOf(reply, kind);
  if (!('run' in p)) throw new Error(p.reason);
  return p.run;
}

/** The fixtures' $in asks for 3 values (jstests' testIn: [10, 20, 30]); the collector asks for 2. */
const explained = (
  find: ExplainedRun | null,
  deleteMany: ExplainedRun | null,
  version: string,
  asked = 3,
  reason?: string,
): ClusteredExplain => ({
  asked,
  find,
  deleteMany,
  serverVersion: version,
  ...(reason ? { reason } : {}),
});

const clustered = (e: ClusteredExplain | undefined, over = {}) =>
  snapshotOf([
    e
      ? withData(collectionOf('events', { clustered: true, indexes: [], ...over }), clusteredExplain, e)
      : collectionOf('events', { clustered: true, indexes: [], ...over }),
  ]);

/** The same scan, scaled: a collection of `n` documents read whole by the lowest and highest _id's $in. */
const scaled = (r: ExplainedRun, n: number, deleted: number | null = r.nWouldDelete): ExplainedRun => ({
  ...r,
  docsExamined: n,
  nReturned: r.nWouldDelete === null ? 2 : 0,
  nWouldDelete: deleted === null ? null : 2,
});

const onId = { db: 'app', collection: 'events', path: '_id' };
const lookOneAtATime = {
  action: 'look far-apart _ids up one at a time, or $in only over _ids that sit close together',
  commands: [
    '// fill in the <…> first: db.getSiblingDB("app").getCollection("events").find({ _id: <id> })',
    '// fill in the <…> first: db.getSiblingDB("app").getCollection("events").bulkWrite([{ deleteOne: { filter:' +
      ' { _id: <id 1> } } }, { deleteOne: { filter: { _id: <id 2> } } }])',
    '// fill in the <…> first: db.getSiblingDB("app").getCollection("events").find({ _id: { $in: [<id 1>, <id' +
      ' 2>] } }).explain("executionStats")',
  ],
};

const secantusDelete =
  'the deleteMany explain is not a plan of that deleteMany (winning plan COLLSCAN: no DELETE or ' +
  'BATCHED_DELETE stage; an empty parsedQuery for the two-_id filter), so it is not judged';
const secantusFind: ExplainedRun = {
  stages: ['FETCH', 'IXSCAN'],
  nReturned: 2,
  docsExamined: 2,
  keysExamined: 2,
  nWouldDelete: null,
};

const c605 = { find: runOf(findCollscan605, 'find'), del: runOf(deleteCollscan605, 'delete') };
const bounded = {
  find: runOf(findBoundedClassic, 'find'),
  sbe: runOf(findBoundedSbe, 'find'),
  del: runOf(deleteBatched61, 'delete'),
  sharded: runOf(deleteSharded, 'delete'),
};

ruleTester(rule, {
  valid: [
    {
      name:
        "6.0.6+ bounded CLUSTERED_IXSCAN, jstests' testIn: 22 documents for 3 values is not far above " +
        '(default ratio 1000)',
      snapshot: clustered(explained(bounded.find, bounded.del, '7.0.12')),
    },
    {
      name: '6.0.5 COLLSCAN of 100 documents for 3 values: under the default ratio',
      snapshot: clustered(explained(c605.find, c605.del, '6.0.5')),
    },
    {
      name: '8.0 EXPRESS reads one document',
      snapshot: clustered(explained(runOf(findExpress80, 'find'), null, '8.0.4', 2)),
    },
    {
      name: 'at the ratio exactly (2,000 documents for 2 values): not above it',
      snapshot: clustered(explained(scaled(c605.find, 2000), scaled(c605.del, 2000), '6.0.5', 2)),
    },
    {
      name: 'a regular collection is not checked',
      snapshot: snapshotOf([
        withData(collectionOf('events'), clusteredExplain, explained(scaled(c605.find, 1e6), null, '6.0.5', 2)),
      ]),
    },
    {
      name: 'plans not read (an empty collection)',
      snapshot: clustered(
        explained(null, null, '6.0.5', 2, 'the collection holds no document: there is no _id to explain'),
      ),
    },
    { name: 'clustered, no plans stored for this collection', snapshot: clustered(undefined) },
    {
      name: 'a snapshot taken with the rule off: not checked, and said so (never a silent pass)',
      snapshot: ran(clustered(explained(scaled(c605.find, 1e6), null, '6.0.5', 2))),
      notes: [{ includes: ['clustered-trap: not checked', 'collector clustered-trap', 'was not collected'] }],
    },
    {
      name: 'a snapshot of the version-1 collector (stage names only): not read, and said so',
      snapshot: {
        ...clustered(explained(scaled(c605.find, 1e6), null, '6.0.5', 2)),
        collectors: [{ id: 'clustered-trap', version: 1, scope: 'collection', couldNot: [] }],
      },
      notes: [
        {
          includes: [
            'clustered-trap: not checked',
            'collector clustered-trap version 1, this rule reads version 2',
            'collect again',
          ],
        },
      ],
    },
    {
      // so the rule cannot warn about a scan the server never planned for the filter
      name:
        'SecantusDB 8.2.11: find FETCH > IXSCAN reads 2; its delete explain (a COLLSCAN of an empty filter) ' +
        'is not judged',
      snapshot: clustered(explained(secantusFind, null, '8.2.11', 2, secantusDelete)),
    },
  ],
  invalid: [
    {
      name: 'the 6.0.5 trap on a collection of 50,000: COLLSCAN and DELETE > COLLSCAN read everything to return 2',
      snapshot: clustered(explained(scaled(c605.find, 50_000), scaled(c605.del, 50_000), '6.0.5', 2)),
      findings: [
        {
          messageId: 'scanOnBoth',
          severity: 'warn',
          target: onId,
          data: {
            findExamined: 50_000,
            findReturned: 2,
            findPlan: 'COLLSCAN',
            deleteExamined: 50_000,
            deleteWould: 2,
            deletePlan: 'DELETE > COLLSCAN',
            version: '6.0.5',
          },
          // says what was measured
          messageIncludes:
            'read 50,000 documents to return 2 (COLLSCAN) and 50,000 documents to delete 2 (DELETE > ' +
            'COLLSCAN) on MongoDB 6.0.5',
          evidence: {
            findPlan: 'COLLSCAN',
            deleteManyPlan: 'DELETE > COLLSCAN',
            asked: 2,
            findExamined: 50_000,
            findReturned: 2,
            deleteExamined: 50_000,
            deleteWould: 2,
            examinedRatio: 1000,
            serverVersion: '6.0.5',
            documents: 1000,
          },
          recommendation: lookOneAtATime,
        },
      ],
    },
    {
      name:
        '6.0.6+ (SERVER-67105): the bounded CLUSTERED_IXSCAN and BATCHED_DELETE read the whole range between ' +
        'the lowest and highest _id',
      snapshot: clustered(explained(scaled(bounded.find, 50_001), scaled(bounded.del, 50_001), '7.0.12', 2)),
      findings: [
        {
          messageId: 'scanOnBoth',
          severity: 'warn',
          target: onId,
          data: {
            findExamined: 50_001,
            findReturned: 2,
            findPlan: 'CLUSTERED_IXSCAN',
            deleteExamined: 50_001,
            deleteWould: 2,
            deletePlan: 'BATCHED_DELETE > CLUSTERED_IXSCAN',
            version: '7.0.12',
          },
          messageIncludes: 'SERVER-67105',
          recommendation: lookOneAtATime,
        },
      ],
    },
    {
      name:
        "jstests' testIn as MongoDB answers it, judged with a lower ratio (22 documents for 3 values > 5 " +
        'each): find and BATCHED_DELETE',
      snapshot: clustered(explained(bounded.find, bounded.del, '7.0.12')),
      options: { examinedRatio: 5 },
      findings: [
        {
          messageId: 'scanOnBoth',
          severity: 'warn',
          target: onId,
          data: {
            findExamined: 22,
            findReturned: 3,
            findPlan: 'CLUSTERED_IXSCAN',
            deleteExamined: 22,
            deleteWould: 3,
            deletePlan: 'BATCHED_DELETE > CLUSTERED_IXSCAN',
            version: '7.0.12',
          },
        },
      ],
    },
    {
      name: '6.0.5 fixtures with a lower ratio (100 documents for 3 values > 10 each)',
      snapshot: clustered(explained(c605.find, c605.del, '6.0.5')),
      options: { examinedRatio: 10 },
      findings: [
        {
          messageId: 'scanOnBoth',
          severity: 'warn',
          target: onId,
          messageIncludes:
            'read 100 documents to return 3 (COLLSCAN) and 100 documents to delete 3 (DELETE > COLLSCAN)',
        },
      ],
    },
    {
      name: 'only the find, slot-based (the delete explain not read)',
      snapshot: clustered(explained(bounded.sbe, null, '7.0.12', 3, secantusDelete)),
      options: { examinedRatio: 5 },
      findings: [
        {
          messageId: 'scanOnFind',
          severity: 'warn',
          target: onId,
          data: { findExamined: 21, findReturned: 3, findPlan: 'CLUSTERED_IXSCAN', version: '7.0.12' },
          evidence: { deleteManyPlan: null, deleteExamined: null },
        },
      ],
    },
    {
      name: 'only the delete, through mongos (SHARD_WRITE over BATCHED_DELETE on two shards, nWouldDelete summed)',
      snapshot: clustered(explained(runOf(findExpress80, 'find'), bounded.sharded, '8.0.4')),
      options: { examinedRatio: 5 },
      findings: [
        {
          messageId: 'scanOnDelete',
          severity: 'warn',
          target: onId,
          data: {
            deleteExamined: 22,
            deleteWould: 3,
            deletePlan: 'SHARD_WRITE > BATCHED_DELETE > CLUSTERED_IXSCAN > BATCHED_DELETE > CLUSTERED_IXSCAN',
            version: '8.0.4',
          },
          messageIncludes: 'read 22 documents to delete 3',
        },
      ],
    },
  ],
});

describe('the confirmation times the operations the finding names', () => {
  it('reads them back from the evidence (documents examined against the ratio)', () => {
    const [both] = runRule(rule, clustered(explained(scaled(c605.find, 50_000), scaled(c605.del, 50_000), '6.0.5', 2)));
    expect(flaggedOps(both as never, 1000)).toEqual(['find', 'deleteMany']);
    const [del] = runRule(rule, clustered(explained(secantusFind, scaled(bounded.del, 50_000), '7.0.12', 2)));
    expect(flaggedOps(del as never, 1000)).toEqual(['deleteMany']);
  });
});
