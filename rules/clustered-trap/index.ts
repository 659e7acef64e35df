import { dataOf } from '../../src/core/collector';
import { shellCollection, shellTemplate } from '../../src/lib/shell';
import { defineRule, sentence } from '../../src/core/rule';
import { readsFar } from './analyze';
import { clusteredExplain, type ExplainedRun } from './collect';
import { CONFIRM_MESSAGES, confirmClusteredTrap } from './confirm';
import { clusteredTrapOptionsSchema } from './options';

export { clusteredTrapOptionsSchema, type ClusteredTrapOptions } from './options';

const WHY =
  'on a clustered collection a multi-value `_id` $in reads the whole collection (a COLLSCAN up to 6.0.5) or ' +
  'every document between its lowest and highest value (one bounded CLUSTERED_IXSCAN since SERVER-67105, ' +
  '6.0.6+), not one record per value.';

/** One-at-a-time lookups, as templates: the _ids are placeholders to fill in. */
function lookupTemplates(coll: string): string[] {
  return [
    `${coll}.find({ _id: <id> })`,
    `${coll}.bulkWrite([{ deleteOne: { filter: { _id: <id 1> } } }, { deleteOne: { filter: { _id: <id 2> } } }])`,
    `${coll}.find({ _id: { $in: [<id 1>, <id 2>] } }).explain("executionStats")`,
  ].map(shellTemplate);
}

export default defineRule({
  id: 'clustered-trap',
  needs: [clusteredExplain],
  scope: 'collection',
  meta: {
    description:
      'Clustered collections where a multi-_id $in find or deleteMany reads far more documents than it asks for',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/clustered-collections/',
    severity: 'warn',
    messages: {
      scanOnFind: sentence(
        `On this clustered collection, explain of find() with \`_id: {$in: [lowest, highest]}\` read `,
        `{{findExamined}} documents to return {{findReturned}} ({{findPlan}}, MongoDB {{version}}): ${WHY}`,
      ),
      scanOnDelete: sentence(
        `On this clustered collection, explain of deleteMany() with \`_id: {$in: [lowest, highest]}\` read `,
        `{{deleteExamined}} documents to delete {{deleteWould}} ({{deletePlan}}, MongoDB {{version}}): ${WHY}`,
      ),
      scanOnBoth: sentence(
        `On this clustered collection, explain of find() and deleteMany() with \`_id: {$in: [lowest, `,
        `highest]}\` read {{findExamined}} documents to return {{findReturned}} ({{findPlan}}) and `,
        `{{deleteExamined}} documents to delete {{deleteWould}} ({{deletePlan}}) on MongoDB `,
        `{{version}}: ${WHY}`,
      ),
    },
    options: clusteredTrapOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ collection: c, options, report }) {
    const e = dataOf(clusteredExplain, c);
    if (!c || !c.clustered || !e) return;
    const find = readsFar(e.find, e.asked, options.examinedRatio) ? e.find : null;
    const del = readsFar(e.deleteMany, e.asked, options.examinedRatio) ? e.deleteMany : null;
    if (!find && !del) return;
    const plan = (r: ExplainedRun | null): string | null => (r ? r.stages.join(' > ') : null);
    // "to delete N": the delete's nWouldDelete, or the values asked when the reply has none.
    const would = (r: ExplainedRun): number => r.nWouldDelete ?? e.asked;
    const base = {
      target: { db: c.db, collection: c.name, path: '_id' },
      evidence: {
        findPlan: plan(e.find),
        deleteManyPlan: plan(e.deleteMany),
        asked: e.asked,
        findExamined: e.find?.docsExamined ?? null,
        findReturned: e.find?.nReturned ?? null,
        deleteExamined: e.deleteMany?.docsExamined ?? null,
        deleteWould: e.deleteMany ? would(e.deleteMany) : null,
        examinedRatio: options.examinedRatio,
        serverVersion: e.serverVersion,
        documents: c.stats?.count ?? null,
      },
      recommendation: {
        action: 'look far-apart _ids up one at a time, or $in only over _ids that sit close together',
        reason:
          'An equality on the clustered key reads one record; an $in of several _ids reads the whole ' +
          'collection (up to 6.0.5) or the whole range between its lowest and highest value (6.0.6+). Send ' +
          'one find or deleteOne per _id (a bulk write keeps it one round trip), or a $gte/$lte range when ' +
          'the _ids are adjacent, and check explain("executionStats") after each server upgrade.',
        commands: lookupTemplates(shellCollection(c.db, c.name)),
      },
    };
    const version = e.serverVersion;
    if (find && del) {
      report({
        ...base,
        messageId: 'scanOnBoth',
        data: {
          findExamined: find.docsExamined,
          findReturned: find.nReturned,
          findPlan: find.stages.join(' > '),
          deleteExamined: del.docsExamined,
          deleteWould: would(del),
          deletePlan: del.stages.join(' > '),
          version,
        },
      });
    } else if (find) {
      report({
        ...base,
        messageId: 'scanOnFind',
        data: {
          findExamined: find.docsExamined,
          findReturned: find.nReturned,
          findPlan: find.stages.join(' > '),
          version,
        },
      });
    } else if (del) {
      report({
        ...base,
        messageId: 'scanOnDelete',
        data: {
          deleteExamined: del.docsExamined,
          deleteWould: would(del),
          deletePlan: del.stages.join(' > '),
          version,
        },
      });
    }
  },
  confirm: {
    describe:
      'on a scratch clustered collection: explain (executionStats) of the lowest and highest _id $in, and ' +
      'its time against single-_id lookups',
    messages: CONFIRM_MESSAGES,
    run: confirmClusteredTrap,
  },
});
