import { sentence } from '../../src/core/rule';
import { commandCursor } from '../../src/lib/cursor';
import { codeSpan } from '../../src/lib/shell';
import type { Doc } from '../../src/core/adapter';
import { describeServerError } from '../../src/lib/server-error';
import type { ConfirmContext } from '../../src/confirm/context';
import { MIN_BLOCKS, ratioOf, toMeasurement } from '../../src/confirm/harness';
import { checkClaim, figure, judge, noisePercent, ratioClaim, say } from '../../src/confirm/verdict';
import { formatBytes, formatDuration, formatNumber } from '../../src/core/format';
import type { Confirmation, Finding, Measurement, RatioClaim, Verdict } from '../../src/core/types';
import { claimOf, standIns } from './analyze';
import { valueAt } from '../../src/lib/doc-path';
import { planFacts } from '../../src/lib/explain';
import type { IndexUsageOptions } from './options';
import { alternate, withoutId } from '../../src/confirm/trials';
import { indexFlag, isIdIndex } from '../../src/lib/index-keys';
import { dataOf } from '../../src/core/collector';
import { commandsOf, queryWorkload, type ShapeData } from '../../src/collect/workload';
import { type DropProof, lateSentence, PROOF_DOCS, proveDrop } from '../../src/confirm/index-proof';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

const BATCH = 500;
const ALL = 'index_usage_all';
const LESS = 'index_usage_less';

const notRun = (summary: string, reason?: string): Result => ({
  status: 'not-run',
  summary,
  measurements: [],
  ...(reason ? { reason } : {}),
});

/** The source's index specifications, made safe to rebuild on a scratch copy, and what was changed. */
export function scratchSpecs(rows: readonly Doc[]): { specs: Doc[]; changes: string[] } {
  const specs: Doc[] = [];
  const changes = new Set<string>();
  for (const r of rows) {
    if (r.name === '_id_' || r.clustered === true) continue;
    const { v: _v, ns: _ns, background: _bg, ...spec } = r;
    if (indexFlag(spec.unique)) {
      delete spec.unique;
      changes.add('unique indexes were built as non-unique so the copied documents can be inserted again');
    }
    if (spec.expireAfterSeconds !== undefined) {
      delete spec.expireAfterSeconds;
      changes.add('TTL options were left out so the TTL monitor does not delete the copy mid-run');
    }
    specs.push(spec);
  }
  return { specs, changes: [...changes] };
}

/** Every index named in a query plan (classic and slot-based engine plans, sharded plans), and whether it scans. */
export function planIndexes(plan: unknown): { indexes: string[]; collscan: boolean } {
  const { stages, indexes } = planFacts(plan);
  return { indexes: [...new Set(indexes)], collscan: stages.includes('COLLSCAN') };
}

/** The DBRef keys MongoDB lets an index name below the top level (jstests/core/index/indexp.js: `a.$id` builds). */
const DBREF_KEYS = new Set(['$id', '$ref', '$db']);

/**
 * Index fields an equality filter cannot name by their path: a `$`-prefixed key (other than a DBRef's below the top
 * level), which a filter reads as an operator (`{ $in: v }`). MongoDB refuses such indexes
 * (jstests/core/index/indexp.js: `{'$a': 1}` and `{'a.$b': 1}` fail); other servers may build them. A dot in an
 * index key always nests, so a key holding a dot cannot be indexed at all (MongoDB's manual, Field Names with
 * Periods and Dollar Signs).
 */
export function unnameableFields(fields: readonly string[]): string[] {
  return fields.filter((f) => f.split('.').some((k, i) => k.startsWith('$') && !(i > 0 && DBREF_KEYS.has(k))));
}

/** An equality filter on the prefix fields with values from one copied document (never printed). */
export function prefixFilter(docs: readonly Doc[], fields: readonly string[]): Doc | null {
  for (const d of docs) {
    // an index key's dots always nest: split on each, not read as a census path
    const values = fields.map((f) => valueAt(d, f.split('.')));
    if (values.every((v) => v !== undefined && !Array.isArray(v)))
      return Object.fromEntries(fields.map((f, i) => [f, values[i]]));
  }
  return null;
}

interface Copies {
  docs: Doc[];
  built: string[];
  changes: string[];
}

