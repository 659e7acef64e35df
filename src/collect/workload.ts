/**
 * The queries a database actually ran, as value-free shapes with their figures: from the workload the run was given
 * (`--log`, `--queries`), else from the database's `system.profile` (one bounded find through the read-only gate,
 * then, when it held entries, `{ profile: -1 }` to read the level they were written at).
 *
 * Shared by query-indexes (indexes the shapes need) and index-usage (indexes no shape uses): it runs once per
 * database when either rule is on, so a run with index-usage on and query-indexes off reads the profiler too.
 *
 * Whether the workload is complete (every operation, not only slow ones) is recorded with the reason: only a
 * complete workload can show that no query uses an index (a fast query that uses it is never logged nor profiled at
 * level 1).
 *
 * USER DATA: the records' commands hold the application's values. The data keeps shapes (field paths folded through
 * the sample's maps, BSON type names, operators), counts and times; up to MAX_COMMANDS real commands per shape ride
 * along as a non-enumerable property for a later replay on scratch, so JSON.stringify never writes them.
 */
import { type DatabaseContext, defineCollector, type GivenWorkload } from '../core/collector';
import { PathFolder } from '../core/fold';
import type { CollectionSnapshot } from '../core/types';
import { commandCursor } from '../lib/cursor';
import { describeServerError } from '../lib/server-error';
import { versionAtLeast } from '../lib/version';
import { profilerCommand, profilerFind, profilerQuery, readProfileDocuments, sameSpan } from '../workload/profiler';
import { readQueryStats } from '../workload/query-stats';
import type { CommandDocument, WorkloadRecord } from '../workload/record';
import { ShapeSums } from '../workload/shape-stats';
import { canonical, type FilterShape, formatShape, type QueryShape, shapeHash } from '../workload/shape';
import { instancesOf, MAX_INSTANCES, MAX_SHAPES, noShapeNote, WorkloadTally } from '../workload/tally';

/** Real commands kept per shape for a replay on scratch (never serialized). */
export const MAX_COMMANDS = MAX_INSTANCES;
/** `$or`s nested deeper than this are not stored (the schema spells each level out). */
const MAX_OR_DEPTH = 3;

export interface ShapeData {
  /** The folded shape's id (64 bits of its canonical text). */
  id: string;
  /** The shape as one line of mongosh-like text: field names, types and operators, never a value. */
  printed: string;
  shape: QueryShape;
  calls: number;
  totalMillis: number | null;
  p95Millis: number | null;
  /** Calls that reported keysExamined, docsExamined and nreturned; the sums are over them (null: none did). */
  counted: number;
  keysExamined: number | null;
  docsExamined: number | null;
  nreturned: number | null;
  /** Calls that sorted in memory (hasSortStage), or null when the source never says. */
  inMemorySorts: number | null;
  /** Calls planned as a collection scan (planSummary COLLSCAN), or null when the source never says. */
  collectionScans: number | null;
}

export interface CollectionWorkload {
  name: string;
  shapes: ShapeData[];
  /** Documents inserted into the collection (inserts have no shape; embed-reference weighs them as writes). */
  inserts?: number;
}

export type WorkloadSourceName = 'profiler' | 'log' | 'queryStats' | 'file';

export interface WorkloadData {
  /** Where the records came from: the given workload's sources, or the profiler. */
  sources: WorkloadSourceName[];
  /** Records of this database that were read. */
  records: number;
  /** Whether the source holds every operation (not only slow ones) over the span it covers. */
  complete: boolean;
  /** Why it is complete or not, a sentence with no value ("level 1 records only operations slower than 100 ms"). */
  completeness: string;
  collections: CollectionWorkload[];
}

/** Whether a workload holds every operation, and why (see WorkloadData). */
export interface Completeness {
  complete: boolean;
  completeness: string;
}

/** What a slow-operation source is by default: it cannot show an index unused. */
export const SLOW_ONLY: Completeness = {
  complete: false,
  completeness: 'the source does not say it holds every operation: fast operations may be missing',
};

