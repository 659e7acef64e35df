import { collectionNamesIn, newCollectionName } from '../../src/lib/new-collection';
import { dataOf } from '../../src/core/collector';
import { codeSpan, shellCall, shellDbCall } from '../../src/lib/shell';
import { formatBytes, formatNumber } from '../../src/core/format';
import { defineRule, type Report, sentence } from '../../src/core/rule';
import type { Capability, CollectionSnapshot, Target } from '../../src/core/types';
import {
  UUID_BINARY_BSON_BYTES,
  UUID_KEY_SAVING,
  UUID_STRING_BSON_BYTES,
  type IdPatternStats,
  idPatternStats,
  idValueBytes,
  penaltyInWords,
  secondaryIndexPenalty,
  timeIndex,
  typeLabel,
  uuidSavings,
} from './analyze';
import { idProfile, type NaturalOrder, naturalOrder } from './collect';
import type { IdProfile } from './id-profile';
import { CONFIRM_MESSAGES, CONFIRMABLE, confirmIdPattern } from './confirm';
import { type IdPatternOptions, idPatternOptionsSchema } from './options';

export { idPatternOptionsSchema, type IdPatternOptions } from './options';

const round3 = (n: number | null): number | null => (n === null ? null : Math.round(n * 1000) / 1000);

const CLUSTERED_DOCS = 'https://www.mongodb.com/docs/manual/core/clustered-collections/';

/** Why the order reads as it does, for the message: the UUID version, or the correlation with insertion order. */
function orderEvidence(s: IdPatternStats): string {
  if (s.basis === 'uuid-version')
    return (
      `version ${s.uuidVersion ?? '?'}, leading bytes ${Math.round((s.leadingEntropyShare ?? 0) * 100)}% of ` +
      `maximal entropy`
    );
  if (s.basis === 'natural-order' && s.monotonicity !== null) {
    const rho = `ρ = ${s.monotonicity.toFixed(2)} against insertion order`;
    return s.order === 'random' && s.leadingEntropyShare !== null
      ? `${rho}, leading bytes ${Math.round(s.leadingEntropyShare * 100)}% of maximal entropy`
      : rho;
  }
  return `leading bytes ${Math.round((s.leadingEntropyShare ?? 0) * 100)}% of maximal entropy; insertion order unread`;
}

/** _id types whose value carries its creation time, so a time range is an _id range: ObjectId (seconds), date, UUID
 * v6/v7. */
function timeDerived(s: IdPatternStats): boolean {
  return (
    s.mainType === 'objectId' ||
    s.mainType === 'date' ||
    (s.mainType === 'uuid' && (s.uuidVersion === 6 || s.uuidVersion === 7))
  );
}

const messages = {
  mixedTypes: sentence(
    '`_id` mixes types: {{mix}}. An equality match finds one type only (a UUID and its string never match) ',
    'and ranges and sorts split by type: normalise `_id` when writing. No clustering advice until it is one ',
    'type.',
  ),
  uuidAsString: sentence(
    '`_id` holds {{label}} values as 36-character strings. Stored as binary UUIDs (subtype 4) each value ',
    'takes {{binaryBytes}} bytes instead of {{stringBytes}}: about {{documentBytes}} less across ',
    '{{documents}} documents, and {{keyBytes}} less per key in {{indexEntries}} index entries ({{indexes}}): ',
    'about {{indexBytes}}.',
  ),
  uuidAsStringUncounted: sentence(
    '`_id` holds {{label}} values as 36-character strings. Stored as binary UUIDs (subtype 4) each value ',
    'takes {{binaryBytes}} bytes instead of {{stringBytes}}, and each key in {{indexes}} {{keyBytes}} bytes ',
    'less; the document count could not be read, so no total is given.',
  ),
  recommendClustered: sentence(
    '`_id` is {{label}} ({{bytes}} bytes), monotonic ({{order}}), on {{dataSize}} of data, and index ',
    '`{{timeIndex}}` reads by the date `{{timeField}}` while the `_id` itself is time-ordered: a clustered ',
    'collection would keep documents in `_id` order, one tree instead of two, and time ranges could read ',
    '`_id` ranges. Secondary indexes here: {{growth}}.',
  ),
  recommendClusteredNoGrowth: sentence(
    '`_id` is {{label}} ({{bytes}} bytes), monotonic ({{order}}), on {{dataSize}} of data, and index ',
    '`{{timeIndex}}` reads by the date `{{timeField}}` while the `_id` itself is time-ordered: a clustered ',
    'collection would keep documents in `_id` order, one tree instead of two, and time ranges could read ',
    '`_id` ranges. Its secondary index entries would hold this {{bytes}}-byte `_id` in place of the ',
    '{{recordIdBytes}}-byte recordId, so they would not grow.',
  ),
  adviseAgainstClustered: sentence(
    '`_id` is {{label}} ({{bytes}} bytes) and random ({{order}}): clustered on such keys, inserts land all ',
    'over the tree, and every secondary index entry would grow by {{perEntry}} bytes (≈ {{penalty}} here).',
  ),
  adviseAgainstClusteredLarge: sentence(
    '`_id` is {{label}} ({{bytes}} bytes) and large (over {{smallIdBytes}} bytes): clustered on such keys, ',
    'every secondary index entry would grow by {{perEntry}} bytes (≈ {{penalty}} here).',
  ),
  clusteredOnRandom: sentence(
    'This clustered collection has a random `_id` ({{label}}: {{order}}): inserts land all over the tree. ',
    'Clustering is fixed at creation: plan a regular collection or a monotonic `_id` (ObjectId, UUID v7).',
  ),
  orderUnknown: sentence(
    '`_id` order could not be judged: the correlation with insertion order is {{rho}}, between random (< ',
    '{{randomThreshold}}) and monotonic (≥ {{monotonicThreshold}}).',
  ),
  orderUnread: '`_id` order could not be judged: the natural-order read failed.',
} as const;

