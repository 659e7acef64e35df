/**
 * `system.profile` documents to workload records, and the bounded read that will fetch them (sent later through
 * the read-only adapter; this room talks to no server).
 *
 * The profiler's names (`op`, `millis`, `numYield`, `responseLength`) are those of curop.cpp's profiler writer;
 * jstests/core/administrative/profile/profile_find.js (mongodb/mongo) asserts them on real entries, and that a long
 * command is stored as `{$truncated: <string>, comment}`. Its `op` is "query" for a find, "getmore", "command" (for
 * aggregate, count, distinct, findAndModify…), and "update"/"remove"/"insert" for one statement of a write, whose
 * `command` is then that statement (`{q, u, multi, upsert}` or `{q, limit}`). SecantusDB's profiler writes only `op`,
 * `ns`, `command`, `millis`, `ts` and `client`: the facts it lacks stay absent.
 */
import {
  type CommandDocument,
  type OpKind,
  type WorkloadRecord,
  commandOfStatement,
  executionFacts,
  exclusionOf,
  makeRecord,
  opKindOf,
  parseNamespace,
} from './record';
import { APP_NAME, SCRATCH_PREFIX } from '../core/names';
import { ownValue } from '../lib/names-as-data';

export interface ProfileCounts {
  documents: number;
  records: number;
  malformed: number;
  truncated: number;
  own: number;
  scratch: number;
}

export interface ProfileReadResult {
  records: WorkloadRecord[];
  counts: ProfileCounts;
  notes: string[];
}

