/**
 * The proof: both layouts on scratch, from a bounded set of parents with all their children, timed in alternation.
 * Reads: the workload's join (an aggregate with the `$lookup`) against a find on the embedded layout, after checking
 * that both give every parent the same children. The mix: the workload's reads and child writes in its own
 * proportions (inserts as a child insert against a `$push`, updates by `_id` against a positional `$set`), same
 * operations on both layouts. The verdict is the mix's (the reads' when the workload wrote no child).
 */
import type { Doc } from '../../src/core/adapter';
import type { ConfirmContext } from '../../src/confirm/context';
import {
  type Budget,
  DEFAULT_TRIALS,
  ratioOf,
  type TrialPlan,
  toMeasurement,
  type Timed,
} from '../../src/confirm/harness';
import { alternate } from '../../src/confirm/trials';
import { figure, judge, noisePercent, ratioClaim, say } from '../../src/confirm/verdict';
import { formatDuration, formatNumber } from '../../src/core/format';
import { sentence } from '../../src/core/rule';
import type { Confirmation, Finding, Measurement, RatioClaim, RatioInterval, Verdict } from '../../src/core/types';
import type { EmbedReferenceOptions } from './options';

const PARENTS = 'embed_reference_parents';
const CHILDREN = 'embed_reference_children';
const EMBEDDED = 'embed_reference_embedded';
/** Operations per timed run of the mix; reads per timed run of the reads. */
const MIX_OPS = 20;
const READS_PER_RUN = 10;
const TOUCH = 'mongo_advisor_touched';
/**
 * Up to 35 blocks (5 × the first look's 7) while an interval still holds 1x or a noise edge and the budget lasts: the
 * gain measured is a few tens of percent, and a loaded server's jitter needs more blocks than the default 21 to place
 * it beyond the margin.
 */
const PLAN: TrialPlan = { ...DEFAULT_TRIALS, maxTrials: 5 * DEFAULT_TRIALS.trials };

export const CONFIRM_MESSAGES = {
  measuredCopy: sentence(
    'Copied {{parents}} parents with their {{children}} children to scratch, both layouts; every parent read the ',
    'same children both ways.',
  ),
  measuredReads: sentence(
    'Reads: the embedded find took {{embedded}} against {{referenced}} for the `$lookup` ({{reads}} parents per ',
    'run): {{figure}}.',
  ),
  measuredReadsPaired: sentence(
    'Reads: the embedded find took {{embedded}} against {{referenced}} for the two finds, the parent and then its ',
    'children ({{reads}} parents per run): {{figure}}.',
  ),
  measuredMix: sentence(
    "The workload's mix ({{mix}} per run, from {{calls}} in the workload) took {{embedded}} embedded against ",
    '{{referenced}} referenced: {{figure}}.',
  ),
  measuredReadsSkipped: 'The reads were not timed apart: the mix, reads included, decides on its own.',
  measuredDeletes: 'Child deletes ({{deletes}} in the workload) were not replayed.',
  measuredAlone: sentence(
    'Reads of the child alone ({{reads}} in the workload) were not replayed: on the embedded layout they would ',
    'need an index on the array.',
  ),
  supportedEmbed: 'The interval lies below 1x by more than the {{margin}} noise margin: {{claim}}; embed.',
  supportedEmbedBoth: sentence(
    'Both intervals lie below 1x by more than the {{margin}} noise margin: the reads gain, and {{claim}}; embed.',
  ),
  refutedEmbed: sentence(
    'The interval lies above 1x by more than the {{margin}} noise margin: against the claim that {{claim}}; keep ',
    'the children referenced.',
  ),
  inconclusiveEmbed: sentence(
    'The interval reaches within {{margin}} of 1x, so whether {{claim}} is not shown either way: leave the layout ',
    'as it is.',
  ),
  inconclusiveBudget: sentence(
    'The time budget ({{budget}} per finding) ran out before a 95% interval was reached; raise it with ',
    '--confirm-budget.',
  ),
  notRunNoParents: 'No parent with a key to join on could be read from `{{parent}}`.',
  notRunTooMany: sentence(
    'The children of {{parents}} parents reach the copy bound ({{limit}} documents), so not all of them could be ',
    'copied; raise --confirm-docs or lower confirmParents.',
  ),
  errorDiffer: sentence(
    'The two layouts gave different children for {{differ}} of {{parents}} parents on scratch: no timing is ',
    'reported.',
  ),
} as const;
const M = CONFIRM_MESSAGES;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A value's identity for grouping in memory (never printed). */
function keyOf(v: unknown): string {
  if (isObject(v) && typeof (v as { toHexString?: unknown }).toHexString === 'function')
    return `oid:${(v as { toHexString(): string }).toHexString()}`;
  if (v instanceof Date) return `date:${v.getTime()}`;
  return `${typeof v}:${JSON.stringify(v)}`;
}

