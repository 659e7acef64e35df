/**
 * Index proof on scratch (issue 20): an index is recommended only after replaying the queries actually run on a copy
 * of the collection, unhinted, without and with it; an index is dropped only after every shape of the collection was
 * replayed without it. Pure inputs, figures out: the calling rule writes the sentences. Commands hold real values:
 * they stay in memory, and nothing here returns or logs them (results are counts, names and ratios).
 */
import type { Doc } from '../adapters/types';
import { planFacts } from '../lib/explain';
import { valueAt } from '../lib/doc-path';
import { describeServerError } from '../lib/server-error';
import { formatKey, type IndexShape } from '../lib/index-keys';
import { formatDuration, formatNumber } from '../core/format';
import { sentence } from '../core/rule';
import type { RatioInterval, Verdict } from '../core/types';
import type { ConfirmContext } from './context';
import { bsonSizes, idKey } from './copy';
import { averageDocBytes } from './index';
import { judge, noisePercent, ratioOf } from './harness';
import { alternate, withoutId } from './trials';

/**
 * The defaults of the inputs below; the query-indexes rule makes each an option whose README cites its source.
 *
 * MongoDB's classic multi-planner runs each candidate plan for max(internalQueryPlanEvaluationWorks = 10,000 works,
 * internalQueryPlanEvaluationCollFraction = 0.3 × documents) or until one returns internalQueryPlanEvaluationMaxResults
 * = 101 results (src/mongo/db/query/query_knobs.cpp). A copy of 20,000 lets a trial end before the end of the copy.
 */
export const PROOF_DOCS = 20_000;
/** Below this many documents (and fewer than the collection holds) a trial reads the whole copy: plans tie. */
export const PLANNER_TRIAL_WORKS = 10_000;
/** Documents per timed insert batch of the write cost. */
export const INSERT_BATCH = 200;
/**
 * Examined must fall to at most this share (and a compound index beat its prefix by as much again): Dexter's
 * `--min-cost-savings-pct`, 50 by default (ankane/dexter lib/dexter/client.rb, lib/dexter/indexer.rb).
 */
export const EXAMINED_SHARE = 0.5;

export interface IndexSpec {
  key: Doc;
  name: string;
}

/** One replayed command's figures (one explain, executionStats, unhinted). */
export interface Replay {
  keysExamined: number;
  docsExamined: number;
  nReturned: number;
  /** Indexes the winning plan names (none: a collection scan). */
  indexes: string[];
  executionTimeMillis: number;
  /** Whether the winning plan sorts in memory (a SORT stage). */
  sortsInMemory?: boolean;
  /** Whether the counts include the `$lookup` stages' own (explain executed the join). */
  joinCounted?: boolean;
  /**
   * The join's own query (the `$lookup`'s foreign field matched against the local values this call brings to it),
   * explained on the arm's joined copy: counted where the server's explain of the pipeline counts nothing of the
   * `$lookup` stage. Not in `keysExamined`/`docsExamined` (see `work`).
   */
  join?: JoinFigures;
}

/** One explain of a join's own query (executionStats, unhinted). */
export interface JoinFigures {
  keysExamined: number;
  docsExamined: number;
  nReturned: number;
  indexes: string[];
  /** Local values the call brought to the join (the `$in`'s length). */
  values: number;
  /**
   * Times the query's counts are taken (absent: once). With an index on the foreign field the stage seeks once per
   * local document, where the query seeks each value once: the arm with a foreign-field candidate counts its query as
   * often as the most local documents sharing one value (`mostShared`), an upper bound of what the stage reads.
   */
  weight?: number;
}

/** Keys and documents a join's own query stands for (its counts, times its weight). */
export const joinWork = (j: JoinFigures | undefined): number =>
  j ? (j.keysExamined + j.docsExamined) * (j.weight ?? 1) : 0;

/** Keys and documents a replayed call examined: the pipeline's own, and its join's own query's when counted. */
export const work = (r: Replay): number => r.keysExamined + r.docsExamined + joinWork(r.join);

/** The most local documents that bring one value to the join (an array's elements each once; missing as null). */
export function mostShared(rows: readonly Doc[], path: string): number {
  const counts = new Map<string, number>();
  for (const d of rows) {
    const v = valueAt(d, path);
    const keys = new Set((Array.isArray(v) ? (v as unknown[]) : [v]).map((x) => idKey(x ?? null)));
    for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return Math.max(1, ...counts.values());
}

/** Whether a replayed call's plan, or its join's own query's, named the index. */
export const chose = (r: Replay, index: string): boolean =>
  r.indexes.includes(index) || (r.join?.indexes.includes(index) ?? false);

/**
 * What set the copy's size: the proof's own size (`docs`), the whole collection, the run's `maxDocs` when the user
 * chose it, the run's `maxBytes` over the average document, the run's default `maxDocs` for a caller that did not ask
 * past it (`defaultLimit`) or when that average is unknown (`unsized`: the byte bound cannot be kept past it).
 */
export type CopyBound = 'proofDocs' | 'collection' | 'maxDocs' | 'maxBytes' | 'defaultLimit' | 'unsized' | 'budget';

export interface Copy {
  /** Documents in the source collection (its `count`; 0 when the count failed). */
  sourceCount: number;
  /** Documents copied to each scratch collection. */
  copied: number;
  /** Documents the copy was planned to hold, and what set that number (`planProofCopy`). */
  planned: number;
  bound: CopyBound;
  /** Existing indexes rebuilt on the copy (`_id_` is always there). */
  rebuilt: string[];
  /** Existing indexes the scratch server could not rebuild, with the reason (names and server errors only). */
  notRebuilt: string[];
  /**
   * The copy went past its share of the budget because fewer documents could not decide (the planner's trial, or a
   * joined side copied whole), and the proof, measured, ended past its budget: it ended late rather than decide
   * nothing, and says so (`pastBudgetAsMeasured`).
   */
  pastBudget?: boolean;
}

export type ProofStatus = Verdict | 'not-run';

export interface IndexProof {
  status: ProofStatus;
  /** Why it did not run, or why it is inconclusive or refuted: safe to print (no values). */
  reason?: string;
  copy?: Copy;
  without?: Replay[];
  with?: Replay[];
  /** Instances whose winning plan, with the candidate, named it. */
  pickedCandidate?: number;
  /** Sum of keys + docs examined, with over without (exact). */
  examinedRatio?: number;
  /** With the prefix instead of the candidate (when one is given): figures, and candidate over prefix examined. */
  prefix?: { replays: Replay[]; examinedRatio: number };
  /** Time of every instance, with over without, timed in alternation. */
  time?: RatioInterval;
  /** Instances whose results were the same both ways (`_id`s, in order when the command sorts). */
  sameResults?: { checked: number; same: number };
  writeCost?: WriteCost;
  /**
   * What a supported verdict rests on: `examined` when every replayed call examined at most the share with the
   * candidate and the planner chose it unhinted on every call, the time being a second check the budget did not
   * complete; `examined and time` when the time was decided too. Absent on other verdicts.
   */
  basis?: 'examined' | 'examined and time' | 'time';
  /**
   * The joins copied (their foreign documents, the ones the copied local side joins to): one entry per `from`, with
   * the documents copied to each side's copy. Absent when the calls join nothing.
   */
  joins?: JoinCopy[];
  /**
   * Whether the join's reads were counted: by the replays' explain (`explain`: MongoDB gives the `$lookup` stages'
   * own counts), or by explaining each call's join's own query on the joined copies (`query`: for a server whose
   * explain counts nothing of the stage). Absent: not counted, so only the time can decide.
   */
  joinBasis?: 'explain' | 'query';
  /** Whether the candidate is on the joined collection (a `$lookup`'s foreign-field index). */
  foreign?: boolean;
  /** Calls replayed of those given (the budget may end the replays early: the verdict is on those replayed). */
  replayed?: number;
  /** Its measured time, when that passed its budget (pastBudgetAsMeasured). */
  late?: Late;
}

/** A joined collection's copy: the documents in each arm's copy, and which. */
export interface JoinCopy {
  from: string;
  copied: number;
  rebuilt: string[];
  /** Documents of the copy the replayed calls join to, when the copy was chosen by them (the rest: others). */
  reached?: number;
  /** Whether the copy holds fewer documents than the collection (a scan of it is shorter than in production). */
  partial?: boolean;
  pastBudget?: boolean;
}

export interface WriteCost {
  /** The candidate's size on the copy scaled to the source's count, or null with `sizeReason`. */
  bytes: number | null;
  sizeReason?: string;
  /** Insert time with over without the candidate, alternating batches of re-inserted copies. */
  insert?: RatioInterval;
  /** Why `insert` is absent: the inserts could not be timed (the budget ended first, no round completed). */
  insertReason?: string;
  batch: number;
}

export interface ProveIndexInput {
  /** The collection, as `db.collection`. */
  ns: string;
  existingIndexes: readonly Doc[];
  candidate: IndexSpec;
  prefix?: IndexSpec;
  /** Real commands of one query shape (find, aggregate, count, distinct, update, delete). Never returned. */
  instances: readonly Doc[];
  /** Documents to copy (default PROOF_DOCS). */
  docs?: number;
  /**
   * The collection the candidate is built on, when it is the `from` of a `$lookup` of the calls (a foreign-field
   * index); absent: the calls' own collection.
   */
  candidateOn?: string;
  /** The existing indexes of each joined collection, rebuilt on its copies (absent: none but `_id_`). */
  joinedIndexes?: Readonly<Record<string, readonly Doc[]>>;
  /** Measure the write cost (default true). */
  writeCost?: boolean;
  /** Documents per timed insert batch (default INSERT_BATCH). */
  insertBatch?: number;
  /** The share examined must fall to (default EXAMINED_SHARE). */
  examinedShare?: number;
  /** A copy below this and below the collection is inconclusive (default PLANNER_TRIAL_WORKS). */
  plannerTrialWorks?: number;
  /**
   * Copy past the run's default `maxDocs` (default false). A caller that sets it declares `confirm.copyDocs` on its
   * rule, so the consent line before any write counts the larger copy.
   */
  pastMaxDocs?: boolean;
}

export interface CopyPlanInput {
  /** Documents the proof wants. */
  want: number;
  /** The collection's count (0: unknown). */
  sourceCount: number;
  maxDocs: number;
  maxDocsChosen: boolean;
  /** Whether the caller asked to copy past the run's default `maxDocs`. */
  pastMaxDocs: boolean;
  maxBytes: number;
  /** The average document's BSON size (0: unknown). */
  avgBytes: number;
}

/**
 * How many documents a proof copies, and why: the smallest of its own size, the collection, the run's byte limit
 * over the average document, and the run's `maxDocs` when the user chose it or when the average is unknown (a copy
 * past the default limit is bounded by bytes, so it needs the size). Ties name the collection first, then the proof.
 */
export function planProofCopy(p: CopyPlanInput): { limit: number; bound: CopyBound } {
  const bounds: [number, CopyBound][] = [[Math.max(1, p.want), 'proofDocs']];
  if (p.sourceCount > 0) bounds.unshift([p.sourceCount, 'collection']);
  if (p.maxDocsChosen) bounds.push([p.maxDocs, 'maxDocs']);
  else if (!p.pastMaxDocs) bounds.push([p.maxDocs, 'defaultLimit']);
  else if (!(p.avgBytes > 0)) bounds.push([p.maxDocs, 'unsized']);
  if (p.avgBytes > 0) bounds.push([Math.max(1, Math.floor(p.maxBytes / p.avgBytes)), 'maxBytes']);
  let best = bounds[0] as [number, CopyBound];
  for (const b of bounds) if (b[0] < best[0]) best = b;
  return { limit: best[0], bound: best[1] };
}

/**
 * Why a copy is too small to show the planner's choice: fewer documents than the multi-planner's trial reads and fewer
 * than the collection holds (a collection smaller than the trial is copied whole, and the copy is then faithful).
 * Null when it is large enough. Counts only: safe to print.
 */
export function copyTooSmall(copy: Copy, trialWorks: number = PLANNER_TRIAL_WORKS): string | null {
  if (copy.copied >= trialWorks || copy.sourceCount <= copy.copied) return null;
  const [n, works, count] = [copy.copied, trialWorks, copy.sourceCount].map(formatNumber);
  return sentence(
    `the copy held ${n} documents, fewer than the planner's trial reads (${works}) and than the collection `,
    `holds (${count}), so every plan may tie`,
  );
}

let serial = 0;
const names = (): { a: string; b: string } => {
  serial++;
  return { a: `proof_${serial}_a`, b: `proof_${serial}_b` };
};

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0)) || 0;

