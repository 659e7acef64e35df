import { newCollectionName } from '../../src/lib/new-collection';
import { dataOf } from '../../src/core/collector';
import { formatBytes, formatNumber } from '../../src/core/format';
import { defineRule, type NoteFn, type Report, sentence } from '../../src/core/rule';
import type { CollectionSnapshot, DatabaseSnapshot, Finding, Recommendation } from '../../src/core/types';
import { codeSpan, shellCall, shellCode, shellTemplate } from '../../src/lib/shell';
import { type PairJudgement, judgePair } from './analyze';
import { queryWorkload } from '../../src/collect/workload';
import { embedPairs } from './collect';
import { CONFIRM_MESSAGES, confirmEmbed } from './confirm';
import { type EmbedReferenceOptions, embedReferenceOptionsSchema } from './options';
import { singular } from './pairs';
import { embedTables } from './table';

export { embedReferenceOptionsSchema, type EmbedReferenceOptions } from './options';

const SHAPE = sentence(
  'per {{parentOne}}, {{median}} children at the median (p95 {{p95}}, most {{max}}, over {{parentsRead}} read; ',
  'at most {{projectedMax}} in {{projectionDays}} days at their own pace), {{embeddedBytes}} for the largest with ',
  'them embedded; `{{child}}` receives {{inserts}} inserts, {{updates}} updates ({{updatesById}} by `_id`), ',
  '{{deletes}} deletes and {{aloneReads}} reads of its own',
);
const BY_LOOKUP =
  '`{{parent}}` reads `{{child}}` with a `$lookup` (`{{localField}}` → `{{foreignField}}`) in {{joinCalls}} calls';
const BY_PAIR = sentence(
  '`{{parent}}` is read by `_id` and `{{child}}` by `{{foreignField}}` at matching rates ({{joinCalls}} calls ',
  'each at least: a pair inferred from the names and the rates, not seen in one operation)',
);
const EMBED = 'Embedding them in `{{parent}}.{{as}}` removes the join from each of those reads.';
const EXTENDED = sentence(
  'The read keeps {{fields}} of each child: an extended reference (those fields copied into `{{parent}}.{{as}}`) ',
  'removes the join and leaves `{{child}}` the source of truth.',
);
const KEEP_CHILDREN = sentence(
  'An embedded array must stay under {{maxChildren}} children (array-growth reports arrays of that length): keep ',
  '`{{child}}` referenced.',
);
const KEEP_BYTES = sentence(
  'That is more than {{maxEmbeddedBytes}} for one document (array-growth warns there; the limit is {{limit}}): ',
  'keep `{{child}}` referenced.',
);

const messages = {
  embedLookup: `${BY_LOOKUP}; ${SHAPE}. ${EMBED}`,
  embedPaired: `${BY_PAIR}; ${SHAPE}. ${EMBED}`,
  extendedLookup: `${BY_LOOKUP}; ${SHAPE}. ${EXTENDED}`,
  keepChildrenLookup: `${BY_LOOKUP}; ${SHAPE}. ${KEEP_CHILDREN}`,
  keepChildrenPaired: `${BY_PAIR}; ${SHAPE}. ${KEEP_CHILDREN}`,
  keepBytesLookup: `${BY_LOOKUP}; ${SHAPE}. ${KEEP_BYTES}`,
  keepBytesPaired: `${BY_PAIR}; ${SHAPE}. ${KEEP_BYTES}`,
} as const;

const MODELING_PAGE = 'https://www.mongodb.com/docs/manual/data-modeling/concepts/embedding-vs-references/';

