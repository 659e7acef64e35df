import { describe, expect, it } from 'vitest';
import { serverStatus } from '../../src/collect/server-status';
import { type Completeness, queryWorkload, workloadData } from '../../src/collect/workload';
import type { CollectionSnapshot, IndexSnapshot, Snapshot } from '../../src/core/types';
import { makeRecord, opKindOf, type WorkloadRecord } from '../../src/workload/record';
import { collectionOf, snapshotOf, withData, withServer } from '../../test/support/fixtures';
import { ruleTester } from '../../test/support/rule-tester';
import { canUseIndex } from '../../src/workload/judge';
import { workloadShapes, workloadVerdict } from './analyze';
import { indexUsageCollector } from './collect';
import { dropResult } from './confirm';
import rule from './index';

// collectedAt of the fixtures is 2026-11-01; counters that started 60 days earlier are past the warm-up.
const OLD = '2026-09-02T00:00:00.000Z';
const MARKER = 'ZZMARKER_IU_4b2d';
const MARKER_NUMBER = 9_182_736;

const FULL: Completeness = { complete: true, completeness: 'the profiler is at level 2: it records every operation' };
const LEVEL_1: Completeness = { complete: false, completeness: 'level 1 records only operations slower than 100 ms' };

function spec(name: string, key: IndexSnapshot['key'], over: Partial<IndexSnapshot> = {}): IndexSnapshot {
  const base = collectionOf('x').indexes[0] as IndexSnapshot;
  return { ...base, name, key, sizeBytes: 1_048_576, ...over };
}

/** SecantusDB's $indexStats: a row per index with 0 ops and accesses.since null (no start date: not judged). */
type Stats = 'no-date' | 'unused' | 'used' | 'none';
function orders(indexes: IndexSnapshot[], stats: Stats, members?: string[]): CollectionSnapshot {
  const all = [spec('_id_', { _id: 1 }), ...indexes];
  const c = collectionOf('orders', { indexes: all });
  if (stats === 'none') return c;
  const row =
    stats === 'no-date'
      ? { host: 'secantus', ops: 0, since: 'null' }
      : { host: 'h:27017', ops: stats === 'used' ? 500 : 0, since: OLD };
  const accesses = Object.fromEntries(all.map((i) => [i.name, [row]]));
  return withData(c, indexUsageCollector, {
    accesses,
    ...(members ? { members: { read: members, notRead: [] } } : {}),
  });
}

const record = (command: Record<string, unknown>) =>
  makeRecord(
    { source: 'profiler', ns: { db: 'app', coll: String(Object.values(command)[0]) }, op: opKindOf(command) },
    command,
  );

/** The shop's orders queries: by status and customer sorted by date, and an update by status and date range. */
const SHOP = [
  { find: 'orders', filter: { status: MARKER, customerId: MARKER_NUMBER }, sort: { createdAt: -1 } },
  { find: 'orders', filter: { status: MARKER, customerId: 3 }, sort: { createdAt: -1 } },
  {
    update: 'orders',
    updates: [{ q: { status: 'new', createdAt: { $gte: new Date(0) } }, u: { $set: { n: MARKER } }, multi: true }],
  },
];

const STATUS = { storageEngine: 'wiredTiger', cacheBytes: 8 * 1024 ** 3, dataHandles: null };

/** A snapshot of orders (serverStatus read) with the workload of these records, as complete as said. */
function snapshotWith(c: CollectionSnapshot, records: WorkloadRecord[], how: Completeness): Snapshot {
  const data = workloadData(records, 'app', [c], () => undefined, how);
  const db = withData({ name: 'app', collections: [c] }, queryWorkload, data);
  return withData(snapshotOf([c], { databases: [db] }), serverStatus, STATUS);
}

/** A snapshot of orders with the profiler's records of these commands, as complete as said. */
const withWorkload = (c: CollectionSnapshot, commands: Record<string, unknown>[], how: Completeness): Snapshot =>
  snapshotWith(c, commands.map(record), how);

