import { dataOf } from '../../src/core/collector';
import { shellCollection } from '../../src/lib/shell';
import { defineRule, type OptionsOf, type OptionsSchema } from '../../src/core/rule';
import { clusteredExplain } from './collect';
import { confirmClusteredTrap } from './confirm';

export const clusteredTrapOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    scanStages: {
      type: 'array',
      items: { type: 'string' },
      default: ['COLLSCAN'],
      description: 'Plan stages that mean the whole collection is read: on 6.0.5 a two-_id $in find and deleteMany on a clustered collection planned a COLLSCAN (the clustered-collections field report). A COLLSCAN bounded by the clustered key reads COLLSCAN[bounded] and does not count.',
    },
  },
} as const satisfies OptionsSchema;

export type ClusteredTrapOptions = OptionsOf<typeof clusteredTrapOptionsSchema>;

const WHY = 'every multi-_id lookup reads the whole collection instead of two keys (the 6.0.5 trap).';

export default defineRule({
  id: 'clustered-trap',
  needs: [clusteredExplain],
  scope: 'collection',
  meta: {
    description: 'Clustered collections whose multi-_id $in find or deleteMany plans a collection scan',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/clustered-collections/',
    severity: 'warn',
    messages: {
      scanOnFind: `On this clustered collection find() with \`_id: {$in: [two values]}\` plans a collection scan ({{findPlan}}) on MongoDB {{version}}: ${WHY}`,
      scanOnDelete: `On this clustered collection deleteMany() with \`_id: {$in: [two values]}\` plans a collection scan ({{deletePlan}}) on MongoDB {{version}}: ${WHY}`,
      scanOnBoth: `On this clustered collection find() and deleteMany() with \`_id: {$in: [two values]}\` plan a collection scan (find: {{findPlan}}; deleteMany: {{deletePlan}}) on MongoDB {{version}}: ${WHY}`,
    },
    options: clusteredTrapOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ collection: c, options, report }) {
    const e = dataOf(clusteredExplain, c);
    if (!c || !c.clustered || !e) return;
    const scans = (stages: string[] | null): boolean => stages !== null && stages.some((s) => options.scanStages.includes(s));
    const find = scans(e.find);
    const del = scans(e.deleteMany);
    if (!find && !del) return;
    const findPlan = (e.find ?? []).join(' > ');
    const deletePlan = (e.deleteMany ?? []).join(' > ');
    const base = {
      target: { db: c.db, collection: c.name, path: '_id' },
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
          `${shellCollection(c.name)}.find({ _id: <id> })`,
          `${shellCollection(c.name)}.bulkWrite([{ deleteOne: { filter: { _id: <id 1> } } }, { deleteOne: { filter: { _id: <id 2> } } }])`,
          `${shellCollection(c.name)}.find({ _id: { $in: [<id 1>, <id 2>] } }).explain("queryPlanner")`,
        ],
      },
    };
    if (find && del) report({ ...base, messageId: 'scanOnBoth', data: { findPlan, deletePlan, version: e.serverVersion } });
    else if (find) report({ ...base, messageId: 'scanOnFind', data: { findPlan, version: e.serverVersion } });
    else report({ ...base, messageId: 'scanOnDelete', data: { deletePlan, version: e.serverVersion } });
  },
  confirm: { describe: 'on a scratch clustered collection: explain of a two-_id $in, and its time against two single-_id finds', run: confirmClusteredTrap },
});
