import { defineRule } from '../../src/core/rule';
import { confirmClusteredTrap } from './confirm';

export interface ClusteredTrapOptions extends Record<string, unknown> {
  scanStages: string[];
}

export const clusteredTrapOptionsSchema = {
  type: 'object' as const,
  additionalProperties: false as const,
  properties: {
    scanStages: {
      type: 'array',
      items: { type: 'string' },
      default: ['COLLSCAN'],
      description: 'Plan stages that mean the whole collection is read: on 6.0.5 a two-_id $in find and deleteMany on a clustered collection planned a COLLSCAN (the clustered-collections field report). A COLLSCAN bounded by the clustered key reads COLLSCAN[bounded] and does not count.',
    },
  },
};

export default defineRule<ClusteredTrapOptions>({
  id: 'clustered-trap',
  needs: ['clusteredExplain'],
  scope: 'collection',
  meta: {
    description: 'Clustered collections whose multi-_id $in find or deleteMany plans a collection scan',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/clustered-collections/',
    severity: 'warn',
    messages: {
      scanOnIn:
        'On this clustered collection {{ops}} with `_id: {$in: [two values]}` {{verb}} a collection scan ({{plans}}) on MongoDB {{version}}: every multi-_id lookup reads the whole collection instead of two keys (the 6.0.5 trap).',
    },
    options: clusteredTrapOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ collection: c, options, report }) {
    if (!c || !c.clustered || !c.clusteredExplain) return;
    const e = c.clusteredExplain;
    const scans = (stages: string[] | null): boolean => stages !== null && stages.some((s) => options.scanStages.includes(s));
    const ops: string[] = [];
    const plans: string[] = [];
    if (scans(e.find)) {
      ops.push('find()');
      plans.push(`find: ${(e.find ?? []).join(' > ')}`);
    }
    if (scans(e.deleteMany)) {
      ops.push('deleteMany()');
      plans.push(`deleteMany: ${(e.deleteMany ?? []).join(' > ')}`);
    }
    if (ops.length === 0) return;
    report({
      messageId: 'scanOnIn',
      target: { db: c.db, collection: c.name, path: '_id' },
      data: { ops: ops.join(' and '), verb: ops.length > 1 ? 'plan' : 'plans', plans: plans.join('; '), version: e.serverVersion },
      evidence: {
        findPlan: e.find ? e.find.join(' > ') : null,
        deleteManyPlan: e.deleteMany ? e.deleteMany.join(' > ') : null,
        serverVersion: e.serverVersion,
        documents: c.stats?.count ?? null,
      },
      recommendation: {
        action: 'look _ids up one at a time until the server plans $in on the clustered key',
        reason: 'An equality on the clustered key reads one key; $in with several values fell back to a collection scan here. Send one find or deleteOne per _id (a bulk write keeps it one round trip), or a $gte/$lte range when the _ids are adjacent, and check explain() again after each server upgrade.',
        commands: [
          `db.${c.name}.find({ _id: <id> })`,
          `db.${c.name}.bulkWrite([{ deleteOne: { filter: { _id: <id 1> } } }, { deleteOne: { filter: { _id: <id 2> } } }])`,
          `db.${c.name}.find({ _id: { $in: [<id 1>, <id 2>] } }).explain("queryPlanner")`,
        ],
      },
    });
  },
  confirm: { describe: 'on a scratch clustered collection: explain of a two-_id $in, and its time against two single-_id finds', run: confirmClusteredTrap },
});