const createdStatus = spec('createdAt_1_status_1', { createdAt: 1, status: 1 });
const total = spec('total_1', { total: 1 });
const email = spec('email_1', { email: 1 }, { unique: true });
const target = { db: 'app', collection: 'orders' };
const hideThenDrop = {
  action: 'hide it, then drop it',
  commands: [
    'db.getSiblingDB("app").getCollection("orders").hideIndex("total_1")',
    '// to undo, if a query slows down: db.getSiblingDB("app").getCollection("orders").unhideIndex("total_1")',
  ],
  later: ['db.getSiblingDB("app").getCollection("orders").dropIndex("total_1")'],
};
const notJudged = { includes: 'index use was not judged for' };

ruleTester(rule, {
  valid: [
    {
      name: 'a workload of slow operations only: no unused finding, one line says why and how to make it complete',
      snapshot: withWorkload(orders([createdStatus, total], 'no-date'), SHOP, LEVEL_1),
      notes: [
        notJudged,
        {
          includes: [
            'the workload (the profiler) cannot call an index unused: level 1 records only operations slower than ' +
              '100 ms',
            'No query shape of it can use orders: `total_1`, but they are not called unused.',
            'db.setProfilingLevel(2)',
            '--workload-complete',
          ],
        },
      ],
    },
    {
      name: 'a complete workload whose shapes use every index: nothing',
      snapshot: withWorkload(
        orders([createdStatus, total], 'no-date'),
        [...SHOP, { find: 'orders', filter: { total: { $gt: 5 } } }],
        FULL,
      ),
      // judged by the complete workload: no "not judged" line beside its finding
      notes: [],
    },
    {
      name: '$indexStats says used and the workload never uses it: nothing (the counters cover more time)',
      snapshot: withWorkload(orders([createdStatus, total], 'used'), SHOP, FULL),
    },
    {
      name: "a replica set of three: the primary's profiler misses secondary reads, so nothing is called unused",
      snapshot: withServer(withWorkload(orders([total], 'no-date', ['a:1', 'b:1', 'c:1']), SHOP, FULL), {
        topology: 'replicaSet',
      }),
      notes: [notJudged, { includes: ["the profiler is per member: the primary's system.profile holds no read"] }],
    },
    {
      name: 'a complete workload with no shape on the collection: nothing concluded',
      snapshot: withWorkload(orders([total], 'no-date'), [{ find: 'other', filter: { a: 1 } }], FULL),
      notes: [notJudged],
    },
  ],
  invalid: [
    {
      name: 'a complete workload: the index no shape can use is reported, the unique one kept',
      snapshot: withWorkload(orders([createdStatus, total, email], 'no-date'), SHOP, FULL),
      // judged by the complete workload: no "not judged" line beside its finding
      notes: [],
      findings: [
        {
          messageId: 'unusedByWorkload',
          severity: 'warn',
          target: { ...target, index: 'total_1' },
          data: {
            index: 'total_1',
            key: '{ total: 1 }',
            shapes: '2',
            calls: '3 calls',
            source: 'the profiler',
            size: '1 MiB',
          },
          evidence: { workloadShapes: 2, workloadShapesUsing: 0, workloadCalls: 3 },
          recommendation: { ...hideThenDrop, reasonIncludes: 'the profiler is at level 2' },
        },
        {
          messageId: 'keptByWorkload',
          severity: 'info',
          target,
          data: { list: '`email_1` (unique: it enforces a constraint even when no query reads it)' },
        },
      ],
    },
    {
      name: 'a complete workload judges total_1; a text index it cannot judge keeps the "not judged" line, alone',
      snapshot: withWorkload(orders([total, spec('note_text', { _fts: 'text', _ftsx: 1 })], 'no-date'), SHOP, FULL),
      notes: [{ includes: 'index use was not judged for 1 index with no recorded use (orders: `note_text`)' }],
      findings: [{ messageId: 'unusedByWorkload', severity: 'warn', target: { ...target, index: 'total_1' } }],
    },
    {
      name: 'one shape, and no $indexStats at all (FerretDB): the one-shape variant',
      snapshot: withWorkload(orders([total], 'none'), SHOP.slice(0, 1), FULL),
      notes: [{ includes: 'index use was not checked on 1 collection (orders)' }],
      findings: [
        {
          messageId: 'unusedByWorkloadOne',
          severity: 'warn',
          target: { ...target, index: 'total_1' },
          data: { index: 'total_1', key: '{ total: 1 }', calls: '1 call', source: 'the profiler', size: '1 MiB' },
          recommendation: hideThenDrop,
        },
      ],
    },
    {
      name: 'a one-member replica set (SecantusDB): nobody else takes reads, so the profiler is complete',
      snapshot: withServer(withWorkload(orders([total], 'no-date', ['h:27017']), SHOP.slice(0, 1), FULL), {
        topology: 'replicaSet',
      }),
      // judged by the complete workload: no "not judged" line beside its finding
      notes: [],
      findings: [
        {
          messageId: 'unusedByWorkloadOne',
          severity: 'warn',
          target: { ...target, index: 'total_1' },
          recommendation: hideThenDrop,
        },
      ],
    },
    {
      name: 'a --log vouched complete: the same finding, named after the log',
      snapshot: snapshotWith(
        orders([total], 'no-date'),
        SHOP.map((cmd) => makeRecord({ source: 'log', ns: { db: 'app', coll: 'orders' }, op: opKindOf(cmd) }, cmd)),
        { complete: true, completeness: 'the user said the given workload holds every operation' },
      ),
      // judged by the complete workload: no "not judged" line beside its finding
      notes: [],
      findings: [
        {
          messageId: 'unusedByWorkload',
          severity: 'warn',
          target: { ...target, index: 'total_1' },
          data: {
            index: 'total_1',
            key: '{ total: 1 }',
            shapes: '2',
            calls: '3 calls',
            source: 'the slow-query log',
            size: '1 MiB',
          },
        },
      ],
    },
    {
      name: '$indexStats calls it unused but a shape of the workload can use it: reported, with that count',
      snapshot: withWorkload(
        orders([total], 'unused'),
        [...SHOP, { find: 'orders', filter: { total: { $gt: MARKER_NUMBER } } }],
        LEVEL_1,
      ),
      findings: [
        {
          messageId: 'unused',
          severity: 'warn',
          target: { ...target, index: 'total_1' },
          evidence: { workloadShapes: 3, workloadShapesUsing: 1 },
          recommendation: {
            ...hideThenDrop,
            reasonIncludes: 'Yet 1 of the 3 query shapes the workload ran on this collection can use it',
          },
        },
      ],
    },
    {
      name: '$indexStats calls it unused and no shape uses it: reported, saying none does',
      snapshot: withWorkload(orders([total], 'unused'), SHOP, LEVEL_1),
      findings: [
        {
          messageId: 'unused',
          severity: 'warn',
          target: { ...target, index: 'total_1' },
          evidence: { workloadShapes: 2, workloadShapesUsing: 0 },
          recommendation: {
            ...hideThenDrop,
            reasonIncludes: 'None of the 2 query shapes the workload ran on this collection can use it.',
          },
        },
      ],
    },
  ],
});

