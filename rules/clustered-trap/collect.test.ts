import { describe, expect, it } from 'vitest';
import type { Adapter, Doc } from '../../src/core/adapter';
import type { CollectionContext } from '../../src/core/collector';
import { reply as deleteBatched61 } from '../../test/fixtures/mongodb/explain-delete-clustered-in-batched-6.1';
import { reply as deleteCollscan605 } from '../../test/fixtures/mongodb/explain-delete-clustered-in-collscan-6.0.5';
import { reply as deleteSharded } from '../../test/fixtures/mongodb/explain-delete-sharded';
import { reply as findExpress80 } from '../../test/fixtures/mongodb/explain-find-clustered-eq-express-8.0';
import { reply as findBoundedClassic } from '../../test/fixtures/mongodb/explain-find-clustered-in-bounded-classic';
import { reply as findBoundedSbe } from '../../test/fixtures/mongodb/explain-find-clustered-in-bounded-sbe';
import { reply as findBoundedSharded } from '../../test/fixtures/mongodb/explain-find-clustered-in-bounded-sharded';
import { reply as findCollscan605 } from '../../test/fixtures/mongodb/explain-find-clustered-in-collscan-6.0.5';
import { collectionOf, snapshotOf } from '../../test/support/fixtures';
import { recordingAdapter } from '../../test/support/recording';
import { clusteredExplain, planOf, planStages } from './collect';