const COMMANDS = Symbol('commands');

/** The real commands of a shape (USER DATA: for a replay on scratch only), empty when none were kept. */
export function commandsOf(shape: ShapeData): readonly CommandDocument[] {
  return (shape as ShapeData & { [COMMANDS]?: CommandDocument[] })[COMMANDS] ?? [];
}

const TYPE = { type: 'string', pattern: '^[A-Za-z]+$', maxLength: 40 } as const;
const PATH = { type: 'string', minLength: 1, maxLength: 1024 } as const;
const COUNT = { type: ['integer', 'null'], minimum: 0 } as const;
const MILLIS = { type: ['number', 'null'], minimum: 0 } as const;

const PREDICATE = {
  type: 'object',
  required: ['path', 'role', 'ops'],
  additionalProperties: false,
  properties: {
    path: PATH,
    role: { enum: ['equality', 'range'] },
    ops: {
      type: 'object',
      propertyNames: { pattern: '^\\$[A-Za-z]+$' },
      additionalProperties: { type: 'array', items: TYPE },
    },
    in: { enum: ['1', '2-10', '11-200', '>200'] },
    regex: {
      type: 'object',
      required: ['anchored', 'caseInsensitive'],
      additionalProperties: false,
      properties: { anchored: { type: 'boolean' }, caseInsensitive: { type: 'boolean' } },
    },
    elemMatch: PATH,
  },
} as const;

const UNINDEXABLE = {
  type: 'object',
  required: ['op'],
  additionalProperties: false,
  properties: { op: { type: 'string', pattern: '^\\$[A-Za-z]+$' }, path: PATH },
} as const;

/** The filter's schema with `depth` levels of `$or` spelled out (no $ref: it is composed into the snapshot's). */
function filterProperties(depth: number): Record<string, unknown> {
  const branch =
    depth > 0
      ? { type: 'object', required: ['predicates', 'or', 'unindexable'], additionalProperties: false }
      : { not: {} };
  return {
    predicates: { type: 'array', items: PREDICATE },
    or: {
      type: 'array',
      items: {
        type: 'array',
        items: depth > 0 ? { ...branch, properties: filterProperties(depth - 1) } : branch,
      },
    },
    unindexable: { type: 'array', items: UNINDEXABLE },
  };
}

const SHAPE = {
  type: 'object',
  required: ['id', 'db', 'coll', 'command', 'sort', 'limit', 'predicates', 'or', 'unindexable'],
  additionalProperties: false,
  properties: {
    ...filterProperties(MAX_OR_DEPTH),
    id: { type: 'string', pattern: '^[0-9a-f]{16}$' },
    db: { type: 'string', minLength: 1 },
    coll: { type: 'string', minLength: 1 },
    command: { enum: ['find', 'aggregate', 'update', 'delete', 'count', 'distinct', 'findAndModify', 'lookup'] },
    sort: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'direction'],
        additionalProperties: false,
        properties: { path: PATH, direction: { enum: [1, -1] } },
      },
    },
    limit: { type: 'boolean' },
    distinctKey: PATH,
    collation: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z]+$' },
      additionalProperties: { type: ['string', 'number', 'boolean'] },
    },
  },
} as const;

