import type { Doc } from '../../src/core/adapter';
import { describeServerError } from '../../src/lib/server-error';
import { type CollectionContext, defineCollector } from '../../src/core/collector';
import type { FromSchema } from '../../src/core/from-schema';

const STAGE = { type: 'string', pattern: '^[A-Z0-9_]+(\\[bounded\\])?$' } as const;
const COUNT = { type: 'integer', minimum: 0 } as const;

/**
 * What one explain (verbosity executionStats) measured: stage names and counts, never a value. Stage names are
 * upper-case words (COLLSCAN[bounded] included) and the rest are counts: no _id value fits.
 */
const RUN = {
  type: ['object', 'null'],
  required: ['stages', 'nReturned', 'docsExamined', 'keysExamined', 'nWouldDelete'],
  additionalProperties: false,
  properties: {
    /** Stage names from the winning plan's root down, e.g. ["BATCHED_DELETE", "CLUSTERED_IXSCAN"]. */
    stages: { type: 'array', items: STAGE },
    /** executionStats.nReturned: documents returned (0 for a delete, which returns nothing). */
    nReturned: COUNT,
    /** executionStats.totalDocsExamined: documents read, every engine and mongos alike. */
    docsExamined: COUNT,
    /** executionStats.totalKeysExamined. */
    keysExamined: COUNT,
    /** A delete's nWouldDelete (summed over shards under SHARD_WRITE); null for a find or when the reply has none. */
    nWouldDelete: { type: ['integer', 'null'], minimum: 0 },
  },
} as const;

/**
 * explain (verbosity executionStats) of `find({_id: {$in: [lowest, highest]}})` and of a deleteMany with that filter,
 * on a clustered collection.
 */
export const CLUSTERED_EXPLAIN_SCHEMA = {
  type: 'object',
  required: ['asked', 'find', 'deleteMany', 'serverVersion'],
  additionalProperties: false,
  properties: {
    /** Values in the $in: 2 (the collection's lowest and highest _id). */
    asked: { type: 'integer', minimum: 1 },
    find: RUN,
    deleteMany: RUN,
    /** Server version the plans came from. */
    serverVersion: { type: 'string' },
    /** Why a plan is missing (an empty collection, explain refused, unknown plan shape). */
    reason: { type: 'string' },
  },
} as const;

export type ExplainedRun = NonNullable<FromSchema<typeof RUN>>;
export type ClusteredExplain = FromSchema<typeof CLUSTERED_EXPLAIN_SCHEMA>;

/**
 * Stage names of an explain() reply's winning plan, root first. Reads the classic shape
 * (`winningPlan.stage` / `inputStage` / `inputStages`), the slot-based engine's (`winningPlan.queryPlan`, 7.0+)
 * and a sharded one (`winningPlan.shards[].winningPlan`). A COLLSCAN limited by the clustered key
 * (minRecord/maxRecord) reads `COLLSCAN[bounded]`: the bounds themselves are _id values and are not kept.
 * Returns null for a reply of unknown shape.
 */
export function planStages(explain: Doc): string[] | null {
  const qp = explain.queryPlanner as Doc | undefined;
  const root = qp?.winningPlan as Doc | undefined;
  if (!root || typeof root !== 'object') return null;
  const out: string[] = [];
  const walk = (node: Doc | undefined, depth: number): void => {
    if (!node || typeof node !== 'object' || depth > 50) return;
    if (node.queryPlan && typeof node.queryPlan === 'object') {
      walk(node.queryPlan as Doc, depth + 1);
      return;
    }
    if (typeof node.stage === 'string') {
      const bounded = node.stage === 'COLLSCAN' && (node.minRecord !== undefined || node.maxRecord !== undefined);
      out.push(bounded ? 'COLLSCAN[bounded]' : node.stage);
    }
    if (Array.isArray(node.shards))
      for (const s of node.shards as Doc[]) walk((s.winningPlan as Doc | undefined) ?? s, depth + 1);
    walk(node.inputStage as Doc | undefined, depth + 1);
    if (Array.isArray(node.inputStages)) for (const s of node.inputStages as Doc[]) walk(s, depth + 1);
  };
  walk(root, 0);
  return out.length ? out : null;
}

/**
 * The stages MongoDB roots a delete's plan at: DELETE, BATCHED_DELETE (6.1+, multi-document deletes), EXPRESS_DELETE
 * (8.0+, one _id); SHARD_WRITE through mongos is above them.
 */
export const DELETE_STAGES: readonly string[] = ['DELETE', 'BATCHED_DELETE', 'EXPRESS_DELETE'];