/** The profiler's `op` for a write statement or a legacy query, when the command's first field does not say. */
const STATEMENT_OPS: Readonly<Record<string, OpKind>> = {
  query: 'find',
  getmore: 'getMore',
  update: 'update',
  remove: 'delete',
  insert: 'insert',
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

type Outcome = WorkloadRecord | 'malformed' | 'truncated' | 'own' | 'scratch';

/** One profiler document to a record, or why it is not one. */
export function recordOfProfileDocument(doc: unknown): Outcome {
  if (!isObject(doc) || !isObject(doc.command)) return 'malformed';
  const ns = parseNamespace(doc.ns);
  if (ns === null) return 'malformed';
  const excluded = exclusionOf(doc.appName, ns, doc.command, doc.originatingCommand);
  if (excluded !== null) return excluded;
  if ('$truncated' in doc.command) return 'truncated';
  const command = doc.command as CommandDocument;
  let op = opKindOf(command);
  if (op === 'other' && typeof doc.op === 'string') op = ownValue(STATEMENT_OPS, doc.op) ?? 'other';
  const originating = isObject(doc.originatingCommand) ? (doc.originatingCommand as CommandDocument) : undefined;
  const facts = { source: 'profiler' as const, ns, op, ...executionFacts(doc) };
  return makeRecord(facts, commandOfStatement(op, ns, command), originating);
}

/** Profiler documents (as the driver returns them) to records, with what was left out counted. */
export function readProfileDocuments(docs: Iterable<unknown>): ProfileReadResult {
  const counts: ProfileCounts = { documents: 0, records: 0, malformed: 0, truncated: 0, own: 0, scratch: 0 };
  const records: WorkloadRecord[] = [];
  for (const doc of docs) {
    counts.documents++;
    const out = recordOfProfileDocument(doc);
    if (typeof out === 'string') counts[out]++;
    else {
      counts.records++;
      records.push(out);
    }
  }
  const notes: string[] = [];
  if (counts.malformed) notes.push(`${counts.malformed} profiler document(s) had no command or namespace.`);
  if (counts.truncated) {
    notes.push(`${counts.truncated} profiled command(s) were truncated by the server ($truncated) and were skipped.`);
  }
  if (counts.own + counts.scratch) {
    notes.push(`${counts.own + counts.scratch} profiled operation(s) of the advisor itself were left out.`);
  }
  return { records, counts, notes };
}

/** Most entries a profiler read asks for, of each kind (queries and writes; inserts). */
export const MAX_PROFILE_ENTRIES = 100_000;
export const DEFAULT_PROFILE_ENTRIES = 10_000;
/**
 * Insert entries a profiler read asks for, at most: a cap of their own, so an insert-heavy window does not push the
 * queries out of the read (inserts have no query shape; embed-reference weighs them as writes).
 */
export const DEFAULT_PROFILE_INSERTS = 10_000;

export interface ProfilerQuery {
  filter: Record<string, unknown>;
  projection: Record<string, 1>;
  sort: Record<string, 1 | -1>;
  limit: number;
  /** Insert entries, at most (their own cap). */
  insertLimit: number;
  maxTimeMS: number;
}

/** The fields a record reads: execStats, locks and the like stay on the server. */
const PROFILE_FIELDS = [
  'op',
  'ns',
  'command',
  'originatingCommand',
  'appName',
  'millis',
  'numYield',
  'responseLength',
  'keysExamined',
  'docsExamined',
  'nreturned',
  'planSummary',
  'hasSortStage',
  'usedDisk',
  'fromMultiPlanner',
  'fromPlanCache',
  'queryHash',
  'planCacheShapeHash',
  'planCacheKey',
  'queryShapeHash',
  'ts',
] as const;

const clamp = (n: number | undefined, fallback: number): number =>
  Math.min(Math.max(Math.floor(n ?? fallback), 1), MAX_PROFILE_ENTRIES);

/**
 * What to read of `<db>.system.profile`: the newest entries that can use an index, not the advisor's own (appName)
 * nor its scratch databases', at most `limit` of them, and the newest inserts under their own cap `insertLimit`
 * (both clamped to MAX_PROFILE_ENTRIES). `profilerCommand` makes it one aggregate.
 */
export function profilerQuery(
  opts: { limit?: number; insertLimit?: number; since?: Date; maxTimeMS?: number } = {},
): ProfilerQuery {
  const filter: Record<string, unknown> = {
    op: { $in: ['query', 'getmore', 'command', 'update', 'remove'] },
    appName: { $ne: APP_NAME },
    ns: { $not: new RegExp(`^${SCRATCH_PREFIX}`) },
  };
  if (opts.since) filter.ts = { $gte: opts.since };
  const projection = Object.fromEntries(PROFILE_FIELDS.map((f) => [f, 1 as const]));
  return {
    filter,
    projection,
    sort: { ts: -1 },
    limit: clamp(opts.limit, DEFAULT_PROFILE_ENTRIES),
    insertLimit: clamp(opts.insertLimit, DEFAULT_PROFILE_INSERTS),
    maxTimeMS: opts.maxTimeMS ?? 30_000,
  };
}

/**
 * The one read of `system.profile`, an aggregate: the newest queries and writes (`profilerQuery`'s filter, sort,
 * limit and fields), then, through `$unionWith` on the same collection, the newest inserts under their own cap. An
 * insert entry keeps its namespace, time, `appName` and the count of documents it wrote (`ninserted` as mongod
 * profiles it, else the length of the command's `documents`, where SecantusDB's profiler keeps them): never a
 * document, which stays on the server. `$unionWith` is MongoDB 4.4+.
 */
export function profilerCommand(q: ProfilerQuery, batchSize = 1000): Record<string, unknown> {
  const counted = { $cond: [{ $isArray: '$command.documents' }, { $size: '$command.documents' }, 1] };
  const inserts = [
    { $match: { ...q.filter, op: 'insert' } },
    { $sort: q.sort },
    { $limit: q.insertLimit },
    {
      $project: {
        op: 1,
        ns: 1,
        appName: 1,
        millis: 1,
        ts: 1,
        ninserted: { $ifNull: ['$ninserted', counted] },
        command: { insert: '$command.insert' },
      },
    },
  ];
  return {
    aggregate: 'system.profile',
    pipeline: [
      { $match: q.filter },
      { $sort: q.sort },
      { $limit: q.limit },
      { $project: q.projection },
      { $unionWith: { coll: 'system.profile', pipeline: inserts } },
    ],
    cursor: { batchSize: Math.min(q.limit + q.insertLimit, batchSize) },
    maxTimeMS: q.maxTimeMS,
  };
}

/**
 * The same read without the inserts, a `find`: for a server without `$unionWith` (MongoDB before 4.4, FerretDB, which
 * has no profiler either).
 */
export function profilerFind(q: ProfilerQuery, batchSize = 1000): Record<string, unknown> {
  const { filter, projection, sort, limit, maxTimeMS } = q;
  return { find: 'system.profile', filter, projection, sort, limit, batchSize: Math.min(limit, batchSize), maxTimeMS };
}

const timeOf = (v: unknown): number | null => {
  const t = v instanceof Date ? v.getTime() : typeof v === 'string' ? Date.parse(v) : NaN;
  return Number.isFinite(t) ? t : null;
};

/**
 * The entries of `profilerCommand` over one span. When the queries filled their cap, inserts older than the oldest
 * query read are left out, so the inserts counted are those of the span the reads cover (embed-reference weighs one
 * against the other); when the inserts filled theirs, a note says their count is the newest `insertLimit` only.
 */
export function sameSpan(docs: readonly unknown[], q: ProfilerQuery): { docs: unknown[]; note: string | null } {
  const isInsert = (d: unknown): boolean => isObject(d) && d.op === 'insert';
  const queries = docs.filter((d) => !isInsert(d));
  const inserts = docs.filter(isInsert);
  let kept = inserts;
  if (queries.length >= q.limit) {
    // a loop, not Math.min(...): up to MAX_PROFILE_ENTRIES values would overflow the call's arguments
    let oldest = Infinity;
    for (const d of queries) oldest = Math.min(oldest, isObject(d) ? (timeOf(d.ts) ?? Infinity) : Infinity);
    if (Number.isFinite(oldest)) kept = inserts.filter((d) => isObject(d) && (timeOf(d.ts) ?? -Infinity) >= oldest);
  }
  const note =
    inserts.length >= q.insertLimit
      ? `the profiler's inserts were read up to their cap (the newest ${q.insertLimit}): older inserts are not counted.`
      : null;
  return { docs: [...queries, ...kept], note };
}