const SCHEMA = {
  type: 'object',
  required: ['sources', 'records', 'complete', 'completeness', 'collections'],
  additionalProperties: false,
  properties: {
    sources: { type: 'array', items: { enum: ['profiler', 'log', 'queryStats', 'file'] }, uniqueItems: true },
    records: { type: 'integer', minimum: 0 },
    complete: { type: 'boolean' },
    completeness: { type: 'string', maxLength: 400 },
    collections: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'shapes'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1 },
          inserts: { type: 'integer', minimum: 1 },
          shapes: {
            type: 'array',
            items: {
              type: 'object',
              required: [
                'id',
                'printed',
                'shape',
                'calls',
                'totalMillis',
                'p95Millis',
                'counted',
                'keysExamined',
                'docsExamined',
                'nreturned',
                'inMemorySorts',
                'collectionScans',
              ],
              additionalProperties: false,
              properties: {
                id: { type: 'string', pattern: '^[0-9a-f]{16}$' },
                printed: { type: 'string', maxLength: 8192 },
                shape: SHAPE,
                calls: { type: 'integer', minimum: 1 },
                totalMillis: MILLIS,
                p95Millis: MILLIS,
                counted: { type: 'integer', minimum: 0 },
                keysExamined: COUNT,
                docsExamined: COUNT,
                nreturned: COUNT,
                inMemorySorts: COUNT,
                collectionScans: COUNT,
              },
            },
          },
        },
      },
    },
  },
} as const;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A workload record as src/workload/record.ts makes them (the engine hands them on as opaque values). */
function isRecord(v: unknown): v is WorkloadRecord {
  if (!isObject(v) || !isObject(v.ns) || typeof v.ns.db !== 'string' || typeof v.ns.coll !== 'string') return false;
  return typeof v.source === 'string' && isObject((v as { command?: unknown }).command);
}

/**
 * The given workload's tally: folded as it was read (the CLI's --log and --queries), else folded here from the records
 * a caller gave (the Node API, tests). The tally is built once per run and shared by the databases.
 */
function givenTally(given: GivenWorkload): WorkloadTally {
  if (given.folded instanceof WorkloadTally) return given.folded;
  const cached = tallies.get(given);
  if (cached) return cached;
  const tally = WorkloadTally.of((given.records ?? []).filter(isRecord));
  tallies.set(given, tally);
  return tally;
}
const tallies = new WeakMap<GivenWorkload, WorkloadTally>();

/** The filter with every path folded through the collection's maps. */
function foldFilter(f: FilterShape, fold: (p: string) => string): FilterShape {
  return {
    predicates: f.predicates.map((p) => ({
      ...p,
      path: fold(p.path),
      ...(p.elemMatch !== undefined ? { elemMatch: fold(p.elemMatch) } : {}),
    })),
    or: f.or.map((group) => group.map((b) => foldFilter(b, fold))),
    unindexable: f.unindexable.map((u) => (u.path !== undefined ? { ...u, path: fold(u.path) } : u)),
  };
}

/** The shape with its paths folded and its id recomputed from the folded text (two map keys: one shape). */
export function foldShape(shape: QueryShape, folder: PathFolder): QueryShape {
  const fold = (p: string): string => folder.fold(p);
  const { id: _id, ...rest } = shape;
  const body: Omit<QueryShape, 'id'> = {
    ...rest,
    ...foldFilter(shape, fold),
    sort: shape.sort.map((k) => ({ ...k, path: fold(k.path) })),
    ...(shape.distinctKey !== undefined ? { distinctKey: fold(shape.distinctKey) } : {}),
  };
  return { id: shapeHash(canonical(body)), ...body };
}

function orDepth(f: FilterShape): number {
  return f.or.reduce((d, g) => Math.max(d, 1 + Math.max(0, ...g.map(orDepth))), 0);
}

interface Folded {
  shape: QueryShape;
  sums: ShapeSums;
  commands: CommandDocument[];
}

function shapeData(f: Folded): ShapeData {
  const s = f.sums.stats(f.shape.id);
  const counted = s.counted > 0;
  const data: ShapeData = {
    id: f.shape.id,
    printed: formatShape(f.shape),
    shape: f.shape,
    calls: s.calls,
    totalMillis: s.timed > 0 ? s.totalMillis : null,
    p95Millis: s.p95Millis,
    counted: s.counted,
    keysExamined: counted ? s.keysExamined : null,
    docsExamined: counted ? s.docsExamined : null,
    nreturned: counted ? s.nreturned : null,
    inMemorySorts: f.sums.sortsKnown ? f.sums.sorts : null,
    collectionScans: f.sums.plansKnown ? f.sums.scans : null,
  };
  Object.defineProperty(data, COMMANDS, { value: f.commands, enumerable: false });
  return data;
}

