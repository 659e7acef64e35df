/**
 * Index candidates from the shapes a workload ran: Equality, Sort, Range per shape
 * (https://www.mongodb.com/docs/manual/tutorial/equality-sort-range-guideline/), merged per collection so one index
 * serves several shapes where it can, never one an existing index already serves (serve.ts). A candidate is a
 * proposal to time on a scratch copy, not a verdict: docs/workload.md says what is chosen and why.
 */
import type { IndexShape } from '../lib/index-keys';
import { keyOfEntries } from '../lib/names-as-data';
import { boundable, branchesOf, leastPoints, MAX_MERGED_SCANS, serveBranch, serveShape, type Branch } from './serve';
import { canonical, type Collation, type Predicate, type QueryShape, type SortKey } from './shape';

export interface CandidateOptions {
  /**
   * How selective an equality on a field of a collection is, higher first: the query-indexes rule gives the distinct
   * values counted on the collection's sample. Unknown fields count as 0, after the known ones; ties go by name.
   */
  selectivity?: (field: string, db: string, coll: string) => number | undefined;
  /** A shape's weight for ranking (e.g. its total time from statsByShape); 1 by default. */
  weight?: (shapeId: string) => number;
  /** The most candidates proposed per collection (default 3: each index costs every write and cache). */
  maxPerCollection?: number;
}

/** Each index taxes every insert, every update of its fields and the cache: a few, reviewed, beat many. */
export const DEFAULT_MAX_PER_COLLECTION = 3;

/** Atlas Performance Advisor proposes no index over 16 fields (MongoDB's own limit is 32). */
export const MAX_INDEX_FIELDS = 16;

export type IndexKey = Record<string, 1 | -1>;

export interface Candidate {
  db: string;
  coll: string;
  key: IndexKey;
  /** MongoDB's default name for the key (`status_1_createdAt_-1`). */
  name: string;
  /** The shape ids it serves fully, sorted. */
  serves: string[];
  /** Sum of the weights of those shapes. */
  weight: number;
  /** E-R-S: the range before the sort, for a selective range (an in-memory sort of few documents); to be timed. */
  rangeFirst?: { key: IndexKey; name: string };
  /** Build it with this collation: the one its shapes query under (string bounds and sorts need it). */
  collation?: Collation;
}

export type SkipReason =
  /** An existing index serves the shape fully. */
  | 'served'
  /** `$text`, a geo operator or stage, or an Atlas Search stage: another kind of index answers it. */
  | 'text-or-geo'
  /** Nothing in the shape bounds an index: an unanchored or case-insensitive regex, `$expr`, `$where`… */
  | 'no-indexable-field'
  /** An `$or` with a branch no index can bound: the server scans the collection for it anyway. */
  | 'or-branch-unindexable'
  /** `$or`s that expand past serve.ts's MAX_BRANCHES conjunctions. */
  | 'too-many-branches'
  /** Only `_id`, which every collection indexes. */
  | 'id-only'
  /** Its candidate ranked below the per-collection cap. */
  | 'over-cap';

export interface Skipped {
  shapeId: string;
  db: string;
  coll: string;
  reason: SkipReason;
  /** The index that serves it, for `served`. */
  index?: string;
}

/** Something advice leaves out of a shape that still got (or did not get) a candidate. */
export interface Flag {
  shapeId: string;
  path?: string;
  /** `unbounded-regex`: unanchored or case-insensitive, it scans the whole index; else the unindexable operator. */
  what: string;
}

export interface Advice {
  candidates: Candidate[];
  skipped: Skipped[];
  flags: Flag[];
}

/** MongoDB's default index name: each field and direction joined with `_`. */
export function indexName(key: IndexKey): string {
  return Object.entries(key)
    .map(([k, v]) => `${k}_${v}`)
    .join('_');
}

const TEXT_OR_GEO = new Set([
  '$text',
  '$near',
  '$nearSphere',
  '$geoWithin',
  '$geoIntersects',
  '$within',
  '$geoNear',
  '$search',
  '$searchMeta',
  '$vectorSearch',
]);

