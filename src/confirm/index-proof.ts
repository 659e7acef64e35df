/**
 * Index proof on scratch (issue 20): an index is recommended only after replaying the queries actually run on a copy
 * of the collection, unhinted, without and with it; an index is dropped only after every shape of the collection was
 * replayed without it. Pure inputs, figures out: the calling rule writes the sentences. Commands hold real values:
 * they stay in memory, and nothing here returns or logs them (results are counts, names and ratios).
 */
import type { Doc } from '../adapters/types';
import { planFacts } from '../lib/explain';
import { describeServerError } from '../lib/server-error';
import { formatKey, type IndexShape } from '../lib/index-keys';
import { formatNumber } from '../core/format';
import { sentence } from '../core/rule';
import type { RatioInterval, Verdict } from '../core/types';
import type { ConfirmContext } from './context';
import { idKey } from './copy';
import { averageDocBytes } from './index';
import { judge, ratioOf } from './harness';
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
}

/**
 * What set the copy's size: the proof's own size (`docs`), the whole collection, the run's `maxDocs` when the user
 * chose it, the run's `maxBytes` over the average document, the run's default `maxDocs` for a caller that did not ask
 * past it (`defaultLimit`) or when that average is unknown (`unsized`: the byte bound cannot be kept past it).
 */
export type CopyBound = 'proofDocs' | 'collection' | 'maxDocs' | 'maxBytes' | 'defaultLimit' | 'unsized';

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
}