/** A non-negative whole count from a reply: a number, a bigint or a BSON Long/Int32/Double (valueOf). */
function countOf(v: unknown): number | null {
  let n: unknown = v;
  if (typeof v === 'bigint') n = Number(v);
  else if (v !== null && typeof v === 'object' && typeof (v as { valueOf?: unknown }).valueOf === 'function')
    n = (v as { valueOf: () => unknown }).valueOf();
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

/** A delete's nWouldDelete: on its root delete stage, or summed over shards[] under mongos' SHARD_WRITE. */
function wouldDelete(stages: Doc | undefined): number | null {
  if (!stages || typeof stages !== 'object') return null;
  if (typeof stages.stage === 'string' && DELETE_STAGES.includes(stages.stage)) return countOf(stages.nWouldDelete);
  if (Array.isArray(stages.shards)) {
    let sum = 0;
    for (const s of stages.shards as Doc[]) {
      const n = wouldDelete(s.executionStages as Doc | undefined);
      if (n === null) return null;
      sum += n;
    }
    return sum;
  }
  return null;
}

/**
 * What an explain reply at verbosity executionStats measured, when the reply is a plan of the command explained: for a
 * delete, MongoDB puts a delete stage over the plan that finds the documents, and parsedQuery echoes the (non-empty)
 * filter. A reply without a delete stage, with an empty parsedQuery or without executionStats counts says nothing
 * about the command: the reason says why (stage names only: never a value). The counts are executionStats' totals
 * (nReturned, totalDocsExamined, totalKeysExamined), which the classic engine, the slot-based engine, EXPRESS and
 * mongos all report at the top of executionStats.
 */
export function planOf(explain: Doc, kind: 'find' | 'delete'): { run: ExplainedRun } | { reason: string } {
  const op = kind === 'find' ? 'find' : 'deleteMany';
  const stages = planStages(explain);
  if (!stages) return { reason: `the ${op} explain has no winning plan this advisor can read` };
  const parsed = (explain.queryPlanner as Doc | undefined)?.parsedQuery;
  const emptyFilter = parsed !== null && typeof parsed === 'object' && Object.keys(parsed).length === 0;
  const noDelete = kind === 'delete' && !stages.some((st) => DELETE_STAGES.includes(st));
  if (emptyFilter || noDelete) {
    const why = [
      ...(noDelete ? [`no ${DELETE_STAGES.slice(0, 2).join(' or ')} stage`] : []),
      ...(emptyFilter ? ['an empty parsedQuery for the two-_id filter'] : []),
    ].join('; ');
    return {
      reason:
        `the ${op} explain is not a plan of that ${op} (winning plan ${stages.join(' > ')}: ${why}), so it is ` +
        `not judged`,
    };
  }
  const es = explain.executionStats as Doc | undefined;
  const nReturned = countOf(es?.nReturned);
  const docsExamined = countOf(es?.totalDocsExamined);
  const keysExamined = countOf(es?.totalKeysExamined);
  if (nReturned === null || docsExamined === null || keysExamined === null) {
    return {
      reason:
        `the ${op} explain (winning plan ${stages.join(' > ')}) has no executionStats counts (nReturned, ` +
        `totalDocsExamined, totalKeysExamined), so it is not judged`,
    };
  }
  const nWouldDelete = kind === 'delete' ? wouldDelete(es?.executionStages as Doc | undefined) : null;
  return { run: { stages, nReturned, docsExamined, keysExamined, nWouldDelete } };
}

/** The `_id` an explained $in asks for, read from a find reply of one document (projection {_id: 1}). */
function firstId(reply: Doc): { id: unknown } | null {
  const doc = (((reply.cursor as Doc | undefined)?.firstBatch as Doc[] | undefined) ?? [])[0];
  return doc && '_id' in doc ? { id: doc._id } : null;
}

/**
 * Clustered collections only. Reads the collection's lowest and highest `_id` (two finds sorted on `_id`, limit 1,
 * projection `{_id: 1}`: on a clustered collection each reads one record at an end of the clustered key), then asks
 * explain at verbosity executionStats for `find({_id: {$in: [lowest, highest]}})` and for a deleteMany with that
 * filter. Explain runs the plan to count what it reads but applies no write: "For write operations, explain returns
 * information about the write operation that would be performed but does not actually modify the database"
 * (https://www.mongodb.com/docs/manual/reference/method/db.collection.explain/; jstests/core/explain_delete.js checks
 * the documents are still there). Keeps stage names and counts; the two _ids are dropped when it returns.
 * Round trips: 4 per clustered collection (2 finds, 2 explains). Cost on the server: the explains run the plan, so
 * they read what the $in reads — the whole collection on the trap's shapes — bounded by maxTimeMS.
 */
export const clusteredExplain = defineCollector<ClusteredExplain, 'collection'>({
  id: 'clustered-trap',
  version: 2,
  scope: 'collection',
  description:
    "explain (executionStats) of a find and a deleteMany of the lowest and highest _id's $in on each " +
    'clustered collection (4 commands per clustered collection)',
  appliesTo: (c) => c.clustered && c.type === 'collection',
  schema: CLUSTERED_EXPLAIN_SCHEMA,
  async collect(ctx) {
    const out = await explainClustered(ctx);
    if (out.reason) ctx.note(`clustered-trap: ${out.reason}`);
    return out;
  },
});

async function explainClustered(ctx: CollectionContext): Promise<ClusteredExplain> {
  const { adapter, collection: c, maxTimeMS, server } = ctx;
  const out: ClusteredExplain = { asked: 2, find: null, deleteMany: null, serverVersion: server.version };
  const ends: unknown[] = [];
  try {
    for (const direction of [1, -1]) {
      const end = firstId(
        await adapter.command(c.db, {
          find: c.name,
          filter: {},
          sort: { _id: direction },
          projection: { _id: 1 },
          limit: 1,
          batchSize: 1,
          singleBatch: true,
          maxTimeMS,
        }),
      );
      if (!end) {
        out.reason = 'the collection holds no document: there is no _id to explain';
        return out;
      }
      ends.push(end.id);
    }
  } catch (err) {
    out.reason = `the lowest and highest _id could not be read: ${describeServerError(err)}`;
    return out;
  }
  const filter = { _id: { $in: ends } };
  const problems: string[] = [];
  for (const kind of ['find', 'delete'] as const) {
    const op = kind === 'find' ? 'find' : 'deleteMany';
    const explain = kind === 'find' ? { find: c.name, filter } : { delete: c.name, deletes: [{ q: filter, limit: 0 }] };
    try {
      const plan = planOf(await adapter.command(c.db, { explain, verbosity: 'executionStats', maxTimeMS }), kind);
      if ('run' in plan) out[op] = plan.run;
      else problems.push(plan.reason);
    } catch (err) {
      problems.push(`explain of the ${op} was refused: ${describeServerError(err)}`);
    }
  }
  if (problems.length) out.reason = problems.join('; ');
  return out;
}
