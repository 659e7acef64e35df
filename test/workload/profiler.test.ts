import { describe, expect, it } from 'vitest';
import { SCRATCH_PREFIX } from '../../src/adapters/read-only';
import { APP_NAME as ADVISOR_APP_NAME, SCRATCH_PREFIX as SCRATCH_DB_PREFIX } from '../../src/core/names';
import {
  MAX_PROFILE_ENTRIES,
  profilerCommand,
  profilerQuery,
  readProfileDocuments,
  sameSpan,
} from '../../src/workload/profiler';
import { WorkloadTally } from '../../src/workload/tally';
import * as docs from '../fixtures/workload/profile-documents';

describe('readProfileDocuments', () => {
  it('normalises the profiler names (op, millis, numYield, responseLength)', () => {
    const { records } = readProfileDocuments([docs.findIxscan]);
    expect(records).toEqual([
      {
        source: 'profiler',
        ns: { db: 'profile_find', coll: 'profile_find' },
        op: 'find',
        appName: 'MongoDB Shell',
        durationMillis: 0,
        keysExamined: 1,
        docsExamined: 1,
        nreturned: 1,
        numYields: 0,
        responseLength: 143,
        planSummary: 'IXSCAN { a: 1 }',
      },
    ]);
    expect(records[0]?.command.filter).toEqual({ a: 1 });
  });

  it('counts truncated commands and the advisor own entries, and leaves them out', () => {
    const all = [docs.findIxscan, docs.findWithSort, docs.truncated, docs.own, { op: 'query' }];
    const { records, counts, notes } = readProfileDocuments(all);
    expect(counts).toEqual({ documents: 5, records: 2, malformed: 1, truncated: 1, own: 1, scratch: 0 });
    expect(records[1]?.hasSortStage).toBe(true);
    expect(notes).toHaveLength(3);
  });

  it('reads SecantusDB entries, which hold no counts, leaving those facts absent', () => {
    const [rec] = readProfileDocuments([docs.secantus]).records;
    expect(rec).toEqual({ source: 'profiler', ns: { db: 'shop', coll: 'orders' }, op: 'find', durationMillis: 130 });
  });

  it('takes a write statement kind from op when the command is the statement', () => {
    const [rec] = readProfileDocuments([docs.updateStatement]).records;
    expect(rec?.op).toBe('update');
    // The statement is carried in the command form, so one shape function reads both.
    const updates = rec?.command.updates as { q?: unknown }[] | undefined;
    expect(rec?.command.update).toBe(docs.updateStatement.ns.split('.')[1]);
    expect(updates?.[0]?.q).toEqual({ status: 'open' });
  });

  it('leaves out scratch namespaces', () => {
    const scratch = { ...docs.secantus, ns: `${SCRATCH_DB_PREFIX}abc.orders` };
    expect(readProfileDocuments([scratch]).counts.scratch).toBe(1);
  });
});

describe('profilerQuery', () => {
  it('asks for the newest entries, bounded, without the advisor own ones', () => {
    const q = profilerQuery({ limit: 10_000_000 });
    expect(q.limit).toBe(MAX_PROFILE_ENTRIES);
    expect(q.sort).toEqual({ ts: -1 });
    expect(q.filter.appName).toEqual({ $ne: ADVISOR_APP_NAME });
    const ns = (q.filter.ns as { $not: RegExp }).$not;
    expect(ns.test(`${SCRATCH_DB_PREFIX}0a.orders`)).toBe(true);
    expect(ns.test('shop.orders')).toBe(false);
    expect(q.projection).not.toHaveProperty('execStats');
    expect(profilerQuery({ limit: 0 }).limit).toBe(1);
  });

  it('reads the inserts in the same aggregate, under their own cap, as counts without their documents', () => {
    const q = profilerQuery({ limit: 50, insertLimit: 20, maxTimeMS: 5 });
    const cmd = profilerCommand(q) as { aggregate: string; pipeline: Record<string, unknown>[]; maxTimeMS: number };
    expect(cmd.aggregate).toBe('system.profile');
    expect(cmd.maxTimeMS).toBe(5);
    expect(cmd.pipeline.map((s) => Object.keys(s)[0])).toEqual(['$match', '$sort', '$limit', '$project', '$unionWith']);
    expect((q.filter.op as { $in: string[] }).$in).not.toContain('insert');
    expect(cmd.pipeline[2]).toEqual({ $limit: 50 });
    const union = cmd.pipeline[4]?.$unionWith as { coll: string; pipeline: Record<string, unknown>[] };
    expect(union.coll).toBe('system.profile');
    expect(union.pipeline[0]).toEqual({ $match: { ...q.filter, op: 'insert' } });
    expect(union.pipeline[2]).toEqual({ $limit: 20 });
    // the insert keeps its collection's name and a count, never its documents
    const project = union.pipeline[3]?.$project as Record<string, unknown>;
    expect(project.command).toEqual({ insert: '$command.insert' });
    expect(JSON.stringify(project)).not.toMatch(/"command":1|"command.documents":1/);
  });

  it('counts an insert entry by ninserted (mongod), and keeps the inserts to the span the queries cover', () => {
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
    const insert = (s: number, n: number) => ({
      op: 'insert',
      ns: 'shop.items',
      ts: at(s),
      ninserted: n,
      command: { insert: 'items' },
    });
    const query = (s: number) => ({ ...docs.secantus, ts: at(s) });
    const q = profilerQuery({ limit: 2, insertLimit: 3 });
    // the queries filled their cap from second 5 on: the insert at second 1 is older than what they cover
    const span = sameSpan([query(9), query(5), insert(8, 4), insert(6, 1), insert(1, 7)], q);
    expect(span.docs).toHaveLength(4);
    expect(span.note).toMatch(/up to their cap \(the newest 3\)/);
    const { records } = readProfileDocuments(span.docs);
    expect(records.filter((r) => r.op === 'insert').map((r) => r.ninserted)).toEqual([4, 1]);
    expect(WorkloadTally.of(records).dbs.get('shop')?.inserts.get('items')).toBe(5);
    // under both caps: everything, no note
    expect(sameSpan([query(9), insert(1, 2)], profilerQuery()).docs).toHaveLength(2);
    expect(sameSpan([query(9), insert(1, 2)], profilerQuery()).note).toBeNull();
  });

  it('uses the same scratch prefix as the read-only gate', () => {
    expect(SCRATCH_DB_PREFIX).toBe(SCRATCH_PREFIX);
  });
});