describe('planOf over MongoDB explain replies (executionStats), test/fixtures/mongodb', () => {
  const run = (
    stages: string[],
    nReturned: number,
    docsExamined: number,
    nWouldDelete: number | null = null,
    keysExamined = 0,
  ) => ({ run: { stages, nReturned, docsExamined, keysExamined, nWouldDelete } });

  it('6.0.5: the unbounded COLLSCAN of a find and DELETE > COLLSCAN of a deleteMany read every document', () => {
    expect(planOf(findCollscan605, 'find')).toEqual(run(['COLLSCAN'], 3, 100));
    expect(planOf(deleteCollscan605, 'delete')).toEqual(run(['DELETE', 'COLLSCAN'], 0, 100, 3));
  });

  it('6.0.6+ (SERVER-67105): one CLUSTERED_IXSCAN from the lowest to the highest value, classic and slot-based', () => {
    expect(planOf(findBoundedClassic, 'find')).toEqual(run(['CLUSTERED_IXSCAN'], 3, 22));
    // SBE reports documents examined only at executionStats.totalDocsExamined (its stages are not read)
    expect(planOf(findBoundedSbe, 'find')).toEqual(run(['CLUSTERED_IXSCAN'], 3, 21));
  });

  it('6.1+: BATCHED_DELETE over the bounded scan, with nWouldDelete', () => {
    expect(planOf(deleteBatched61, 'delete')).toEqual(run(['BATCHED_DELETE', 'CLUSTERED_IXSCAN'], 0, 22, 3));
  });

  it('sharded: stages of every shard, totals from mongos, nWouldDelete summed over shards', () => {
    expect(planOf(findBoundedSharded, 'find')).toEqual(
      run(['SINGLE_SHARD', 'SHARDING_FILTER', 'CLUSTERED_IXSCAN'], 3, 22),
    );
    expect(planOf(deleteSharded, 'delete')).toEqual(
      run(['SHARD_WRITE', 'BATCHED_DELETE', 'CLUSTERED_IXSCAN', 'BATCHED_DELETE', 'CLUSTERED_IXSCAN'], 0, 22, 3),
    );
  });

  it('8.0 EXPRESS: one stage, one document read', () => {
    expect(planOf(findExpress80, 'find')).toEqual(run(['EXPRESS_CLUSTERED_IXSCAN'], 1, 1, null, 1));
  });

  it('keeps no _id value: bounds (minRecord/maxRecord) and filters are not in what it returns', () => {
    for (const r of [
      findCollscan605,
      findBoundedClassic,
      findBoundedSbe,
      findBoundedSharded,
      deleteBatched61,
      deleteSharded,
    ]) {
      const kept = JSON.stringify(planOf(r, r === deleteBatched61 || r === deleteSharded ? 'delete' : 'find'));
      expect(kept).not.toMatch(/minRecord|maxRecord|\$in|filter/);
    }
    expect(planStages(findBoundedClassic)).toEqual(['CLUSTERED_IXSCAN']);
  });

  it('a reply without executionStats counts is not judged (a queryPlanner-only reply)', () => {
    const { executionStats: _dropped, ...plannerOnly } = findBoundedClassic;
    expect(planOf(plannerOnly, 'find')).toEqual({
      reason:
        'the find explain (winning plan CLUSTERED_IXSCAN) has no executionStats counts (nReturned, ' +
        'totalDocsExamined, totalKeysExamined), so it is not judged',
    });
  });

  it(
    "SecantusDB 8.2.11's delete explain is not judged: a COLLSCAN of every document over parsedQuery {} (it " +
      'reads no deletes[].q)',
    () => {
      // The reply as SecantusDB 0.7.0b3 sent it on a clustered collection of 100 documents (measured for this change).
      const secantus = {
        explainVersion: '1',
        queryPlanner: {
          namespace: 'probe.e',
          indexFilterSet: false,
          parsedQuery: {},
          winningPlan: { isCached: false, stage: 'COLLSCAN', direction: 'forward' },
          rejectedPlans: [],
        },
        ok: 1,
        executionStats: {
          executionSuccess: true,
          nReturned: 100,
          executionTimeMillis: 1,
          totalKeysExamined: 0,
          totalDocsExamined: 100,
          executionStages: { stage: 'COLLSCAN', nReturned: 100 },
        },
      };
      expect(planOf(secantus, 'delete')).toEqual({
        reason:
          'the deleteMany explain is not a plan of that deleteMany (winning plan COLLSCAN: no DELETE or ' +
          'BATCHED_DELETE stage; an empty parsedQuery for the two-_id filter), so it is not judged',
      });
    },
  );

  it('reads counts sent as BSON numbers (Long, Int32: valueOf) and refuses negative or fractional ones', () => {
    const long = (n: number) => ({ valueOf: () => n });
    const r = {
      ...findBoundedClassic,
      executionStats: { ...findBoundedClassic.executionStats, totalDocsExamined: long(22), nReturned: long(3) },
    };
    expect(planOf(r, 'find')).toEqual(run(['CLUSTERED_IXSCAN'], 3, 22));
    expect(
      planOf(
        { ...findBoundedClassic, executionStats: { ...findBoundedClassic.executionStats, totalDocsExamined: 2.5 } },
        'find',
      ),
    ).toHaveProperty('reason');
  });
});

/** An adapter that answers the collector's commands as a MongoDB 6.0.5 would, from the fixtures. */
function fakeServer(answers: {
  lowest?: unknown;
  highest?: unknown;
  find?: Doc | Error;
  delete?: Doc | Error;
}): Adapter {
  return {
    kind: 'driver',
    source: 'mongodb://fixture/',
    bson: { objectId: () => null, uuid: () => null, long: (v) => v },
    roundTrips: 0,
    async command(_db: string, cmd: Doc): Promise<Doc> {
      if ('find' in cmd) {
        const end = (cmd.sort as Doc)._id === 1 ? answers.lowest : answers.highest;
        return { cursor: { id: 0, ns: 'app.events', firstBatch: end === undefined ? [] : [{ _id: end }] }, ok: 1 };
      }
      const inner = cmd.explain as Doc;
      const a = 'find' in inner ? answers.find : answers.delete;
      if (a instanceof Error || a === undefined) throw a ?? new Error('no answer');
      return a;
    },
    close: async () => undefined,
  };
}