function splitNs(ns: string): [string, string] {
  const i = ns.indexOf('.');
  return [ns.slice(0, i), ns.slice(i + 1)];
}

/**
 * The read an instance stands for, aimed at `coll`: find, aggregate, count and distinct as they are; the query part
 * of an update or delete (each statement's `q`) as a find. Null for anything else.
 */
export function readOf(cmd: Doc, coll: string, from: ReadonlyMap<string, string> = new Map()): Doc | null {
  const name = Object.keys(cmd)[0] ?? '';
  const keep = (c: Doc): Doc => {
    const { $db: _db, lsid: _l, $clusterTime: _c, txnNumber: _t, ...rest } = c;
    return rest;
  };
  if (['find', 'aggregate', 'count', 'distinct'].includes(name)) {
    const c = keep({ ...cmd, [name]: coll });
    if (name === 'aggregate' && c.cursor === undefined) c.cursor = {};
    if (name === 'aggregate' && Array.isArray(c.pipeline) && from.size > 0)
      c.pipeline = (c.pipeline as unknown[]).map((st) => {
        const l = isDoc(st) && isDoc(st.$lookup) ? st.$lookup : null;
        const to = l && typeof l.from === 'string' ? from.get(l.from) : undefined;
        return l && to ? { ...(st as Doc), $lookup: { ...l, from: to } } : st;
      });
    return c;
  }
  const stmts = (name === 'update' ? cmd.updates : name === 'delete' ? cmd.deletes : null) as Doc[] | null;
  const s = stmts?.[0];
  if (!s) return null;
  const limit = name === 'delete' ? num(s.limit) : s.multi === true ? 0 : 1;
  return { find: coll, filter: s.q ?? {}, ...(limit ? { limit } : {}) };
}

const isDoc = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A `$lookup` by fields of an aggregate: the collection it joins and the two fields. */
export interface Join {
  from: string;
  localField: string;
  foreignField: string;
}

/**
 * The joins of the instances' pipelines (top-level `$lookup` stages with localField and foreignField), or a reason
 * when a stage reads another collection in a way the proof does not copy (`$lookup` with a pipeline only,
 * `$graphLookup`, `$unionWith`, `$out`, `$merge`). Counts and stage names only: safe to print.
 */
export function joinsOf(instances: readonly Doc[]): Join[] | string {
  const out = new Map<string, Join>();
  for (const cmd of instances) {
    if (!Array.isArray(cmd.pipeline)) continue;
    for (const st of cmd.pipeline as unknown[]) {
      if (!isDoc(st)) continue;
      const other = ['$graphLookup', '$unionWith', '$out', '$merge', '$facet'].find((k) => k in st);
      if (other) return `the pipeline has a ${other} stage, which the proof does not copy the other side of`;
      const l = isDoc(st.$lookup) ? st.$lookup : null;
      if (!l) continue;
      const [from, localField, foreignField] = [l.from, l.localField, l.foreignField];
      if (typeof from !== 'string' || typeof localField !== 'string' || typeof foreignField !== 'string')
        return 'the pipeline has a $lookup without localField and foreignField, which the proof does not copy';
      if (l.pipeline !== undefined)
        return 'the pipeline has a $lookup with its own pipeline, which the proof does not copy the other side of';
      out.set(`${from}\u0000${localField}\u0000${foreignField}`, { from, localField, foreignField });
    }
  }
  return [...out.values()];
}

/** Most distinct local values a foreign copy is selected by (one `$in`); past it the first ones are kept. */
export const MAX_JOIN_VALUES = 10_000;

/**
 * A call's one `$lookup` (by localField and foreignField) with the stages before it, when it is the only stage of the
 * pipeline that reads another collection: its join's own query can then stand for what the stage reads. Null when the
 * call joins nothing, or joins in a way one query cannot stand for (two joins, a `$lookup` with its own pipeline,
 * `$graphLookup`, `$unionWith`, `$facet`).
 */
export function soleJoin(cmd: Doc): { before: Doc[]; join: Join } | null {
  const stages: unknown[] = Array.isArray(cmd.pipeline) ? (cmd.pipeline as unknown[]) : [];
  const joining = stages.filter(
    (st) => isDoc(st) && ['$lookup', '$graphLookup', '$unionWith', '$facet'].some((k) => k in st),
  );
  const st = joining.length === 1 ? joining[0] : undefined;
  const l = isDoc(st) && isDoc(st.$lookup) ? st.$lookup : null;
  if (!l || l.pipeline !== undefined) return null;
  const [from, localField, foreignField] = [l.from, l.localField, l.foreignField];
  if (typeof from !== 'string' || typeof localField !== 'string' || typeof foreignField !== 'string') return null;
  const before = stages.slice(0, stages.indexOf(st));
  if (before.some((b) => !isDoc(b))) return null;
  return { before: before as Doc[], join: { from, localField, foreignField } };
}

/** The pipeline giving the local values a call brings to its one `$lookup`: the stages before it, then that field. */
export function reachingPipeline(cmd: Doc): Doc[] | null {
  const sole = soleJoin(cmd);
  return sole ? [...sole.before, { $project: { _id: 0, [sole.join.localField]: 1 } }] : null;
}