/** What every finding of one collection's `_id` shares. */
interface IdFinding {
  c: CollectionSnapshot;
  s: IdPatternStats;
  p: IdProfile;
  options: IdPatternOptions;
  report: Report<typeof messages>;
  target: Target;
  evidence: ReturnType<typeof evidenceOf>;
  /** The collection names of the database read: a collection a command creates takes none of them. */
  taken: ReadonlySet<string>;
}

function evidenceOf(c: CollectionSnapshot, s: IdPatternStats) {
  return {
    idType: s.label,
    idBytes: s.idBytes,
    uuidAsString: s.uuidAsString,
    uuidVersion: s.uuidVersion,
    orderBasis: s.basis,
    monotonicity: round3(s.monotonicity),
    // the _ids behind the correlation: the report's _id order chart reads both from the findings
    naturalOrderIds: s.monotonicity === null ? null : s.naturalOrderIds,
    leadingByteEntropyShare: round3(s.leadingEntropyShare),
    order: s.order,
    sampleSize: s.sampleSize,
    clustered: c.clustered,
    capped: c.capped,
    documents: c.stats?.count ?? null,
    dataBytes: c.stats?.sizeBytes ?? null,
  };
}

function reportMixedTypes({ s, p, report, target, evidence }: IdFinding): void {
  report({
    messageId: 'mixedTypes',
    severity: 'warn',
    target,
    data: { mix: s.mixed.map((m) => `${typeLabel(p, m.type)} ${Math.round(m.share * 100)}%`).join(', ') },
    evidence,
    recommendation: {
      action: 'one _id type',
      reason:
        'BSON compares values of different types by type first: `_id` ranges and sorts return each type as ' +
        'a separate run, and a lookup by the other type of the same id finds nothing. Normalise `_id` when ' +
        'writing, and convert the minority type.',
    },
  });
}

function reportUuidAsString({ c, s, report, target, evidence, taken }: IdFinding): void {
  const sv = uuidSavings(c);
  const shared = {
    label: s.uuidVersion === null ? 'UUID' : `UUID v${s.uuidVersion}`,
    stringBytes: UUID_STRING_BSON_BYTES,
    binaryBytes: UUID_BINARY_BSON_BYTES,
    keyBytes: UUID_KEY_SAVING,
    indexes: sv.indexes.map((n) => codeSpan(n)).join(', '),
  };
  // a fresh name: $out replaces a collection that already holds that name
  const out = newCollectionName(`${c.name}_binary`, taken);
  const holders = c.clustered
    ? 'On this clustered collection every index entry holds the `_id`.'
    : 'In a regular collection the `_id` index and indexes that name `_id` hold it; other secondary indexes ' +
      'hold the 8-byte recordId and do not change.';
  const recommendation = {
    action: 'binary UUID _id (subtype 4)',
    reason:
      `BSON stores a UUID string in ${UUID_STRING_BSON_BYTES} bytes (length, 36 characters, terminator) and a ` +
      `binary UUID in ${UUID_BINARY_BSON_BYTES} (length, subtype, 16 bytes); MongoDB's docs store UUIDs as ` +
      `binary (UUID() in mongosh, new UUID() in the Node driver). ${holders} \`_id\` cannot be updated in ` +
      `place: copy into a new collection (from MongoDB 8.0, $toUUID converts), rebuild its indexes, swap ` +
      `names, and convert the references in other collections and in the application — a string never matches ` +
      `its binary UUID.`,
    commands: [shellCall(c.db, c.name, 'aggregate', [{ $set: { _id: { $toUUID: '$_id' } } }, { $out: out }])],
  };
  if (sv.documents === null || sv.documentBytes === null || sv.indexEntries === null || sv.indexBytes === null) {
    report({
      messageId: 'uuidAsStringUncounted',
      target,
      data: shared,
      evidence: { ...evidence, indexesHoldingId: sv.indexes.length },
      recommendation,
    });
    return;
  }
  report({
    messageId: 'uuidAsString',
    target,
    data: {
      ...shared,
      documents: formatNumber(sv.documents),
      documentBytes: formatBytes(sv.documentBytes),
      indexEntries: formatNumber(sv.indexEntries),
      indexBytes: formatBytes(sv.indexBytes),
    },
    evidence: {
      ...evidence,
      indexesHoldingId: sv.indexes.length,
      documentBytesSaved: sv.documentBytes,
      indexBytesSaved: sv.indexBytes,
    },
    recommendation,
  });
}

