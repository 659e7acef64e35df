import { dataOf } from '../../src/core/collector';
import { shellString } from '../../src/lib/shell';
import { formatBytes } from '../../src/core/format';
import { defineRule, type OptionsOf, type OptionsSchema } from '../../src/core/rule';
import { idPatternStats, penaltyInWords, secondaryIndexPenalty } from './analyze';
import { naturalOrder } from './collect';
import { CONFIRMABLE, confirmIdPattern } from './confirm';

export const idPatternOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    monotonicThreshold: { type: 'number', minimum: 0, maximum: 1, default: 0.7, description: "Spearman correlation of _id order with natural (insertion) order at which _id is monotonic: the server's own analyzeShardKey line." },
    randomThreshold: { type: 'number', minimum: 0, maximum: 1, default: 0.3, description: 'Below this absolute correlation (with high leading-byte entropy) _id is random.' },
    randomEntropyShare: { type: 'number', minimum: 0, maximum: 1, default: 0.8, description: "Entropy of _id's first byte, as a share of the most the sample can show (min(8, log2 n) bits), at which leading bytes count as random (UUID v4). Random bytes score 0.88-0.99 even in small samples; ObjectId and UUID v7 lead with a timestamp and score near 0." },
    smallIdBytes: { type: 'integer', minimum: 1, default: 16, description: "Largest _id (BSON bytes of the value) still small enough to cluster on: a UUID's 16 bytes; ObjectId is 12." },
    minSample: { type: 'integer', minimum: 2, default: 20, description: "Fewest _ids needed to judge their order (mongosh analyze-schema's minimum sample)." },
    recordIdBytes: { type: 'integer', minimum: 1, default: 8, description: 'Bytes of the recordId a regular collection stores in each secondary index entry.' },
  },
} as const satisfies OptionsSchema;

export type IdPatternOptions = OptionsOf<typeof idPatternOptionsSchema>;

const round3 = (n: number | null): number | null => (n === null ? null : Math.round(n * 1000) / 1000);

