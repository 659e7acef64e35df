/**
 * One operation the workload readers found: a slow-query log line, a `system.profile` document, a `$queryStats`
 * entry or an entry of a queries file, under one set of names. The profiler says `op`, `millis`, `numYield` and
 * `responseLength`; the 4.4+ log says `type`, `durationMillis`, `numYields` and `reslen` (MongoDB's
 * `OpDebug::report` and the profiler's writer in src/mongo/db/curop.cpp).
 *
 * USER DATA: `command` and `originatingCommand` are the operation as the application sent it, with its real values
 * (filter literals, update documents). They are kept in memory for replay only and are never printed, logged, put
 * in a snapshot or in an error message. `makeRecord` defines them as non-enumerable properties, so JSON.stringify,
 * console.log, util.inspect and test snapshots of a record leave them out; read them by name.
 */
import { APP_NAME, OWN_COMMENT, SCRATCH_PREFIX } from '../core/names';

export type WorkloadSource = 'profiler' | 'log' | 'queryStats' | 'file';

export type OpKind =
  | 'find'
  | 'aggregate'
  | 'update'
  | 'delete'
  | 'count'
  | 'distinct'
  | 'findAndModify'
  | 'getMore'
  | 'insert'
  | 'other';

export interface Namespace {
  db: string;
  coll: string;
}

/** A document as read: BSON values (ObjectId, Date, Long…) where the source gave their types. */
export type CommandDocument = Readonly<Record<string, unknown>>;

export interface WorkloadRecord {
  source: WorkloadSource;
  ns: Namespace;
  op: OpKind;
  /** USER DATA, never to print: the command as sent (non-enumerable). */
  readonly command: CommandDocument;
  /** USER DATA, never to print: a getMore's find or aggregate (non-enumerable). */
  readonly originatingCommand?: CommandDocument;
  appName?: string;
  durationMillis?: number;
  keysExamined?: number;
  docsExamined?: number;
  nreturned?: number;
  numYields?: number;
  responseLength?: number;
  planSummary?: string;
  hasSortStage?: boolean;
  usedDisk?: boolean;
  fromMultiPlanner?: boolean;
  fromPlanCache?: boolean;
  queryHash?: string;
  planCacheShapeHash?: string;
  planCacheKey?: string;
  queryShapeHash?: string;
  /**
   * Documents an insert wrote (`ninserted` in the log's attr and the profiler's entry; the profiler reader computes it
   * from the command's documents where the server keeps them there, as SecantusDB does).
   */
  ninserted?: number;
  /** `$queryStats`: executions this entry sums (its counts above are per execution, on average). */
  execCount?: number;
  /** `$queryStats`: the command holds the server's shape (`"?number"` placeholders), not values to replay. */
  shapeOnly?: boolean;
  /** Where the operation was written, for a queries file entry that says so. */
  at?: { file: string; line: number };
  /** The line a queries file entry starts on in that file. */
  entryLine?: number;
}

export type RecordFacts = Omit<WorkloadRecord, 'command' | 'originatingCommand'>;

/** A record whose command (and originating command) are present but not enumerable: see the file's header. */
export function makeRecord(
  facts: RecordFacts,
  command: CommandDocument,
  originatingCommand?: CommandDocument,
): WorkloadRecord {
  return recordOf({ ...facts }, command, originatingCommand);
}

/**
 * `makeRecord` on facts the caller made for this record alone (a fresh object no one else holds): they become the
 * record, not copied (the log reader makes one per slow query; the copy was a tenth of its time).
 */
export function recordOf(
  facts: RecordFacts,
  command: CommandDocument,
  originatingCommand?: CommandDocument,
): WorkloadRecord {
  const rec = facts as WorkloadRecord;
  Object.defineProperty(rec, 'command', { value: command, enumerable: false });
  if (originatingCommand !== undefined) {
    Object.defineProperty(rec, 'originatingCommand', { value: originatingCommand, enumerable: false });
  }
  return rec;
}

const KINDS: Readonly<Record<string, OpKind>> = {
  find: 'find',
  aggregate: 'aggregate',
  update: 'update',
  delete: 'delete',
  count: 'count',
  distinct: 'distinct',
  getMore: 'getMore',
  insert: 'insert',
};