/** What clustering would cost this collection's secondary indexes: the figures and the evidence that carries them. */
function penaltyOf({ c, s, options, evidence }: IdFinding) {
  const bytes = idValueBytes(s);
  const penalty = secondaryIndexPenalty(c, bytes, options.recordIdBytes);
  const withPenalty = {
    ...evidence,
    secondaryIndexes: penalty.secondaryIndexes,
    secondaryIndexExtraBytes: penalty.extraBytes,
    secondaryIndexBytes: penalty.currentBytes,
  };
  return { bytes, penalty, withPenalty };
}

/** A random key, or one too large to cluster on: keep the collection regular. */
function adviseAgainstClustered(at: IdFinding): void {
  const { s, options, report, target } = at;
  const { bytes, penalty, withPenalty } = penaltyOf(at);
  const here = `Here: ${penaltyInWords(penalty, formatBytes)}.`;
  const shared = {
    target,
    evidence: withPenalty,
    data: {
      label: s.label,
      bytes,
      perEntry: Math.max(0, bytes - options.recordIdBytes),
      penalty: formatBytes(penalty.extraBytes),
    },
  };
  // only a random key scatters inserts; a large monotonic one still appends at the end of the tree
  if (s.order === 'random') {
    report({
      ...shared,
      messageId: 'adviseAgainstClustered',
      data: { ...shared.data, order: orderEvidence(s) },
      recommendation: {
        action: 'keep this a regular collection',
        reason:
          `Random keys scatter inserts across a clustered tree: a published benchmark on MongoDB 6.0.5 (20M ` +
          `documents inserted 1,000 per insert_many) found clustered much slower than regular with UUID keys, ` +
          `and slightly faster with ObjectId keys. If you need time-ordered ids, UUID v7 or ObjectId are ` +
          `monotonic. ${here}`,
      },
    });
    return;
  }
  report({
    ...shared,
    messageId: 'adviseAgainstClusteredLarge',
    data: { ...shared.data, smallIdBytes: options.smallIdBytes },
    recommendation: {
      action: 'keep this a regular collection',
      reason:
        `Every secondary index entry of a clustered collection holds the _id (${bytes} bytes) instead of ` +
        `an ${options.recordIdBytes}-byte recordId. ${here}`,
    },
  });
}

/** What the TTL index reading by the time the `_id` carries becomes on a clustered collection; '' without one. */
function ttlSentence(s: IdPatternStats, t: { index: string; ttl: boolean }): string {
  if (!t.ttl) return '';
  if (s.mainType === 'date')
    return (
      ` ${codeSpan(t.index)} is a TTL index: a clustered collection created with expireAfterSeconds expires ` +
      `documents by their date \`_id\` and replaces it.`
    );
  return (
    ` ${codeSpan(t.index)} is a TTL index: it stays (a clustered collection expires by \`_id\` only when \`_id\` is ` +
    `a date).`
  );
}

