import { type Doc, describeServerError } from '../adapters/types';
import type { ClusteredExplain } from '../core/types';
import type { CollectionCollectorContext } from './extras';

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

/**
 * Collection collector, clustered collections only: explain (verbosity queryPlanner, which plans without
 * executing, for the delete too) of a find and a deleteMany on `_id: {$in: [a, b]}`, with two _ids read
 * from the collection. Stores the stage names only; the _ids are dropped when this returns.
 * Round trips: 3 per clustered collection.
 */
export async function collectClusteredExplain(ctx: CollectionCollectorContext): Promise<void> {
  await explainClustered(ctx);
  noteMissing(ctx);
}

async function explainClustered(ctx: CollectionCollectorContext): Promise<void> {
  const { adapter, collection: c, maxTimeMS, server } = ctx;
  if (!c.clustered || c.type !== 'collection') return;
  const out: ClusteredExplain = { find: null, deleteMany: null, serverVersion: server.version };
  c.clusteredExplain = out;
  let ids: unknown[];
  try {
    const r = await adapter.command(c.db, { find: c.name, filter: {}, projection: { _id: 1 }, limit: 2, batchSize: 2, singleBatch: true, maxTimeMS });
    ids = (((r.cursor as Doc | undefined)?.firstBatch as Doc[] | undefined) ?? []).map((d) => d._id);
  } catch (err) {
    out.reason = `two _ids could not be read: ${describeServerError(err)}`;
    return;
  }
  if (ids.length < 2) {
    out.reason = `the collection holds ${ids.length} document${ids.length === 1 ? '' : 's'}: a two-_id $in needs two`;
    return;
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
}

/** The one line a report shows when a clustered collection's plans could not be read. */
function noteMissing(ctx: CollectionCollectorContext): void {
  const c = ctx.collection;
  const e = c.clusteredExplain;
  if (e?.reason) c.notes.push({ level: 'skipped', target: { db: c.db, collection: c.name }, message: `clustered-trap: ${e.reason}` });
}