function evidenceOf(j: PairJudgement, o: EmbedReferenceOptions): Finding['evidence'] {
  const p = j.pair;
  return {
    decision: j.decision,
    basis: p.basis,
    parent: p.parent,
    child: p.child,
    localField: p.localField,
    foreignField: p.foreignField,
    as: p.as,
    fields: p.fields.join(','),
    joinCalls: p.joinCalls,
    joinMillis: p.joinMillis === null ? null : Math.round(p.joinMillis),
    parentsRead: j.parentsRead,
    childrenMedian: Math.round(j.median),
    childrenP95: Math.round(j.p95),
    childrenMax: j.max,
    childrenPerDayMax: j.maxPerDay,
    projectedChildren: j.projectedMax,
    projectionDays: o.projectionDays,
    childBytes: j.childBytes,
    parentBytes: j.parentBytes,
    embeddedBytes: j.embeddedBytes,
    unbounded: j.unbounded,
    childInserts: j.child.inserts,
    childUpdates: j.child.updates,
    childUpdatesById: j.child.updatesById,
    childDeletes: j.child.deletes,
    childReadsAlone: j.childAloneReads,
    childWrites: j.childWrites,
    parentUpdates: j.parent.updates,
  };
}

/** Whether the child has an index led by the join's foreign field (the `$lookup`, and the migration, need one). */
function hasLeadingIndex(c: CollectionSnapshot | undefined, field: string): boolean {
  return (c?.indexes ?? []).some((ix) => Object.keys(ix.key)[0] === field);
}

function recommend(
  db: string,
  j: PairJudgement,
  child: CollectionSnapshot | undefined,
  taken: ReadonlySet<string>,
): Recommendation {
  const p = j.pair;
  const index = hasLeadingIndex(child, p.foreignField)
    ? []
    : [shellCall(db, p.child, 'createIndex', { [p.foreignField]: 1 })];
  if (j.decision === 'keepReferenced') {
    return {
      action: 'keep referenced',
      reason:
        `The children per ${singular(p.parent)} are unbounded for an embedded array; the join stays, served by an ` +
        `index on ${codeSpan(p.foreignField)}` +
        (index.length ? ' (missing: create it).' : ' (present).'),
      commands: index,
    };
  }
  // Beside the old layout, in a collection the database does not hold; `merge` (not `replace`) so that a second
  // child embedded into the same parent adds its field to the documents the first built, instead of undoing it.
  const target = newCollectionName(`${p.parent}_embedded`, taken);
  const lookup: Record<string, unknown> = {
    from: p.child,
    localField: p.localField,
    foreignField: p.foreignField,
    as: p.as,
  };
  const project =
    j.decision === 'extendedReference'
      ? [{ $set: { [p.as]: { $map: { input: `$${p.as}`, as: 'c', in: extendedFields(p.fields) } } } }]
      : [];
  const merge = { $merge: { into: { db, coll: target }, on: '_id', whenMatched: 'merge', whenNotMatched: 'insert' } };
  const pipeline = [{ $lookup: lookup }, ...project, merge];
  const range = { _id: { $gte: shellCode('<first _id of the batch>'), $lt: shellCode('<first _id of the next>') } };
  const batch = shellCall(db, p.parent, 'aggregate', [{ $match: range }, ...pipeline]);
  const writes =
    j.decision === 'embed'
      ? `insert a child with $push into ${codeSpan(p.as)}, update one with a positional $set on ` +
        `${codeSpan(`${p.as}.$`)} (filter by the parent's ${codeSpan(p.localField)} and ` +
        `${codeSpan(`${p.as}._id`)}), read the ${singular(p.parent)} alone`
      : `keep writing ${codeSpan(p.child)}, and update the copied fields in ` +
        `${codeSpan(`${p.parent}.${p.as}`)} with each change of them (a positional $set); read the ` +
        `${singular(p.parent)} alone`;
  return {
    action: j.decision === 'embed' ? 'embed' : 'extended reference',
    reason:
      `Build the new layout beside the old one into ${codeSpan(target)} (nothing is changed in place; on a large ` +
      `collection run it in batches of _id ranges), then change the application: ${writes}. Switch reads once ` +
      `${codeSpan(target)} is current, and drop ${codeSpan(p.child)} only after the application no longer reads it.`,
    commands: [...index, shellCall(db, p.parent, 'aggregate', pipeline), shellTemplate(batch)],
  };
}

function extendedFields(fields: readonly string[]): Record<string, string> {
  const out: Record<string, string> = { _id: '$$c._id' };
  for (const f of fields) out[f] = `$$c.${f}`;
  return out;
}