/**
 * One database's part of a tally to the collector's data: its raw shapes folded through the sample's maps (two raw
 * shapes that fold into one merge their sums and instances), by collection, in the order they first appeared.
 */
export function workloadDataOf(
  tally: WorkloadTally,
  db: string,
  collections: readonly CollectionSnapshot[],
  note: (message: string) => void,
  completeness: Completeness = SLOW_ONLY,
): WorkloadData {
  const d = tally.dbs.get(db);
  const folders = new Map(collections.map((c) => [c.name, new PathFolder(c.sample.dynamicKeys)]));
  const byColl = new Map<string, Map<string, Folded>>();
  let unchecked = 0;
  let deep = 0;
  for (const t of d?.shapes.values() ?? []) {
    const folder = folders.get(t.shape.coll);
    if (!folder) {
      unchecked++;
      continue;
    }
    if (orDepth(t.shape) > MAX_OR_DEPTH) {
      deep++;
      continue;
    }
    const shape = foldShape(t.shape, folder);
    let shapes = byColl.get(shape.coll);
    if (!shapes) byColl.set(shape.coll, (shapes = new Map<string, Folded>()));
    const into = shapes.get(shape.id);
    const instances = instancesOf(t);
    if (!into) {
      const sums = new ShapeSums();
      sums.merge(t.sums);
      shapes.set(shape.id, { shape, sums, commands: instances.slice(0, MAX_COMMANDS) });
    } else {
      into.sums.merge(t.sums);
      for (const c of instances) if (into.commands.length < MAX_COMMANDS) into.commands.push(c);
    }
  }
  if (unchecked) note(`${unchecked} query shape(s) of ${db} name collections this run did not check: not judged.`);
  if (deep) note(`${deep} query shape(s) of ${db} nest $or deeper than ${MAX_OR_DEPTH} levels: not judged.`);
  const none = d ? noShapeNote(d, db) : null;
  if (none) note(none);
  if (d?.overCap)
    note(
      `${d.overCap} operation(s) of ${db} had query shapes past the first ${MAX_SHAPES.toLocaleString('en-US')} ` +
        'distinct ones read: counted, not judged (so many distinct shapes usually means field names that carry data).',
    );
  const out: CollectionWorkload[] = [...byColl].map(([name, shapes]) => ({
    name,
    shapes: [...shapes.values()].map(shapeData),
  }));
  for (const [name, n] of d?.inserts ?? []) {
    if (!folders.has(name) || n <= 0) continue;
    const into = out.find((c) => c.name === name);
    if (into) into.inserts = n;
    else out.push({ name, shapes: [], inserts: n });
  }
  return { sources: d ? [...d.sources].sort() : [], records: d?.records ?? 0, ...completeness, collections: out };
}

/** Records to the collector's data: shapes per collection, in the order collections and shapes first appear. */
export function workloadData(
  records: readonly WorkloadRecord[],
  db: string,
  collections: readonly CollectionSnapshot[],
  note: (message: string) => void,
  completeness: Completeness = SLOW_ONLY,
): WorkloadData {
  return workloadDataOf(WorkloadTally.of(records.filter((r) => r.ns.db === db)), db, collections, note, completeness);
}

const HOW_TO_PROFILE =
  'turn the profiler on for a while (db.setProfilingLevel(1, { slowms: 100 })), or give the mongo-advisor CLI the ' +
  'slow-query log (--log <file>) or the queries the application runs (--queries <file>)';

/** Whether the server reads `profilerCommand`'s `$unionWith` (MongoDB 4.4+; FerretDB has none, nor a profiler). */
const withUnion = (ctx: DatabaseContext): boolean =>
  ctx.server.flavor === 'mongodb' && versionAtLeast(ctx.server.versionArray, 4, 4);

/**
 * The newest profiler entries of the database, inserts counted (one bounded aggregate on the primary; a find without
 * the inserts where the server has no `$unionWith`), or null with a note.
 */
