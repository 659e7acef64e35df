import { commandCursor } from '../../src/adapters/cursor';
import { type Doc, describeServerError } from '../../src/adapters/types';
import type { ConfirmContext } from '../../src/confirm/context';
import { ratioOf, toMeasurement, verdict } from '../../src/confirm/harness';
import { formatBytes, formatDuration, formatNumber } from '../../src/core/format';
import type { Confirmation, Finding, Measurement } from '../../src/core/types';
import { claimOf, standIns } from './analyze';
import { valueAt } from '../../src/lib/doc-path';
import { planFacts } from '../../src/lib/explain';
import type { IndexUsageOptions } from './index';
import { alternate, fmtRatio, withoutId } from '../../src/confirm/trials';
import { indexFlag, isIdIndex } from '../../src/lib/index-keys';

type Result = Omit<Confirmation, 'durationMs' | 'where'>;

const BATCH = 500;
const ALL = 'index_usage_all';
const LESS = 'index_usage_less';

const notRun = (summary: string, reason?: string): Result => ({ status: 'not-run', summary, measurements: [], ...(reason ? { reason } : {}) });

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
    if (values.every((v) => v !== undefined && !Array.isArray(v))) return Object.fromEntries(fields.map((f, i) => [f, values[i]]));
  }
  return null;
}

interface Copies {
  docs: Doc[];
  built: string[];
  changes: string[];
}