/** A monotonic `_id` on a large collection read by the time it carries: cluster it when next created. */
function recommendClustered(at: IdFinding, cap: Capability, dataBytes: number): void {
  const { c, s, options, report, target, taken } = at;
  if (cap.supported === false) return;
  // Evidence that an _id range would be used: an index that reads by a time the _id carries. Without it, no finding.
  const t = timeDerived(s) ? timeIndex(c) : null;
  if (!t) return;
  const { bytes, penalty, withPenalty } = penaltyOf(at);
  const base = {
    label: s.label,
    bytes,
    order: orderEvidence(s),
    dataSize: formatBytes(dataBytes),
    timeIndex: t.index,
    timeField: t.field,
  };
  const recommendation = {
    action: 'clustered collection (when you next create it)',
    reason:
      `The MongoDB manual: a clustered collection stores documents in \`_id\` order, so \`_id\` equality and ` +
      `range queries need no separate \`_id\` index (one write and one read instead of two). A published ` +
      `benchmark on MongoDB 6.0.5 (20M documents) measured clustered slightly faster than regular with ` +
      `ObjectId keys, and secondary indexes 20–25% larger (each entry holds the \`_id\` instead of ` +
      `an ${options.recordIdBytes}-byte recordId): this collection's figure is in the ` +
      `finding.${ttlSentence(s, t)} Clustering is chosen at creation; on 6.0.x check explain() of multi-value ` +
      `\`_id\` $in finds first (6.0.5 fell back to COLLSCAN).`,
    commands: [
      shellDbCall(c.db, 'createCollection', newCollectionName(`${c.name}_clustered`, taken), {
        clusteredIndex: { key: { _id: 1 }, unique: true },
      }),
    ],
  };
  const evidence = { ...withPenalty, clusteredSupport: cap.evidence, timeIndex: t.index, ttlIndex: t.ttl };
  if (bytes <= options.recordIdBytes) {
    report({
      messageId: 'recommendClusteredNoGrowth',
      target,
      data: { ...base, recordIdBytes: options.recordIdBytes },
      evidence,
      recommendation,
    });
  } else {
    report({
      messageId: 'recommendClustered',
      target,
      data: { ...base, growth: penaltyInWords(penalty, formatBytes) },
      evidence,
      recommendation,
    });
  }
}

function reportOrderUnknown(
  { s, options, report, target, evidence }: IdFinding,
  natural: NaturalOrder | undefined,
): void {
  if (s.monotonicity !== null) {
    report({
      messageId: 'orderUnknown',
      target,
      data: {
        rho: s.monotonicity.toFixed(2),
        randomThreshold: options.randomThreshold,
        monotonicThreshold: options.monotonicThreshold,
      },
      evidence,
    });
    return;
  }
  // A collection with fewer documents than minSample has no order worth judging: nothing to say. A failed read (its
  // note says why) is said.
  if (natural === undefined || natural.source === 'none') report({ messageId: 'orderUnread', target, evidence });
}

export default defineRule({
  id: 'id-pattern',
  needs: [naturalOrder, idProfile],
  scope: 'collection',
  meta: {
    description: '_id type, size and order: binary UUIDs, and clustered or regular collection',
    docsUrl: CLUSTERED_DOCS,
    docsUrls: {
      mixedTypes: 'https://www.mongodb.com/docs/manual/reference/bson-type-comparison-order/',
      uuidAsString: 'https://www.mongodb.com/docs/manual/reference/method/UUID/',
      uuidAsStringUncounted: 'https://www.mongodb.com/docs/manual/reference/method/UUID/',
      orderUnknown: 'https://www.mongodb.com/docs/manual/reference/command/analyzeShardKey/',
    },
    severity: 'info',
    messages,
    options: idPatternOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, collection: c, options, report }) {
    if (!c || c.sample.size === 0) return;
    const p = dataOf(idProfile, c);
    const natural = dataOf(naturalOrder, c);
    const s = idPatternStats(c, p, natural, options);
    if (!s || !p) return;
    const at: IdFinding = {
      c,
      s,
      p,
      options,
      report,
      target: { db: c.db, collection: c.name, path: '_id' },
      evidence: evidenceOf(c, s),
      taken: collectionNamesIn(snapshot, c.db),
    };
    // Mixed types: the one finding. Each type sorts in its own range, so neither the order nor a clustered key can be
    // judged.
    if (s.mixed.length > 0) return reportMixedTypes(at);
    if (s.uuidAsString) reportUuidAsString(at);
    if (c.clustered) {
      // an existing clustered collection on random keys: worth saying at any size (the cheapest time to recreate it is
      // now)
      if (s.order === 'random')
        report({
          messageId: 'clusteredOnRandom',
          severity: 'warn',
          target: at.target,
          data: { label: s.label, order: orderEvidence(s) },
          evidence: at.evidence,
        });
      return;
    }
    // Clustering pays, or costs, only on a collection large enough for its layout to matter: below the line, nothing.
    const dataBytes = c.stats?.sizeBytes ?? null;
    if (dataBytes === null || dataBytes < options.clusterMinBytes) return;
    if (s.order === 'random' || idValueBytes(s) > options.smallIdBytes) return adviseAgainstClustered(at);
    if (s.order === 'monotonic' && !c.capped)
      return recommendClustered(at, snapshot.server.capabilities.clusteredCollections, dataBytes);
    if (s.order === 'unknown' || s.order === 'unclear') reportOrderUnknown(at, natural);
  },
  confirm: {
    describe: 'inserts and an _id range scan on clustered vs regular scratch collections, plus secondary index sizes',
    messages: CONFIRM_MESSAGES,
    appliesTo: (f) => CONFIRMABLE.includes(f.messageId),
    run: confirmIdPattern,
  },
});
