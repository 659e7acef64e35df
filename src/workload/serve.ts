/**
 * Which index serves a query shape, and how well, read from the key pattern alone (no server): the equality fields
 * as its leading fields, then the sort read from the index in its direction or the exact reverse, then the range
 * fields (MongoDB's ESR guideline, https://www.mongodb.com/docs/manual/tutorial/equality-sort-range-guideline/, and
 * "Use Indexes to Sort Query Results", https://www.mongodb.com/docs/manual/tutorial/sort-results-with-indexes/).
 * Used on live indexes and, offline, on a spec's declared ones (`lint --queries`).
 */
import { specialKind, type IndexShape } from '../lib/index-keys';
import type { Collation, FilterShape, InBucket, Predicate, QueryShape, SortKey } from './shape';

export type ServeLevel = 'full' | 'partial' | 'none';

/** What keeps an index from serving a shape fully. */
export type Gap =
  /** An equality field is missing from the index, or comes after a non-equality field. */
  | 'equality-not-leading'
  /** The sort is not read from the index: the server sorts in memory. */
  | 'in-memory-sort'
  /** A range field sits before the sort fields (the ER-S order): selective ranges may want it, but it sorts. */
  | 'range-before-sort'
  /** Enough `$in` values before the sort that the server no longer merges point scans (over 200). */
  | 'in-too-large-to-merge-sort'
  /** A range field is missing from the index: documents are fetched to test it. */
  | 'range-missing'
  /** A key field the query does not name sits before a range field: the scan reads its every value. */
  | 'range-past-unqueried'
  /** The index's first field is neither queried nor the sort's first key. */
  | 'leading-field-unused'
  /** Hidden: the planner ignores it. */
  | 'hidden'
  /** A text, geo, hashed or wildcard index: not judged here. */
  | 'special-index'
  /** A partial index: the shape keeps no values, so whether its filter covers the query is unknown. */
  | 'partial-filter'
  /** The index's collation is not the query's: string bounds and the sort cannot come from it. */
  | 'collation-mismatch';

export interface ServeResult {
  index: string;
  level: ServeLevel;
  gaps: Gap[];
  /** The index's leading fields the query fixes by equality. */
  equalityPrefix: string[];
  /** The index holds every field the shape needs, in an order that cannot serve it fully. */
  wrongOrder: boolean;
}

/** A conjunction of predicates: a shape, or one branch of its `$or`s. */
export type Branch = Predicate[];

/** The most branches an `$or` expands to before it is judged as a whole (`$or`s of `$or`s multiply). */
export const MAX_BRANCHES = 64;

/** Whether an index can bound a predicate: not a regex that is unanchored or case-insensitive. */
export function boundable(p: Predicate): boolean {
  return !p.regex || (p.regex.anchored && !p.regex.caseInsensitive);
}

function mergeInto(out: Map<string, Predicate>, p: Predicate): void {
  const had = out.get(p.path);
  if (!had) return void out.set(p.path, p);
  const role = had.role === 'equality' || p.role === 'equality' ? 'equality' : 'range';
  out.set(p.path, { ...had, role, ops: { ...had.ops, ...p.ops } });
}

/**
 * The conjunctions a filter stands for: its own predicates with one branch of each `$or`. null when they pass
 * MAX_BRANCHES.
 */
export function branchesOf(f: FilterShape): Branch[] | null {
  let acc: Predicate[][] = [f.predicates];
  for (const group of f.or) {
    const next: Predicate[][] = [];
    for (const branch of group) {
      const subs = branchesOf(branch);
      if (!subs) return null;
      for (const a of acc) for (const s of subs) next.push([...a, ...s]);
      if (next.length > MAX_BRANCHES) return null;
    }
    acc = next;
  }
  return acc.map((preds) => {
    const m = new Map<string, Predicate>();
    for (const p of preds) mergeInto(m, p);
    return [...m.values()];
  });
}

const LEAST_VALUES: Record<InBucket, number> = { '1': 1, '2-10': 2, '11-200': 11, '>200': 201 };

/** The fewest point scans the equality prefix stands for (the product of its `$in` sizes' lower bounds). */
export function leastPoints(preds: readonly Predicate[]): number {
  return preds.reduce((n, p) => n * LEAST_VALUES[p.in ?? '1'], 1);
}

/** The server merges up to 200 point scans into one sorted stream (internalQueryMaxScansToExplode). */
export const MAX_MERGED_SCANS = 200;

interface Fields {
  eq: Map<string, Predicate>;
  range: Map<string, Predicate>;
  sort: SortKey[];
  /** Fields the index cannot bound or sort by under another collation. */
  blocked: Set<string>;
}

