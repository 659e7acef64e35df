/**
 * The queries a database actually ran, as value-free shapes with their figures: from the workload the run was given
 * (`--log`, `--queries`), else from the database's `system.profile` (one bounded find through the read-only gate).
 *
 * USER DATA: the records' commands hold the application's values. The data keeps shapes (field paths folded through
 * the sample's maps, BSON type names, operators), counts and times; up to MAX_COMMANDS real commands per shape ride
 * along as a non-enumerable property for a later replay on scratch, so JSON.stringify never writes them.
 */
import { type DatabaseContext, defineCollector } from '../../src/core/collector';
import { PathFolder } from '../../src/core/fold';
import type { CollectionSnapshot } from '../../src/core/types';
import { commandCursor } from '../../src/lib/cursor';
import { describeServerError } from '../../src/lib/server-error';
import { profilerQuery, readProfileDocuments } from '../../src/workload/profiler';
import type { CommandDocument, WorkloadRecord } from '../../src/workload/record';
import { statsByShape } from '../../src/workload/shape-stats';
import {
  canonical,
  type FilterShape,
  formatShape,
  type QueryShape,
  shapeHash,
  shapesOf,
} from '../../src/workload/shape';

/** Real commands kept per shape for a replay on scratch (never serialized). */
export const MAX_COMMANDS = 5;
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
}

export type WorkloadSourceName = 'profiler' | 'log' | 'queryStats' | 'file';

export interface WorkloadData {
  /** Where the records came from: the given workload's sources, or the profiler. */
  sources: WorkloadSourceName[];
  /** Records of this database that were read. */
  records: number;
  collections: CollectionWorkload[];
}

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
  required: ['sources', 'records', 'collections'],
  additionalProperties: false,
  properties: {
    sources: { type: 'array', items: { enum: ['profiler', 'log', 'queryStats', 'file'] }, uniqueItems: true },
    records: { type: 'integer', minimum: 0 },
    collections: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'shapes'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1 },
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

/** One statement per command for updates and deletes of several: each is its own operation. */
function statementsOf(command: CommandDocument): CommandDocument[] {
  for (const field of ['updates', 'deletes']) {
    const list = command[field];
    if (Array.isArray(list) && list.length > 1) return list.map((s: unknown) => ({ ...command, [field]: [s] }));
  }
  return [command];
}

interface Run {
  shape: QueryShape;
  record: WorkloadRecord;
  command: CommandDocument;
}

/** The shapes of the records, folded, for the collections the run checked; what was left out, counted. */
function runsOf(records: readonly WorkloadRecord[], db: string, collections: readonly CollectionSnapshot[]) {
  const folders = new Map(collections.map((c) => [c.name, new PathFolder(c.sample.dynamicKeys)]));
  const runs: Run[] = [];
  let unchecked = 0;
  let deep = 0;
  for (const record of records) {
    const source = record.op === 'getMore' ? record.originatingCommand : record.command;
    if (!source) continue;
    const placeholders = record.shapeOnly === true ? { placeholders: true } : {};
    for (const command of statementsOf(source)) {
      for (const raw of shapesOf(command, db, placeholders)) {
        const folder = folders.get(raw.coll);
        if (!folder) unchecked++;
        else if (orDepth(raw) > MAX_OR_DEPTH) deep++;
        else runs.push({ shape: foldShape(raw, folder), record, command });
      }
    }
  }
  return { runs, unchecked, deep };
}

const known = (n: number): number | null => n;