function valueAt(doc: Doc, path: string): unknown {
  let cur: unknown = doc;
  for (const part of path.split('.')) cur = isObject(cur) ? cur[part] : undefined;
  return cur;
}

function pick(doc: Doc, fields: readonly string[]): Doc {
  const out: Doc = { _id: doc._id };
  for (const f of fields) {
    const v = valueAt(doc, f);
    if (v !== undefined) out[f] = v;
  }
  return out;
}

/** Per-run counts of each kind in the workload's proportions, about MIX_OPS in all, each kind present once at least. */
export function mixOf(calls: { reads: number; inserts: number; updates: number }): typeof calls {
  const total = calls.reads + calls.inserts + calls.updates;
  const scale = total > 0 ? MIX_OPS / total : 0;
  const n = (x: number): number => (x > 0 ? Math.max(1, Math.round(x * scale)) : 0);
  return { reads: n(calls.reads), inserts: n(calls.inserts), updates: n(calls.updates) };
}

function mixText(m: { reads: number; inserts: number; updates: number }): string {
  const count = (n: number, one: string): string => `${formatNumber(n)} ${one}${n === 1 ? '' : 's'}`;
  return `${count(m.reads, 'read')}, ${count(m.inserts, 'insert')}, ${count(m.updates, 'update')}`;
}

/** What the finding names: the pair, the join and whether the embedded copy is an extended reference. */
interface Pair {
  db: string;
  parent: string;
  child: string;
  localField: string;
  foreignField: string;
  as: string;
  fields: string[];
  extended: boolean;
  /** `shapePair`: the application reads with two finds (the parent, then its children), not a `$lookup`. */
  twoFinds: boolean;
}

function pairOf(f: Finding): Pair {
  const ev = f.evidence;
  return {
    db: f.target.db,
    parent: String(ev.parent),
    child: String(ev.child),
    localField: String(ev.localField),
    foreignField: String(ev.foreignField),
    as: String(ev.as),
    fields: String(ev.fields ?? '')
      .split(',')
      .filter(Boolean),
    extended: ev.decision === 'extendedReference',
    twoFinds: ev.basis === 'shapePair',
  };
}

/** Both layouts on scratch, and the reads of each. */
interface Layouts {
  parents: Doc[];
  children: Doc[];
  keys: unknown[];
  childrenOf: (p: Doc) => Doc[];
  embeddedOf: (c: Doc) => Doc;
  referencedRead: (key: unknown) => Promise<Doc[]>;
  embeddedRead: (key: unknown) => Promise<Doc[]>;
}

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