export default defineRule({
  id: 'id-pattern',
  needs: [naturalOrder],
  scope: 'collection',
  meta: {
    description: '_id type, size and order: clustered or regular collection',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/clustered-collections/',
    severity: 'info',
    messages: {
      mixedTypes: '`_id` mixes types: {{mix}}. Range scans and a clustered key need one type.',
      recommendClustered:
        '`_id` is {{label}} ({{bytes}} bytes), monotonic (ρ = {{rho}}): a clustered collection would store documents in `_id` order, one tree instead of two. Secondary indexes here: {{growth}}.',
      adviseAgainstClustered:
        '`_id` is {{label}} ({{bytes}} bytes) and random (ρ = {{rho}}, leading bytes {{entropyPercent}}% of maximal entropy): keep this a regular collection — clustered on such keys, inserts land all over the tree, and every secondary index entry would grow by {{perEntry}} bytes (≈ {{penalty}} here).',
      adviseAgainstClusteredLarge:
        '`_id` is {{label}} ({{bytes}} bytes) and large (over {{smallIdBytes}} bytes): keep this a regular collection — clustered on such keys, every secondary index entry would grow by {{perEntry}} bytes (≈ {{penalty}} here).',
      clusteredOnRandom:
        'This clustered collection has a random `_id` ({{label}}): inserts land all over the tree. Clustering is fixed at creation: plan a regular collection or a monotonic `_id` (ObjectId, UUID v7).',
      orderUnknown: '`_id` order could not be judged: the correlation with insertion order is {{rho}}, between random (< {{randomThreshold}}) and monotonic (≥ {{monotonicThreshold}}).',
      orderUnread: '`_id` order could not be judged: the natural-order read failed.',
    },
    options: idPatternOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, collection: c, options, report }) {
    if (!c || c.sample.size === 0) return;
    const natural = dataOf(naturalOrder, c);
    const s = idPatternStats(c, natural, options);
    if (!s) return;
    const target = { db: c.db, collection: c.name, path: '_id' };
    const evidence = {
      idType: s.label,
      idBytes: s.idBytes,
      monotonicity: round3(s.monotonicity),
      // the _ids behind the correlation: the report's _id order chart reads both from the findings
      naturalOrderIds: s.monotonicity === null ? null : s.naturalOrderIds,
      leadingByteEntropyShare: round3(s.leadingEntropyShare),
      order: s.order,
      sampleSize: s.sampleSize,
      clustered: c.clustered,
      capped: c.capped,
      documents: c.stats?.count ?? null,
    };
    if (s.mixed.length > 0) {
      report({
        messageId: 'mixedTypes',
        severity: 'warn',
        target,
        data: { mix: s.mixed.map((m) => `${m.type} ${Math.round(m.share * 100)}%`).join(', ') },
        evidence,
        recommendation: { action: 'one _id type', reason: 'Mixed _id types sort into separate ranges: range scans miss, and a clustered key cannot help. Normalise _id when writing.' },
      });
    }
    const idValueBytes = s.mainType === 'uuid' ? 16 : s.mainType === 'string' ? Math.max(0, s.idBytes - 5) : s.idBytes;
    const penalty = secondaryIndexPenalty(c, idValueBytes, options.recordIdBytes);
    const withPenalty = { ...evidence, secondaryIndexes: penalty.secondaryIndexes, secondaryIndexExtraBytes: penalty.extraBytes, secondaryIndexBytes: penalty.currentBytes };
    const here = `Here: ${penaltyInWords(penalty, formatBytes)}.`;
    if (c.clustered) {
      if (s.order === 'random') report({ messageId: 'clusteredOnRandom', severity: 'warn', target, data: { label: s.label }, evidence });
      return;
    }
    if (s.order === 'random' || idValueBytes > options.smallIdBytes) {
      const shared = { target, evidence: withPenalty, data: { label: s.label, bytes: idValueBytes, perEntry: Math.max(0, idValueBytes - options.recordIdBytes), penalty: formatBytes(penalty.extraBytes) } };
      // only a random key scatters inserts; a large monotonic one still appends at the end of the tree
      if (s.order === 'random') {
        report({
          ...shared,
          messageId: 'adviseAgainstClustered',
          data: { ...shared.data, rho: s.monotonicity === null ? 'n/a' : s.monotonicity.toFixed(2), entropyPercent: Math.round((s.leadingEntropyShare ?? 0) * 100) },
          recommendation: {
            action: 'regular collection',
            reason: `Random keys scatter inserts across a clustered tree (the field report, 6.0.5, 20M documents: clustered much slower than regular with UUID keys). If you need time-ordered ids, UUID v7 or ObjectId are monotonic. ${here}`,
          },
        });
      } else {
        report({
          ...shared,
          messageId: 'adviseAgainstClusteredLarge',
          data: { ...shared.data, smallIdBytes: options.smallIdBytes },
          recommendation: {
            action: 'regular collection',
            reason: `Every secondary index entry of a clustered collection holds the _id (${idValueBytes} bytes) instead of an ${options.recordIdBytes}-byte recordId. ${here}`,
          },
        });
      }
      return;
    }
    if (s.order === 'monotonic' && !c.capped) {
      const cap = snapshot.server.capabilities.clusteredCollections;
      if (cap.supported === false) return;
      report({
        messageId: 'recommendClustered',
        target,
        data: { label: s.label, bytes: idValueBytes, rho: (s.monotonicity ?? 0).toFixed(2), growth: penaltyInWords(penalty, formatBytes) },
        evidence: { ...withPenalty, clusteredSupport: cap.evidence },
        recommendation: {
          action: 'clustered collection (when you next create it)',
          reason: `_id lookups and range scans walk one tree instead of two, and CRUD gets cheaper (the field report measured clustered slightly faster than regular with ObjectId keys). Cost: secondary index entries carry the ${idValueBytes}-byte _id instead of an ${options.recordIdBytes}-byte recordId (measured 20–25% larger indexes): the figure for this collection is in the finding. Clustering is chosen at creation; check explain() of multi-value _id $in finds first (6.0.5 fell back to COLLSCAN).`,
          commands: [`db.createCollection(${shellString(`${c.name}_clustered`)}, { clusteredIndex: { key: { _id: 1 }, unique: true } })`],
        },
      });
      return;
    }
    if (s.order === 'unknown' || s.order === 'unclear') {
      if (s.monotonicity !== null) {
        report({ messageId: 'orderUnknown', target, data: { rho: s.monotonicity.toFixed(2), randomThreshold: options.randomThreshold, monotonicThreshold: options.monotonicThreshold }, evidence });
        return;
      }
      // A collection with fewer documents than minSample has no order worth judging: nothing to say. A failed read
      // (its note says why) is said.
      if (natural === undefined || natural.source === 'none') report({ messageId: 'orderUnread', target, evidence });
    }
  },
  confirm: {
    describe: 'inserts and an _id range scan on clustered vs regular scratch collections, plus secondary index sizes',
    appliesTo: (f) => CONFIRMABLE.includes(f.messageId),
    run: confirmIdPattern,
  },
});