/**
 * The join's own query on `coll` (the joined collection, or its copy): the foreign field matched against the local
 * values the call brings, as the `$lookup` matches each (an array's elements each; a missing field as null, which
 * `$in` matches to null and missing alike). One query for the call: without an index on the foreign field it scans
 * the collection once, where the stage scans it at least once per call (once per local document in the classic
 * engine), so its figures without the index are a floor of what the stage reads.
 */
export function joinQuery(coll: string, join: Join, values: readonly unknown[]): Doc {
  return { find: coll, filter: { [join.foreignField]: { $in: [...values] } } };
}

/** The distinct values of `path` in the copied documents (arrays flattened, as `$lookup` matches them). */
export function joinValues(docs: readonly Doc[], path: string): unknown[] {
  const seen = new Map<string, unknown>();
  for (const d of docs) {
    const v = valueAt(d, path);
    for (const x of Array.isArray(v) ? (v as unknown[]) : [v]) {
      if (seen.size >= MAX_JOIN_VALUES) break;
      // a missing field joins as null: one value
      const k = idKey(x ?? null);
      if (!seen.has(k)) seen.set(k, x ?? null);
    }
  }
  return [...seen.values()];
}

/** The existing index specifications rebuilt on a copy: not `_id_`, unique and TTL options left out. */
function specsOf(rows: readonly Doc[]): Doc[] {
  return rows
    .filter((r) => r.name !== '_id_' && r.clustered !== true)
    .map((r) => {
      const { v: _v, ns: _ns, background: _b, unique: _u, expireAfterSeconds: _e, ...spec } = r;
      return spec;
    });
}

/** Copies the source into each of `colls` with the existing indexes. A string says why it could not. */
async function prepare(
  ctx: ConfirmContext,
  want: {
    ns: string;
    existingIndexes: readonly Doc[];
    docs?: number;
    pastMaxDocs?: boolean;
    plannerTrialWorks?: number;
  },
  colls: readonly string[],
  read: Doc,
  skip: ReadonlySet<string> = new Set(),
): Promise<{ copy: Copy; docs: Doc[]; asked: Asked } | string> {
  const { ns, existingIndexes: existing } = want;
  const t = performance.now();
  const asked = await probeOnFew(ctx, ns, colls[0] ?? '', read);
  ctx.log(`  index proof: explain asked on ${PROBE_DOCS} documents (${((performance.now() - t) / 1000).toFixed(1)} s)`);
  if (asked === 'unreadable') return NO_PLAN;
  const [db, coll] = splitNs(ns);
  const counted = await ctx.source.command(db, { count: coll, maxTimeMS: 10_000 }).catch(() => null);
  const sourceCount = num(counted?.n);
  const pastMaxDocs = want.pastMaxDocs === true;
  const avgBytes = await measuredAverage(ctx, db, coll, pastMaxDocs);
  const { limit, bound } = planProofCopy({
    want: want.docs ?? PROOF_DOCS,
    sourceCount,
    maxDocs: ctx.settings.maxDocs,
    maxDocsChosen: ctx.settings.maxDocsChosen === true,
    pastMaxDocs,
    maxBytes: ctx.settings.maxBytes,
    avgBytes,
  });
  const docs = await ctx.sourceDocs(db, coll, { limit, pastMaxDocs, ...(avgBytes > 0 ? { avgBytes } : {}) });
  if (docs.length === 0) return 'the source collection returned no documents to copy';
  const copy: Copy = { sourceCount, copied: docs.length, planned: limit, bound, rebuilt: [], notRebuilt: [] };
  // Never cut below what lets the proof decide (the planner's trial, or the whole collection when it is smaller):
  // on a server too slow to copy that much within the budget, the proof decides late rather than not at all.
  const copied = await copyWithin(
    ctx,
    colls,
    docs,
    COPY_SHARE,
    Math.min(want.plannerTrialWorks ?? PLANNER_TRIAL_WORKS, docs.length),
  );
  if (copied.capped) copy.bound = 'budget';
  if (copied.forced) copy.pastBudget = true;
  copy.copied = copied.n;
  for (const spec of specsOf(existing)) {
    const name = String(spec.name);
    try {
      for (const c of colls) if (!(skip.has(name) && c === colls[colls.length - 1])) await build(ctx, c, spec);
      copy.rebuilt.push(name);
    } catch (err) {
      copy.notRebuilt.push(`${name} (${describeServerError(err)})`);
    }
  }
  return { copy, docs, asked };
}

/** Share of the remaining budget the copies may take before they are cut short (replays and timing need the rest). */
export const COPY_SHARE = 0.4;
/** Documents per insert while copying within the budget. */
const COPY_CHUNK = 1000;

/**
 * Copies `docs` into each of `colls` (the same documents in each), chunk by chunk: when the rate of the first arm's
 * chunks says copying all of them into every collection would take more than `share` of the remaining budget, the
 * copy stops at what fits (never below the first chunk), and `capped` says so.
 */
async function copyWithin(
  ctx: ConfirmContext,
  colls: readonly string[],
  docs: readonly Doc[],
  share: number,
  floor: number,
): Promise<{ n: number; capped: boolean; forced: boolean }> {
  const allowed = ctx.budget.remainingMs * share;
  let forced = false;
  const t0 = performance.now();
  let want = docs.length;
  let n = docs.length;
  for (const [k, name] of colls.entries()) {
    await ctx.scratch.drop(name);
    await ctx.scratch.create(name);
    let inserted = 0;
    for (let i = 0; i < want; i += COPY_CHUNK) {
      inserted += (await ctx.scratch.copy(name, docs.slice(i, Math.min(want, i + COPY_CHUNK)))).inserted;
      if (k > 0) continue;
      const rate = (i + COPY_CHUNK) / Math.max(1, performance.now() - t0);
      const fits = Math.floor((rate * allowed) / colls.length);
      if (fits < want) want = Math.max(i + COPY_CHUNK, floor, Math.floor(fits / COPY_CHUNK) * COPY_CHUNK);
      if (fits < Math.min(floor, docs.length)) forced = true;
    }
    n = Math.min(n, inserted);
  }
  return { n, capped: want < docs.length, forced };
}

/** Documents read to measure the average size when the snapshot has none (a run without the sampling rules). */
export const SIZE_PROBE_DOCS = 100;

/**
 * The collection's average document size: the snapshot's, else measured on SIZE_PROBE_DOCS documents read within the
 * run's limits, so a copy past maxDocs stays bounded by bytes. 0 when unknown or not needed.
 */
async function measuredAverage(ctx: ConfirmContext, db: string, coll: string, pastMaxDocs: boolean): Promise<number> {
  const known = averageDocBytes(ctx.snapshot, db, coll);
  if (known > 0 || !pastMaxDocs) return known;
  const probe = await ctx.sourceDocs(db, coll, { limit: SIZE_PROBE_DOCS }).catch(() => []);
  const sizes = bsonSizes(probe);
  return sizes.length ? sizes.reduce((t, n) => t + n, 0) / sizes.length : 0;
}

async function build(ctx: ConfirmContext, coll: string, spec: Doc): Promise<void> {
  await ctx.scratch.command({ createIndexes: coll, indexes: [spec] });
}

/** One explain, executionStats, unhinted. */
async function replay(ctx: ConfirmContext, read: Doc): Promise<Replay> {
  const r = await ctx.scratch.command({ explain: read, verbosity: 'executionStats' });
  const stats = (r.executionStats as Doc | undefined) ?? {};
  const qp = (r.queryPlanner as Doc | undefined) ?? {};
  const winning = qp.winningPlan ?? r.stages ?? r.shards ?? {};
  const facts = planFacts(winning);
  // MongoDB's explain of an aggregate gives each $lookup stage its own counts and the indexes it used
  // (totalDocsExamined, totalKeysExamined, indexesUsed); a server whose explain does not run the stage gives none.
  const lookups = (Array.isArray(r.stages) ? (r.stages as unknown[]) : []).filter(
    (st): st is Doc => isDoc(st) && '$lookup' in st && st.totalDocsExamined !== undefined,
  );
  const sum = (k: string): number => lookups.reduce((t, st) => t + num(st[k]), 0);
  const used = lookups.flatMap((st) =>
    Array.isArray(st.indexesUsed) ? (st.indexesUsed as unknown[]).map(String) : [],
  );
  return {
    keysExamined: num(stats.totalKeysExamined) + sum('totalKeysExamined'),
    docsExamined: num(stats.totalDocsExamined) + sum('totalDocsExamined'),
    nReturned: num(stats.nReturned),
    indexes: [...new Set([...facts.indexes, ...used])],
    executionTimeMillis: num(stats.executionTimeMillis),
    sortsInMemory: facts.stages.includes('SORT'),
    joinCounted: lookups.length > 0,
  };
}

/** Whether an explain reply names any plan stage or index at all (FerretDB's names neither). */
async function explainReadable(ctx: ConfirmContext, read: Doc): Promise<boolean> {
  const r = await ctx.scratch.command({ explain: read, verbosity: 'executionStats' });
  const facts = planFacts(r.queryPlanner ?? r.stages ?? r);
  return facts.stages.length > 0 || facts.indexes.length > 0;
}