/** Copies the parents and all their children, and builds both layouts; a Result when the proof cannot run. */
async function buildLayouts(ctx: ConfirmContext, p: Pair, o: EmbedReferenceOptions): Promise<Layouts | Result> {
  const s = ctx.scratch;
  const parents = (await ctx.sourceDocs(p.db, p.parent, { limit: o.confirmParents })).filter((d) => {
    const k = valueAt(d, p.localField);
    return k !== undefined && k !== null && !Array.isArray(k);
  });
  if (!parents.length)
    return { status: 'not-run', summary: say(M, 'notRunNoParents', { parent: p.parent }), measurements: [] };
  const keys = parents.map((d) => valueAt(d, p.localField));
  const limit = ctx.settings.maxDocs;
  const children = await ctx.sourceDocs(p.db, p.child, { filter: { [p.foreignField]: { $in: keys } }, limit });
  if (children.length >= limit)
    return {
      status: 'not-run',
      summary: say(M, 'notRunTooMany', { parents: formatNumber(parents.length), limit: formatNumber(limit) }),
      measurements: [],
    };
  const byKey = new Map<string, Doc[]>();
  for (const c of children) {
    const k = keyOf(valueAt(c, p.foreignField));
    byKey.set(k, [...(byKey.get(k) ?? []), c]);
  }
  const childrenOf = (d: Doc): Doc[] => byKey.get(keyOf(valueAt(d, p.localField))) ?? [];
  const embeddedOf = (c: Doc): Doc => (p.extended ? pick(c, p.fields) : c);
  await dropAll(ctx);
  await s.copy(PARENTS, parents);
  await s.copy(CHILDREN, children);
  await s.command({ createIndexes: CHILDREN, indexes: [{ key: { [p.foreignField]: 1 }, name: 'join_key' }] });
  await s.copy(
    EMBEDDED,
    parents.map((d) => ({ ...d, [p.as]: childrenOf(d).map(embeddedOf) })),
  );
  if (p.localField !== '_id')
    for (const name of [PARENTS, EMBEDDED])
      await s.command({ createIndexes: name, indexes: [{ key: { [p.localField]: 1 }, name: 'parent_key' }] });
  const lookup = { $lookup: { from: CHILDREN, localField: p.localField, foreignField: p.foreignField, as: p.as } };
  return {
    parents,
    children,
    keys,
    childrenOf,
    embeddedOf,
    referencedRead: p.twoFinds
      ? async (key) => {
          const [parent] = await s.cursor({ find: PARENTS, filter: { [p.localField]: key } });
          const joined = await s.cursor({ find: CHILDREN, filter: { [p.foreignField]: key } });
          return parent ? [{ ...parent, [p.as]: joined }] : [];
        }
      : (key) => s.cursor({ aggregate: PARENTS, pipeline: [{ $match: { [p.localField]: key } }, lookup], cursor: {} }),
    embeddedRead: (key) => s.cursor({ find: EMBEDDED, filter: { [p.localField]: key } }),
  };
}

/** Parents whose children differ between the two layouts (same results both ways, or no timing). */
async function differing(l: Layouts, as: string): Promise<number> {
  const ids = (docs: Doc[]): string =>
    docs
      .flatMap((d) => (Array.isArray(d[as]) ? (d[as] as Doc[]) : []))
      .map((c) => keyOf(c._id))
      .sort()
      .join('|');
  let differ = 0;
  for (const key of l.keys) if (ids(await l.referencedRead(key)) !== ids(await l.embeddedRead(key))) differ++;
  return differ;
}

interface Timing {
  embedded: Timed;
  referenced: Timed;
  ratio: RatioInterval & { label: string };
  claim: RatioClaim;
}

/** The reads' claim: the embedded layout reads a parent with its children faster than the join (ratio below 1). */
export function readsClaim(twoFinds = false): RatioClaim {
  const join = twoFinds ? 'the two finds' : 'the `$lookup`';
  return ratioClaim('below', 1, `a parent read from the embedded layout costs less than ${join}`);
}

/** The verdict's claim: the workload's reads and child writes cost less on the embedded layout (ratio below 1). */
export function mixClaim(): RatioClaim {
  return ratioClaim('below', 1, "the workload's mix costs less on the embedded layout");
}