function contextOn(adapter: Adapter, notes: string[]): CollectionContext {
  const snap = snapshotOf([collectionOf('events', { clustered: true, indexes: [] })]);
  return {
    adapter,
    server: { ...snap.server, version: '6.0.5', versionArray: [6, 0, 5, 0] },
    maxTimeMS: 5000,
    serverStatus: null,
    note: (m) => notes.push(m),
    run: new Map(),
    collection: snap.databases[0]?.collections[0] as CollectionContext['collection'],
    docs: [],
    ids: [],
    naturalIds: null,
    listed: { name: 'events', type: 'collection', options: { clusteredIndex: { key: { _id: 1 }, unique: true } } },
  };
}

describe('the clustered-trap collector', () => {
  it(
    'sends exactly: the lowest and the highest _id, then explain executionStats of the $in find and ' + 'deleteMany',
    async () => {
      const rec = recordingAdapter(
        fakeServer({ lowest: 10, highest: 30, find: findCollscan605, delete: deleteCollscan605 }),
      );
      const notes: string[] = [];
      const data = await clusteredExplain.collect(contextOn(rec, notes));
      const filter = { _id: { $in: [10, 30] } };
      expect(rec.sent.map((s) => [s.db, s.cmd])).toEqual([
        [
          'app',
          {
            find: 'events',
            filter: {},
            sort: { _id: 1 },
            projection: { _id: 1 },
            limit: 1,
            batchSize: 1,
            singleBatch: true,
            maxTimeMS: 5000,
          },
        ],
        [
          'app',
          {
            find: 'events',
            filter: {},
            sort: { _id: -1 },
            projection: { _id: 1 },
            limit: 1,
            batchSize: 1,
            singleBatch: true,
            maxTimeMS: 5000,
          },
        ],
        ['app', { explain: { find: 'events', filter }, verbosity: 'executionStats', maxTimeMS: 5000 }],
        [
          'app',
          {
            explain: { delete: 'events', deletes: [{ q: filter, limit: 0 }] },
            verbosity: 'executionStats',
            maxTimeMS: 5000,
          },
        ],
      ]);
      expect(data).toEqual({
        asked: 2,
        find: { stages: ['COLLSCAN'], nReturned: 3, docsExamined: 100, keysExamined: 0, nWouldDelete: null },
        deleteMany: {
          stages: ['DELETE', 'COLLSCAN'],
          nReturned: 0,
          docsExamined: 100,
          keysExamined: 0,
          nWouldDelete: 3,
        },
        serverVersion: '6.0.5',
      });
      expect(notes).toEqual([]);
    },
  );

  it('an empty collection: one find, nothing explained, one note', async () => {
    const rec = recordingAdapter(fakeServer({}));
    const notes: string[] = [];
    const data = await clusteredExplain.collect(contextOn(rec, notes));
    expect(rec.sent.map((s) => s.label)).toEqual(['find']);
    expect(data).toEqual({
      asked: 2,
      find: null,
      deleteMany: null,
      serverVersion: '6.0.5',
      reason: 'the collection holds no document: there is no _id to explain',
    });
    expect(notes).toEqual(['clustered-trap: the collection holds no document: there is no _id to explain']);
  });

  it('a refused explain is noted and the other one is still read', async () => {
    const refused = Object.assign(new Error('not authorized on app to execute command'), {
      code: 13,
      codeName: 'Unauthorized',
    });
    const rec = recordingAdapter(fakeServer({ lowest: 10, highest: 30, find: findBoundedClassic, delete: refused }));
    const notes: string[] = [];
    const data = await clusteredExplain.collect(contextOn(rec, notes));
    expect(data?.find?.docsExamined).toBe(22);
    expect(data?.deleteMany).toBeNull();
    expect(data?.reason).toBe(
      'explain of the deleteMany was refused: Unauthorized (13): not authorized on app to execute command',
    );
  });
});