/** Two scratch collections with the source's indexes: ALL with every one, LESS without `drop`. */
async function prepare(
  ctx: ConfirmContext,
  db: string,
  coll: string,
  drop: ReadonlySet<string>,
): Promise<Copies | string> {
  const rows = await commandCursor(
    ctx.source,
    db,
    { listIndexes: coll, cursor: {}, maxTimeMS: 10_000 },
    { maxTimeMS: 10_000 },
  );
  const { specs, changes } = scratchSpecs(rows);
  const docs = (await ctx.sourceDocs(db, coll)).map(withoutId);
  if (docs.length === 0) return `${coll} returned no documents to copy`;
  const s = ctx.scratch;
  for (const name of [ALL, LESS]) {
    await s.drop(name);
    await s.create(name);
  }
  const built: string[] = [];
  const failed: string[] = [];
  for (const spec of specs) {
    try {
      await s.command({ createIndexes: ALL, indexes: [spec] });
      if (!drop.has(String(spec.name))) await s.command({ createIndexes: LESS, indexes: [spec] });
      built.push(String(spec.name));
    } catch (err) {
      failed.push(`${String(spec.name)} (${describeServerError(err)})`);
    }
  }
  const missing = [...drop].filter((n) => !built.includes(n));
  if (missing.length)
    return `the scratch server could not build ${missing.map((n) => codeSpan(n)).join(', ')}: ${failed.join('; ')}`;
  if (failed.length) changes.push(`not rebuilt on the copy: ${failed.join('; ')}`);
  return { docs, built, changes };
}

async function insertCost(
  ctx: ConfirmContext,
  copies: Copies,
  lessLabel: string,
): Promise<{
  all: ReturnType<typeof toMeasurement>;
  less: ReturnType<typeof toMeasurement>;
  ratio: ReturnType<typeof ratioOf>;
  complete: boolean;
  batch: number;
}> {
  const s = ctx.scratch;
  const batch = copies.docs.slice(0, BATCH);
  const insert = (coll: string) => async (): Promise<void> => {
    await s.insertMany(coll, batch);
  };
  const [all, less] = await alternate(
    ctx.budget.slice(0.8),
    {
      label: `insert ${formatNumber(batch.length)} docs, all ${formatNumber(copies.built.length + 1)} indexes`,
      run: insert(ALL),
    },
    { label: `insert ${formatNumber(batch.length)} docs, ${lessLabel}`, run: insert(LESS) },
  );
  return {
    all: toMeasurement(all),
    less: toMeasurement(less),
    ratio: ratioOf(`insert time, all indexes / ${lessLabel}`, all, less),
    complete: all.complete && less.complete,
    batch: batch.length,
  };
}

async function indexSizes(ctx: ConfirmContext, names: readonly string[]): Promise<Measurement[]> {
  const stats = await ctx.scratch.collStats(ALL);
  const sizes = (stats?.indexSizes as Doc | undefined) ?? {};
  // An index of a collection holding documents never takes 0 bytes: a 0 (or no figure) was not measured, so it is
  // left out rather than shown as a size.
  return names
    .filter((n) => Number(sizes[n]) > 0)
    .map((n) => {
      const b = Number(sizes[n]);
      return { label: `size of ${n} on the copy`, unit: 'bytes' as const, median: b, low: b, high: b, trials: 1 };
    });
}