/** What a read returns, as keys compared in memory only (`_id`s; in order when it sorts). Never returned. */
async function resultKeys(ctx: ConfirmContext, read: Doc): Promise<string[]> {
  const name = Object.keys(read)[0];
  if (name === 'count') return [String(num((await ctx.scratch.command(read)).n))];
  if (name === 'distinct') {
    const values = ((await ctx.scratch.command(read)).values as unknown[] | undefined) ?? [];
    return values.map(idKey).sort();
  }
  const rows = await ctx.scratch.cursor(name === 'find' ? { ...read, batchSize: 1000 } : read);
  const joinedAs = joinsOf([read]);
  const as = Array.isArray(read.pipeline)
    ? (read.pipeline as unknown[]).flatMap((st) =>
        isDoc(st) && isDoc(st.$lookup) && typeof st.$lookup.as === 'string' ? [st.$lookup.as] : [],
      )
    : [];
  // A joined row compares by its _id and the _ids it joined to (sorted: a join's order is not defined).
  const joinedKey = (d: Doc): string =>
    as
      .map((f) => {
        const v = valueAt(d, f);
        return Array.isArray(v)
          ? (v as Doc[])
              .map((x) => idKey(isDoc(x) ? x._id : x))
              .sort()
              .join(',')
          : '';
      })
      .join('|');
  const keys = rows.map(
    (d) => idKey(d._id ?? d) + (typeof joinedAs !== 'string' && as.length ? `>${joinedKey(d)}` : ''),
  );
  return sorts(read) ? keys : keys.sort();
}

function sorts(read: Doc): boolean {
  if (read.sort && Object.keys(read.sort).length > 0) return true;
  return Array.isArray(read.pipeline) && (read.pipeline as Doc[]).some((s) => '$sort' in s);
}

/**
 * Each call explained on both arms and its results compared. The budget ends the replays early (after the first
 * call): the verdict is then on the calls replayed. A call identical to an earlier one has its figures on the same
 * copies: they are taken, not run again (issue 27).
 */
async function replayCalls(
  ctx: ConfirmContext,
  calls: readonly Doc[],
  ra: readonly Doc[],
  rb: readonly Doc[],
  joined?: JoinedArms,
) {
  const without: Replay[] = [];
  const withIt: Replay[] = [];
  const sames: boolean[] = [];
  const done = new Map<string, number>();
  for (let i = 0; i < ra.length && !(i > 0 && ctx.budget.exhausted); i++) {
    const key = callKey(calls[i] as Doc);
    const k = key === null ? undefined : done.get(key);
    if (key !== null && k === undefined) done.set(key, i);
    if (k !== undefined) {
      without.push(without[k] as Replay);
      withIt.push(withIt[k] as Replay);
      sames.push(sames[k] === true);
      continue;
    }
    const [w, x] = [await replay(ctx, ra[i] as Doc), await replay(ctx, rb[i] as Doc)];
    // The server's explain counted nothing of the join: its own query is explained instead, on each arm's copy.
    const figures = joined && !w.joinCounted ? await joinFigures(ctx, calls[i] as Doc, joined) : null;
    without.push(figures ? { ...w, join: figures[0] } : w);
    withIt.push(figures ? { ...x, join: figures[1] } : x);
    sames.push(await sameResults(ctx, ra[i] as Doc, rb[i] as Doc));
  }
  return { without, withIt, same: sames.filter(Boolean).length };
}

/** Where a proof's calls join: the local copy they run on (alike in both arms), and each arm's joined copies. */
interface JoinedArms {
  local: string;
  fa: ReadonlyMap<string, string>;
  fb: ReadonlyMap<string, string>;
  /** Whether the candidate is on a joined copy (B's differs from A's); else B's join reads as A's, explained once. */
  both: boolean;
}

/**
 * A call's join's own query, explained on each arm's joined copy: the local values it brings (the stages before the
 * `$lookup` run on the local copy), then `joinQuery` on A's copy and B's. Null when the call has no one join, brings
 * more than MAX_JOIN_VALUES values, or the server refuses: the proof then has no join counts (the time decides).
 */
async function joinFigures(
  ctx: ConfirmContext,
  call: Doc,
  arms: JoinedArms,
): Promise<[JoinFigures, JoinFigures] | null> {
  const sole = soleJoin(call);
  const pipeline = reachingPipeline(call);
  const [fa, fb] = [arms.fa.get(sole?.join.from ?? ''), arms.fb.get(sole?.join.from ?? '')];
  if (!sole || !pipeline || !fa || !fb) return null;
  try {
    const rows = await ctx.scratch.cursor(
      { aggregate: arms.local, pipeline, cursor: {} },
      { limit: MAX_JOIN_VALUES + 1 },
    );
    if (rows.length > MAX_JOIN_VALUES) return null;
    const values = joinValues(rows, sole.join.localField);
    const a = await explainJoin(ctx, joinQuery(fa, sole.join, values), values.length);
    if (!arms.both) return [a, a];
    const b = await explainJoin(ctx, joinQuery(fb, sole.join, values), values.length);
    const weight = mostShared(rows, sole.join.localField);
    return [a, weight > 1 ? { ...b, weight } : b];
  } catch {
    return null;
  }
}

async function explainJoin(ctx: ConfirmContext, read: Doc, values: number): Promise<JoinFigures> {
  const r = await replay(ctx, read);
  return {
    keysExamined: r.keysExamined,
    docsExamined: r.docsExamined,
    nReturned: r.nReturned,
    indexes: r.indexes,
    values,
  };
}

/** A call's text, to tell identical calls apart from ones that differ in a value or its BSON type; null if none. */
export function callKey(c: Doc): string | null {
  try {
    return JSON.stringify(c, function (this: Record<string, unknown>, k: string, v: unknown): unknown {
      const raw = this[k];
      if (raw instanceof Date) return { $date: v };
      if (typeof v === 'bigint') return { $bigint: String(v) };
      const type = raw !== null && typeof raw === 'object' ? (raw as { _bsontype?: unknown })._bsontype : undefined;
      // tagged once, where toJSON gave another value (an object without one is read field by field)
      return typeof type === 'string' && v !== raw ? { [`$${type}`]: v } : v;
    });
  } catch {
    return null;
  }
}

async function sameResults(ctx: ConfirmContext, a: Doc, b: Doc): Promise<boolean> {
  const [x, y] = [await resultKeys(ctx, a), await resultKeys(ctx, b)];
  return x.length === y.length && x.every((k, i) => k === y[i]);
}

const examined = (rs: readonly Replay[]): number => rs.reduce((t, r) => t + work(r), 0);
const ratio = (a: number, b: number): number => (b === 0 ? (a === 0 ? 1 : Infinity) : a / b);

/**
 * A timed arm: one read per round, cycling through the calls (round i runs call i mod n). `alternate` calls each arm
 * once per round, so both arms run the same call in the same round and each pair compares like with like; a round
 * costs one call instead of all of them, so a budget that the copy has mostly used still times enough blocks
 * (bench/README.md, Index proof on scratch: 5 collection scans of 20,000 documents per round left 3 blocks in 12 s).
 */
const cycling = (ctx: ConfirmContext, reads: readonly Doc[]) => {
  let k = 0;
  return async (): Promise<void> => {
    await ctx.scratch.command(reads[k++ % reads.length] as Doc);
  };
};

/**
 * Why the time ratio keeps the index from being supported, or null: it worsens when its interval lies above 1 by the
 * noise margin. Below 95% two-sided coverage it is still decided when its upper end lies below 1: the claim is
 * one-sided (time does not worsen), and the sign test's interval is symmetric, so its upper end alone holds with
 * (1 + coverage) / 2 (5 blocks all faster with the index: 96.9%). Otherwise the budget ended too early to say.
 */
export function timeProblem(t: RatioInterval): string | null {
  if (judge({ direction: 'above', size: 1 }, t) === 'supported') return SLOWER;
  if (t.coverage === undefined || t.coverage >= 0.95 - 1e-12) return null;
  if (Number.isFinite(t.high) && t.high < 1 && (1 + t.coverage) / 2 >= 0.95 - 1e-12) return null;
  return SHORT;
}

const SLOWER = 'the replayed queries were slower with it';
const JOIN_UNCOUNTED =
  "the server's explain gives no examined counts for the $lookup stage, so the time of the whole pipeline decides";

const JOIN_FLOOR_FOREIGN =
  "the join's own query, which reads without the index no more than the $lookup does, did not fall to " +
  '{{share}} or less with the planner choosing it on every call, so the time of the whole pipeline decides';
const JOIN_FLOOR_LOCAL =
  "the $lookup's reads, which it does not change, were counted only at their floor (the join's own query), so " +
  'the time of the whole pipeline decides';

/** Whether only the time can decide: the calls join, and neither explain nor the join's own query counted the join. */
const timeOnly = (p: IndexProof): boolean => (p.joins?.length ?? 0) > 0 && p.joinBasis === undefined;
const SHORT = 'the time budget ended before enough rounds were timed for a 95% interval';
const UNTIMED = 'the time budget ended before the calls could be timed';