describe('which shape can use an index', () => {
  const c = orders([createdStatus, total], 'none');
  const shapesOf = (commands: Record<string, unknown>[]) =>
    workloadShapes(
      workloadData(commands.map(record), 'app', [c], () => undefined, FULL),
      'orders',
    );

  it('an index serves a shape when its leading field is queried, sorted, or the key of a distinct', () => {
    const [byStatus, sorted, byTotal, distinct] = shapesOf([
      { find: 'orders', filter: { status: 'a' } },
      { find: 'orders', filter: {}, sort: { total: -1 } },
      { find: 'orders', filter: { status: 'a', total: { $lt: 3 } } },
      { distinct: 'orders', key: 'total', query: {} },
    ]);
    if (!byStatus || !sorted || !byTotal || !distinct) throw new Error('a shape is missing');
    expect(canUseIndex(byStatus.shape, total)).toBe(false);
    expect(canUseIndex(sorted.shape, total)).toBe(true);
    expect(canUseIndex(byTotal.shape, total)).toBe(true);
    expect(canUseIndex(distinct.shape, total)).toBe(true);
    // {createdAt, status}: status alone is not its leading field
    expect(canUseIndex(byStatus.shape, createdStatus)).toBe(false);
  });

  it('an $or is used when one branch can use it; special and kept indexes get their own verdict', () => {
    const [or] = shapesOf([{ find: 'orders', filter: { $or: [{ total: 1 }, { status: 'b' }] } }]);
    if (!or) throw new Error('no shape');
    expect(workloadVerdict(total, [or])).toBe('used');
    expect(workloadVerdict(createdStatus, [or])).toBe('unused');
    expect(workloadVerdict(spec('t', { body: 'text' }), [or])).toBe('special');
    expect(workloadVerdict(spec('p', { sku: 1 }, { partial: true }), [or])).toBe('kept');
  });
});