async function timeReads(ctx: ConfirmContext, p: Pair, l: Layouts): Promise<Timing> {
  const claim = readsClaim(p.twoFinds);
  // each arm walks every parent copied in turn, so a run reads other documents than the last one did
  const next = { embedded: 0, referenced: 0 };
  const reads = async (read: (key: unknown) => Promise<Doc[]>, arm: keyof typeof next): Promise<void> => {
    for (let i = 0; i < READS_PER_RUN; i++) await read(l.keys[next[arm]++ % l.keys.length]);
  };
  const [embedded, referenced] = await alternate(
    ctx.budget,
    { label: 'embedded: find by parent key', run: () => reads(l.embeddedRead, 'embedded') },
    {
      label: p.twoFinds ? 'referenced: find the parent, then its children' : 'referenced: $lookup',
      run: () => reads(l.referencedRead, 'referenced'),
    },
    PLAN,
  );
  return { embedded, referenced, ratio: ratioOf('embedded / referenced read', embedded, referenced), claim };
}

type Mix = { reads: number; inserts: number; updates: number };

/** The workload's reads and child writes in its proportions, the same operations on both layouts. */
async function timeMix(ctx: ConfirmContext, p: Pair, l: Layouts, mix: Mix, budget: Budget): Promise<Timing> {
  const s = ctx.scratch;
  const pool = l.parents.flatMap((d) => l.childrenOf(d).map((c) => ({ key: valueAt(d, p.localField), id: c._id })));
  const template = l.children[0] ?? {};
  let n = 0;
  // each arm walks the same parents and children in the same order
  const at = [0, 0];
  const upd = [0, 0];
  const write = (coll: string, q: Doc, update: Doc): Promise<Doc> =>
    s.command({ update: coll, updates: [{ q, u: update }] });
  const round = async (embedded: boolean): Promise<void> => {
    const arm = embedded ? 1 : 0;
    for (let i = 0; i < mix.reads; i++) {
      const key = l.keys[(at[arm] = (at[arm] ?? 0) + 1) % l.keys.length];
      await (embedded ? l.embeddedRead(key) : l.referencedRead(key));
    }
    for (let i = 0; i < mix.inserts; i++) {
      const key = l.keys[(at[arm] = (at[arm] ?? 0) + 1) % l.keys.length];
      const c: Doc = { ...template, _id: `mongo-advisor-${n++}`, [p.foreignField]: key };
      if (!embedded || p.extended) await s.command({ insert: CHILDREN, documents: [c] });
      if (embedded) await write(EMBEDDED, { [p.localField]: key }, { $push: { [p.as]: l.embeddedOf(c) } });
    }
    for (let i = 0; i < mix.updates && pool.length; i++) {
      const t = pool[(upd[arm] = (upd[arm] ?? 0) + 1) % pool.length] as { key: unknown; id: unknown };
      if (!embedded || p.extended) await write(CHILDREN, { _id: t.id }, { $set: { [TOUCH]: n++ } });
      if (embedded)
        await write(
          EMBEDDED,
          { [p.localField]: t.key, [`${p.as}._id`]: t.id },
          { $set: { [`${p.as}.$.${TOUCH}`]: n++ } },
        );
    }
  };
  const claim = mixClaim();
  const [embedded, referenced] = await alternate(
    budget,
    { label: 'embedded: the mix', run: () => round(true) },
    { label: 'referenced: the mix', run: () => round(false) },
    PLAN,
  );
  return {
    embedded,
    referenced,
    ratio: ratioOf("embedded / referenced, the workload's mix", embedded, referenced),
    claim,
  };
}