async function readProfiler(ctx: DatabaseContext): Promise<WorkloadRecord[] | null> {
  const q = profilerQuery({ maxTimeMS: ctx.maxTimeMS });
  // The profiler is per member: the primary's holds the writes and the default reads.
  const opts = { limit: q.limit + q.insertLimit, maxTimeMS: ctx.maxTimeMS, readPreference: 'primary' as const };
  let docs: unknown[];
  try {
    if (withUnion(ctx)) {
      const span = sameSpan(await commandCursor(ctx.adapter, ctx.db, profilerCommand(q), opts), q);
      docs = span.docs;
      if (span.note) ctx.note(`query-indexes: ${span.note}`, { level: 'info' });
    } else {
      docs = await commandCursor(ctx.adapter, ctx.db, profilerFind(q), opts);
      if (docs.length)
        ctx.note(
          `query-indexes: inserts in ${ctx.db}.system.profile were not counted: the server has no $unionWith ` +
            '(MongoDB 4.4+), and the advisor reads the profiler once',
          { level: 'info' },
        );
    }
  } catch (err) {
    ctx.note(
      `query-indexes: the profiler (${ctx.db}.system.profile) could not be read ` +
        `(${describeServerError(err)}): ${HOW_TO_PROFILE}`,
    );
    return null;
  }
  const read = readProfileDocuments(docs);
  for (const n of read.notes) ctx.note(`query-indexes: ${n}`, { level: 'info' });
  if (read.records.length === 0) {
    ctx.note(
      `query-indexes: the profiler (${ctx.db}.system.profile) holds no operation to learn from (it is off, or ` +
        `this server keeps none): ${HOW_TO_PROFILE}`,
      {
        level: 'info',
      },
    );
  }
  return read.records;
}

const finite = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'bigint' || typeof v === 'object' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
};

/**
 * Whether the profiler's settings (the reply to `{ profile: -1 }`) make system.profile hold every operation: level 2
 * ("The profiler collects data for all operations", db.setProfilingLevel in MongoDB's manual), every one sampled
 * (sampleRate 1 or absent: at level 2 too an operation is profiled with that probability, SERVER-4786) and no filter
 * (with one, "the profiler only captures operations that match the filter"). Level 1 collects operations that run
 * longer than slowms: complete only with a negative slowms, sampleRate 1 and no filter.
 */
export function profilerCompleteness(reply: Readonly<Record<string, unknown>>): Completeness {
  const level = finite(reply.was);
  const slowms = finite(reply.slowms);
  const rate = reply.sampleRate === undefined ? 1 : finite(reply.sampleRate);
  const no = (completeness: string): Completeness => ({ complete: false, completeness });
  if (reply.filter !== undefined && reply.filter !== null)
    return no('a filter chooses which operations the profiler records, so fast operations may be missing');
  if (level === 0) return no('the profiler is off now (level 0): the level its entries were written at is unknown');
  if (level !== 1 && level !== 2) return no('the profiler did not say its level');
  if (rate === null || rate < 1)
    return no(`the profiler records a sample of the operations (sampleRate ${rate ?? 'unknown'})`);
  if (level === 2) return { complete: true, completeness: 'the profiler is at level 2: it records every operation' };
  if (slowms !== null && slowms < 0)
    return { complete: true, completeness: `the profiler is at level 1 with slowms ${slowms}: it records every one` };
  return no(`level 1 records only operations slower than ${slowms ?? 'slowms'} ms`);
}

/** The profiler's settings, read with `{ profile: -1 }` (nothing else: the read-only gate allows only that form). */
async function profilerSettings(ctx: DatabaseContext): Promise<Completeness> {
  try {
    return profilerCompleteness(await ctx.adapter.command(ctx.db, { profile: -1 }));
  } catch (err) {
    return {
      complete: false,
      completeness: `the profiler's settings could not be read (${describeServerError(err).slice(0, 300)})`,
    };
  }
}