function shapeData(group: readonly Run[]): ShapeData {
  const first = group[0] as Run;
  const [stats] = statsByShape(
    group.map(({ shape, record: r }) => ({
      shapeId: shape.id,
      ...(r.durationMillis !== undefined ? { durationMillis: r.durationMillis } : {}),
      ...(r.keysExamined !== undefined ? { keysExamined: r.keysExamined } : {}),
      ...(r.docsExamined !== undefined ? { docsExamined: r.docsExamined } : {}),
      ...(r.nreturned !== undefined ? { nreturned: r.nreturned } : {}),
    })),
  );
  const s = stats as NonNullable<typeof stats>;
  const sorts = group.filter((g) => g.record.hasSortStage !== undefined);
  const plans = group.filter((g) => g.record.planSummary !== undefined);
  const counted = s.counted > 0;
  const data: ShapeData = {
    id: first.shape.id,
    printed: formatShape(first.shape),
    shape: first.shape,
    calls: s.calls,
    totalMillis: s.timed > 0 ? s.totalMillis : null,
    p95Millis: s.p95Millis,
    counted: s.counted,
    keysExamined: counted ? known(s.keysExamined) : null,
    docsExamined: counted ? known(s.docsExamined) : null,
    nreturned: counted ? known(s.nreturned) : null,
    inMemorySorts: sorts.length ? sorts.filter((g) => g.record.hasSortStage === true).length : null,
    collectionScans: plans.length ? plans.filter((g) => g.record.planSummary === 'COLLSCAN').length : null,
  };
  const commands = group.slice(0, MAX_COMMANDS).map((g) => g.command);
  Object.defineProperty(data, COMMANDS, { value: commands, enumerable: false });
  return data;
}

/** Records to the collector's data: shapes per collection, in the order collections and shapes first appear. */
export function workloadData(
  records: readonly WorkloadRecord[],
  db: string,
  collections: readonly CollectionSnapshot[],
  note: (message: string) => void,
): WorkloadData {
  const mine = records.filter((r) => r.ns.db === db);
  const { runs, unchecked, deep } = runsOf(mine, db, collections);
  const byColl = new Map<string, Map<string, Run[]>>();
  for (const run of runs) {
    const shapes = byColl.get(run.shape.coll) ?? new Map<string, Run[]>();
    byColl.set(run.shape.coll, shapes);
    shapes.set(run.shape.id, [...(shapes.get(run.shape.id) ?? []), run]);
  }
  if (unchecked) note(`${unchecked} query shape(s) of ${db} name collections this run did not check: not judged.`);
  if (deep) note(`${deep} query shape(s) of ${db} nest $or deeper than ${MAX_OR_DEPTH} levels: not judged.`);
  const sources = [...new Set(mine.map((r) => r.source))].sort();
  return {
    sources,
    records: mine.length,
    collections: [...byColl].map(([name, shapes]) => ({ name, shapes: [...shapes.values()].map(shapeData) })),
  };
}

const HOW_TO_PROFILE =
  'turn the profiler on for a while (db.setProfilingLevel(1, { slowms: 100 })), or give the slow-query log ' +
  '(--log <file>) or the queries the application runs (--queries <file>)';

/** The newest profiler entries of the database (one bounded find on the primary), or null with a note. */
async function readProfiler(ctx: DatabaseContext): Promise<WorkloadRecord[] | null> {
  const q = profilerQuery({ maxTimeMS: ctx.maxTimeMS });
  const cmd = { find: 'system.profile', ...q, batchSize: Math.min(q.limit, 1000) };
  let docs: unknown[];
  try {
    // The profiler is per member: the primary's holds the writes and the default reads.
    docs = await commandCursor(ctx.adapter, ctx.db, cmd, {
      limit: q.limit,
      maxTimeMS: ctx.maxTimeMS,
      readPreference: 'primary',
    });
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

/** The workload of one database: the run's given records, else its profiler. */
export const queryWorkload = defineCollector<WorkloadData, 'database'>({
  id: 'query-indexes/workload',
  version: 1,
  scope: 'database',
  description:
    'query shapes of the workload given (--log, --queries), else of system.profile (1 find, newest 10,000 entries)',
  schema: SCHEMA,
  async collect(ctx) {
    let records: WorkloadRecord[];
    if (ctx.workload) {
      records = ctx.workload.records.filter(isRecord);
      const here = records.filter((r) => r.ns.db === ctx.db).length;
      if (here === 0)
        ctx.note(`query-indexes: ${ctx.workload.from} holds no operation on ${ctx.db}`, { level: 'info' });
    } else {
      const read = await readProfiler(ctx);
      if (read === null) return null;
      records = read;
    }
    return workloadData(records, ctx.db, ctx.collections, (m) => ctx.note(`query-indexes: ${m}`, { level: 'info' }));
  },
});