describe("the drop proof's verdict in words", () => {
  const c = orders([total], 'none');
  const shapes = workloadShapes(
    workloadData(SHOP.map(record), 'app', [c], () => undefined, FULL),
    'orders',
  );
  const copy = {
    sourceCount: 600,
    copied: 600,
    planned: 600,
    bound: 'collection' as const,
    rebuilt: ['total_1'],
    notRebuilt: [],
  };

  it('refuted: names the shape that needs the index by its printed shape, never a value', () => {
    const needs = shapes[0];
    if (!needs) throw new Error('no shape');
    const r = dropResult({ status: 'refuted', copy, needs: [needs.id], shapes: [] }, 'total_1', shapes, 0);
    expect(r.status).toBe('refuted');
    expect(r.summary).toContain(`without it, ${needs.printed} examined at least twice as much or got slower`);
    expect(r.summary).toContain('the 2 query shapes the workload ran on this collection were replayed (3 real calls');
    expect(JSON.stringify(r)).not.toContain(MARKER);
    expect(JSON.stringify(r)).not.toContain(String(MARKER_NUMBER));
  });

  it('a proof past its budget says what took it there: the copy, or explaining every shape', () => {
    const untimed = [{ id: 'a', examinedRatio: 1, regresses: false, usedIt: false }];
    const explained = dropResult(
      { status: 'supported', copy, needs: [], shapes: untimed, pastBudget: 'explain' },
      'total_1',
      shapes,
      0,
    );
    expect(explained.summary).toMatch(/Explaining every shape both ways .* did not fit the time budget on this server/);
    expect(explained.summary).toContain('so this proof ran past its budget rather than decide nothing');
    const copied = dropResult(
      { status: 'refuted', copy, needs: [shapes[0]?.id ?? ''], shapes: [], pastBudget: 'copy' },
      'total_1',
      shapes,
      0,
    );
    expect(copied.summary).toContain(
      `Copying these ${copy.copied.toLocaleString('en-US')} documents (fewer could not decide`,
    );
    expect(copied.summary).toContain('ran past its budget rather than decide nothing');
  });

  it('supported, with the $lookup shapes said; not run, with the reason', () => {
    const time = { median: 1.01, low: 0.95, high: 1.06, coverage: 0.96 };
    const timed = [{ id: 'a', examinedRatio: 1, regresses: false, usedIt: true, time }];
    const ok = dropResult({ status: 'supported', copy, needs: [], shapes: timed }, 'total_1', shapes, 2);
    expect(ok.status).toBe('supported');
    expect(ok.summary).toContain('none examined twice as much or got slower without it');
    expect(ok.summary).toContain('Not replayed: 2 $lookup shapes');
    // No plan used the index: the plans are the same without it, nothing was timed, and the words say so.
    const untimed = [{ id: 'a', examinedRatio: 1, regresses: false, usedIt: false }];
    const same = dropResult({ status: 'supported', copy, needs: [], shapes: untimed }, 'total_1', shapes, 0);
    expect(same.summary).toContain('no plan chose it with it in place');
    expect(same.summary).toContain('nothing needed timing');
    expect(same.summary).not.toContain('got slower');
    expect(same.summary).not.toContain('ran past its budget');
    const no = dropResult({ status: 'not-run', reason: 'the source collection returned no documents' }, 'x', [], 0);
    expect(no).toMatchObject({ status: 'not-run', reason: 'the source collection returned no documents' });
  });
});
