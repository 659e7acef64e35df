/**
 * The one judge of a query shape, behind every door: `lint --queries` offline and online (src/spec/queries.ts),
 * check/audit/mongosh's query-indexes (rules/query-indexes) and its tables. It decides once per shape what the indexes
 * allow (served, served in part with the gap, scanned, sorted in memory, bounded only by a regex) and the one index to
 * propose (the advice of candidates.ts); online, it sets the server's winning plan beside that verdict and says where
 * the two disagree. The plan is evidence about the plan the server chose, not about which indexes exist: a plan that
 * scans or sorts while an existing index could serve the shape is reported as what it did, naming that index.
 * Pure: no I/O, no values.
 */
import { type IndexShape, isKeyPrefix, prefixBlockers } from '../lib/index-keys';
import type { Advice, Candidate } from './candidates';
import { branchesOf, type Gap, serveBranch, type ServeResult, serveShape } from './serve';
import type { FilterShape, Predicate, QueryShape } from './shape';

/** The words for each gap, the one table every door prints them from (a gap without words is not shown). */
export const GAP_WORDS: Partial<Record<Gap, string>> = {
  'equality-not-leading': 'an equality field is missing from it or not among its leading fields',
  'in-memory-sort': 'the sort is done in memory',
  'range-before-sort': 'a range field comes before the sort fields',
  'in-too-large-to-merge-sort': 'its $in holds too many values to merge the sort from point scans',
  'range-missing': 'a range field is missing from it, so the documents are fetched to test it',
  'range-past-unqueried': 'a field the query does not name comes before a range field, so every value of it is read',
  'partial-filter': 'it is a partial index, whose filter may not cover the query',
  'collation-mismatch': "its collation is not the query's",
  'leading-field-unused': 'its first field is not queried',
};

/** The gaps' words, each once, joined with "; ". */
export function gapWords(gaps: readonly Gap[]): string {
  return [...new Set(gaps)].flatMap((g) => GAP_WORDS[g] ?? []).join('; ');
}

/** Every predicate of a filter, those of its `$or` branches included. */
export function predicatesOf(f: FilterShape): Predicate[] {
  return [...f.predicates, ...f.or.flat().flatMap(predicatesOf)];
}

export interface UnboundedRegexes {
  caseInsensitive: string[];
  unanchored: string[];
}