const NO_PLAN = "the server's explain names no plan stage and no index, so the planner's choice cannot be read";

/**
 * Whether the scratch server's explain can show the planner's choice; a reason when it cannot. Asked again on the full
 * copies unless the few documents already showed a plan.
 */
async function probe(ctx: ConfirmContext, read: Doc, asked: Asked): Promise<string | null> {
  if (asked === 'readable') return null;
  try {
    if (await explainReadable(ctx, read)) return null;
    return NO_PLAN;
  } catch (err) {
    return `the server refused explain with executionStats (${describeServerError(err)})`;
  }
}

type Asked = 'readable' | 'unreadable' | 'refused' | 'none';

/** Documents copied for the first question to the scratch server's explain (does it name a plan at all?). */
export const PROBE_DOCS = 10;

/**
 * Asks the scratch server's explain, on a copy of PROBE_DOCS documents into `coll` (the copy the proof then drops and
 * fills), whether it names any plan: a server whose explain names none (FerretDB) is told so in well under a second,
 * before the collection is copied twice. 'refused' when explain failed on the few documents (the joined copies and
 * the indexes are not there yet, and may be why: the proof asks again on its full copies); 'none' when the source
 * gave no documents (the copy says so).
 */
async function probeOnFew(ctx: ConfirmContext, ns: string, coll: string, read: Doc): Promise<Asked> {
  const [db, source] = splitNs(ns);
  const few = await ctx.sourceDocs(db, source, { limit: PROBE_DOCS });
  if (few.length === 0) return 'none';
  await ctx.scratch.create(coll);
  await ctx.scratch.copy(coll, few);
  try {
    return (await explainReadable(ctx, read)) ? 'readable' : 'unreadable';
  } catch {
    return 'refused';
  }
}

/**
 * Proves a candidate index on two identical scratch copies (A: the existing indexes; B: the same and the candidate):
 * every instance explained unhinted on both, results compared, the instances timed in alternation, then the
 * candidate's size and insert cost.
 */
export async function proveIndex(given: ConfirmContext, input: ProveIndexInput): Promise<IndexProof> {
  const [t0, budgetMs] = [performance.now(), given.budget.remainingMs];
  return pastBudgetAsMeasured(await proveIndexOnCopies(given, input), performance.now() - t0, budgetMs);
}

/** A proof's measured time, past the budget it was given (pastBudgetAsMeasured). */
export interface Late {
  elapsedMs: number;
  budgetMs: number;
}

/**
 * Said when a proof ended past its budget with no step that chose to (no copy that could not be cut, no explains left
 * to finish): the server answered more slowly than when the proof planned its steps, and a step once sent runs to its
 * end. Both rules that prove indexes say it in these words.
 */
export function lateSentence(late: Late): string {
  return [
    `This proof took ${formatDuration(late.elapsedMs)} against its ${formatDuration(late.budgetMs)} budget: the`,
    'server answered more slowly than when the proof planned its copies, explains and drops (each, once sent, runs',
    'to its end), so it ran past its budget; a larger --confirm-budget, or a quieter time on this server, keeps it',
    'within.',
  ].join(' ');
}

/**
 * A proof as it is told: a copy (or a drop's explains) that went past its share of the budget makes the finding say
 * the proof "ran past its budget", which is only true when the proof's measured time (its drops included) passed the
 * budget it was given. Within it, the flags are dropped: the rate that predicted the overrun was wrong. Past it, the
 * proof holds its measured time (`late`): a finding whose proof ran late says so, with why. Pure.
 */
export function pastBudgetAsMeasured<P extends IndexProof | DropProof>(p: P, elapsedMs: number, budgetMs: number): P {
  if (elapsedMs > budgetMs) return { ...p, late: { elapsedMs, budgetMs } };
  const out: IndexProof | DropProof = { ...p };
  if (out.copy) {
    out.copy = { ...out.copy };
    delete out.copy.pastBudget;
  }
  if ('joins' in out && out.joins) out.joins = out.joins.map(({ pastBudget: _, ...j }) => j);
  if ('pastBudget' in out) delete out.pastBudget;
  return out as P;
}

async function proveIndexOnCopies(given: ConfirmContext, input: ProveIndexInput): Promise<IndexProof> {
  const { a, b } = names();
  const joins = joinsOf(input.instances);
  if (typeof joins === 'string') return { status: 'not-run', reason: joins };
  const ctx = withHeadroom(given, 2 * (1 + new Set(joins.map((j) => j.from)).size));
  const [db, local] = splitNs(input.ns);
  const onJoin = input.candidateOn !== undefined && input.candidateOn !== local;
  if (onJoin && !joins.some((j) => j.from === input.candidateOn))
    return { status: 'not-run', reason: "no $lookup of the calls joins the candidate's collection" };
  const [fa, fb] = [a, b].map(
    (x) => new Map([...new Set(joins.map((j) => j.from))].map((f, k) => [f, `${x}_j${k}`])),
  ) as [Map<string, string>, Map<string, string>];
  const readsA = input.instances.map((c) => readOf(c, a, fa));
  if (readsA.length === 0 || readsA.some((r) => r === null))
    return { status: 'not-run', reason: 'an instance is not a find, aggregate, count, distinct, update or delete' };
  const ra = readsA as Doc[];
  // A foreign-field index leaves the local side alike in both arms: one copy of it, read by both (half the copying).
  const local2 = onJoin ? a : b;
  const rb = input.instances.map((c) => readOf(c, local2, fb) as Doc);
  try {
    const lap = stopwatch(ctx);
    const prepared = await prepare(ctx, input, [...new Set([a, local2])], ra[0] as Doc);
    if (typeof prepared === 'string') return { status: 'not-run', reason: prepared };
    const { copy, docs, asked } = prepared;
    const joinedDocs = new Map<string, Doc[]>();
    const whole = copy.copied >= copy.sourceCount;
    const joined = await copyJoins(ctx, db, joins, docs, [fa, fb], input, joinedDocs, whole, onJoin ? a : null);
    if (typeof joined === 'string') return { status: 'not-run', reason: joined, copy };
    if (joined.some((j) => j.pastBudget)) copy.pastBudget = true;
    const times = onJoin ? 'once' : 'twice';
    lap(`${formatNumber(copy.copied)} documents copied ${times}${joinedText(joined)}, ${copy.rebuilt.length} rebuilt`);
    const unreadable = await probe(ctx, ra[0] as Doc, asked);
    if (unreadable) return { status: 'not-run', reason: unreadable, copy };
    const candidateColl = onJoin ? (fb.get(input.candidateOn as string) as string) : b;
    await build(ctx, candidateColl, { key: input.candidate.key, name: input.candidate.name });
    const arms: JoinedArms = { local: a, fa, fb, both: onJoin };
    const { without, withIt, same } = await replayCalls(ctx, input.instances, ra, rb, joined.length ? arms : undefined);
    const replayed = without.length;
    const proof: IndexProof = {
      status: 'inconclusive',
      copy,
      without,
      with: withIt,
      pickedCandidate: withIt.filter((r) => chose(r, input.candidate.name)).length,
      examinedRatio: ratio(examined(withIt), examined(without)),
      sameResults: { checked: replayed, same },
      replayed,
      ...(onJoin ? { foreign: true } : {}),
      ...(joined.length ? { joins: joined, ...joinBasisOf(without, withIt) } : {}),
    };
    if (input.prefix && !onJoin)
      proof.prefix = await provePrefix(ctx, a, ra.slice(0, replayed), input, ownExamined(withIt));
    const joinQueried = proof.joinBasis === 'query' ? `, ${joinQueries(without)} join queries explained` : '';
    lap(`${replayed} calls explained and compared both ways${joinQueried}`);
    // Timing cannot change a verdict the figures already gave: skip it (and the write cost) then.
    const early = figuresVerdict(proof, input);
    if (early) return early;
    // Time is the second check (the only one for a join explain gives no counts of), while the budget lasts.
    if (!ctx.budget.exhausted) {
      const [ta, tb] = await alternate(
        ctx.budget.slice(input.writeCost === false ? 1 : 0.7),
        { label: 'without', run: cycling(ctx, ra.slice(0, replayed)) },
        { label: 'with', run: cycling(ctx, rb.slice(0, replayed)) },
      );
      const time = ratioOf('with / without', tb, ta);
      if ((time.blocks ?? 0) > 0) proof.time = time;
      lap(`timed in alternation, ${time.pairs ?? 0} rounds`);
    }
    if (input.writeCost !== false) {
      const batch = input.insertBatch ?? INSERT_BATCH;
      const on: [string, string] = onJoin ? [fa.get(input.candidateOn as string) as string, candidateColl] : [a, b];
      const written = onJoin ? (joinedDocs.get(input.candidateOn as string) ?? []) : docs;
      proof.writeCost = await writeCost(ctx, on, input.candidate.name, written, { copy, batch });
      lap('insert cost timed');
    }
    return decide(proof, input);
  } finally {
    await dropCopies(ctx, [a, b, ...fa.values(), ...fb.values()]);
  }
}