export interface WriteCost {
  /** The candidate's size on the copy scaled to the source's count, or null with `sizeReason`. */
  bytes: number | null;
  sizeReason?: string;
  /** Insert time with over without the candidate, alternating batches of re-inserted copies. */
  insert?: RatioInterval;
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
export function readOf(cmd: Doc, coll: string): Doc | null {
  const name = Object.keys(cmd)[0] ?? '';
  const keep = (c: Doc): Doc => {
    const { $db: _db, lsid: _l, $clusterTime: _c, txnNumber: _t, ...rest } = c;
    return rest;
  };
  if (['find', 'aggregate', 'count', 'distinct'].includes(name)) {
    const c = keep({ ...cmd, [name]: coll });
    if (name === 'aggregate' && c.cursor === undefined) c.cursor = {};
    return c;
  }
  const stmts = (name === 'update' ? cmd.updates : name === 'delete' ? cmd.deletes : null) as Doc[] | null;
  const s = stmts?.[0];
  if (!s) return null;
  const limit = name === 'delete' ? num(s.limit) : s.multi === true ? 0 : 1;
  return { find: coll, filter: s.q ?? {}, ...(limit ? { limit } : {}) };
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
  ns: string,
  existing: readonly Doc[],
  colls: readonly string[],
  want: { docs?: number; pastMaxDocs?: boolean },
  skip: ReadonlySet<string> = new Set(),
): Promise<{ copy: Copy; docs: Doc[] } | string> {
  const [db, coll] = splitNs(ns);
  const counted = await ctx.source.command(db, { count: coll, maxTimeMS: 10_000 }).catch(() => null);
  const sourceCount = num(counted?.n);
  const pastMaxDocs = want.pastMaxDocs === true;
  const { limit, bound } = planProofCopy({
    want: want.docs ?? PROOF_DOCS,
    sourceCount,
    maxDocs: ctx.settings.maxDocs,
    maxDocsChosen: ctx.settings.maxDocsChosen === true,
    pastMaxDocs,
    maxBytes: ctx.settings.maxBytes,
    avgBytes: averageDocBytes(ctx.snapshot, db, coll),
  });
  const docs = await ctx.sourceDocs(db, coll, { limit, pastMaxDocs });
  if (docs.length === 0) return 'the source collection returned no documents to copy';
  const copy: Copy = { sourceCount, copied: docs.length, planned: limit, bound, rebuilt: [], notRebuilt: [] };
  for (const name of colls) {
    await ctx.scratch.drop(name);
    await ctx.scratch.create(name);
    copy.copied = Math.min(copy.copied, (await ctx.scratch.copy(name, docs)).inserted);
  }
  for (const spec of specsOf(existing)) {
    const name = String(spec.name);
    try {
      for (const c of colls) if (!(skip.has(name) && c === colls[colls.length - 1])) await build(ctx, c, spec);
      copy.rebuilt.push(name);
    } catch (err) {
      copy.notRebuilt.push(`${name} (${describeServerError(err)})`);
    }
  }
  return { copy, docs };
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
  return {
    keysExamined: num(stats.totalKeysExamined),
    docsExamined: num(stats.totalDocsExamined),
    nReturned: num(stats.nReturned),
    indexes: [...new Set(planFacts(winning).indexes)],
    executionTimeMillis: num(stats.executionTimeMillis),
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
  const keys = rows.map((d) => idKey(d._id ?? d));
  return sorts(read) ? keys : keys.sort();
}

function sorts(read: Doc): boolean {
  if (read.sort && Object.keys(read.sort).length > 0) return true;
  return Array.isArray(read.pipeline) && (read.pipeline as Doc[]).some((s) => '$sort' in s);
}

async function sameResults(ctx: ConfirmContext, a: Doc, b: Doc): Promise<boolean> {
  const [x, y] = [await resultKeys(ctx, a), await resultKeys(ctx, b)];
  return x.length === y.length && x.every((k, i) => k === y[i]);
}

const examined = (rs: readonly Replay[]): number => rs.reduce((t, r) => t + r.keysExamined + r.docsExamined, 0);
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
  if (judge({ direction: 'above', size: 1 }, t) === 'supported') return 'the replayed queries were slower with it';
  if (t.coverage === undefined || t.coverage >= 0.95 - 1e-12) return null;
  if (Number.isFinite(t.high) && t.high < 1 && (1 + t.coverage) / 2 >= 0.95 - 1e-12) return null;
  return 'the time budget ended before enough rounds were timed for a 95% interval';
}

/** Whether the scratch server's explain can show the planner's choice; a reason when it cannot. */
async function probe(ctx: ConfirmContext, read: Doc): Promise<string | null> {
  try {
    if (await explainReadable(ctx, read)) return null;
    return "the server's explain names no plan stage and no index, so the planner's choice cannot be read";
  } catch (err) {
    return `the server refused explain with executionStats (${describeServerError(err)})`;
  }
}

/**
 * Proves a candidate index on two identical scratch copies (A: the existing indexes; B: the same and the candidate):
 * every instance explained unhinted on both, results compared, the instances timed in alternation, then the
 * candidate's size and insert cost.
 */
export async function proveIndex(ctx: ConfirmContext, input: ProveIndexInput): Promise<IndexProof> {
  const { a, b } = names();
  const readsA = input.instances.map((c) => readOf(c, a));
  if (readsA.length === 0 || readsA.some((r) => r === null))
    return { status: 'not-run', reason: 'an instance is not a find, aggregate, count, distinct, update or delete' };
  const ra = readsA as Doc[];
  const rb = input.instances.map((c) => readOf(c, b) as Doc);
  try {
    const lap = stopwatch(ctx);
    const prepared = await prepare(ctx, input.ns, input.existingIndexes, [a, b], input);
    if (typeof prepared === 'string') return { status: 'not-run', reason: prepared };
    const { copy, docs } = prepared;
    lap(`${formatNumber(copy.copied)} documents copied twice, ${copy.rebuilt.length} indexes rebuilt`);
    const unreadable = await probe(ctx, ra[0] as Doc);
    if (unreadable) return { status: 'not-run', reason: unreadable, copy };
    await build(ctx, b, { key: input.candidate.key, name: input.candidate.name });
    const without: Replay[] = [];
    const withIt: Replay[] = [];
    let same = 0;
    for (let i = 0; i < ra.length; i++) {
      without.push(await replay(ctx, ra[i] as Doc));
      withIt.push(await replay(ctx, rb[i] as Doc));
      if (await sameResults(ctx, ra[i] as Doc, rb[i] as Doc)) same++;
    }
    const proof: IndexProof = {
      status: 'inconclusive',
      copy,
      without,
      with: withIt,
      pickedCandidate: withIt.filter((r) => r.indexes.includes(input.candidate.name)).length,
      examinedRatio: ratio(examined(withIt), examined(without)),
      sameResults: { checked: ra.length, same },
    };
    if (input.prefix) proof.prefix = await provePrefix(ctx, a, ra, input, examined(withIt));
    lap(`${ra.length} calls explained and compared both ways`);
    // Timing cannot change a verdict the figures already gave: skip it (and the write cost) then.
    const early = figuresVerdict(proof, input);
    if (early) return early;
    const [ta, tb] = await alternate(
      ctx.budget.slice(input.writeCost === false ? 1 : 0.7),
      { label: 'without', run: cycling(ctx, ra) },
      { label: 'with', run: cycling(ctx, rb) },
    );
    proof.time = ratioOf('with / without', tb, ta);
    lap(`timed in alternation, ${proof.time.pairs ?? 0} rounds`);
    if (input.writeCost !== false) {
      const batch = input.insertBatch ?? INSERT_BATCH;
      proof.writeCost = await writeCost(ctx, [a, b], input.candidate.name, docs, { copy, batch });
      lap('insert cost timed');
    }
    return decide(proof, input);
  } finally {
    await ctx.scratch.drop(a);
    await ctx.scratch.drop(b);
  }
}

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
  if (!present) await ctx.scratch.command({ dropIndexes: a, index: prefix.name });
  return { replays, examinedRatio: ratio(candidateExamined, examined(replays)) };
}