const COLLATION_DEFAULTS: Readonly<Record<string, unknown>> = {
  strength: 3,
  caseLevel: false,
  caseFirst: 'off',
  numericOrdering: false,
  alternate: 'non-ignorable',
  maxVariable: 'punct',
  normalization: false,
  backwards: false,
};

/** Whether two collations compare alike: both simple, or the same settings once defaults are filled in. */
export function sameCollation(a?: Readonly<Record<string, unknown>>, b?: Readonly<Record<string, unknown>>): boolean {
  if (!a || !b) return !a && !b;
  const keys = new Set([...Object.keys(COLLATION_DEFAULTS), 'locale']);
  return [...keys].every((k) => (a[k] ?? COLLATION_DEFAULTS[k]) === (b[k] ?? COLLATION_DEFAULTS[k]));
}

/** Whether a predicate may compare strings: string, object or array operands, or operands of unknown type. */
function mayCompareStrings(p: Predicate): boolean {
  const types = Object.values(p.ops).flat();
  return types.length === 0 || types.some((t) => t === 'string' || t === 'object' || t === 'array' || t === 'regex');
}

/**
 * The fields an index can use. With a collation, its keys are not in the byte order a regex prefix needs: a regex
 * gets no bounds. Under a collation other than the query's, string comparisons and the sort get none either.
 */
function fieldsOf(branch: Branch, sort: readonly SortKey[], ix: IndexShape, collation?: Collation): Fields {
  const eq = new Map<string, Predicate>();
  const range = new Map<string, Predicate>();
  const blocked = new Set<string>();
  const mismatch = !sameCollation(collation, ix.collation);
  for (const p of branch) {
    if (mismatch && mayCompareStrings(p)) blocked.add(p.path);
    else if (p.role === 'equality') eq.set(p.path, p);
    else if (boundable(p) && !(ix.collation && p.regex)) range.set(p.path, p);
  }
  const sorted = sort.filter((k) => !eq.has(k.path));
  if (mismatch) for (const k of sorted) blocked.add(k.path);
  return { eq, range, sort: sorted, blocked };
}

/** Reads the sort keys from `from` on; the index position after them, or -1 when the index does not give the sort. */
function sortEnd(key: [string, number][], from: number, f: Fields): number {
  let j = from;
  let sign = 0;
  for (const k of f.sort) {
    while (j < key.length && f.eq.has(key[j]?.[0] ?? '') && key[j]?.[0] !== k.path) j++;
    const field = key[j];
    if (!field || field[0] !== k.path) return -1;
    const s = Math.sign(field[1]) * k.direction;
    if (sign !== 0 && s !== sign) return -1;
    sign = s;
    j++;
  }
  return j;
}

function numericKey(ix: IndexShape): [string, number][] {
  return Object.entries(ix.key).map(([k, v]) => [k, typeof v === 'number' ? v : Number(v)]);
}

