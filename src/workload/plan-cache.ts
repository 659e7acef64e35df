/**
 * `$planCacheStats` rows (one per plan cache entry of a collection) read into what advice needs: the query shape's
 * hash, whether the entry is active, its `works`, and the indexes of the cached plan. No value of the entry is kept:
 * `createdFromQuery` holds the query's literals and is never read.
 *
 * Formats, from the manual's $planCacheStats page
 * (https://www.mongodb.com/docs/manual/reference/operator/aggregation/planCacheStats/, "Output"): `version` "1" is
 * the classic engine, whose `cachedPlan` is a plan tree (`stage`, `inputStage`, `indexName`); "2" the slot-based
 * engine (7.0+), whose `cachedPlan` is `{slots, stages}`, two strings (jstests/core/query/plan_cache/plan_cache_sbe.js
 * asserts both fields), so its indexes are not read here. The shape's hash is `queryHash` until 8.0 and
 * `planCacheShapeHash` after (SERVER-93305; jstests/libs/query/analyze_plan.js, `getPlanCacheShapeHashFromObject`,
 * reads `planCacheShapeHash || queryHash`). Past `internalQueryCacheMaxSizeBytesBeforeStripDebugInfo` an entry comes
 * without `createdFromQuery`, `cachedPlan`, `creationExecStats` and `candidatePlanScores`
 * (src/mongo/db/query/plan_cache/README.md in mongodb/mongo).
 */
import { planFacts } from '../lib/explain';

export interface PlanCacheEntry {
  /** The query shape's hash (`planCacheShapeHash`, else `queryHash`), 8 hex digits on MongoDB; null when absent. */
  shapeHash: string | null;
  /** The shape's hash with the indexes that could serve it (`planCacheKey`); null when absent. */
  planCacheKey: string | null;
  engine: 'classic' | 'sbe' | null;
  /** An active entry is used to plan the shape; an inactive one waits for a run that does as little work. */
  isActive: boolean | null;
  /** The work units the cached plan took when it was chosen (the bar a later run is held to). */
  works: number | null;
  /** The cached plan's index names, in plan order, without repeats; null when the entry does not say. */
  indexes: string[] | null;
  /** Whether the cached plan scans the collection (a COLLSCAN stage); null when the entry does not say. */
  collectionScan: boolean | null;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const hex = (v: unknown): string | null => (typeof v === 'string' && /^[0-9A-Fa-f]{1,64}$/.test(v) ? v : null);
const count = (v: unknown): number | null => {
  const n =
    typeof v === 'number' || typeof v === 'bigint'
      ? Number(v)
      : isObject(v) && typeof v.toNumber === 'function'
        ? (v as { toNumber(): number }).toNumber()
        : NaN;
  return Number.isFinite(n) && n >= 0 ? n : null;
};

function engineOf(row: Record<string, unknown>): PlanCacheEntry['engine'] {
  const version = String(row.version);
  if (version === '1') return 'classic';
  if (version === '2') return 'sbe';
  const plan = row.cachedPlan;
  if (isObject(plan) && typeof plan.stage === 'string') return 'classic';
  if (isObject(plan) && typeof plan.stages === 'string') return 'sbe';
  return null;
}

/** The indexes and collection scan of a cached plan tree; nulls when it names no stage (SBE strings, no plan). */
function planOf(plan: unknown): Pick<PlanCacheEntry, 'indexes' | 'collectionScan'> {
  const facts = planFacts(plan);
  if (facts.stages.length === 0) return { indexes: null, collectionScan: null };
  return { indexes: [...new Set(facts.indexes)], collectionScan: facts.stages.includes('COLLSCAN') };
}

/** One row to an entry; null when it is no plan cache entry (neither hash nor plan). */
export function planCacheEntry(row: unknown): PlanCacheEntry | null {
  if (!isObject(row)) return null;
  const shapeHash = hex(row.planCacheShapeHash) ?? hex(row.queryHash);
  const planCacheKey = hex(row.planCacheKey);
  if (shapeHash === null && planCacheKey === null) return null;
  return {
    shapeHash,
    planCacheKey,
    engine: engineOf(row),
    isActive: typeof row.isActive === 'boolean' ? row.isActive : null,
    works: count(row.works),
    ...planOf(row.cachedPlan),
  };
}

/** The entries of `$planCacheStats` rows, and how many rows were not entries. */
export function planCacheEntries(rows: readonly unknown[]): { entries: PlanCacheEntry[]; malformed: number } {
  const entries: PlanCacheEntry[] = [];
  let malformed = 0;
  for (const row of rows) {
    const entry = planCacheEntry(row);
    if (entry === null) malformed++;
    else entries.push(entry);
  }
  return { entries, malformed };
}
