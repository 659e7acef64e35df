import { describe, expect, it } from 'vitest';
import { SCRATCH_PREFIX } from '../../src/adapters/read-only';
import { APP_NAME as ADVISOR_APP_NAME, SCRATCH_PREFIX as SCRATCH_DB_PREFIX } from '../../src/core/names';
import { MAX_PROFILE_ENTRIES, profilerQuery, readProfileDocuments } from '../../src/workload/profiler';
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

  it('uses the same scratch prefix as the read-only gate', () => {
    expect(SCRATCH_DB_PREFIX).toBe(SCRATCH_PREFIX);
  });
});
