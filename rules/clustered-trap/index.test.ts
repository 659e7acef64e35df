import { describe, expect, it } from 'vitest';
import { collectionOf, ran, snapshotOf, withData } from '../../test/support/fixtures';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import { flaggedOps } from './confirm';
import { type ClusteredExplain, clusteredExplain, planOf, planStages } from './collect';
import rule from './index';

const oid = (n: number): { $oid: string } => ({ $oid: n.toString(16).padStart(24, '0') });
const filter = { _id: { $in: [oid(1), oid(2)] } };

/** explain() replies at verbosity queryPlanner, shaped as the MongoDB manual shows them. */
const explainFind = (winningPlan: Record<string, unknown>) => ({
  explainVersion: '1',
  queryPlanner: { namespace: 'app.events', indexFilterSet: false, parsedQuery: filter, planCacheKey: 'A1B2C3D4', maxIndexedOrSolutionsReached: false, winningPlan, rejectedPlans: [] },
  command: { find: 'events', filter, $db: 'app' },
  serverInfo: { host: 'db0', port: 27017, version: '6.0.5' },
  ok: 1,
});
const COLLSCAN = { stage: 'COLLSCAN', filter, direction: 'forward' };
const CLUSTERED = { stage: 'CLUSTERED_IXSCAN', filter, direction: 'forward', minRecord: oid(1), maxRecord: oid(2) };
const BOUNDED_53 = { stage: 'COLLSCAN', filter, direction: 'forward', minRecord: oid(1), maxRecord: oid(2) };

function explained(find: Record<string, unknown>, del: Record<string, unknown>, version = '6.0.5'): ClusteredExplain {
  return { find: planStages(explainFind(find)), deleteMany: planStages(explainFind({ stage: 'DELETE', inputStage: del })), serverVersion: version };
}

const clustered = (e: ClusteredExplain | undefined, over = {}) =>
  snapshotOf([e ? withData(collectionOf('events', { clustered: true, indexes: [], ...over }), clusteredExplain, e) : collectionOf('events', { clustered: true, indexes: [], ...over })]);

/** explain() of `{delete: "events", deletes: [{q: filter, limit: 0}]}` at verbosity queryPlanner. */
const explainDelete = (winningPlan: Record<string, unknown>, parsedQuery: Record<string, unknown> = filter) => ({
  explainVersion: '1',
  queryPlanner: { namespace: 'app.events', indexFilterSet: false, parsedQuery, winningPlan, rejectedPlans: [] },
  command: { delete: 'events', deletes: [{ q: filter, limit: 0 }], $db: 'app' },
  ok: 1,
});

/** The reply SecantusDB 8.2.11 sent for the deleteMany explain (see below): not a plan of that deleteMany. */
const secantusDelete = (() => {
  const r = planOf(explainDelete({ isCached: false, stage: 'COLLSCAN', direction: 'forward' }, {}), 'delete');
  return 'reason' in r ? r.reason : '';
})();

const onId = { db: 'app', collection: 'events', path: '_id' };
const lookOneAtATime = {
  action: 'look _ids up one at a time until the server plans $in on the clustered key',
  commands: [
    'db.events.find({ _id: <id> })',
    'db.events.bulkWrite([{ deleteOne: { filter: { _id: <id 1> } } }, { deleteOne: { filter: { _id: <id 2> } } }])',
    'db.events.find({ _id: { $in: [<id 1>, <id 2>] } }).explain("queryPlanner")',
  ],
};

