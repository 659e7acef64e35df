/**
 * `$queryStats` (MongoDB 7.1+, documented from 8.0): its entries as workload records, and the bounded read of them.
 *
 * One record per entry, the counts per execution on average, `execCount` the executions it sums. The entry holds the
 * server's query shape (`"?number"`, `"?string"` in place of values), so the record is `shapeOnly`: good for fields
 * and operators, never for replay: a `$queryStats` record has no command a scratch proof could run. Structure from
 * src/mongo/db/query/query_stats/README.md (mongodb/mongo): `key.queryShape` (`cmdNs`, `command`, `filter`,
 * `sort`, `projection`, `pipeline`…), `key.client.application.name`, `keyHash`, `queryShapeHash`, and `metrics`
 * whose counts are `{sum, max, min, sumOfSquares}` — flat under `metrics` on 8.0 (`metrics.keysExamined`), grouped
 * on newer servers (`metrics.queryExec.keysExamined`, `metrics.queryPlanner.hasSortStage: {trueCount, falseCount}`;
 * `getQueryExecMetrics` and `getCursorMetrics` in jstests/libs/query/query_stats_utils.js read both).
 */
import type { Adapter, Doc } from '../core/adapter';
import { APP_NAME, SCRATCH_PREFIX } from '../core/names';
import { readCursor } from '../lib/cursor';
import { asServerError, describeServerError } from '../lib/server-error';
import { type CommandDocument, type WorkloadRecord, exclusionOf, makeRecord, opKindOf } from './record';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const numberOf = (v: unknown): number | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  if (isObject(v) && typeof v.toNumber === 'function') return (v as { toNumber(): number }).toNumber();
  return undefined;
};

/** A metric by name, flat (8.0) or in one of the newer groups. */
function metric(metrics: Record<string, unknown>, name: string): unknown {
  if (name in metrics) return metrics[name];
  for (const group of ['queryExec', 'queryPlanner', 'cursor']) {
    const g = metrics[group];
    if (isObject(g) && name in g) return g[name];
  }
  return undefined;
}

function perExecution(metrics: Record<string, unknown>, name: string, execs: number): number | undefined {
  const m = metric(metrics, name);
  const sum = isObject(m) ? numberOf(m.sum) : undefined;
  return sum === undefined || execs <= 0 ? undefined : sum / execs;
}

function anyTrue(metrics: Record<string, unknown>, name: string): boolean | undefined {
  const m = metric(metrics, name);
  if (typeof m === 'boolean') return m;
  if (isObject(m)) return (numberOf(m.trueCount) ?? 0) > 0;
  return undefined;
}

/** The shape as a command document: `{<command>: coll, ...shape fields}`. */
function commandOfShape(shape: Record<string, unknown>, coll: string): CommandDocument {
  const rest = Object.fromEntries(Object.entries(shape).filter(([k]) => k !== 'cmdNs' && k !== 'command'));
  return { [String(shape.command)]: coll, ...rest };
}

/** One `$queryStats` entry to a record, or why it is not one. */
export function recordOfQueryStats(entry: unknown): WorkloadRecord | 'malformed' | 'own' | 'scratch' {
  if (!isObject(entry) || !isObject(entry.key) || !isObject(entry.metrics)) return 'malformed';
  const shape = entry.key.queryShape;
  if (!isObject(shape) || !isObject(shape.cmdNs) || typeof shape.command !== 'string') return 'malformed';
  const { db, coll } = shape.cmdNs;
  if (typeof db !== 'string' || typeof coll !== 'string') return 'malformed';
  const client = entry.key.client;
  const app = isObject(client) && isObject(client.application) ? client.application.name : undefined;
  const ns = { db, coll };
  const excluded = exclusionOf(app, ns);
  if (excluded !== null) return excluded;
  const command = commandOfShape(shape, coll);
  const m = entry.metrics;
  const execCount = numberOf(m.execCount) ?? 0;
  const micros = perExecution(m, 'totalExecMicros', execCount);
  const facts = {
    appName: typeof app === 'string' ? app : undefined,
    durationMillis: micros === undefined ? undefined : micros / 1000,
    keysExamined: perExecution(m, 'keysExamined', execCount),
    docsExamined: perExecution(m, 'docsExamined', execCount),
    nreturned: perExecution(m, 'docsReturned', execCount),
    hasSortStage: anyTrue(m, 'hasSortStage'),
    usedDisk: anyTrue(m, 'usedDisk'),
    fromMultiPlanner: anyTrue(m, 'fromMultiPlanner'),
    fromPlanCache: anyTrue(m, 'fromPlanCache'),
    queryShapeHash: typeof entry.queryShapeHash === 'string' ? entry.queryShapeHash : undefined,
  };
  const defined = Object.fromEntries(Object.entries(facts).filter(([, v]) => v !== undefined));
  const op = opKindOf(command);
  return makeRecord({ source: 'queryStats', ns, op, ...defined, execCount, shapeOnly: true }, command);
}