/** How the join's reads were counted: by every replay's explain, else by every call's join's own query, else not. */
function joinBasisOf(without: readonly Replay[], withIt: readonly Replay[]): { joinBasis?: 'explain' | 'query' } {
  const all = [...without, ...withIt];
  if (all.length === 0) return {};
  if (all.every((r) => r.joinCounted)) return { joinBasis: 'explain' };
  if (all.every((r) => r.join !== undefined)) return { joinBasis: 'query' };
  return {};
}

const joinQueries = (rs: readonly Replay[]): number => new Set(rs.filter((r) => r.join)).size;

/** Drops the proof's copies, with a progress line giving their seconds (a slow drop is part of the budget). */
async function dropCopies(ctx: ConfirmContext, colls: readonly string[]): Promise<void> {
  const t = performance.now();
  for (const c of colls) await ctx.scratch.drop(c);
  ctx.log(`  index proof: ${colls.length} copies dropped (${((performance.now() - t) / 1000).toFixed(1)} s)`);
}

const REACHED_SLOWER =
  'the calls were slower with it on a joined copy smaller than the collection, where the scan without the index is ' +
  'shorter than in production: that says nothing of the whole collection';

/**
 * The local documents the calls bring to their `$lookup` into `from` (its local field only): the stages before it
 * run on the local copy. A foreign-field proof copies the foreign documents the calls join to first, then others up
 * to the proof's size: the results are those of production, and the scan without the index reads what it reads in
 * production or less. Null (the joined side copied as before) when another join comes first, or past
 * MAX_JOIN_VALUES documents.
 */
async function reachingJoin(
  ctx: ConfirmContext,
  local: string,
  instances: readonly Doc[],
  from: string,
): Promise<Doc[] | null> {
  const out: Doc[] = [];
  const seen = new Set<string | null>();
  for (const cmd of instances) {
    // an identical call reaches the same documents
    const key = callKey(cmd);
    if (key !== null && seen.has(key)) continue;
    seen.add(key);
    const stages: unknown[] = Array.isArray(cmd.pipeline) ? cmd.pipeline : [];
    const at = stages.findIndex((st) => isDoc(st) && isDoc(st.$lookup) && st.$lookup.from === from);
    const lookup = stages[at];
    const field = isDoc(lookup) && isDoc(lookup.$lookup) ? lookup.$lookup.localField : null;
    const before = stages.slice(0, Math.max(0, at));
    if (typeof field !== 'string' || before.some((st) => !isDoc(st) || '$lookup' in st)) return null;
    const pipeline = [...before, { $project: { _id: 0, [field]: 1 } }];
    out.push(...(await ctx.scratch.cursor({ aggregate: local, pipeline, cursor: {} }, { limit: MAX_JOIN_VALUES })));
    if (out.length >= MAX_JOIN_VALUES) return null;
  }
  return out;
}

/**
 * The documents of a joined copy: those the calls join to (`reached`), then the others read (`rest`), each once (by
 * `_id`), at most `limit` unless the reached ones alone hold more. Pure.
 */
export function joinedCopyDocs(reached: readonly Doc[], rest: readonly Doc[], limit: number): Doc[] {
  const seen = new Set<string>();
  const out: Doc[] = [];
  for (const d of [...reached, ...rest]) {
    const k = idKey(d._id);
    if (seen.has(k)) continue;
    if (out.length >= Math.max(limit, reached.length)) break;
    seen.add(k);
    out.push(d);
  }
  return out;
}

/**
 * Copies, for each joined collection, the documents the copied local side joins to (its foreign field in the local
 * field's values, at most the proof's size) into both arms' copies, with its existing indexes rebuilt: the pipeline
 * then runs on scratch as it does in production. For a foreign-field candidate (`localCopy` given) the copy holds the
 * documents the calls join to and the collection's others up to the proof's size (the whole collection when it fits),
 * so a scan of it without the index reads what production's reads, or less (the join's own query is counted on it).
 * Reads go through the read-only source handle, writes through Scratch.
 */
async function copyJoins(
  ctx: ConfirmContext,
  db: string,
  joins: readonly Join[],
  local: readonly Doc[],
  [fa, fb]: [ReadonlyMap<string, string>, ReadonlyMap<string, string>],
  input: ProveIndexInput,
  keep: Map<string, Doc[]>,
  whole: boolean,
  localCopy: string | null,
): Promise<NonNullable<IndexProof['joins']> | string> {
  const out: NonNullable<IndexProof['joins']> = [];
  const one = localCopy !== null && joins.length === 1;
  const reached = one ? await reachingJoin(ctx, localCopy, input.instances, input.candidateOn ?? '') : null;
  const pastMaxDocs = input.pastMaxDocs === true;
  for (const from of new Set(joins.map((j) => j.from))) {
    const on = joins.filter((j) => j.from === from);
    const counted = await ctx.source.command(db, { count: from, maxTimeMS: 10_000 }).catch(() => null);
    const count = num(counted?.n);
    const avgBytes = await measuredAverage(ctx, db, from, pastMaxDocs);
    const limit = input.docs ?? PROOF_DOCS;
    const read = (filter: Doc): Promise<Doc[]> =>
      ctx.sourceDocs(db, from, { limit, filter, pastMaxDocs, ...(avgBytes > 0 ? { avgBytes } : {}) });
    const inValues = (docs: readonly Doc[]): Doc => {
      const parts = on.map((j) => ({ [j.foreignField]: { $in: joinValues(docs, j.localField) } }));
      return parts.length === 1 ? (parts[0] as Doc) : { $or: parts };
    };
    let docs: Doc[];
    let reachedN: number | undefined;
    if (reached && count > 0 && count <= limit) docs = await read({});
    else if (reached) {
      const hit = await read(inValues(reached));
      reachedN = hit.length;
      docs = joinedCopyDocs(hit, await read({}), limit);
    }
    // The local side copied whole joins to any foreign document: no filter then (a long $in timed out on SecantusDB).
    else docs = await read(whole ? {} : inValues(local));
    keep.set(from, docs);
    const pair = [fa.get(from), fb.get(from)] as string[];
    // The joined side whole: a join cut short would return other results than in production.
    const { n: copied, forced } = await copyWithin(ctx, pair, docs, COPY_SHARE, docs.length);
    const rebuilt: string[] = [];
    for (const coll of pair) {
      for (const spec of specsOf(input.joinedIndexes?.[from] ?? [])) {
        try {
          await build(ctx, coll, spec);
          if (coll === fa.get(from)) rebuilt.push(String(spec.name));
        } catch (err) {
          const why = describeServerError(err);
          return `the scratch server could not rebuild ${String(spec.name)} on the joined copy (${why})`;
        }
      }
    }
    out.push({
      from,
      copied,
      rebuilt,
      ...(reachedN !== undefined ? { reached: reachedN } : {}),
      ...(count > copied ? { partial: true } : {}),
      ...(forced ? { pastBudget: true } : {}),
    });
  }
  return out;
}

/**
 * The proof's own budget: HEADROOM of the finding's, so the round under way when it ends and the write cost's last
 * batch still end within the finding's budget plus 10% (issue 27); less, on top of that, the time its `copies` will
 * take to drop, as the run's slowest drop so far says with its margin (a server slow to drop, SecantusDB, took 2-6 s
 * a copy), never below MIN_SHARE.
 */
export const HEADROOM = 0.85;
/** The least share of the finding's budget a proof keeps, however slow the drops: below it nothing can be timed. */
export const MIN_SHARE = 0.5;
/** The share of `remainingMs` a proof keeps when each of its `copies` may take `dropMs` to drop. */
export function proofShare(remainingMs: number, dropMs: number, copies: number): number {
  const dropShare = remainingMs > 0 ? (dropMs * copies) / remainingMs : 0;
  return Math.max(MIN_SHARE, HEADROOM - dropShare);
}
const withHeadroom = (ctx: ConfirmContext, copies: number): ConfirmContext => ({
  ...ctx,
  budget: ctx.budget.slice(proofShare(ctx.budget.remainingMs, ctx.scratch.dropReserveMs, copies)),
});

const joinedText = (j: readonly { copied: number }[]): string =>
  j.map((x) => `, ${formatNumber(x.copied)} joined`).join('');

/** A progress line per phase with its seconds (counts only), through the run's log. */
function stopwatch(ctx: ConfirmContext): (what: string) => void {
  let t = performance.now();
  return (what) => {
    const now = performance.now();
    ctx.log(`  index proof: ${what} (${((now - t) / 1000).toFixed(1)} s)`);
    t = now;
  };
}