/** A share as a percentage, for sentences: 0.5 → "50%". */
export const percent = (share: number): string => `${formatNumber(Math.round(share * 1000) / 10)}%`;

/** The verdict from the figures and the time: the rule of the module's header. */
function decide(p: IndexProof, input: ProveIndexInput): IndexProof {
  const byFigures = figuresVerdict(p, input);
  if (byFigures) return byFigures;
  const slow = timeProblem(p.time as RatioInterval);
  if (slow) return { ...p, status: 'inconclusive', reason: slow };
  return { ...p, status: 'supported' };
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
  const key = formatKey(input.candidate.key as IndexShape['key']);
  const share = input.examinedShare ?? EXAMINED_SHARE;
  if ((p.examinedRatio ?? Infinity) > share) {
    const why = p.pickedCandidate === 0 ? `the planner did not pick ${key}` : 'keys and documents examined';
    return { ...p, status: 'refuted', reason: `${why}: examined did not fall to ${percent(share)} or less` };
  }
  if (p.prefix && p.prefix.examinedRatio > share) {
    const prefixKey = formatKey((input.prefix?.key ?? {}) as IndexShape['key']);
    const reason = `${key} does not cut what its prefix ${prefixKey} examines to ${percent(share)} or less`;
    return { ...p, status: 'refuted', reason };
  }
  return null;
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
  const batch = docs.slice(0, out.batch).map(withoutId);
  const [ta, tb] = await alternate(
    ctx.budget.slice(1),
    { label: 'insert without', run: async () => void (await ctx.scratch.insertMany(a, batch)) },
    { label: 'insert with', run: async () => void (await ctx.scratch.insertMany(b, batch)) },
  );
  out.insert = ratioOf('insert with / without', tb, ta);
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
}

/**
 * Proves a drop on two copies (ALL: every existing index; LESS: all but the index, as a drop on the copy would leave
 * it, so the proof holds on servers that accept `hidden` and still plan with it): every shape replayed unhinted on
 * both, and timed in alternation. Supported when no shape regresses; else `needs` names the shapes.
 */
export async function proveDrop(ctx: ConfirmContext, input: ProveDropInput): Promise<DropProof> {
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
    const prepared = await prepare(ctx, input.ns, input.existingIndexes, [a, b], input, new Set([input.index]));
    if (typeof prepared === 'string') return { status: 'not-run', reason: prepared };
    const { copy } = prepared;
    if (!copy.rebuilt.includes(input.index))
      return { status: 'not-run', reason: 'the scratch server could not rebuild the index', copy };
    const unreadable = await probe(ctx, reads[0]?.all[0] as Doc);
    if (unreadable) return { status: 'not-run', reason: unreadable, copy };
    const shapes: ShapeDrop[] = [];
    for (const [i, s] of reads.entries()) {
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
      const [tl, ta] = await alternate(
        ctx.budget.slice(1 / (reads.length - i)),
        { label: 'without', run: cycling(ctx, s.less as Doc[]) },
        { label: 'with', run: cycling(ctx, s.all as Doc[]) },
      );
      const time = ratioOf('without / with', tl, ta);
      const worse = judge({ direction: 'above', size: 1 }, time) === 'supported';
      shapes.push({
        id: s.id,
        examinedRatio,
        time,
        regresses: examinedRatio >= 1 / (input.examinedShare ?? EXAMINED_SHARE) || worse,
        usedIt,
      });
    }
    const needs = shapes.filter((s) => s.regresses).map((s) => s.id);
    const small = copyTooSmall(copy, input.plannerTrialWorks);
    if (small) return { status: 'inconclusive', reason: small, copy, shapes, needs };
    if (needs.length) return { status: 'refuted', reason: 'a shape regresses without the index', copy, shapes, needs };
    const short = shapes.find((s) => s.time && timeProblem(s.time));
    if (short?.time) return { status: 'inconclusive', reason: timeProblem(short.time) ?? '', copy, shapes, needs };
    return { status: 'supported', copy, shapes, needs };
  } finally {
    await ctx.scratch.drop(a);
    await ctx.scratch.drop(b);
  }
}
