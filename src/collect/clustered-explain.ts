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
    out.find = planStages(await adapter.command(c.db, { explain: { find: c.name, filter }, verbosity: 'queryPlanner', maxTimeMS }));
    if (!out.find) problems.push('the find explain has no winning plan this advisor can read');
  } catch (err) {
    problems.push(`explain of the find was refused: ${describeServerError(err)}`);
  }
  try {
    out.deleteMany = planStages(await adapter.command(c.db, { explain: { delete: c.name, deletes: [{ q: filter, limit: 0 }] }, verbosity: 'queryPlanner', maxTimeMS }));
    if (!out.deleteMany) problems.push('the deleteMany explain has no winning plan this advisor can read');
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