/** The kind of a command document: its first field's name (`find`, `aggregate`, …), else 'other'. */
export function opKindOf(command: CommandDocument): OpKind {
  const first = Object.keys(command)[0];
  if (first === undefined) return 'other';
  if (first === 'findAndModify' || first === 'findandmodify') return 'findAndModify';
  return KINDS[first] ?? 'other';
}

/**
 * A write statement as the server records it on its own, in the command form that carries it, so that one shape
 * function reads both. MongoDB logs and profiles each statement of an update or delete separately, with the statement
 * itself as the command: `{q, u, multi, upsert}` for an update, `{q, limit}` for a delete (the profiler's `op`
 * "update"/"remove", the 4.4+ log's `"c":"WRITE"` with `attr.type` "update"/"remove"; curop.cpp's `OpDebug::report`
 * and profiler writer in mongodb/mongo; jstests/core/administrative/profile/profile_update.js asserts
 * `command: {q, u, multi: false, upsert: true}`, profile_delete.js `op: "remove"`). Anything else comes back as it is.
 */
export function commandOfStatement(op: OpKind, ns: Namespace, command: CommandDocument): CommandDocument {
  if ((op !== 'update' && op !== 'delete') || command[op] !== undefined || !('q' in command)) return command;
  return op === 'update'
    ? { update: ns.coll, updates: [command], $db: ns.db }
    : { delete: ns.coll, deletes: [command], $db: ns.db };
}

/** "db.coll.with.dots" → {db, coll}; null when there is no dot or the database name is empty. */
export function parseNamespace(ns: unknown): Namespace | null {
  if (typeof ns !== 'string') return null;
  const dot = ns.indexOf('.');
  if (dot <= 0) return null;
  return { db: ns.slice(0, dot), coll: ns.slice(dot + 1) };
}

export type Exclusion = 'own' | 'scratch';

/** Why a record is not the application's: the advisor's own connection, or one of its scratch databases. */
export function exclusionOf(appName: unknown, ns: Namespace, ...commands: unknown[]): Exclusion | null {
  if (appName === APP_NAME) return 'own';
  if (commands.some((c) => c !== null && typeof c === 'object' && (c as { comment?: unknown }).comment === OWN_COMMENT))
    return 'own';
  if (ns.db.startsWith(SCRATCH_PREFIX)) return 'scratch';
  return null;
}

const num = (v: unknown): number | undefined => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'bigint') return Number(v);
  // BSON Long/Int32/Double as the driver may give them
  if (v !== null && typeof v === 'object' && typeof (v as { toNumber?: unknown }).toNumber === 'function') {
    const n = (v as { toNumber(): number }).toNumber();
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
};
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const bool = (v: unknown): boolean | undefined => (typeof v === 'boolean' ? v : undefined);

/**
 * The execution facts of a log line's `attr` or a profiler document, whichever names they use. Absent facts stay
 * absent (SecantusDB's profiler has no plan summary or counts), never 0.
 */
export function executionFacts<T extends Partial<RecordFacts> = Partial<RecordFacts>>(
  src: Readonly<Record<string, unknown>>,
  into: T = {} as T,
): T {
  const out: Partial<RecordFacts> = into;
  const set = <K extends keyof RecordFacts>(k: K, v: RecordFacts[K] | undefined): void => {
    if (v !== undefined) out[k] = v;
  };
  set('appName', str(src.appName));
  set('durationMillis', num(src.durationMillis) ?? num(src.millis));
  set('keysExamined', num(src.keysExamined));
  set('docsExamined', num(src.docsExamined));
  set('nreturned', num(src.nreturned));
  set('numYields', num(src.numYields) ?? num(src.numYield));
  set('responseLength', num(src.reslen) ?? num(src.responseLength));
  set('planSummary', str(src.planSummary));
  set('hasSortStage', bool(src.hasSortStage));
  set('usedDisk', bool(src.usedDisk));
  set('fromMultiPlanner', bool(src.fromMultiPlanner));
  set('fromPlanCache', bool(src.fromPlanCache));
  set('queryHash', str(src.queryHash));
  set('planCacheShapeHash', str(src.planCacheShapeHash));
  set('planCacheKey', str(src.planCacheKey));
  set('queryShapeHash', str(src.queryShapeHash));
  set('ninserted', num(src.ninserted));
  return into;
}
