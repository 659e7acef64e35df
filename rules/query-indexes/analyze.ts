/**
 * Pure helpers of the query-indexes rule: what a shape costs and the createIndex command for a candidate. What the
 * indexes allow for a shape is the one judge's (src/workload/judge.ts), shared with `lint --queries`. No I/O or
 * values.
 */
import { DYNAMIC_KEY } from '../../src/core/types';
import { formatDuration, formatNumber } from '../../src/core/format';
import { shellCall } from '../../src/lib/shell';
import type { ShapeData } from '../../src/collect/workload';
import { distinctOf, type FieldSelectivity, fieldSelectivity } from './selectivity';
import { dataOf } from '../../src/core/collector';
import type { DatabaseSnapshot } from '../../src/core/types';
import { adviseIndexes, type Advice, type Candidate } from '../../src/workload/candidates';

/** Documents read and not returned per counted call; null when the source gave no counts. */
export function wastedPerCall(s: ShapeData): number | null {
  if (s.counted === 0 || s.docsExamined === null || s.nreturned === null) return null;
  return Math.max(0, s.docsExamined - s.nreturned) / s.counted;
}

/**
 * Impact for ranking, the work an index would save: documents read and not returned over the calls that counted them,
 * scaled to every call (calls × examined-not-returned per call, as Atlas Performance Advisor ranks by wasted reads);
 * without counts, the time in all (already calls × time per call: never multiplied by the calls again); without
 * times, the calls.
 */
export function impactOf(s: ShapeData): number {
  const wasted = wastedPerCall(s);
  if (wasted !== null) return wasted * s.calls;
  return s.totalMillis ?? s.calls;
}

/** "3 calls" and their time, for messages. */
export function callsText(s: ShapeData): { calls: string; time: string } {
  const calls = `${formatNumber(s.calls)} call${s.calls === 1 ? '' : 's'}`;
  // A $lookup's time is its pipeline's, counted once on the pipeline's shape (src/workload/tally.ts).
  const untimed = s.shape.command === 'lookup' ? "timed as a part of its pipeline's shape" : 'time not recorded';
  const time = s.totalMillis === null ? untimed : `${formatDuration(s.totalMillis)} in all`;
  return { calls, time };
}

/** Whether an index key names a map's keys (`bySku.<key>`): no B-tree index can be built per key. */
export function namesMapKey(c: Candidate): boolean {
  return Object.keys(c.key).some((k) => k.split('.').includes(DYNAMIC_KEY));
}

/** `db.orders.createIndex({ status: 1, createdAt: -1 }, { name: "status_1_createdAt_-1" })`. */
export function createIndexCommand(c: Candidate): string {
  return shellCall(c.db, c.coll, 'createIndex', c.key, {
    name: c.name,
    ...(c.collation ? { collation: c.collation } : {}),
  });
}

/**
 * The distinct values the sample counted for a candidate's fields (what ordered its equality fields, most selective
 * first) and the documents they were counted over, as evidence; nothing when no field was counted.
 */
export function distinctEvidence(c: Candidate, data: FieldSelectivity | undefined): Record<string, string | number> {
  const counted = Object.keys(c.key).flatMap((f) => {
    const n = distinctOf(data, f);
    return n === undefined ? [] : [[f, n] as const];
  });
  if (!data || counted.length === 0) return {};
  return { distinctOnSample: JSON.stringify(Object.fromEntries(counted)), sampledDocuments: data.documents };
}

/**
 * The advice on a database's workload, computed alike for the findings and the tables: candidates weighted by impact
 * (the work they would save), equality fields most selective first on the collection's sample, at most
 * maxPerCollection per collection. One function, so the "Indexes proposed" table lists exactly the findings' indexes.
 */
export function databaseAdvice(db: DatabaseSnapshot, shapes: readonly ShapeData[], maxPerCollection: number): Advice {
  const colls = new Map(db.collections.map((c) => [c.name, c]));
  const weights = new Map(shapes.map((s) => [s.id, impactOf(s)]));
  return adviseIndexes(
    shapes.map((s) => s.shape),
    (_db, coll) => colls.get(coll)?.indexes ?? [],
    {
      weight: (id) => weights.get(id) ?? 1,
      maxPerCollection,
      selectivity: (field, _db, coll) => distinctOf(dataOf(fieldSelectivity, colls.get(coll)), field),
    },
  );
}