ruleTester(rule, {
  valid: [
    { name: 'clustered, both plans use the clustered key', snapshot: clustered(explained(CLUSTERED, CLUSTERED, '7.0.12')) },
    { name: 'clustered, 5.3-style bounded collection scan', snapshot: clustered(explained(BOUNDED_53, BOUNDED_53, '5.3.2')) },
    { name: 'a regular collection is not checked', snapshot: snapshotOf([withData(collectionOf('events'), clusteredExplain, explained(COLLSCAN, COLLSCAN))]) },
    { name: 'plans not read (fewer than two documents)', snapshot: clustered({ find: null, deleteMany: null, serverVersion: '6.0.5', reason: 'the collection holds 1 document: a two-_id $in needs two' }) },
    { name: 'clustered, no plans stored for this collection', snapshot: clustered(undefined) },
    {
      name: 'a snapshot taken with the rule off: not checked, and said so (never a silent pass)',
      snapshot: ran(clustered(explained(COLLSCAN, COLLSCAN))),
      notes: [{ includes: ['clustered-trap: not checked', 'collector clustered-trap', 'was not collected'] }],
    },
    {
      name: 'a snapshot whose data has another shape (an older collector version): not read, and said so',
      snapshot: { ...clustered(explained(COLLSCAN, COLLSCAN)), collectors: [{ id: 'clustered-trap', version: 0, scope: 'collection', couldNot: [] }] },
      notes: [{ includes: ['clustered-trap: not checked', 'collector clustered-trap version 0, this rule reads version 1', 'collect again'] }],
    },
    {
      // so the rule cannot warn about a scan the server never planned for the filter
      name: "SecantusDB 8.2.11's delete explain is not judged: no warning about a scan never planned for the filter",
      snapshot: clustered({ find: ['FETCH', 'IXSCAN'], deleteMany: null, serverVersion: '8.2.11', reason: secantusDelete }),
    },
  ],
  invalid: [
    {
      name: 'the 6.0.5 trap: both plans scan',
      snapshot: clustered(explained(COLLSCAN, COLLSCAN)),
      findings: [
        {
          messageId: 'scanOnBoth',
          severity: 'warn',
          target: onId,
          // names the plans and the server version in the message
          data: { findPlan: 'COLLSCAN', deletePlan: 'DELETE > COLLSCAN', version: '6.0.5' },
          messageIncludes: '(find: COLLSCAN; deleteMany: DELETE > COLLSCAN) on MongoDB 6.0.5',
          evidence: { findPlan: 'COLLSCAN', deleteManyPlan: 'DELETE > COLLSCAN', serverVersion: '6.0.5', documents: 1000 },
          recommendation: lookOneAtATime,
        },
      ],
    },
    {
      name: 'only deleteMany scans',
      snapshot: clustered(explained(CLUSTERED, COLLSCAN, '6.0.5')),
      findings: [
        {
          messageId: 'scanOnDelete',
          severity: 'warn',
          target: onId,
          data: { deletePlan: 'DELETE > COLLSCAN', version: '6.0.5' },
          evidence: { findPlan: 'CLUSTERED_IXSCAN', deleteManyPlan: 'DELETE > COLLSCAN' },
          recommendation: lookOneAtATime,
        },
      ],
    },
    {
      name: 'only find scans; the scan stages are an option',
      snapshot: clustered(explained({ stage: 'FETCH', inputStage: { stage: 'IXSCAN', keyPattern: { _id: 1 } } }, CLUSTERED, '6.0.5')),
      options: { scanStages: ['IXSCAN'] },
      findings: [{ messageId: 'scanOnFind', severity: 'warn', target: onId, data: { findPlan: 'FETCH > IXSCAN', version: '6.0.5' }, recommendation: lookOneAtATime }],
    },
  ],
});