/** What `--workload-complete` vouches for, or the default: a log or queries file holds slow operations only. */
function givenCompleteness(complete: boolean | undefined): Completeness {
  return complete
    ? { complete: true, completeness: 'the user said the given workload holds every operation (--workload-complete)' }
    : {
        complete: false,
        completeness:
          'a log or queries file is taken to hold slow operations only; pass --workload-complete when it holds ' +
          'every one (mongod at profiling level 2 or slowms -1, sampleRate 1; or every query the application sends)',
      };
}

/** $queryStats keeps the shapes of queries it sampled under a rate limit, in a store of bounded size. */
const QUERY_STATS_SAMPLED: Completeness = {
  complete: false,
  completeness:
    '$queryStats records queries under a rate limit and keeps a bounded store of shapes, so some may be missing',
};

/**
 * Where the profiler gave nothing: the database's `$queryStats` shapes (MongoDB 7.1+ where enabled and permitted;
 * src/workload/query-stats.ts), shapes only, no command to replay. A server that refuses it is asked once per run,
 * and its answer noted once.
 */
async function queryStatsOf(ctx: DatabaseContext): Promise<WorkloadRecord[] | null> {
  // The stage exists from MongoDB 7.1 (src/workload/query-stats.ts); older servers and other flavors lack it.
  if (ctx.server.flavor !== 'mongodb' || !versionAtLeast(ctx.server.versionArray, 7, 1)) return null;
  // Databases may be collected side by side: the first asks, the others wait to learn whether it was refused.
  const first = ctx.run.get('queryStatsAnswered') as Promise<boolean> | undefined;
  if (first && !(await first)) return null;
  let answered: (read: boolean) => void = () => undefined;
  if (!first) ctx.run.set('queryStatsAnswered', new Promise<boolean>((resolve) => (answered = resolve)));
  const stats = await readQueryStats(ctx.adapter, { db: ctx.db, maxTimeMS: ctx.maxTimeMS }).catch((err: unknown) => ({
    reason: describeServerError(err),
  }));
  answered(!('reason' in stats));
  if ('reason' in stats) {
    ctx.note(`query-indexes: $queryStats was not read: ${stats.reason}`, { level: 'info' });
    return null;
  }
  for (const n of stats.notes) ctx.note(`query-indexes: ${n}`, { level: 'info' });
  return stats.records;
}

/** The workload of one database: the run's given records, else its profiler, else its $queryStats. */
export const queryWorkload = defineCollector<WorkloadData, 'database'>({
  id: 'query-indexes/workload',
  version: 3,
  scope: 'database',
  readsWorkload: true,
  description:
    'query shapes and inserts per collection of the workload given (--log, --queries), else of system.profile (1 ' +
    'aggregate: the newest 10,000 queries and writes, and with $unionWith the newest 10,000 inserts, counted; and ' +
    '{ profile: -1 } when it held any), else of $queryStats (1 aggregate on admin, once per run if refused)',
  schema: SCHEMA,
  async collect(ctx) {
    let tally: WorkloadTally;
    let completeness: Completeness;
    if (ctx.workload) {
      tally = givenTally(ctx.workload);
      completeness = givenCompleteness(ctx.workload.complete);
      if (!tally.dbs.get(ctx.db)?.records)
        ctx.note(`query-indexes: ${ctx.workload.from} holds no operation on ${ctx.db}`, { level: 'info' });
    } else {
      const read = await readProfiler(ctx);
      const stats = read?.length ? null : await queryStatsOf(ctx);
      if (stats?.length) {
        tally = WorkloadTally.of(stats.filter((r) => r.ns.db === ctx.db));
        completeness = QUERY_STATS_SAMPLED;
      } else {
        if (read === null) return null;
        tally = WorkloadTally.of(read.filter((r) => r.ns.db === ctx.db));
        // The level matters only when there are entries to judge by (an empty profiler costs no second command).
        completeness = read.length ? await profilerSettings(ctx) : SLOW_ONLY;
      }
    }
    const note = (m: string): void => ctx.note(`query-indexes: ${m}`, { level: 'info' });
    return workloadDataOf(tally, ctx.db, ctx.collections, note, completeness);
  },
});
