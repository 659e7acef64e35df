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

/** Most entries a profiler read asks for. The profile is a capped collection of 1 MB by default. */
export const MAX_PROFILE_ENTRIES = 100_000;
export const DEFAULT_PROFILE_ENTRIES = 10_000;

export interface ProfilerQuery {
  filter: Record<string, unknown>;
  projection: Record<string, 1>;
  sort: Record<string, 1 | -1>;
  limit: number;
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

/**
 * The `find` on `<db>.system.profile` that reads the newest entries: the operations that can use an index, not the
 * advisor's own (appName) nor its scratch databases', at most `limit` of them (clamped to MAX_PROFILE_ENTRIES).
 */
export function profilerQuery(opts: { limit?: number; since?: Date; maxTimeMS?: number } = {}): ProfilerQuery {
  const wanted = Math.floor(opts.limit ?? DEFAULT_PROFILE_ENTRIES);
  const limit = Math.min(Math.max(wanted, 1), MAX_PROFILE_ENTRIES);
  const filter: Record<string, unknown> = {
    op: { $in: ['query', 'getmore', 'command', 'update', 'remove'] },
    appName: { $ne: APP_NAME },
    ns: { $not: new RegExp(`^${SCRATCH_PREFIX}`) },
  };
  if (opts.since) filter.ts = { $gte: opts.since };
  const projection = Object.fromEntries(PROFILE_FIELDS.map((f) => [f, 1 as const]));
  return { filter, projection, sort: { ts: -1 }, limit, maxTimeMS: opts.maxTimeMS ?? 30_000 };
}