/** The experiment's sentences (src/confirm/verdict.ts): the verdict picks the variant. */
export const CONFIRM_MESSAGES = {
  measuredInserts:
    'Inserting {{batch}} copied documents took {{allTime}} with every index and {{lessTime}} {{less}}: {{figure}}.',
  measuredChanges: 'On the copy, {{changes}}.',
  measuredSizeOne: 'On the copy, the index takes {{bytes}}.',
  measuredSizeMany: 'On the copy, those indexes take {{bytes}}.',
  supportedCost: 'The interval lies above 1x: the claim that {{claim}} holds here.',
  refutedCost: 'The interval lies below 1x: inserts were faster with every index, against the claim that {{claim}}.',
  inconclusiveCost: sentence(
    'The interval reaches within {{margin}} of 1x: within noise at this size, so whether {{claim}} is not ',
    'shown either way.',
  ),
  inconclusiveBudget:
    'The time budget ran out before {{blocks}} blocks of each were timed, so no 95% interval was reached.',
  supportedPlan: 'With `{{index}}` dropped from the copy, explain() of {{shape}} picks {{picked}}: the check passed.',
  supportedPlanStandIn: sentence(
    'With `{{index}}` dropped from the copy, explain() of {{shape}} picks {{picked}}, which is led by the ',
    'same fields as `{{longer}}`: the check passed.',
  ),
  refutedPlanScan: sentence(
    'With `{{index}}` dropped from the copy, explain() of {{shape}} chose a collection scan, not ',
    '`{{longer}}`: the check failed.',
  ),
  refutedPlanOther: sentence(
    'With `{{index}}` dropped from the copy, explain() of {{shape}} chose {{chosen}}, not `{{longer}}`: the ',
    'check failed.',
  ),
  inconclusivePlanNoValues:
    'No copied document holds single values at {{fields}}, so no query was explained and the plan is not checked.',
  inconclusivePlanOperatorField: sentence(
    'No query was explained: a filter reads {{fields}} as an operator, not a field, and `$getField` (the ',
    'only way to name it) uses no index; MongoDB refuses to build an index on a `$`-prefixed field. The plan ',
    'is not checked.',
  ),
  inconclusivePlanUnread:
    "The server's explain() of {{shape}} names no index or stage ({{why}}), so the plan could not be checked.",
  inconclusivePlanFailed: 'explain() failed on the scratch copy ({{error}}), so the plan could not be checked.',
  measuredRedundantCost: 'The insert time is shown for scale; the verdict is the plan check, not this cost.',
  supportedDrop: sentence(
    "On {{copied}} copied documents with the collection's indexes rebuilt, the {{shapes}} query shapes the workload ",
    'ran on this collection were replayed ({{calls}} real calls, unhinted) with every index and without ',
    '`{{index}}`: none examined twice as much or got slower without it.',
  ),
  supportedDropUnplanned: sentence(
    "On {{copied}} copied documents with the collection's indexes rebuilt, the {{shapes}} query shapes the workload ",
    'ran on this collection were replayed ({{calls}} real calls, unhinted) with every index and without ',
    '`{{index}}`: no plan chose it with it in place, and each shape examined as much without it as with it (the ',
    'same plans), so none can slow down without it; nothing needed timing.',
  ),
  refutedDrop: sentence(
    "On {{copied}} copied documents with the collection's indexes rebuilt, the {{shapes}} query shapes the workload ",
    'ran on this collection were replayed ({{calls}} real calls, unhinted) with every index and without ',
    '`{{index}}`: without it, {{needs}} examined at least twice as much or got slower, so they need it.',
  ),
  inconclusiveDrop: sentence(
    "On {{copied}} copied documents with the collection's indexes rebuilt, the {{shapes}} query shapes the workload ",
    'ran on this collection were replayed ({{calls}} real calls, unhinted) with every index and without ',
    '`{{index}}`, but {{why}}.',
  ),
  notRunLookupShape: sentence(
    'Not replayed: the $lookup shape, whose calls run on another collection (it was judged from its shape).',
  ),
  notRunLookupShapes: sentence(
    'Not replayed: {{skipped}} $lookup shapes, whose calls run on another collection (they were judged from ',
    'their shape).',
  ),
  measuredPastBudgetDropCopy: sentence(
    'Copying these {{copied}} documents (fewer could not decide: the planner reads a small copy whole) did not fit ',
    'the time budget on this server, so this proof ran past its budget rather than decide nothing; a larger ',
    '--confirm-budget keeps it within.',
  ),
  measuredPastBudgetDropExplain: sentence(
    'Explaining every shape both ways (a drop is judged on every shape the workload ran, a few calls each) did not ',
    'fit the time budget on this server, so this proof ran past its budget rather than decide nothing; a larger ',
    '--confirm-budget keeps it within.',
  ),
  notRunDrop: 'Not proven on a copy: {{why}}.',
  notRunDropNoCommands: sentence(
    'Not proven on a copy: the real calls of the workload are kept in memory only while the run that read them ',
    'lasts (never in a snapshot file): run check against the server with the workload (the profiler, --log or ',
    '--queries).',
  ),
} as const;
const M = CONFIRM_MESSAGES;

/** The claim of an unused index or of too many: dropping them saves insert time (all / fewer indexes above 1). */
export function dropClaim(dropped: string): RatioClaim {
  return ratioClaim('above', 1, `dropping ${dropped} saves insert time`);
}