type Selectivity = (field: string) => number;

function bySelectivity(sel: Selectivity): (a: Predicate, b: Predicate) => number {
  return (a, b) => sel(b.path) - sel(a.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

interface Groups {
  eq: Predicate[];
  sort: SortKey[];
  range: Predicate[];
}

/**
 * The E, S and R fields of a conjunction. With a sort, an `$in` of over 200 values goes with the ranges, after the
 * sort: the server would sort in memory otherwise (serve.ts reads it so too). Several smaller `$in`s whose product
 * passes 200 stay first: rare, and serve.ts says `in-too-large-to-merge-sort` for them.
 */
function groupsOf(branch: Branch, sort: readonly SortKey[], sel: Selectivity): Groups {
  const order = bySelectivity(sel);
  const eq: Predicate[] = [];
  const range: Predicate[] = [];
  for (const p of [...branch].filter((x) => x.role === 'equality').sort(order)) {
    if (sort.length && leastPoints([p]) > MAX_MERGED_SCANS) range.push(p);
    else eq.push(p);
  }
  const eqPaths = new Set(eq.map((p) => p.path));
  range.push(...branch.filter((p) => p.role === 'range' && boundable(p)));
  range.sort(order);
  const sortKeys = sort.filter((k) => !eqPaths.has(k.path));
  const sortPaths = new Set(sortKeys.map((k) => k.path));
  return { eq, sort: sortKeys, range: range.filter((p) => !sortPaths.has(p.path)) };
}

function keyOf(parts: [string, 1 | -1][]): IndexKey {
  // names as data: `k in {}` is true for `constructor`, and `key.__proto__ = d` sets no key
  return keyOfEntries(parts.slice(0, MAX_INDEX_FIELDS));
}

/** The ESR key of a conjunction, and its ER-S variant when a range meets a sort. */
export function esrKeys(branch: Branch, sort: readonly SortKey[], sel: Selectivity): { esr: IndexKey; ers?: IndexKey } {
  const g = groupsOf(branch, sort, sel);
  const e = g.eq.map((p): [string, 1] => [p.path, 1]);
  const s = g.sort.map((k): [string, 1 | -1] => [k.path, k.direction]);
  const r = g.range.map((p): [string, 1] => [p.path, 1]);
  const esr = keyOf([...e, ...s, ...r]);
  return s.length && r.length ? { esr, ers: keyOf([...e, ...r, ...s]) } : { esr };
}

interface Use {
  shapeId: string;
  branch: Branch;
  sort: readonly SortKey[];
  collation?: Collation;
}

interface Draft {
  key: IndexKey;
  ers?: IndexKey;
  uses: Use[];
  collation?: Collation;
}

function servesAll(key: IndexKey, uses: readonly Use[], collation: Collation | undefined): boolean {
  const ix: IndexShape = { name: indexName(key), key, ...(collation ? { collation } : {}) };
  return uses.every((u) => serveBranch(u.branch, u.sort, ix, u.collation).level === 'full');
}

/** Every filter of a shape: itself and each branch of its `$or`s, nested ones included. */
function filtersOf(shape: QueryShape): Pick<QueryShape, 'predicates' | 'unindexable'>[] {
  const out: Pick<QueryShape, 'predicates' | 'unindexable'>[] = [];
  const walk = (f: Pick<QueryShape, 'predicates' | 'unindexable' | 'or'>): void => {
    out.push(f);
    for (const g of f.or) for (const b of g) walk(b);
  };
  walk(shape);
  return out;
}

function unindexableOf(shape: QueryShape): QueryShape['unindexable'] {
  return filtersOf(shape).flatMap((f) => f.unindexable);
}

function flagsOf(shape: QueryShape): Flag[] {
  const flags: Flag[] = [];
  const shapeId = shape.id;
  for (const p of filtersOf(shape).flatMap((f) => f.predicates)) {
    if (!boundable(p) || (shape.collation && p.regex)) flags.push({ shapeId, path: p.path, what: 'unbounded-regex' });
  }
  for (const u of unindexableOf(shape)) flags.push({ shapeId, ...(u.path ? { path: u.path } : {}), what: u.op });
  return flags;
}

/** One draft per conjunction no existing index serves fully; or why the shape gets none. */
type Why = Omit<Skipped, 'db' | 'coll' | 'shapeId'>;

function draftsOf(shape: QueryShape, existing: readonly IndexShape[], sel: Selectivity): Draft[] | Why {
  if (unindexableOf(shape).some((u) => TEXT_OR_GEO.has(u.op))) return { reason: 'text-or-geo' };
  const served = serveShape(shape, existing);
  if (served.level === 'full') return { reason: 'served', index: served.branches[0]?.index ?? '' };
  const branches = branchesOf(shape);
  if (!branches) return { reason: 'too-many-branches' };
  const drafts: Draft[] = [];
  for (const branch of branches) {
    if (existing.some((ix) => serveBranch(branch, shape.sort, ix, shape.collation).level === 'full')) continue;
    // Under a collation, a regex gets no bounds from any index the query can use (serve.ts).
    const usable = shape.collation ? branch.filter((p) => !p.regex) : branch;
    const { esr, ers } = esrKeys(usable, shape.sort, sel);
    const fields = Object.keys(esr);
    if (fields.length === 0) return { reason: branches.length > 1 ? 'or-branch-unindexable' : 'no-indexable-field' };
    if (fields.length === 1 && fields[0] === '_id') return { reason: 'id-only' };
    const collation = shape.collation ? { collation: shape.collation } : {};
    const use: Use = { shapeId: shape.id, branch, sort: shape.sort, ...collation };
    drafts.push({ key: esr, ...(ers ? { ers } : {}), uses: [use], ...collation });
  }
  return drafts;
}

const size = (k: IndexKey): number => Object.keys(k).length;

/** How many leading fields of a draft every one of its uses fixes by equality: their order is free. */
function equalityBlock(d: Draft): number {
  const fields = Object.keys(d.key);
  let n = 0;
  const isEq = (u: Use, f: string): boolean => u.branch.some((p) => p.path === f && p.role === 'equality');
  while (n < fields.length && d.uses.every((u) => isEq(u, fields[n] ?? ''))) n++;
  return n;
}

/** The key with its first `block` fields reordered so those in `first` lead (stable otherwise). */
function leadWith(key: IndexKey, block: number, first: ReadonlySet<string>): IndexKey {
  const entries = Object.entries(key);
  const head = entries.slice(0, block);
  const lead = [...head.filter(([k]) => first.has(k)), ...head.filter(([k]) => !first.has(k))];
  return Object.fromEntries<1 | -1>([...lead, ...entries.slice(block)]);
}

/**
 * Whether `into` can serve `d`'s conjunctions too: as it is, or with its leading equality fields reordered to put
 * `d`'s first (equality order is free for `into`'s own shapes). Updates `into` when it can.
 */
function absorb(into: Draft, d: Draft): boolean {
  if (size(into.key) < size(d.key)) return false;
  if (servesAll(into.key, d.uses, into.collation)) {
    into.uses.push(...d.uses);
    return true;
  }
  const block = equalityBlock(into);
  const dEq = new Set(d.uses.flatMap((u) => u.branch.filter((p) => p.role === 'equality').map((p) => p.path)));
  const key = leadWith(into.key, block, dEq);
  if (!servesAll(key, into.uses, into.collation) || !servesAll(key, d.uses, into.collation)) return false;
  into.key = key;
  if (into.ers) into.ers = leadWith(into.ers, block, dEq);
  into.uses.push(...d.uses);
  return true;
}

/** Identical keys become one; then, longest first, a draft another serves fully joins it (prefixes included). */
function merge(drafts: readonly Draft[]): Draft[] {
  const byName = new Map<string, Draft>();
  for (const d of drafts) {
    const id = `${indexName(d.key)} ${canonical(d.collation ?? null)}`;
    const had = byName.get(id);
    if (had) had.uses.push(...d.uses);
    else byName.set(id, { ...d, uses: [...d.uses] });
  }
  const list = [...byName.values()].sort((a, b) => size(b.key) - size(a.key) || cmpDraft(a, b));
  const kept: Draft[] = [];
  for (const d of list) if (!kept.some((k) => absorb(k, d))) kept.push(d);
  return kept;
}

function cmpText(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/** By name, then collation (none first): the same key may be proposed under two collations. */
function cmpDraft(a: Pick<Draft, 'key' | 'collation'>, b: Pick<Draft, 'key' | 'collation'>): number {
  const col = (d: Pick<Draft, 'collation'>): string => (d.collation ? canonical(d.collation) : '');
  return cmpText(indexName(a.key), indexName(b.key)) || cmpText(col(a), col(b));
}

function toCandidate(db: string, coll: string, d: Draft, weight: (id: string) => number): Candidate {
  const serves = [...new Set(d.uses.map((u) => u.shapeId))].sort();
  const c: Candidate = { db, coll, key: d.key, name: indexName(d.key), serves, weight: 0 };
  c.weight = serves.reduce((sum, id) => sum + weight(id), 0);
  if (d.ers && indexName(d.ers) !== c.name) c.rangeFirst = { key: d.ers, name: indexName(d.ers) };
  if (d.collation) c.collation = d.collation;
  return c;
}

function collectionAdvice(
  group: readonly QueryShape[],
  existing: readonly IndexShape[],
  opts: Required<CandidateOptions>,
  out: Advice,
): void {
  const first = group[0];
  if (!first) return;
  const { db, coll } = first;
  const sel: Selectivity = (f) => opts.selectivity(f, db, coll) ?? 0;
  const drafts: Draft[] = [];
  for (const shape of group) {
    out.flags.push(...flagsOf(shape));
    const r = draftsOf(shape, existing, sel);
    if (Array.isArray(r)) drafts.push(...r);
    else out.skipped.push({ shapeId: shape.id, db, coll, ...r });
  }
  const ranked = merge(drafts)
    .map((d) => toCandidate(db, coll, d, opts.weight))
    .sort((a, b) => b.weight - a.weight || b.serves.length - a.serves.length || cmpDraft(a, b));
  const kept = ranked.slice(0, opts.maxPerCollection);
  out.candidates.push(...kept);
  const cut = new Set(ranked.slice(opts.maxPerCollection).flatMap((c) => c.serves));
  // An $or needs every branch's index: one cut leaves the shape unserved.
  for (const id of [...cut].sort()) out.skipped.push({ shapeId: id, db, coll, reason: 'over-cap' });
}

/**
 * Index candidates for the shapes of a workload, per collection: `indexesOf(db, coll)` gives the indexes that exist
 * (live) or are declared (a spec). Deterministic: the same shapes and options give the same advice.
 */
export function adviseIndexes(
  shapes: readonly QueryShape[],
  indexesOf: (db: string, coll: string) => readonly IndexShape[],
  options: CandidateOptions = {},
): Advice {
  const opts: Required<CandidateOptions> = {
    selectivity: options.selectivity ?? (() => undefined),
    weight: options.weight ?? (() => 1),
    maxPerCollection: options.maxPerCollection ?? DEFAULT_MAX_PER_COLLECTION,
  };
  const groups = new Map<string, Map<string, QueryShape>>();
  for (const s of shapes) {
    const k = JSON.stringify([s.db, s.coll]);
    const g = groups.get(k) ?? new Map<string, QueryShape>();
    g.set(s.id, s);
    groups.set(k, g);
  }
  const out: Advice = { candidates: [], skipped: [], flags: [] };
  for (const k of [...groups.keys()].sort()) {
    const group = [...(groups.get(k)?.values() ?? [])];
    const first = group[0];
    if (first) collectionAdvice(group, indexesOf(first.db, first.coll), opts, out);
  }
  return out;
}