/** The prefix's figures on A (built, replayed, dropped again), and the candidate's examined over the prefix's. */
async function provePrefix(
  ctx: ConfirmContext,
  a: string,
  reads: readonly Doc[],
  input: ProveIndexInput,
  candidateExamined: number,
): Promise<{ replays: Replay[]; examinedRatio: number }> {
  const prefix = input.prefix as IndexSpec;
  const present = input.existingIndexes.some((r) => r.name === prefix.name);
  if (!present) await build(ctx, a, { key: prefix.key, name: prefix.name });
  const replays: Replay[] = [];
  for (const r of reads) replays.push(await replay(ctx, r));
  // Timed next, A must be without it again; past the budget nothing is timed and the copy is dropped whole anyway.
  if (!present && !ctx.budget.exhausted) await ctx.scratch.command({ dropIndexes: a, index: prefix.name });
  return { replays, examinedRatio: ratio(candidateExamined, ownExamined(replays)) };
}

/** A share as a percentage, for sentences: 0.5 → "50%". */
export const percent = (share: number): string => `${formatNumber(Math.round(share * 1000) / 10)}%`;

/**
 * The verdict from the figures and the time. Every replayed call cut to the share or less, with the planner choosing
 * the candidate unhinted on each: supported on the examined counts, the time a second check (it still makes the proof
 * inconclusive when it shows the calls slower; when the budget did not decide it, `basis` says the counts decided).
 * Otherwise the time must be decided and not slower. Where the join was counted by its own query, the counts decide
 * only in the direction its floor allows (`joinCountsDecide`); otherwise the time of the whole pipeline decides.
 */
export function decide(p: IndexProof, input: ProveIndexInput): IndexProof {
  const byFigures = figuresVerdict(p, input);
  if (byFigures) return byFigures;
  if (timeOnly(p)) return byTime(p, JOIN_UNCOUNTED);
  if (p.joinBasis === 'query' && joinCountsDecide(p, input) !== 'supported') {
    const share = percent(input.examinedShare ?? EXAMINED_SHARE);
    return byTime(p, p.foreign ? JOIN_FLOOR_FOREIGN.replace('{{share}}', share) : JOIN_FLOOR_LOCAL);
  }
  const slow = p.time ? timeProblem(p.time) : UNTIMED;
  if (slow === SLOWER && p.joins?.some((j) => j.partial))
    return { ...p, status: 'inconclusive', reason: REACHED_SLOWER };
  if (slow === SLOWER) return { ...p, status: 'inconclusive', reason: slow };
  if (slow === null) return { ...p, status: 'supported', basis: 'examined and time' };
  if (cutOnEveryCall(p, input)) return { ...p, status: 'supported', basis: 'examined', reason: slow };
  return { ...p, status: 'inconclusive', reason: slow };
}

/** The verdict of the whole pipeline's time alone, `lead` saying why the counts could not decide. */
function byTime(p: IndexProof, lead: string): IndexProof {
  if (!p.time) return { ...p, status: 'inconclusive', reason: `${lead}, and ${UNTIMED}` };
  const v = judge({ direction: 'below', size: 1 }, p.time);
  if (v === 'supported') return { ...p, status: 'supported', basis: 'time' };
  if (v === 'refuted' && p.joins?.some((j) => j.partial))
    return { ...p, status: 'inconclusive', reason: `${lead}, and ${REACHED_SLOWER}` };
  if (v === 'refuted') return { ...p, status: 'refuted', reason: `${lead}, and the calls were slower with it` };
  const why = timeProblem(p.time) ?? `the time did not fall by more than the noise margin (${noisePercent()})`;
  return { ...p, status: 'inconclusive', reason: `${lead}, and ${why}` };
}

/**
 * Which verdict the counts can give where the join was counted by its own query (`joinBasis` 'query'), or null. One
 * query per call scans the joined copy once without an index on the foreign field, where the `$lookup` stage scans it
 * at least once per call: its count without that index is a floor of what the stage reads. So for a foreign-field
 * candidate the measured cut understates the real one: a cut on every call (with the planner choosing it on the
 * join's query) supports it, and a smaller cut refutes nothing. For a candidate on the local collection the join's
 * reads, unchanged by it, sit in both arms at their floor, so the measured share of the pipeline's reads overstates
 * the real cut: a share above the line refutes it, and one below supports nothing. Null: the time decides.
 */
export function joinCountsDecide(
  p: IndexProof,
  input: Pick<ProveIndexInput, 'candidate' | 'examinedShare'>,
): 'supported' | 'refuted' | null {
  if (p.joinBasis !== 'query') return null;
  const share = input.examinedShare ?? EXAMINED_SHARE;
  if (p.foreign) return cutOnEveryCall(p, input) ? 'supported' : null;
  return (p.examinedRatio ?? Infinity) > share ? 'refuted' : null;
}

/**
 * Whether every replayed call examined at most the share with the candidate (its join's own query counted in, where
 * it was), and the planner chose it on each (on the pipeline's plan or its join's query).
 */
export function cutOnEveryCall(p: IndexProof, input: Pick<ProveIndexInput, 'candidate' | 'examinedShare'>): boolean {
  const share = input.examinedShare ?? EXAMINED_SHARE;
  const [w, x] = [p.without ?? [], p.with ?? []];
  if (w.length === 0 || w.length !== x.length) return false;
  return w.every((r, i) => {
    const c = x[i] as Replay;
    return chose(c, input.candidate.name) && work(c) <= share * work(r);
  });
}

/** Keys and documents the replays examined in the pipelines themselves (their joins' own queries left out). */
const ownExamined = (rs: readonly Replay[]): number => rs.reduce((t, r) => t + r.keysExamined + r.docsExamined, 0);

/**
 * Why a candidate on the local collection of a joined pipeline is refuted when the join's reads keep the pipeline's
 * share above the line, though its own stages were cut to it: the join, which it does not change, dominates. Counts,
 * names and shares only: safe to print.
 */
export function joinDominates(p: IndexProof, share: number): string | null {
  const [w, x] = [p.without ?? [], p.with ?? []];
  if (p.joinBasis !== 'query' || p.foreign || w.length === 0) return null;
  if (ratio(ownExamined(x), ownExamined(w)) > share) return null;
  const join = w.reduce((t, r) => t + joinWork(r.join), 0);
  const from = p.joins?.[0]?.from ?? 'the joined collection';
  const unindexed = w.every((r) => (r.join?.indexes.length ?? 0) === 0);
  return sentence(
    `it cut what the stages before the $lookup examined to ${percent(ratio(ownExamined(x), ownExamined(w)))}, `,
    `but the $lookup into ${from}, which it does not change, reads at least what its own query examined on the `,
    `joined copy, ${formatNumber(Math.round(join / w.length))} keys and documents per call`,
    unindexed ? ' (a collection scan: no index serves its foreign field)' : '',
    `, so with it counted the pipeline's examined fell only to ${percent(p.examinedRatio ?? 1)}, not to `,
    `${percent(share)} or less`,
    unindexed ? "; index the join's foreign field first, then prove this one again" : '',
  );
}

/**
 * The verdict the untimed figures already give (results differ, the copy is too small, examined does not fall far
 * enough, a compound candidate does not beat its prefix), or null when only the time can still decide.
 */
function figuresVerdict(p: IndexProof, input: ProveIndexInput): IndexProof | null {
  const same = p.sameResults as { checked: number; same: number };
  if (same.same < same.checked) {
    const n = formatNumber(same.checked - same.same);
    return { ...p, status: 'inconclusive', reason: `${n} replayed queries returned different results with the index` };
  }
  const small = p.copy ? copyTooSmall(p.copy, input.plannerTrialWorks) : null;
  if (small) return { ...p, status: 'inconclusive', reason: small };
  if (timeOnly(p)) return null;
  const key = formatKey(input.candidate.key as IndexShape['key']);
  const share = input.examinedShare ?? EXAMINED_SHARE;
  // The join's own query is a floor of the join's reads: the counts refute only what the floor allows.
  const refutable = p.joinBasis !== 'query' || joinCountsDecide(p, input) === 'refuted';
  if (refutable && (p.examinedRatio ?? Infinity) > share) {
    const dominated = joinDominates(p, share);
    if (dominated) return { ...p, status: 'refuted', reason: dominated };
    const why = p.pickedCandidate === 0 ? `the planner did not pick ${key}` : 'keys and documents examined';
    return { ...p, status: 'refuted', reason: `${why}: examined did not fall to ${percent(share)} or less` };
  }
  if (p.joinBasis === 'query' && p.foreign) return null;
  // Dexter's prefix test: a compound index must cut what its best prefix examines by the same share again, unless
  // its further fields give the sort the prefix's plans did in memory (a sort saves no examined document).
  if (p.prefix && p.prefix.examinedRatio > share && !sortSaved(p)) {
    const prefixKey = formatKey((input.prefix?.key ?? {}) as IndexShape['key']);
    const cut = percent(1 - Math.min(1, p.prefix.examinedRatio));
    const reason =
      `${key} examines only ${cut} less than its prefix ${prefixKey} (Dexter's test wants ${percent(1 - share)} ` +
      `less or more), so the prefix serves the calls about as well`;
    return { ...p, status: 'refuted', reason };
  }
  return null;
}

/** Whether the prefix's plans sorted in memory on some call where the candidate's did not. */
function sortSaved(p: IndexProof): boolean {
  const x = p.with ?? [];
  return (p.prefix?.replays ?? []).some((r, i) => r.sortsInMemory === true && x[i]?.sortsInMemory === false);
}