/** The figures of the insert comparison: time with every index, without the flagged ones, the ratio, what changed. */
function costSentences(
  r: Awaited<ReturnType<typeof insertCost>>,
  lessLabel: string,
  copies: Copies,
  claim?: RatioClaim,
): string[] {
  const head = say(M, 'measuredInserts', {
    batch: formatNumber(r.batch),
    allTime: formatDuration(r.all.median),
    lessTime: formatDuration(r.less.median),
    less: lessLabel,
    figure: figure(r.ratio, claim),
  });
  return [head, ...(copies.changes.length ? [say(M, 'measuredChanges', { changes: copies.changes.join('; ') })] : [])];
}

async function confirmWriteCost(
  ctx: ConfirmContext,
  f: Finding,
  drop: Set<string>,
  lessLabel: string,
): Promise<Result> {
  const { db, collection } = f.target;
  if (!collection) return notRun('Nothing to measure: the finding names no collection.');
  const copies = await prepare(ctx, db, collection, drop);
  if (typeof copies === 'string')
    return notRun('The scratch copy could not be built, so nothing was measured.', copies);
  const r = await insertCost(ctx, copies, lessLabel);
  const sizes = await indexSizes(ctx, [...drop]);
  await cleanup(ctx);
  const bytes = formatBytes(sizes.reduce((t, m) => t + m.median, 0));
  const dropped = drop.size === 1 ? codeSpan([...drop][0] ?? '') : `the ${formatNumber(drop.size)} secondary indexes`;
  const claim = dropClaim(dropped);
  const parts = costSentences(r, lessLabel, copies, claim);
  if (sizes.length) parts.push(say(M, drop.size === 1 ? 'measuredSizeOne' : 'measuredSizeMany', { bytes }));
  const status: Verdict = r.complete ? judge(claim, r.ratio) : 'inconclusive';
  const data = { claim: claim.text, margin: noisePercent() };
  if (!r.complete) parts.push(say(M, 'inconclusiveBudget', { blocks: MIN_BLOCKS }));
  else
    parts.push(
      status === 'supported'
        ? say(M, 'supportedCost', data)
        : status === 'refuted'
          ? say(M, 'refutedCost', data)
          : say(M, 'inconclusiveCost', data),
    );
  return { status, claim, summary: parts.join(' '), ratio: r.ratio, measurements: [r.all, r.less, ...sizes] };
}

async function cleanup(ctx: ConfirmContext): Promise<void> {
  await ctx.scratch.drop(ALL);
  await ctx.scratch.drop(LESS);
}

interface PlanCheck {
  verdict: Verdict;
  sentence: string;
  brief: string;
}

/** explain() of an equality query on the shorter index's fields, on the copy without it: does the planner pick a
 * stand-in? */
async function checkPlan(
  ctx: ConfirmContext,
  index: string,
  longer: string,
  fields: string[],
  acceptable: Set<string>,
  filter: Doc | null,
  unnameable: readonly string[],
): Promise<PlanCheck> {
  const quoted = fields.map((x) => codeSpan(x)).join(', ');
  if (unnameable.length) {
    const names = unnameable.map((x) => codeSpan(x)).join(', ');
    return {
      verdict: 'inconclusive',
      sentence: say(M, 'inconclusivePlanOperatorField', { fields: names }),
      brief: 'no query can name the field',
    };
  }
  if (!filter)
    return {
      verdict: 'inconclusive',
      sentence: say(M, 'inconclusivePlanNoValues', { fields: quoted }),
      brief: 'no query to explain',
    };
  const shape = `an equality query on ${quoted} (values from a copied document)`;
  try {
    const out = await ctx.scratch.command({ explain: { find: LESS, filter }, verbosity: 'queryPlanner' });
    const plan = planIndexes((out.queryPlanner as Doc | undefined)?.winningPlan ?? out.queryPlanner ?? out);
    const picked = plan.indexes.filter((x) => acceptable.has(x));
    if (picked.length) {
      const data = { index, shape, picked: picked.map((x) => codeSpan(x)).join(', '), longer };
      return {
        verdict: 'supported',
        sentence: say(M, picked.includes(longer) ? 'supportedPlan' : 'supportedPlanStandIn', data),
        brief: `the planner picks ${data.picked} without it`,
      };
    }
    if (plan.indexes.length) {
      const chosen = plan.indexes.map((x) => codeSpan(x)).join(', ');
      return {
        verdict: 'refuted',
        sentence: say(M, 'refutedPlanOther', { index, shape, chosen, longer }),
        brief: `the planner chose ${chosen} without it`,
      };
    }
    if (plan.collscan)
      return {
        verdict: 'refuted',
        sentence: say(M, 'refutedPlanScan', { index, shape, longer }),
        brief: 'the planner chose a collection scan without it',
      };
    const why =
      ctx.snapshot.server.flavor === 'ferretdb' ? 'FerretDB plans queries in its backend' : 'an unfamiliar plan format';
    return {
      verdict: 'inconclusive',
      sentence: say(M, 'inconclusivePlanUnread', { shape, why }),
      brief: 'the plan could not be read',
    };
  } catch (err) {
    return {
      verdict: 'inconclusive',
      sentence: say(M, 'inconclusivePlanFailed', { error: describeServerError(err) }),
      brief: 'explain() failed',
    };
  }
}