/** How well one B-tree index serves one conjunction sorted by `sort`, under the query's collation (none: simple). */
export function serveBranch(
  branch: Branch,
  sort: readonly SortKey[],
  ix: IndexShape,
  collation?: Collation,
): ServeResult {
  const none = (gaps: Gap[]): ServeResult => ({
    index: ix.name,
    level: 'none',
    gaps,
    equalityPrefix: [],
    wrongOrder: false,
  });
  if (specialKind(ix)) return none(['special-index']);
  if (ix.hidden) return none(['hidden']);
  const f = fieldsOf(branch, sort, ix, collation);
  const key = numericKey(ix);
  let i = 0;
  while (i < key.length && f.eq.has(key[i]?.[0] ?? '')) i++;
  const prefix = key.slice(0, i).map(([k]) => k);
  const sortBlocked = f.sort.some((k) => f.blocked.has(k.path));
  const end = f.sort.length ? (sortBlocked ? -1 : sortEnd(key, i, f)) : i;
  const first = key[0]?.[0] ?? '';
  if (f.blocked.has(first)) return none(['collation-mismatch']);
  if (!f.eq.has(first) && !f.range.has(first) && !f.sort.some((k) => k.path === first)) {
    return none(['leading-field-unused']);
  }
  // Without a bounded first field, the planner uses the index only to read the sort.
  const usable = i > 0 || f.range.has(first) || (f.sort.length > 0 && end > 0);
  const gaps: Gap[] = [];
  const after = new Set(key.slice(Math.max(end, i)).map(([k]) => k));
  // With a sort, an $in past 200 values cannot be merged: after the sort, it serves as a range would.
  const asRange = (p: Predicate): boolean => f.sort.length > 0 && p.in === '>200' && after.has(p.path);
  if ([...f.eq.values()].some((p) => !prefix.includes(p.path) && !asRange(p))) gaps.push('equality-not-leading');
  const merged = leastPoints(prefix.map((k) => f.eq.get(k) as Predicate)) <= MAX_MERGED_SCANS;
  if (f.sort.length && end >= 0 && !merged) gaps.push('in-too-large-to-merge-sort');
  if (f.sort.length && (end < 0 || !merged)) {
    gaps.push('in-memory-sort');
    if (f.range.has(key[i]?.[0] ?? '')) gaps.push('range-before-sort');
  }
  gaps.push(...rangeGaps(key.slice(i), f));
  if (ix.partial) gaps.push('partial-filter');
  if (f.blocked.size) gaps.push('collation-mismatch');
  const needed = [...f.eq.keys(), ...f.sort.map((k) => k.path), ...f.range.keys()];
  const holdsAll = needed.every((k) => key.some(([field]) => field === k));
  const notOrder = new Set<Gap>(['partial-filter', 'in-too-large-to-merge-sort', 'range-past-unqueried']);
  const orderGaps = f.blocked.size ? [] : gaps.filter((g) => !notOrder.has(g));
  return {
    index: ix.name,
    level: !usable ? 'none' : gaps.length ? 'partial' : 'full',
    gaps,
    equalityPrefix: prefix,
    wrongOrder: holdsAll && orderGaps.length > 0 && !gaps.includes('in-too-large-to-merge-sort'),
  };
}

/**
 * Where the ranges stand among the key fields past the equality prefix (`rest`). A range is bounded by a key field
 * reached through sort and range fields only: after the sort, or a sort key itself (`ts` of {type: 1, ts: 1} for a
 * type, a time range and a sort by time: one ordered scan between the bounds). A field the query does not name before
 * it (`customerId` of {status: 1, customerId: 1, createdAt: 1} for a status and a date range) makes the scan read
 * every value of that field between the bounds; a range field the index lacks is tested on the documents.
 */
function rangeGaps(rest: readonly (readonly [string, unknown])[], f: Fields): Gap[] {
  const held = new Set(rest.map(([k]) => k));
  const bounded = new Set<string>();
  for (const [k] of rest) {
    if (!f.range.has(k) && !f.sort.some((s) => s.path === k)) break;
    bounded.add(k);
  }
  const gaps = new Set<Gap>();
  for (const k of f.range.keys()) {
    if (!held.has(k)) gaps.add('range-missing');
    else if (!bounded.has(k)) gaps.add('range-past-unqueried');
  }
  return [...gaps];
}

const RANK: Record<ServeLevel, number> = { none: 0, partial: 1, full: 2 };

function better(a: ServeResult, b: ServeResult, ixs: Map<string, number>): boolean {
  if (RANK[a.level] !== RANK[b.level]) return RANK[a.level] > RANK[b.level];
  if (a.gaps.length !== b.gaps.length) return a.gaps.length < b.gaps.length;
  if (a.equalityPrefix.length !== b.equalityPrefix.length) return a.equalityPrefix.length > b.equalityPrefix.length;
  const la = ixs.get(a.index) ?? 0;
  const lb = ixs.get(b.index) ?? 0;
  return la !== lb ? la < lb : a.index < b.index;
}

export interface ShapeServe {
  /** The weakest of the branches: an `$or` is served only as well as its worst-served branch. */
  level: ServeLevel;
  /** Per conjunction (one for a shape without `$or`): the index that serves it best, or null with none usable. */
  branches: (ServeResult | null)[];
}

/** The best of `indexes` for each branch of a shape, and the shape's level. */
export function serveShape(shape: QueryShape, indexes: readonly IndexShape[]): ShapeServe {
  const branches = branchesOf(shape);
  if (!branches) return { level: 'none', branches: [] };
  const sizes = new Map(indexes.map((ix) => [ix.name, Object.keys(ix.key).length]));
  const best = branches.map((b) => {
    let top: ServeResult | null = null;
    for (const ix of indexes) {
      const r = serveBranch(b, shape.sort, ix, shape.collation);
      if (r.level !== 'none' && (!top || better(r, top, sizes))) top = r;
    }
    return top;
  });
  const levels = best.map((r) => r?.level ?? 'none');
  const level = levels.reduce<ServeLevel>((lv, l) => (RANK[l] < RANK[lv] ? l : lv), 'full');
  return { level, branches: best };
}