export async function confirmEmbed(ctx: ConfirmContext, f: Finding, o: EmbedReferenceOptions): Promise<Result> {
  const p = pairOf(f);
  const l = await buildLayouts(ctx, p, o);
  if ('status' in l) return l;
  const differ = await differing(l, p.as);
  if (differ > 0) {
    await dropAll(ctx);
    const data = { differ: formatNumber(differ), parents: formatNumber(l.keys.length) };
    return { status: 'error', summary: say(M, 'errorDiffer', data), measurements: [] };
  }
  const parts = [
    say(M, 'measuredCopy', { parents: formatNumber(l.parents.length), children: formatNumber(l.children.length) }),
  ];
  const ms = (t: Timed): string => formatDuration(toMeasurement(t).median);
  const ev = f.evidence;
  const calls = {
    reads: Number(ev.joinCalls) || 0,
    inserts: Number(ev.childInserts) || 0,
    updates: Number(ev.childUpdates) || 0,
  };
  // The mix first (when the workload wrote children): it decides against embedding on its own, and then the reads
  // need no timing; else the reads get what is left of the budget.
  let mixed: { t: Timing; sentence: string } | null = null;
  if (calls.inserts + calls.updates > 0) {
    const mix = mixOf(calls);
    const t = await timeMix(ctx, p, l, mix, ctx.budget.slice(0.6));
    const data = { mix: mixText(mix), calls: mixText(calls), figure: figure(t.ratio, t.claim) };
    mixed = { t, sentence: say(M, 'measuredMix', { ...data, embedded: ms(t.embedded), referenced: ms(t.referenced) }) };
  }
  const timings: Timing[] = [];
  const measurements: Measurement[] = [];
  const briefs: string[] = [];
  if (mixed && verdictOf(mixed.t) === 'refuted') parts.push(say(M, 'measuredReadsSkipped'));
  else {
    const reads = await timeReads(ctx, p, l);
    parts.push(
      say(M, p.twoFinds ? 'measuredReadsPaired' : 'measuredReads', {
        embedded: ms(reads.embedded),
        referenced: ms(reads.referenced),
        reads: READS_PER_RUN,
        figure: figure(reads.ratio, reads.claim),
      }),
    );
    measurements.push(toMeasurement(reads.embedded), toMeasurement(reads.referenced));
    timings.push(reads);
    briefs.push(`reads ${figure(reads.ratio, reads.claim)}`);
  }
  if (mixed) {
    parts.push(mixed.sentence);
    measurements.push(toMeasurement(mixed.t.embedded), toMeasurement(mixed.t.referenced));
    timings.push(mixed.t);
    briefs.push(`mix ${figure(mixed.t.ratio, mixed.t.claim)}`);
  }
  const brief = briefs.join('; ');
  const deletes = Number(ev.childDeletes) || 0;
  if (deletes > 0) parts.push(say(M, 'measuredDeletes', { deletes: formatNumber(deletes) }));
  const alone = Number(ev.childReadsAlone) || 0;
  if (alone > 0) parts.push(say(M, 'measuredAlone', { reads: formatNumber(alone) }));
  await dropAll(ctx);
  const decided = deciding(timings);
  const { claim, ratio } = decided;
  const status = verdictOf(decided);
  const data = { claim: claim.text, margin: noisePercent() };
  if (!complete(decided.embedded, decided.referenced))
    parts.push(say(M, 'inconclusiveBudget', { budget: formatDuration(ctx.settings.budgetMs) }));
  else if (status === 'supported')
    parts.push(say(M, timings.length > 1 ? 'supportedEmbedBoth' : 'supportedEmbed', data));
  else if (status === 'refuted') parts.push(say(M, 'refutedEmbed', data));
  else parts.push(say(M, 'inconclusiveEmbed', data));
  return { status, claim, summary: parts.join(' '), ratio, measurements, brief };
}

const complete = (a: Timed, b: Timed): boolean => a.complete && b.complete;

/** A timing's verdict: its claim against its interval, inconclusive when the budget cut it short. */
const verdictOf = (t: Timing): Verdict =>
  complete(t.embedded, t.referenced) ? judge(t.claim, t.ratio) : 'inconclusive';

/**
 * The timing that decides: embedding is supported only when the reads gain beyond the noise and the workload's mix
 * does too (the mix being the reads with the child writes, in the workload's proportions). The first refuted timing
 * decides, else the first that is not supported, else the last (the mix when there is one).
 */
export function deciding<T extends Timing>(timings: readonly T[]): T {
  const v = timings.map(verdictOf);
  const at = v.indexOf('refuted') >= 0 ? v.indexOf('refuted') : v.findIndex((x) => x !== 'supported');
  return (at >= 0 ? timings[at] : timings[timings.length - 1]) as T;
}

async function dropAll(ctx: ConfirmContext): Promise<void> {
  for (const name of [PARENTS, CHILDREN, EMBEDDED]) await ctx.scratch.drop(name);
}