/** Entries read at most by default: the ones with the most total execution time. */
export const QUERY_STATS_LIMIT = 1000;

export interface QueryStatsOptions {
  /** The database whose queries are wanted (`key.queryShape.cmdNs.db`). */
  db: string;
  maxTimeMS: number;
  /** Most entries to read (default QUERY_STATS_LIMIT), the costliest first. */
  limit?: number;
}

/** What `readQueryStats` read. */
export interface QueryStatsRead {
  /** One record per entry, shape only (`shapeOnly`): no command to replay. */
  records: WorkloadRecord[];
  /** Entries the server returned for the database. */
  entries: number;
  /** Entries left out: without a shape this reader knows, or the advisor's own. */
  malformed: number;
  own: number;
  /** The limit cut the list: entries with less total execution time were not read. */
  truncated: boolean;
  /** What a run should say about these records (info notes), one sentence each. */
  notes: string[];
}

/** Why `$queryStats` gave nothing: one sentence for the run's notes. */
export interface QueryStatsRefused {
  reason: string;
}

/**
 * The aggregate `readQueryStats` sends on `admin`: `$queryStats` untransformed (field and collection names as they
 * are: the advisor folds and matches them), this database's entries only, not the advisor's own, the costliest first
 * and bounded (one more than `limit`, to know whether the list was cut).
 */
export function queryStatsCommand(opts: QueryStatsOptions): Doc {
  const limit = opts.limit ?? QUERY_STATS_LIMIT;
  return {
    aggregate: 1,
    pipeline: [
      { $queryStats: {} },
      { $match: { 'key.queryShape.cmdNs.db': opts.db, 'key.client.application.name': { $ne: APP_NAME } } },
      { $sort: { 'metrics.totalExecMicros.sum': -1 } },
      { $limit: limit + 1 },
    ],
    cursor: { batchSize: Math.min(limit + 1, 1000) },
    maxTimeMS: opts.maxTimeMS,
  };
}

/** Codes of MongoDB's error_codes.yml this reader tells apart. */
const UNAUTHORIZED = 13;
const QUERY_FEATURE_NOT_ALLOWED = 224;
const NOT_IMPLEMENTED = 238;
const COMMAND_NOT_SUPPORTED = 115;
/** FerretDB 1.24 refuses `{aggregate: 1}` with it ("… must specify a collection name or 1"). */
const FAILED_TO_PARSE = 9;
/** "Unrecognized pipeline stage name" (a uassert of the pipeline parser, src/mongo/db/pipeline). */
const UNRECOGNIZED_STAGE = 40324;

/**
 * Why `$queryStats` could not be read, from the server's refusal. MongoDB's refusals: an unknown stage before 7.1
 * (40324); QueryFeatureNotAllowed (224) where the feature is off ("$queryStats is not allowed in the current
 * configuration", DocumentSourceQueryStats::LiteParsed::parse in
 * src/mongo/db/pipeline/document_source_query_stats.cpp);
 * Unauthorized (13) without the `queryStatsRead` and `queryStatsReadTransformed` actions on the cluster, both needed
 * untransformed (document_source_query_stats.h; the README of src/mongo/db/query/query_stats says Atlas's
 * clusterMonitor role has them).
 */
