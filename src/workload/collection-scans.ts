/**
 * How often each collection was read by a collection scan: `$collStats: { queryExecStats: {} }`, whose
 * `queryExecStats.collectionScans` holds `total` (every query that scanned the collection) and `nonTailable` (those
 * that were not tailable cursors), per the manual's $collStats page
 * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/collStats/, "queryExecStats Document").
 * jstests/aggregation/sources/collStats/query_exec_stats.js (mongodb/mongo) pins the counting: a getMore does not
 * count, an index scan does not count, a tailable scan counts in `total` only. Cheap: one command per collection, no
 * document read; the counters are the node's own, kept in memory (the read goes to the primary: scans that ran on a
 * secondary are not in it). A sharded collection gives one row per shard: the counts are summed.
 */
import type { Adapter, Doc } from '../core/adapter';
import { readCursor } from '../lib/cursor';
import { asServerError, describeServerError } from '../lib/server-error';

export interface CollectionScans {
  /** Queries that scanned the whole collection. */
  total: number;
  /** Of them, those not run on a tailable cursor (a tailable cursor on a capped collection always scans). */
  nonTailable: number;
}

/** Why the counts are absent, one sentence. */
export interface CollectionScansAbsent {
  reason: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const count = (v: unknown): number | undefined => {
  const n =
    typeof v === 'number' || typeof v === 'bigint'
      ? Number(v)
      : isObject(v) && typeof v.toNumber === 'function'
        ? (v as { toNumber(): number }).toNumber()
        : undefined;
  return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
};

/** The collection scans of `$collStats` rows (one per shard, summed), or null when no row has them. */
export function collectionScansOf(rows: readonly unknown[]): CollectionScans | null {
  let found = false;
  const sum: CollectionScans = { total: 0, nonTailable: 0 };
  for (const row of rows) {
    const stats = isObject(row) && isObject(row.queryExecStats) ? row.queryExecStats : undefined;
    const scans = stats && isObject(stats.collectionScans) ? stats.collectionScans : undefined;
    const total = count(scans?.total);
    const nonTailable = count(scans?.nonTailable);
    if (total === undefined || nonTailable === undefined) continue;
    found = true;
    sum.total += total;
    sum.nonTailable += nonTailable;
  }
  return found ? sum : null;
}

/** The `$collStats` read of one collection's scan counters. */
export function collectionScansCommand(coll: string, maxTimeMS: number): Doc {
  return { aggregate: coll, pipeline: [{ $collStats: { queryExecStats: {} } }], cursor: {}, maxTimeMS };
}

/** NamespaceNotFound (26) and $collStats' own "collection does not exist" (31142, the jstest above). */
const MISSING = new Set([26, 31142]);

/** Whether a refusal is about this one collection (it is gone), not about the server. */
export function isMissingCollection(err: unknown): boolean {
  const code = asServerError(err).code;
  return code !== undefined && MISSING.has(code);
}

const NO_COUNTERS =
  "this server's $collStats answers without queryExecStats: it does not count collection scans " +
  '(MongoDB counts them on each node, in memory).';

/** The `$collStats` rows of one collection, or the server's refusal. */
async function ask(adapter: Adapter, db: string, coll: string, maxTimeMS: number): Promise<Doc[] | { err: unknown }> {
  try {
    return (await readCursor(adapter, db, collectionScansCommand(coll, maxTimeMS), { readPreference: 'primary' })).docs;
  } catch (err) {
    return { err };
  }
}

const refused = (err: unknown): string => `$collStats queryExecStats could not be read (${describeServerError(err)}).`;

/** One collection's scan counters, or why they are absent (the server's refusal said as a sentence, never thrown). */
export async function readCollectionScans(
  adapter: Adapter,
  db: string,
  coll: string,
  opts: { maxTimeMS: number },
): Promise<CollectionScans | CollectionScansAbsent> {
  const rows = await ask(adapter, db, coll, opts.maxTimeMS);
  if (!Array.isArray(rows)) return { reason: refused(rows.err) };
  return collectionScansOf(rows) ?? { reason: NO_COUNTERS };
}

/** The scan counters of a database's collections, and why they are absent where they are. */
export interface DatabaseScans {
  /** Collection name → counters, for the collections that gave them. */
  scans: Map<string, CollectionScans>;
  /** Why the server gave none (then `scans` is empty), or null. */
  reason: string | null;
}

/**
 * `readCollectionScans` over the named collections, in order. The first answer without counters, or the first
 * refusal that is not about a missing collection, says the server has none: the rest are not asked (one command,
 * not one per collection, on a server that never counts).
 */
export async function readDatabaseScans(
  adapter: Adapter,
  db: string,
  colls: readonly string[],
  opts: { maxTimeMS: number },
): Promise<DatabaseScans> {
  const scans = new Map<string, CollectionScans>();
  for (const coll of colls) {
    const rows = await ask(adapter, db, coll, opts.maxTimeMS);
    if (!Array.isArray(rows)) {
      if (isMissingCollection(rows.err)) continue;
      return { scans, reason: refused(rows.err) };
    }
    const counts = collectionScansOf(rows);
    if (counts === null) return { scans, reason: NO_COUNTERS };
    scans.set(coll, counts);
  }
  return { scans, reason: null };
}