/** The paths a regex no index bounds matches, case-insensitive and unanchored apart (sorted). */
export function unboundedRegexes(shape: QueryShape): UnboundedRegexes {
  const ci = new Set<string>();
  const un = new Set<string>();
  for (const p of predicatesOf(shape)) {
    if (!p.regex) continue;
    if (p.regex.caseInsensitive) ci.add(p.path);
    else if (!p.regex.anchored) un.add(p.path);
  }
  return { caseInsensitive: [...ci].sort(), unanchored: [...un].sort() };
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

/** What the indexes allow for a shape. */
export type Verdict =
  /** An index serves every branch fully: nothing to report. */
  | { kind: 'served'; index: string }
  /** `$text`, geo or search: another kind of index answers it; not judged. */
  | { kind: 'not-judged' }
  /** Nothing but an unanchored or case-insensitive regex could bound it: reported once, as the regex. */
  | { kind: 'regex' }
  /** No index bounds it: the server reads the whole collection. */
  | { kind: 'scan' }
  /** An index bounds it but does not give its sort. */
  | { kind: 'sort'; index: string; gaps: Gap[] }
  /** An index bounds it only in part; `wrongOrder` when an index holds its fields in an order that cannot serve it. */
  | { kind: 'partial'; index: string; gaps: Gap[]; wrongOrder: ServeResult | null; unbounded: boolean };

/** What lint keeps of a shape's winning plan: its stage names and the names of the indexes it scans. */
export interface WinningPlan {
  stages: readonly string[];
  indexes: readonly string[];
}

/** Where the server's plan did worse than the existing indexes allow: what it did, and the index that could serve. */
export interface PlanDisagreement {
  did: 'scan' | 'sort';
  /** The indexes the plan scanned (none for a collection scan). */
  chose: string[];
  /** The existing index that serves the shape best by its key pattern. */
  couldServe: string;
}

export interface Judgement {
  verdict: Verdict;
  /** The paths of regexes no index can bound; reported beside the verdict, and alone when the verdict is `regex`. */
  regex: UnboundedRegexes;
  /** The one index to propose for the shape (from the advice every door computes alike), if any. */
  candidate?: Candidate;
  /** How the verdict was reached: from the key patterns, or from the server's winning plan (online). */
  basis: 'indexes' | 'plan';
  /** Online, where the plan did worse than the indexes allow. */
  plan?: PlanDisagreement;
}

/** The verdict the key patterns alone give (offline, and the reference a plan is compared with online). */
function byIndexes(shape: QueryShape, indexes: readonly IndexShape[], advice: Advice, candidate?: Candidate): Verdict {
  const skipped = advice.skipped.find((s) => s.shapeId === shape.id && s.db === shape.db && s.coll === shape.coll);
  if (skipped?.reason === 'text-or-geo') return { kind: 'not-judged' };
  const served = serveShape(shape, indexes);
  if (served.level === 'full') return { kind: 'served', index: served.branches[0]?.index ?? '' };
  const regexOnly =
    !candidate &&
    (skipped?.reason === 'no-indexable-field' || skipped?.reason === 'or-branch-unindexable') &&
    predicatesOf(shape).some((p) => p.regex);
  if (served.level === 'none') return regexOnly ? { kind: 'regex' } : { kind: 'scan' };
  const branches = served.branches.filter((b): b is ServeResult => b !== null);
  const sorting = branches.find((b) => b.gaps.includes('in-memory-sort'));
  const part = branches.find((b) => b.level === 'partial') ?? branches[0];
  const wrong = wrongOrderOf(shape, indexes);
  if (sorting && !wrong) return { kind: 'sort', index: sorting.index, gaps: sorting.gaps };
  if (!part) return { kind: 'scan' };
  const unbounded = part.equalityPrefix.length === 0 && part.gaps.includes('equality-not-leading');
  return { kind: 'partial', index: part.index, gaps: part.gaps, wrongOrder: wrong, unbounded };
}

/** The index the key patterns say serves the shape best, for a plan that did otherwise. */
function indexOf(v: Verdict): string | null {
  return v.kind === 'served' || v.kind === 'sort' || v.kind === 'partial' ? v.index : null;
}

/**
 * Judges one shape against the indexes that exist (or are declared) and, online, the server's winning plan. `advice`
 * is the advice computed once over every shape of the run (`adviseIndexes`): its candidate for this shape is the one
 * proposal, the same whichever door asks.
 */
export function judgeShape(
  shape: QueryShape,
  indexes: readonly IndexShape[],
  advice: Advice,
  plan?: WinningPlan,
): Judgement {
  const candidate = advice.candidates.find(
    (c) => c.db === shape.db && c.coll === shape.coll && c.serves.includes(shape.id),
  );
  const regex = unboundedRegexes(shape);
  const verdict = byIndexes(shape, indexes, advice, candidate);
  const base = { regex, ...(candidate ? { candidate } : {}) };
  if (!plan || verdict.kind === 'not-judged' || verdict.kind === 'regex') return { ...base, verdict, basis: 'indexes' };
  const could = indexOf(verdict);
  const chose = [...new Set(plan.indexes)];
  if (plan.stages.includes('COLLSCAN')) {
    // The plan scanned: the indexes allow no better (scan), or an index could have bounded it.
    if (!could) return { ...base, verdict: { kind: 'scan' }, basis: 'plan' };
    return { ...base, verdict, basis: 'plan', plan: { did: 'scan', chose: [], couldServe: could } };
  }
  if (plan.stages.includes('SORT')) {
    // An in-memory sort over no named index says too little to judge by: the key patterns judge.
    if (chose.length === 0) return { ...base, verdict, basis: 'indexes' };
    if (verdict.kind === 'sort' || verdict.kind === 'scan' || !could)
      return { ...base, verdict: { kind: 'sort', index: chose.join(', '), gaps: ['in-memory-sort'] }, basis: 'plan' };
    const gives = verdict.kind === 'served' || !verdict.gaps.includes('in-memory-sort');
    if (gives) return { ...base, verdict, basis: 'plan', plan: { did: 'sort', chose, couldServe: could } };
    return { ...base, verdict, basis: 'plan' };
  }
  // The plan bounded it with an index and read the sort from it: where the key patterns saw no such index (a scan or
  // a sort), the plan's index serves it.
  if (verdict.kind === 'scan' || verdict.kind === 'sort')
    return { ...base, verdict: { kind: 'served', index: chose.join(', ') }, basis: 'plan' };
  return { ...base, verdict, basis: 'plan' };
}

/**
 * Whether a shape can use an index, the judge's answer for a drop (index-usage's workload verdict and its drop proof's
 * shapes): one of its conjunctions is served by it, fully or in part (its leading field bounded or giving the sort),
 * or it is a distinct on its leading field (a DISTINCT_SCAN). A shape with too many `$or` branches to expand counts as
 * using it: nothing is concluded from it.
 */
export function canUseIndex(shape: QueryShape, ix: IndexShape): boolean {
  if (shape.distinctKey !== undefined && shape.distinctKey === Object.keys(ix.key)[0]) return true;
  const branches = branchesOf(shape);
  if (!branches) return true;
  return branches.some((b) => serveBranch(b, shape.sort, ix, shape.collation).level !== 'none');
}

/** Whether a verdict leaves work for an index (what a door reports; a served or unjudged shape gets nothing). */
export function needsIndex(j: Judgement): boolean {
  return j.verdict.kind === 'scan' || j.verdict.kind === 'sort' || j.verdict.kind === 'partial' || j.plan !== undefined;
}

/**
 * The existing indexes a proposal makes redundant prefixes of: the same leading fields and directions, nothing that
 * keeps them apart (unique, sparse, partial, TTL, collation: `prefixBlockers`), never `_id`. Atlas Performance Advisor
 * lists such an index with its drop advice beside the proposal; once the proposal is built, index-usage would call it
 * redundant on the next run, so the finding that proposes the index says so now.
 */
export function redundantPrefixesOf(candidate: Candidate, indexes: readonly IndexShape[]): IndexShape[] {
  const proposed: IndexShape = {
    name: candidate.name,
    key: candidate.key,
    ...(candidate.collation ? { collation: candidate.collation } : {}),
  };
  const size = Object.keys(candidate.key).length;
  return indexes.filter(
    (ix) =>
      ix.name !== '_id_' &&
      !('_id' in ix.key && Object.keys(ix.key).length === 1) &&
      Object.keys(ix.key).length < size &&
      isKeyPrefix(ix, proposed) &&
      prefixBlockers(ix, proposed).length === 0,
  );
}