/** Two scratch collections with the source's indexes: ALL with every one, LESS without `drop`. */
async function prepare(ctx: ConfirmContext, db: string, coll: string, drop: ReadonlySet<string>): Promise<Copies | string> {
  const rows = await commandCursor(ctx.source, db, { listIndexes: coll, cursor: {}, maxTimeMS: 10_000 }, { maxTimeMS: 10_000 });
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
  if (missing.length) return `the scratch server could not build ${missing.map((n) => `\`${n}\``).join(', ')}: ${failed.join('; ')}`;
  if (failed.length) changes.push(`not rebuilt on the copy: ${failed.join('; ')}`);
  return { docs, built, changes };
}

async function insertCost(ctx: ConfirmContext, copies: Copies, lessLabel: string): Promise<{ all: ReturnType<typeof toMeasurement>; less: ReturnType<typeof toMeasurement>; ratio: ReturnType<typeof ratioOf>; complete: boolean; batch: number }> {
  const s = ctx.scratch;
  const batch = copies.docs.slice(0, BATCH);
  const insert = (coll: string) => async (): Promise<void> => {
    await s.insertMany(coll, batch);
  };
  const [all, less] = await alternate(
    ctx.budget.slice(0.8),
    { label: `insert ${formatNumber(batch.length)} docs, all ${formatNumber(copies.built.length + 1)} indexes`, run: insert(ALL) },
    { label: `insert ${formatNumber(batch.length)} docs, ${lessLabel}`, run: insert(LESS) },
  );
  return { all: toMeasurement(all), less: toMeasurement(less), ratio: ratioOf(`insert time, all indexes / ${lessLabel}`, all, less), complete: all.complete && less.complete, batch: batch.length };
}

async function indexSizes(ctx: ConfirmContext, names: readonly string[]): Promise<Measurement[]> {
  const stats = await ctx.scratch.collStats(ALL);
  const sizes = (stats?.indexSizes as Doc | undefined) ?? {};
  // An index of a collection holding documents never takes 0 bytes: a 0 (or no figure) was not measured, so it is
  // left out rather than shown as a size.
  return names.filter((n) => Number(sizes[n]) > 0).map((n) => {
    const b = Number(sizes[n]);
    return { label: `size of ${n} on the copy`, unit: 'bytes' as const, median: b, low: b, high: b, trials: 1 };
  });
}

function costSentence(r: Awaited<ReturnType<typeof insertCost>>, lessLabel: string, copies: Copies): string {
  const v = verdict(r.ratio, 1);
  const head = `Inserting ${formatNumber(r.batch)} copied documents took ${formatDuration(r.all.median)} with every index and ${formatDuration(r.less.median)} ${lessLabel}: ${fmtRatio(r.ratio)}`;
  const tail = v === 'above' ? '' : v === 'straddles' ? ', within noise at this size' : ', the copy without it was not faster';
  const changed = copies.changes.length ? ` (${copies.changes.join('; ')})` : '';
  return `${head}${tail}${changed}.`;
}

async function confirmWriteCost(ctx: ConfirmContext, f: Finding, drop: Set<string>, lessLabel: string): Promise<Result> {
  const { db, collection } = f.target;
  if (!collection) return notRun('Nothing to measure: the finding names no collection.');
  const copies = await prepare(ctx, db, collection, drop);
  if (typeof copies === 'string') return notRun('The scratch copy could not be built, so nothing was measured.', copies);
  const r = await insertCost(ctx, copies, lessLabel);
  const sizes = await indexSizes(ctx, [...drop]);
  await cleanup(ctx);
  const bytes = sizes.reduce((t, m) => t + m.median, 0);
  const sizeNote = sizes.length ? ` On the copy, ${drop.size === 1 ? 'the index takes' : 'those indexes take'} ${formatBytes(bytes)}.` : '';
  const summary = costSentence(r, lessLabel, copies) + sizeNote;
  const measurements = [r.all, r.less, ...sizes];
  if (!r.complete) return { status: 'inconclusive', summary: `${summary} The time budget ran out before five trials of each.`, ratio: r.ratio, measurements };
  const v = verdict(r.ratio, 1);
  return { status: v === 'above' ? 'supported' : v === 'below' ? 'refuted' : 'inconclusive', summary, ratio: r.ratio, measurements };
}

async function cleanup(ctx: ConfirmContext): Promise<void> {
  await ctx.scratch.drop(ALL);
  await ctx.scratch.drop(LESS);
}

async function confirmRedundant(ctx: ConfirmContext, f: Finding): Promise<Result> {
  const { db, collection, index } = f.target;
  const longer = String(f.evidence.longer ?? '');
  if (!collection || !index || !longer) return notRun('Nothing to measure: the finding names no index pair.');
  const copies = await prepare(ctx, db, collection, new Set([index]));
  if (typeof copies === 'string') return notRun('The scratch copy could not be built, so nothing was measured.', copies);
  if (!copies.built.includes(longer)) {
    await cleanup(ctx);
    return notRun(`The scratch server could not build \`${longer}\`, so its plans could not be checked.`);
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
  let planLine: string;
  let planVerdict: 'picks' | 'other' | 'unknown';
  if (unnameable.length) {
    planVerdict = 'unknown';
    const names = unnameable.map((x) => `\`${x}\``).join(', ');
    planLine =
      `No query was explained: a filter reads ${names} as an operator, not a field, and \`$getField\` (the only way ` +
      'to name it) uses no index; MongoDB refuses to build an index on a `$`-prefixed field.';
  } else if (!filter) {
    planVerdict = 'unknown';
    planLine = `No copied document holds single values at ${fields.map((x) => `\`${x}\``).join(', ')}, so no query was explained.`;
  } else {
    const shape = `an equality query on ${fields.map((x) => `\`${x}\``).join(', ')} (values from a copied document)`;
    try {
      const out = await ctx.scratch.command({ explain: { find: LESS, filter }, verbosity: 'queryPlanner' });
      const plan = planIndexes((out.queryPlanner as Doc | undefined)?.winningPlan ?? out.queryPlanner ?? out);
      const picked = plan.indexes.filter((x) => acceptable.has(x));
      if (picked.length) {
        planVerdict = 'picks';
        planLine = `With \`${index}\` dropped from the copy, explain() of ${shape} picks \`${picked.join('`, `')}\`${picked.includes(longer) ? '' : `, which is led by the same fields as \`${longer}\``}.`;
      } else if (plan.indexes.length || plan.collscan) {
        planVerdict = 'other';
        planLine = `With \`${index}\` dropped from the copy, explain() of ${shape} chose ${plan.indexes.length ? plan.indexes.map((x) => `\`${x}\``).join(', ') : 'a collection scan'}, not \`${longer}\`.`;
      } else {
        planVerdict = 'unknown';
        planLine = `The server's explain() of ${shape} names no index or stage (${ctx.snapshot.server.flavor === 'ferretdb' ? 'FerretDB plans queries in its backend' : 'an unfamiliar plan format'}), so the plan could not be checked.`;
      }
    } catch (err) {
      planVerdict = 'unknown';
      planLine = `explain() failed on the scratch copy: ${describeServerError(err)}.`;
    }
  }
  await cleanup(ctx);
  const summary = `${planLine} ${costSentence(r, `without ${index}`, copies)}`;
  const measurements = [r.all, r.less, ...sizes];
  const status = planVerdict === 'picks' ? 'supported' : planVerdict === 'other' ? 'refuted' : 'inconclusive';
  return { status, summary, ratio: r.ratio, measurements };
}

/** index-usage's experiments on a scratch copy of the collection (real documents, the source's index specs). */
export async function confirmIndexUsage(ctx: ConfirmContext, f: Finding, _o: IndexUsageOptions): Promise<Result> {
  switch (claimOf(f.messageId)) {
    case 'unused':
      return await confirmWriteCost(ctx, f, new Set([f.target.index ?? '']), `without ${f.target.index ?? 'it'}`);
    case 'redundant':
      return await confirmRedundant(ctx, f);
    case 'tooMany': {
      const c = ctx.snapshot.databases.find((d) => d.name === f.target.db)?.collections.find((x) => x.name === f.target.collection);
      const secondary = new Set(c ? c.indexes.filter((i) => !isIdIndex(c, i)).map((i) => i.name) : []);
      return await confirmWriteCost(ctx, f, secondary, 'with only _id');
    }
    case 'indexesVsCache':
      return notRun('Nothing measured: cache pressure needs the whole data set, which a scratch copy of a sample cannot reproduce.');
    default:
      return notRun('Nothing to measure: this line makes no claim a scratch experiment could test.');
  }
}