function checkDatabase(
  db: DatabaseSnapshot,
  options: EmbedReferenceOptions,
  report: Report<typeof messages>,
  note: NoteFn,
): void {
  const data = dataOf(embedPairs, db);
  if (!data) return;
  const colls = new Map(db.collections.map((c) => [c.name, c]));
  for (const pair of data.pairs) {
    if (pair.joinCalls >= options.minJoinCalls && pair.measured === null) {
      note(`the children of ${pair.parent} in ${pair.child} were not counted: not judged`, {
        db: db.name,
        collection: pair.parent,
      });
      continue;
    }
    if (pair.joinCalls >= options.minJoinCalls && pair.measured?.children.every((n) => n === 0)) {
      const read = pair.measured.parents;
      note(`the join found no child in ${pair.child} for the ${read} parents of ${pair.parent} read: not judged`, {
        db: db.name,
        collection: pair.parent,
      });
      continue;
    }
    const j = judgePair(pair, data, colls, options);
    if (!j) continue;
    const base = {
      target: { db: db.name, collection: pair.parent, path: pair.as },
      evidence: evidenceOf(j, options),
      recommendation: recommend(db.name, j, colls.get(pair.child), new Set(db.collections.map((c) => c.name))),
    };
    const shape = {
      parentOne: singular(pair.parent),
      child: pair.child,
      median: Math.round(j.median),
      p95: Math.round(j.p95),
      max: j.max,
      parentsRead: j.parentsRead,
      projectedMax: j.projectedMax,
      projectionDays: options.projectionDays,
      embeddedBytes: formatBytes(j.embeddedBytes),
      inserts: formatNumber(j.child.inserts),
      updates: formatNumber(j.child.updates),
      updatesById: formatNumber(j.child.updatesById),
      deletes: formatNumber(j.child.deletes),
      aloneReads: formatNumber(j.childAloneReads),
      parent: pair.parent,
      joinCalls: formatNumber(pair.joinCalls),
      foreignField: pair.foreignField,
    };
    const lookup = { ...shape, localField: pair.localField };
    const keepChildren = { maxChildren: options.maxChildren };
    const keepBytes = {
      maxEmbeddedBytes: formatBytes(options.maxEmbeddedBytes),
      limit: formatBytes(options.maxBytesLimit),
    };
    const paired = pair.basis === 'shapePair';
    if (j.decision === 'embed') {
      if (paired) report({ ...base, messageId: 'embedPaired', data: { ...shape, as: pair.as } });
      else report({ ...base, messageId: 'embedLookup', data: { ...lookup, as: pair.as } });
    } else if (j.decision === 'extendedReference') {
      const fields = pair.fields.map((f) => codeSpan(f)).join(', ');
      report({ ...base, messageId: 'extendedLookup', data: { ...lookup, as: pair.as, fields } });
    } else if (j.unbounded === 'children') {
      if (paired) report({ ...base, messageId: 'keepChildrenPaired', data: { ...shape, ...keepChildren } });
      else report({ ...base, messageId: 'keepChildrenLookup', data: { ...lookup, ...keepChildren } });
    } else if (paired) report({ ...base, messageId: 'keepBytesPaired', data: { ...shape, ...keepBytes } });
    else report({ ...base, messageId: 'keepBytesLookup', data: { ...lookup, ...keepBytes } });
  }
}

const rule = defineRule({
  id: 'embed-reference',
  needs: [queryWorkload, embedPairs], // the shared workload first: the pairs read its data
  scope: 'snapshot',
  meta: {
    description: 'Collections read together: embed the children, or keep them referenced, by the workload',
    docsUrl: MODELING_PAGE,
    severity: 'info',
    messages,
    options: embedReferenceOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, options, report, note }) {
    for (const db of snapshot.databases) checkDatabase(db, options, report, note);
  },
  confirm: {
    describe:
      'both layouts on scratch (bounded parents with all their children): the join read against the find on the ' +
      "embedded layout, and the workload's mix of reads and child writes, timed in alternation",
    messages: CONFIRM_MESSAGES,
    appliesTo: (f) => f.evidence.decision === 'embed' || f.evidence.decision === 'extendedReference',
    run: confirmEmbed,
  },
  tables: embedTables,
});

export default rule;