export function queryStatsReason(err: unknown): string {
  const e = asServerError(err);
  const what = describeServerError(err);
  if (e.code === UNRECOGNIZED_STAGE || /unrecognized pipeline stage name/i.test(e.message)) {
    return `this server does not recognize the $queryStats stage (${what}); MongoDB has it from 7.1.`;
  }
  if (e.code === FAILED_TO_PARSE && /collection name or 1/i.test(e.message)) {
    return `this server refuses {aggregate: 1}, the database-wide aggregate $queryStats needs (${what}).`;
  }
  if (e.code === QUERY_FEATURE_NOT_ALLOWED) {
    return `$queryStats is not enabled on this server (${what}); MongoDB enables it on Atlas clusters of tier M10+.`;
  }
  if (e.code === UNAUTHORIZED) {
    return (
      `the user may not read $queryStats (${what}): it needs the queryStatsRead and queryStatsReadTransformed ` +
      "actions on the cluster (Atlas's clusterMonitor role has them)."
    );
  }
  if (e.code === NOT_IMPLEMENTED || e.code === COMMAND_NOT_SUPPORTED) {
    return `this server does not implement $queryStats (${what}).`;
  }
  return `$queryStats could not be read (${what}).`;
}

const SHAPES_ONLY =
  '$queryStats gives query shapes with "?" in place of values: they count for the advice, but hold no command ' +
  'a scratch proof could replay (the profiler or a slow-query log give those).';

/** The notes of a read: what the records are, and what the read left out. */
function readNotes(read: Omit<QueryStatsRead, 'notes'>, db: string, limit: number): string[] {
  const notes: string[] = [];
  if (read.entries === 0) {
    notes.push(
      `$queryStats holds no query of ${db}: the server records query statistics only where they are collected ` +
        '(Atlas clusters of tier M10 and up), and forgets them on restart.',
    );
    return notes;
  }
  notes.push(SHAPES_ONLY);
  if (read.truncated) {
    notes.push(
      `$queryStats holds more than ${limit} query shapes of ${db}: the ${limit} with the most time were read.`,
    );
  }
  if (read.malformed > 0) {
    notes.push(`${read.malformed} $queryStats entries of ${db} have no query shape this reader knows: left out.`);
  }
  return notes;
}

/**
 * The `$queryStats` entries of one database as workload records, or why there are none: one bounded aggregate on
 * `admin` (queryStatsCommand), on the primary, through whatever adapter the caller holds (a collector's read-only
 * gate lets it through: an aggregate without $out or $merge). Entries of scratch databases and of the advisor's own
 * connection are left out; a refusal becomes a sentence (queryStatsReason), never a throw.
 */
export async function readQueryStats(
  adapter: Adapter,
  opts: QueryStatsOptions,
): Promise<QueryStatsRead | QueryStatsRefused> {
  if (opts.db.startsWith(SCRATCH_PREFIX)) return { reason: `${opts.db} is a scratch database of mongo-advisor.` };
  const limit = opts.limit ?? QUERY_STATS_LIMIT;
  let docs: Doc[];
  try {
    const cmd = queryStatsCommand({ ...opts, limit });
    docs = (await readCursor(adapter, 'admin', cmd, { limit: limit + 1, readPreference: 'primary' })).docs;
  } catch (err) {
    return { reason: queryStatsReason(err) };
  }
  const truncated = docs.length > limit;
  const kept = truncated ? docs.slice(0, limit) : docs;
  const records: WorkloadRecord[] = [];
  let malformed = 0;
  let own = 0;
  for (const doc of kept) {
    const r = recordOfQueryStats(doc);
    if (r === 'malformed') malformed++;
    else if (r === 'own' || r === 'scratch') own++;
    else if (r.ns.db === opts.db) records.push(r);
  }
  const read = { records, entries: kept.length, malformed, own, truncated };
  return { ...read, notes: readNotes(read, opts.db, limit) };
}