/** The candidate's size (scaled to the source's count) and insert time with over without it. */
async function writeCost(
  ctx: ConfirmContext,
  [a, b]: [string, string],
  name: string,
  docs: readonly Doc[],
  { copy, batch: perBatch }: { copy: Copy; batch: number },
): Promise<WriteCost> {
  const out: WriteCost = { bytes: null, batch: Math.min(perBatch, docs.length) };
  // A checkpoint (fsync) takes seconds on some servers: with less of the budget left than the run's slowest one took,
  // neither the size nor the inserts are taken.
  if (ctx.budget.exhausted || ctx.budget.remainingMs < ctx.scratch.fsyncReserveMs)
    return {
      ...out,
      sizeReason: 'not measured: the time budget ended before it',
      insertReason: 'not timed: the time budget ended before the inserts',
    };
  await ctx.scratch.fsync().catch(() => null);
  const stats = await ctx.scratch.collStats(b);
  const size = num((stats?.indexSizes as Doc | undefined)?.[name]);
  if (size > 0 && copy.copied > 0)
    out.bytes = Math.round((size * Math.max(copy.sourceCount, copy.copied)) / copy.copied);
  else
    out.sizeReason =
      stats === null
        ? 'the scratch server did not answer $collStats storageStats'
        : "the scratch server's storage statistics give no size for the index";
  if (ctx.budget.exhausted) return { ...out, insertReason: 'not timed: the time budget ended before the inserts' };
  if (docs.length === 0) return { ...out, insertReason: 'not timed: no document was copied to insert again' };
  const batch = docs.slice(0, out.batch).map(withoutId);
  const [ta, tb] = await alternate(
    ctx.budget.slice(1),
    { label: 'insert without', run: async () => void (await ctx.scratch.insertMany(a, batch)) },
    { label: 'insert with', run: async () => void (await ctx.scratch.insertMany(b, batch)) },
  );
  const insert = ratioOf('insert with / without', tb, ta);
  // No block timed (the budget ended within the first rounds): no ratio, never a NaN.
  if ((insert.blocks ?? 0) === 0 || !Number.isFinite(insert.median))
    return { ...out, insertReason: 'not timed: the time budget ended before a round of inserts was timed both ways' };
  out.insert = insert;
  return out;
}

export interface ProveDropInput {
  ns: string;
  existingIndexes: readonly Doc[];
  /** The index to drop (its name). */
  index: string;
  /** Every shape of the collection, each with real instances (never returned). */
  shapes: readonly { id: string; instances: readonly Doc[] }[];
  /** Documents to copy (default PROOF_DOCS). */
  docs?: number;
  /** A shape needs the index when examined grows past 1 / this share without it (default EXAMINED_SHARE). */
  examinedShare?: number;
  /** A copy below this and below the collection is inconclusive (default PLANNER_TRIAL_WORKS). */
  plannerTrialWorks?: number;
  /** Copy past the run's default `maxDocs` (default false; see ProveIndexInput). */
  pastMaxDocs?: boolean;
}

export interface ShapeDrop {
  id: string;
  /** Keys + docs examined without over with the index (exact). */
  examinedRatio: number;
  /** Time without over with the index, in alternation; absent when no plan used the index and examined held. */
  time?: RatioInterval;
  /** Whether this shape needs the index: examined doubles or time worsens without it. */
  regresses: boolean;
  /** Whether the winning plan named the index with it in place. */
  usedIt: boolean;
}

export interface DropProof {
  status: ProofStatus;
  reason?: string;
  copy?: Copy;
  shapes?: ShapeDrop[];
  /** Ids of the shapes that need the index (printed shape ids, never values). */
  needs?: string[];
  /**
   * What made the proof run past its budget, when its measured time did pass it: the copy (fewer documents could not
   * decide) or the explains of the shapes left when the budget ended (every shape is explained both ways whatever the
   * budget).
   */
  pastBudget?: 'copy' | 'explain';
  /** Its measured time, when that passed its budget (pastBudgetAsMeasured). */
  late?: Late;
}

/**
 * Proves a drop on two copies (ALL: every existing index; LESS: all but the index, as a drop on the copy would leave
 * it, so the proof holds on servers that accept `hidden` and still plan with it): every shape replayed unhinted on
 * both, and timed in alternation. Supported when no shape regresses; else `needs` names the shapes.
 */
export async function proveDrop(given: ConfirmContext, input: ProveDropInput): Promise<DropProof> {
  const [t0, budgetMs] = [performance.now(), given.budget.remainingMs];
  return pastBudgetAsMeasured(await proveDropOnCopies(given, input), performance.now() - t0, budgetMs);
}

async function proveDropOnCopies(given: ConfirmContext, input: ProveDropInput): Promise<DropProof> {
  const ctx = withHeadroom(given, 2);
  const { a, b } = names();
  if (!input.existingIndexes.some((r) => r.name === input.index))
    return { status: 'not-run', reason: 'the index is not among the existing indexes' };
  const reads = input.shapes.map((s) => ({
    id: s.id,
    all: s.instances.map((c) => readOf(c, a)),
    less: s.instances.map((c) => readOf(c, b)),
  }));
  if (reads.some((s) => s.all.length === 0 || s.all.some((r) => r === null)))
    return { status: 'not-run', reason: 'a shape has no instance, or one that is not a read, update or delete' };
  try {
    const prepared = await prepare(ctx, input, [a, b], reads[0]?.all[0] as Doc, new Set([input.index]));
    if (typeof prepared === 'string') return { status: 'not-run', reason: prepared };
    const { copy, asked } = prepared;
    if (!copy.rebuilt.includes(input.index))
      return { status: 'not-run', reason: 'the scratch server could not rebuild the index', copy };
    const unreadable = await probe(ctx, reads[0]?.all[0] as Doc, asked);
    if (unreadable) return { status: 'not-run', reason: unreadable, copy };
    const shapes: ShapeDrop[] = [];
    // Every shape is explained both ways, whatever the budget (a few calls each): a shape whose plans do not use the
    // index is decided by the counts alone. Only the timing of a shape that used it needs the budget.
    let untimed = 0;
    let explainedPast = false;
    const share = input.examinedShare ?? EXAMINED_SHARE;
    for (const [i, s] of reads.entries()) {
      ctx.budget.throwIfAborted();
      if (ctx.budget.exhausted) explainedPast = true;
      const all: Replay[] = [];
      const less: Replay[] = [];
      for (const r of s.all) all.push(await replay(ctx, r as Doc));
      for (const r of s.less) less.push(await replay(ctx, r as Doc));
      const examinedRatio = ratio(examined(less), examined(all));
      const usedIt = all.some((r) => r.indexes.includes(input.index));
      // No plan chose the index with it in place and nothing examined more without it: the plans are the same, so
      // dropping it cannot slow this shape, and its time is not measured (the budget goes to shapes that used it).
      if (!usedIt && examinedRatio <= 1) {
        shapes.push({ id: s.id, examinedRatio, regresses: false, usedIt });
        continue;
      }
      const byCounts = examinedRatio >= 1 / share;
      if (ctx.budget.exhausted) {
        // past the budget: the counts alone (a regression they show stands; otherwise this shape is untimed)
        if (!byCounts) untimed++;
        shapes.push({ id: s.id, examinedRatio, regresses: byCounts, usedIt });
        continue;
      }
      const [tl, ta] = await alternate(
        ctx.budget.slice(1 / (reads.length - i)),
        { label: 'without', run: cycling(ctx, s.less as Doc[]) },
        { label: 'with', run: cycling(ctx, s.all as Doc[]) },
      );
      const time = ratioOf('without / with', tl, ta);
      const worse = judge({ direction: 'above', size: 1 }, time) === 'supported';
      shapes.push({ id: s.id, examinedRatio, time, regresses: byCounts || worse, usedIt });
    }
    const needs = shapes.filter((s) => s.regresses).map((s) => s.id);
    const past = copy.pastBudget
      ? ({ pastBudget: 'copy' } as const)
      : explainedPast
        ? ({ pastBudget: 'explain' } as const)
        : {};
    const small = copyTooSmall(copy, input.plannerTrialWorks);
    if (small) return { status: 'inconclusive', reason: small, copy, shapes, needs, ...past };
    if (needs.length)
      return { status: 'refuted', reason: 'a shape regresses without the index', copy, shapes, needs, ...past };
    if (untimed) {
      const reason =
        `the time budget ended before ${formatNumber(untimed)} of the shapes that used the index ` + `were timed`;
      return { status: 'inconclusive', reason, copy, shapes, needs, ...past };
    }
    const short = shapes.find((s) => s.time && timeProblem(s.time));
    if (short?.time)
      return { status: 'inconclusive', reason: timeProblem(short.time) ?? '', copy, shapes, needs, ...past };
    return { status: 'supported', copy, shapes, needs, ...past };
  } finally {
    await dropCopies(ctx, [a, b]);
  }
}