async function confirmRedundant(ctx: ConfirmContext, f: Finding): Promise<Result> {
  const { db, collection, index } = f.target;
  const longer = String(f.evidence.longer ?? '');
  if (!collection || !index || !longer) return notRun('Nothing to measure: the finding names no index pair.');
  const copies = await prepare(ctx, db, collection, new Set([index]));
  if (typeof copies === 'string')
    return notRun('The scratch copy could not be built, so nothing was measured.', copies);
  if (!copies.built.includes(longer)) {
    await cleanup(ctx);
    return notRun(`The scratch server could not build ${codeSpan(longer)}, so its plans could not be checked.`);
  }
  const r = await insertCost(ctx, copies, `without ${index}`);
  const sizes = await indexSizes(ctx, [index, longer]);
  const c = ctx.snapshot.databases.find((d) => d.name === db)?.collections.find((x) => x.name === collection);
  const shorter = c?.indexes.find((i) => i.name === index);
  const fields = Object.keys(shorter?.key ?? {});
  // any compatible index led by the same fields may serve the query (with three in a chain, the middle one)
  const acceptable = new Set(c && shorter ? standIns(c, shorter) : [longer]);
  const unnameable = unnameableFields(fields);
  const filter = unnameable.length ? null : prefixFilter(copies.docs, fields);
  const plan = await checkPlan(ctx, index, longer, fields, acceptable, filter, unnameable);
  await cleanup(ctx);
  // A correctness check, not a cost: the verdict is the plan's; the insert time is a figure beside it.
  const claim = checkClaim(
    `with ${codeSpan(index)} dropped, the planner serves its queries with ${codeSpan(longer)} ` +
      '(or an index led by the same fields)',
  );
  const summary = [
    plan.sentence,
    ...costSentences(r, `without ${index}`, copies),
    say(M, 'measuredRedundantCost'),
  ].join(' ');
  return {
    status: plan.verdict,
    claim,
    summary,
    ratio: r.ratio,
    brief: plan.brief,
    measurements: [r.all, r.less, ...sizes],
  };
}

/** The workload's shapes on the finding's collection, from the run's own snapshot (real calls only in memory). */
function shapesOf(ctx: ConfirmContext, f: Finding): ShapeData[] {
  const db = ctx.snapshot.databases.find((d) => d.name === f.target.db);
  const data = db ? dataOf(queryWorkload, db) : undefined;
  if (!data || data.sources.includes('queryStats')) return [];
  return data.collections.find((c) => c.name === f.target.collection)?.shapes ?? [];
}

/**
 * Every shape of the collection replayed on a copy with every index and on one without the finding's index
 * (src/confirm/index-proof.ts, proveDrop): supported when none regresses; refuted names the shapes that need it
 * (their printed shapes, never a value). `$lookup` shapes are not replayed: their calls run on another collection.
 */
async function confirmDrop(ctx: ConfirmContext, f: Finding, shapes: readonly ShapeData[]): Promise<Result> {
  const { db, collection, index } = f.target;
  if (!collection || !index) return notRun('Nothing to replay: the finding names no index.');
  const replayable = shapes.filter((s) => s.shape.command !== 'lookup' && commandsOf(s).length > 0);
  if (replayable.length === 0) return notRun(say(M, 'notRunDropNoCommands'));
  const c = ctx.snapshot.databases.find((d) => d.name === db)?.collections.find((x) => x.name === collection);
  const existing = (c?.indexes ?? []).map((i) => ({
    key: i.key,
    name: i.name,
    ...(i.collation ? { collation: i.collation } : {}),
  }));
  const proof = await proveDrop(ctx, {
    ns: `${db}.${collection}`,
    existingIndexes: existing,
    index,
    shapes: replayable.map((s) => ({ id: s.id, instances: commandsOf(s) })),
    // The index proof's size (twice the planner's trial), past the run's default limit: a smaller copy of a larger
    // collection is inconclusive (every plan may tie). Declared to the consent line by the rule's `copyDocs`.
    docs: PROOF_DOCS,
    pastMaxDocs: true,
  });
  const skipped = shapes.filter((s) => s.shape.command === 'lookup').length;
  return dropResult(proof, index, replayable, skipped);
}