describe('plan stage names', () => {
  it('walks classic plans root first', () => {
    expect(planStages(explainFind({ stage: 'FETCH', inputStage: { stage: 'IXSCAN', keyPattern: { a: 1 } } }))).toEqual(['FETCH', 'IXSCAN']);
    expect(planStages(explainFind({ stage: 'SUBPLAN', inputStage: { stage: 'OR', inputStages: [{ stage: 'IXSCAN' }, { stage: 'IXSCAN' }] } }))).toEqual(['SUBPLAN', 'OR', 'IXSCAN', 'IXSCAN']);
  });

  it('reads the slot-based engine shape (7.0+: winningPlan.queryPlan)', () => {
    expect(planStages(explainFind({ queryPlan: { stage: 'COLLSCAN', planNodeId: 1, filter, direction: 'forward' }, slotBasedPlan: { slots: '$$RESULT=s5', stages: '[1] filter ...' } }))).toEqual(['COLLSCAN']);
  });

  it('reads sharded plans', () => {
    expect(planStages(explainFind({ stage: 'SHARD_MERGE', shards: [{ shardName: 's0', winningPlan: { stage: 'SHARDING_FILTER', inputStage: COLLSCAN } }] }))).toEqual(['SHARD_MERGE', 'SHARDING_FILTER', 'COLLSCAN']);
  });

  it('keeps no _id value: a bounded scan is only marked bounded', () => {
    const stages = planStages(explainFind(BOUNDED_53));
    expect(stages).toEqual(['COLLSCAN[bounded]']);
    expect(JSON.stringify(stages)).not.toContain('0000');
  });

  it('returns null for a shape it cannot read (FerretDB answers with SQL plan lines)', () => {
    expect(planStages({ queryPlanner: { Plan: ['id=2 parent=0 notused=0 detail=SCAN t1_0844ecd6'] }, explainVersion: '1', ok: 1 })).toBeNull();
  });
});



describe('which explain replies are plans of the command explained', () => {
  it('reads MongoDB delete plans: DELETE at the root, BATCHED_DELETE for multi-document deletes from 6.1, under SHARD_WRITE when sharded', () => {
    expect(planOf(explainDelete({ stage: 'DELETE', inputStage: COLLSCAN }), 'delete')).toEqual({ stages: ['DELETE', 'COLLSCAN'] });
    expect(planOf(explainDelete({ stage: 'BATCHED_DELETE', inputStage: CLUSTERED }), 'delete')).toEqual({ stages: ['BATCHED_DELETE', 'CLUSTERED_IXSCAN'] });
    expect(planOf(explainDelete({ stage: 'SHARD_WRITE', shards: [{ shardName: 's0', winningPlan: { stage: 'DELETE', inputStage: COLLSCAN } }] }), 'delete')).toEqual({ stages: ['SHARD_WRITE', 'DELETE', 'COLLSCAN'] });
  });

  it("does not judge SecantusDB 8.2.11's delete explain: a bare COLLSCAN over parsedQuery {} (it reads no deletes[].q)", () => {
    // The reply as SecantusDB sent it on 2026-11-23, for a clustered and a regular collection alike.
    const r = planOf(explainDelete({ isCached: false, stage: 'COLLSCAN', direction: 'forward' }, {}), 'delete');
    expect(r).toEqual({ reason: 'the deleteMany explain is not a plan of that deleteMany (winning plan COLLSCAN: no DELETE or BATCHED_DELETE stage; an empty parsedQuery for the two-_id filter), so it is not judged' });
    // the rule's side is the valid case "SecantusDB 8.2.11's delete explain is not judged" above
  });

  it('a delete plan without a delete stage is not read, even with the filter parsed', () => {
    expect(planOf(explainDelete(COLLSCAN), 'delete')).toEqual({ reason: 'the deleteMany explain is not a plan of that deleteMany (winning plan COLLSCAN: no DELETE or BATCHED_DELETE stage), so it is not judged' });
  });

  it('a find plan of an empty filter is not read; a find plan of the filter is', () => {
    expect(planOf(explainDelete(COLLSCAN, {}), 'find')).toEqual({ reason: 'the find explain is not a plan of that find (winning plan COLLSCAN: an empty parsedQuery for the two-_id filter), so it is not judged' });
    expect(planOf(explainFind(CLUSTERED), 'find')).toEqual({ stages: ['CLUSTERED_IXSCAN'] });
  });

  it('the confirmation times the operations the finding names', () => {
    const [both] = runRule(rule, clustered(explained(COLLSCAN, COLLSCAN)));
    expect(flaggedOps(both as never, ['COLLSCAN'])).toEqual(['find', 'deleteMany']);
    const [del] = runRule(rule, clustered(explained(CLUSTERED, COLLSCAN)));
    expect(flaggedOps(del as never, ['COLLSCAN'])).toEqual(['deleteMany']);
  });
});
