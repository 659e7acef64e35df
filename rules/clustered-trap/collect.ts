import { type Doc, describeServerError } from '../../src/adapters/types';
import { type CollectionContext, defineCollector } from '../../src/core/collector';

/** explain() of `find({_id: {$in: [a, b]}})` and of a deleteMany with that filter, verbosity queryPlanner. */
export interface ClusteredExplain {
  /** Stage names from the winning plan's root down, e.g. ["FETCH", "CLUSTERED_IXSCAN"]; null when not read. */
  find: string[] | null;
  deleteMany: string[] | null;
  /** Server version the plans came from. */
  serverVersion: string;
  /** Why a plan is missing (fewer than two documents, explain refused, unknown plan shape). */
  reason?: string;
}

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
    if (Array.isArray(node.shards)) for (const s of node.shards as Doc[]) walk((s.winningPlan as Doc | undefined) ?? s, depth + 1);
    walk(node.inputStage as Doc | undefined, depth + 1);
    if (Array.isArray(node.inputStages)) for (const s of node.inputStages as Doc[]) walk(s, depth + 1);
  };
  walk(root, 0);
  return out.length ? out : null;
}

/** The stages MongoDB roots a delete's plan at: DELETE, BATCHED_DELETE (6.1+, multi-document deletes), EXPRESS_DELETE (8.0+, one _id). */
export const DELETE_STAGES: readonly string[] = ['DELETE', 'BATCHED_DELETE', 'EXPRESS_DELETE'];

/**
 * Stage names of an explain reply, when the reply is a plan of the command explained: for a delete, MongoDB puts a
 * delete stage over the plan that finds the documents, and parsedQuery echoes the (non-empty) filter. A reply without
 * a delete stage, or with an empty parsedQuery, did not plan this command's filter: its stages say nothing about it,
 * and the reason says so (stage names only: never a value).
 */
export function planOf(explain: Doc, kind: 'find' | 'delete'): { stages: string[] } | { reason: string } {
  const stages = planStages(explain);
  if (!stages) return { reason: `the ${kind === 'find' ? 'find' : 'deleteMany'} explain has no winning plan this advisor can read` };
  const parsed = (explain.queryPlanner as Doc | undefined)?.parsedQuery;
  const emptyFilter = parsed !== null && typeof parsed === 'object' && Object.keys(parsed).length === 0;
  const noDelete = kind === 'delete' && !stages.some((st) => DELETE_STAGES.includes(st));
  if (!emptyFilter && !noDelete) return { stages };
  const why = [
    ...(noDelete ? [`no ${DELETE_STAGES.slice(0, 2).join(' or ')} stage`] : []),
    ...(emptyFilter ? ['an empty parsedQuery for the two-_id filter'] : []),
  ].join('; ');
  const op = kind === 'find' ? 'find' : 'deleteMany';
  return { reason: `the ${op} explain is not a plan of that ${op} (winning plan ${stages.join(' > ')}: ${why}), so it is not judged` };
}

const stages = { type: ['array', 'null'], items: { type: 'string' } };

/**
 * Clustered collections only: explain (verbosity queryPlanner, which plans without executing, for the delete too) of
 * a find and a deleteMany on `_id: {$in: [a, b]}`, with two _ids of the collection's sample (read when the sample holds fewer). Keeps the
 * stage names only; the _ids are dropped when it returns. Round trips: 2 per clustered collection.
 */
export const clusteredExplain = defineCollector<ClusteredExplain, 'collection'>({
  id: 'clustered-trap',
  version: 1,
  scope: 'collection',
  description: 'explain() of a two-_id $in find and deleteMany on each clustered collection (2 commands per clustered collection)',
  appliesTo: (c) => c.clustered && c.type === 'collection',
  schema: {
    type: 'object',
    required: ['find', 'deleteMany', 'serverVersion'],
    additionalProperties: false,
    // Stage names are upper-case words (COLLSCAN[bounded] included): the pattern keeps _id values out.
    properties: { find: { ...stages, items: { type: 'string', pattern: '^[A-Z0-9_]+(\\[bounded\\])?$' } }, deleteMany: { ...stages, items: { type: 'string', pattern: '^[A-Z0-9_]+(\\[bounded\\])?$' } }, serverVersion: { type: 'string' }, reason: { type: 'string' } },
  },
  async collect(ctx) {
    const out = await explainClustered(ctx);
    if (out.reason) ctx.note(`clustered-trap: ${out.reason}`);
    return out;
  },
});

async function explainClustered(ctx: CollectionContext): Promise<ClusteredExplain> {
  const { adapter, collection: c, maxTimeMS, server } = ctx;
  const out: ClusteredExplain = { find: null, deleteMany: null, serverVersion: server.version };
  // Two _ids of the sample collect already read; a read of its own only when the sample holds fewer.
  let ids: unknown[] = ctx.ids.slice(0, 2);
  if (ids.length < 2) {
    try {
      const r = await adapter.command(c.db, { find: c.name, filter: {}, projection: { _id: 1 }, limit: 2, batchSize: 2, singleBatch: true, maxTimeMS });
      ids = (((r.cursor as Doc | undefined)?.firstBatch as Doc[] | undefined) ?? []).map((d) => d._id);
    } catch (err) {
      out.reason = `two _ids could not be read: ${describeServerError(err)}`;
      return out;
    }
  }
  if (ids.length < 2) {
    out.reason = `the collection holds ${ids.length} document${ids.length === 1 ? '' : 's'}: a two-_id $in needs two`;
    return out;
  }
  const filter = { _id: { $in: ids } };
  const problems: string[] = [];
  try {
    const plan = planOf(await adapter.command(c.db, { explain: { find: c.name, filter }, verbosity: 'queryPlanner', maxTimeMS }), 'find');
    if ('stages' in plan) out.find = plan.stages;
    else problems.push(plan.reason);
  } catch (err) {
    problems.push(`explain of the find was refused: ${describeServerError(err)}`);
  }
  try {
    const plan = planOf(await adapter.command(c.db, { explain: { delete: c.name, deletes: [{ q: filter, limit: 0 }] }, verbosity: 'queryPlanner', maxTimeMS }), 'delete');
    if ('stages' in plan) out.deleteMany = plan.stages;
    else problems.push(plan.reason);
  } catch (err) {
    problems.push(`explain of the deleteMany was refused: ${describeServerError(err)}`);
  }
  if (problems.length) out.reason = problems.join('; ');
  return out;
}