/** The drop proof's verdict in words: refuted names the shapes that need the index by their printed shapes. */
export function dropResult(p: DropProof, index: string, shapes: readonly ShapeData[], skipped: number): Result {
  const claim = checkClaim(
    `no query shape of the workload examines twice as much or slows down without ${codeSpan(index)}`,
  );
  if (p.status === 'not-run') {
    const why = p.reason ?? 'the proof did not run';
    return { ...notRun(say(M, 'notRunDrop', { why }), why) };
  }
  const figures = {
    copied: formatNumber(p.copy?.copied ?? 0),
    shapes: formatNumber(shapes.length),
    calls: formatNumber(shapes.reduce((t, s) => t + commandsOf(s).length, 0)),
    index,
  };
  const tail = [
    ...(skipped === 0
      ? []
      : skipped === 1
        ? [say(M, 'notRunLookupShape')]
        : [say(M, 'notRunLookupShapes', { skipped: formatNumber(skipped) })]),
    // why the confirmation took longer than its budget, when it did (the test of issue 27 holds every proof to it)
    ...(p.pastBudget === 'copy'
      ? [say(M, 'measuredPastBudgetDropCopy', figures)]
      : p.pastBudget === 'explain'
        ? [say(M, 'measuredPastBudgetDropExplain')]
        : p.late
          ? [lateSentence(p.late)]
          : []),
  ];
  const base = { claim, measurements: [] };
  if (p.status === 'supported')
    return {
      ...base,
      status: 'supported',
      summary: [
        say(M, p.shapes?.some((s) => s.time) ? 'supportedDrop' : 'supportedDropUnplanned', figures),
        ...tail,
      ].join(' '),
      brief: `no shape regresses without it (${figures.shapes} replayed)`,
    };
  if (p.status === 'refuted') {
    const printed = new Map(shapes.map((s) => [s.id, s.printed]));
    const needs = (p.needs ?? []).map((id) => printed.get(id) ?? id).join('; ');
    return {
      ...base,
      status: 'refuted',
      summary: [say(M, 'refutedDrop', { ...figures, needs }), ...tail].join(' '),
      brief: `${formatNumber(p.needs?.length ?? 0)} shape(s) need it`,
    };
  }
  const why = p.reason ?? 'no reason was given';
  return {
    ...base,
    status: 'inconclusive',
    summary: [say(M, 'inconclusiveDrop', { ...figures, why }), ...tail].join(' '),
  };
}

/** index-usage's experiments on a scratch copy of the collection (real documents, the source's index specs). */
export async function confirmIndexUsage(ctx: ConfirmContext, f: Finding, _o: IndexUsageOptions): Promise<Result> {
  switch (claimOf(f.messageId)) {
    case 'unused': {
      // With the workload's real calls in memory, the drop is proven on them; without, the insert cost is measured.
      const shapes = shapesOf(ctx, f);
      if (shapes.some((s) => commandsOf(s).length > 0)) return await confirmDrop(ctx, f, shapes);
      if (f.messageId.startsWith('unusedByWorkload')) return notRun(say(M, 'notRunDropNoCommands'));
      return await confirmWriteCost(ctx, f, new Set([f.target.index ?? '']), `without ${f.target.index ?? 'it'}`);
    }
    case 'redundant':
      return await confirmRedundant(ctx, f);
    case 'tooMany': {
      const c = ctx.snapshot.databases
        .find((d) => d.name === f.target.db)
        ?.collections.find((x) => x.name === f.target.collection);
      const secondary = new Set(c ? c.indexes.filter((i) => !isIdIndex(c, i)).map((i) => i.name) : []);
      return await confirmWriteCost(ctx, f, secondary, 'with only _id');
    }
    case 'indexesVsCache':
      return notRun(
        'Nothing measured: cache pressure needs the whole data set, which a scratch copy of a sample cannot reproduce.',
      );
    default:
      return notRun('Nothing to measure: this line makes no claim a scratch experiment could test.');
  }
}
