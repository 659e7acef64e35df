/**
 * Pure helpers of the query-indexes rule: which index holds a shape's fields in the wrong order, which regexes no
 * index bounds, what a shape costs, and the createIndex command for a candidate. No I/O, no values.
 */
import { DYNAMIC_KEY } from '../../src/core/types';
import { formatDuration, formatNumber } from '../../src/core/format';
import type { IndexShape } from '../../src/lib/index-keys';
import { shellCall } from '../../src/lib/shell';
import type { Candidate } from '../../src/workload/candidates';
import { branchesOf, type Gap, serveBranch, type ServeResult } from '../../src/workload/serve';
import type { FilterShape, Predicate, QueryShape } from '../../src/workload/shape';
import type { ShapeData } from '../../src/collect/workload';
import { distinctOf, type FieldSelectivity } from './selectivity';

export const GAP_WORDS: Partial<Record<Gap, string>> = {
  'equality-not-leading': 'an equality field is missing or not among its leading fields',
  'in-memory-sort': 'the sort is done in memory',
  'range-before-sort': 'a range field comes before the sort fields',
  'in-too-large-to-merge-sort': 'its $in holds too many values to merge the sort',
  'range-missing': 'a range field is missing, so documents are fetched to test it',
  'range-past-unqueried': 'a field the query does not name comes before a range field, so every value of it is read',
  'partial-filter': 'it is a partial index whose filter may not cover the query',
  'collation-mismatch': "its collation is not the query's",
  'leading-field-unused': 'its first field is not queried',
};

export function gapWords(gaps: readonly Gap[]): string {
  return [...new Set(gaps)].map((g) => GAP_WORDS[g] ?? g).join('; ');
}

/** The first existing index (in listIndexes order) holding every field of a branch in an order that cannot serve it. */
export function wrongOrderOf(shape: QueryShape, indexes: readonly IndexShape[]): ServeResult | null {
  for (const branch of branchesOf(shape) ?? []) {
    for (const ix of indexes) {
      const r = serveBranch(branch, shape.sort, ix, shape.collation);
      if (r.wrongOrder && r.level !== 'full') return r;
    }
  }
  return null;
}

function predicatesOf(f: FilterShape): Predicate[] {
  return [...f.predicates, ...f.or.flat().flatMap(predicatesOf)];
}

/** The paths a regex no index bounds matches, case-insensitive and unanchored apart (sorted). */
export function unboundedRegexes(shape: QueryShape): { caseInsensitive: string[]; unanchored: string[] } {
  const ci = new Set<string>();
  const un = new Set<string>();
  for (const p of predicatesOf(shape)) {
    if (!p.regex) continue;
    if (p.regex.caseInsensitive) ci.add(p.path);
    else if (!p.regex.anchored) un.add(p.path);
  }
  return { caseInsensitive: [...ci].sort(), unanchored: [...un].sort() };
}

/** Documents read and not returned per counted call; null when the source gave no counts. */
export function wastedPerCall(s: ShapeData): number | null {
  if (s.counted === 0 || s.docsExamined === null || s.nreturned === null) return null;
  return Math.max(0, s.docsExamined - s.nreturned) / s.counted;
}

/** Impact for ranking: documents read and not returned in all, else calls × time (calls alone without times). */
export function impactOf(s: ShapeData): number {
  const wasted = wastedPerCall(s);
  if (wasted !== null) return wasted * s.counted;
  return s.calls * Math.max(1, s.totalMillis ?? 1);
}

/** "3 calls" and their time, for messages. */
export function callsText(s: ShapeData): { calls: string; time: string } {
  const calls = `${formatNumber(s.calls)} call${s.calls === 1 ? '' : 's'}`;
  const time = s.totalMillis === null ? 'time not recorded' : `${formatDuration(s.totalMillis)} in all`;
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
