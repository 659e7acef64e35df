import { formatBytes, formatNumber } from '../../src/core/format';
import { defineRule } from '../../src/core/rule';
import type { Recommendation, Severity } from '../../src/core/types';
import { ELEMENT_KIND } from '../../src/core/types';
import { type ArrayGrowthOptions, type ArrayPathStats, arrayPathStats } from './analyze';
import { confirmArrayGrowth } from './confirm';

const MiB = 1024 * 1024;

export const arrayGrowthOptionsSchema = {
  type: 'object' as const,
  additionalProperties: false as const,
  properties: {
    infoLength: { type: 'integer', minimum: 1, default: 250, description: 'Elements at which an array is worth a look. Compass flags arrays of 250+ elements.' },
    warnLength: { type: 'integer', minimum: 1, default: 1000, description: 'Elements at which to warn. The blog field report measured $push 2.3x slower than a referenced insert at 1,000 comments.' },
    errorLength: { type: 'integer', minimum: 1, default: 10000, description: 'Elements past which it is an error. Atlas flags arrays over 10,000 entries; the field report measured $push 26.5x slower at 10,000.' },
    warnWithinDays: { type: 'number', minimum: 0, default: 365, description: 'Warn when a document reaches 16 MiB within this many days at its observed growth.' },
    errorWithinDays: { type: 'number', minimum: 0, default: 90, description: 'Error when a document reaches 16 MiB within this many days at its observed growth.' },
    warnDocBytes: { type: 'integer', minimum: 1, default: 2_000_000, description: 'The "warning size" whose projected date is reported. Atlas flags documents over 2 MB.' },
    maxDocBytes: { type: 'integer', minimum: 1, default: 16 * MiB, description: "MongoDB's hard limit per document: 16 MiB." },
    minAgeDays: { type: 'number', minimum: 0, default: 1, description: 'Documents younger than this give no growth rate (too little time to tell).' },
    growingWithinDays: { type: 'number', minimum: 0, default: 3650, description: 'An info-level array that reaches 16 MiB within this many days still counts as growing, so it gets the reference advice rather than "keep embedded, and bound it". Our choice: ten years, a document that will outgrow the limit in its service life.' },
    bucketElementBytes: { type: 'integer', minimum: 1, default: 64, description: 'Elements smaller than this (readings, timestamps, ids) suit the bucket pattern better than a child collection.' },
  },
};

function singular(name: string): string {
  return name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : name;
}

function kindsLabel(kinds: number): string {
  const names: string[] = [];
  if (kinds & ELEMENT_KIND.object) names.push('objects');
  if (kinds & ELEMENT_KIND.array) names.push('arrays');
  if (kinds & ELEMENT_KIND.string) names.push('strings');
  if (kinds & ELEMENT_KIND.number) names.push('numbers');
  if (kinds & ELEMENT_KIND.objectId) names.push('ObjectIds');
  if (kinds & ELEMENT_KIND.other) names.push('other values');
  return names.join(' and ') || 'nothing (always empty)';
}

function severityOf(s: ArrayPathStats, o: ArrayGrowthOptions): { severity: Severity; why: string } | null {
  if (s.lengths.max > o.errorLength) return { severity: 'error', why: `longer than ${formatNumber(o.errorLength)} elements` };
  if (s.daysToMaxBytes !== null && s.daysToMaxBytes <= o.errorWithinDays) return { severity: 'error', why: `a document reaches 16 MiB within ${formatNumber(o.errorWithinDays)} days` };
  if (s.lengths.max >= o.warnLength) return { severity: 'warn', why: `${formatNumber(o.warnLength)}+ elements` };
  if (s.daysToMaxBytes !== null && s.daysToMaxBytes <= o.warnWithinDays) return { severity: 'warn', why: `a document reaches 16 MiB within ${formatNumber(o.warnWithinDays)} days` };
  if (s.lengths.max >= o.infoLength) return { severity: 'info', why: `${formatNumber(o.infoLength)}+ elements` };
  return null;
}

function recommend(collection: string, s: ArrayPathStats, severity: Severity, o: ArrayGrowthOptions): Recommendation {
  const leaf = s.path.split('.').filter((p) => p !== '$[]').pop() ?? s.path;
  const parentKey = `${singular(collection)}Id`;
  const growing = s.growth !== null && s.growth.medianPerDay > 0 && s.daysToMaxBytes !== null && s.daysToMaxBytes < o.growingWithinDays;
  if (severity === 'info' && !growing) {
    return {
      action: 'keep embedded, and bound it',
      reason: `At ${formatNumber(s.lengths.max)} elements an embedded array still reads in one round trip and costs little on write (the field report saw no cost up to ~100 items and 2.3x at 1,000). Cap it so it cannot grow unnoticed.`,
      commands: [`db.${collection}.updateOne({ _id: <id> }, { $push: { "${s.path}": { $each: [<item>], $slice: -${o.infoLength} } } })`],
    };
  }
  if (s.elementBytes > 0 && s.elementBytes < o.bucketElementBytes && !(s.kinds & ELEMENT_KIND.object)) {
    return {
      action: 'bucket pattern',
      reason: `Elements are small (${formatNumber(s.elementBytes)} bytes on average) and many: group them into bucket documents of a few hundred per ${singular(collection)}, so each write touches a small document and reads fetch few buckets.`,
      commands: [
        `db.createCollection("${collection}_${leaf}_buckets")`,
        `db.${collection}_${leaf}_buckets.createIndex({ ${parentKey}: 1, first: 1 })`,
        `db.${collection}_${leaf}_buckets.updateOne({ ${parentKey}: <id>, count: { $lt: 200 } }, { $push: { items: <item> }, $inc: { count: 1 }, $setOnInsert: { first: <item time> } }, { upsert: true })`,
      ],
    };
  }
  return {
    action: 'reference',
    reason: `Each $push rewrites the whole ${formatBytes(s.largestDocBytes)} document and holds it in memory; a child collection keyed by the parent keeps every write the size of one element (${formatBytes(s.elementBytes)}). The blog field report measured $push 2.3x slower than referenced inserts at 1,000 items and 26.5x at 10,000.`,
    commands: [`db.createCollection("${leaf}")`, `db.${leaf}.createIndex({ ${parentKey}: 1, _id: 1 })`, `db.${leaf}.insertOne({ ${parentKey}: <${singular(collection)} _id>, ...<item> })`],
  };
}

export default defineRule<ArrayGrowthOptions>({
  id: 'array-growth',
  needs: [],
  scope: 'collection',
  meta: {
    description: 'Arrays that grow without bound inside documents: embed or reference',
    docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/unbounded-arrays/',
    severity: 'warn',
    messages: {
      longArray:
        'Array `{{path}}` holds up to {{max}} elements (p50 {{p50}}, p95 {{p95}}) of {{elementKinds}}, {{elementBytes}} each; it is {{share}} of its document ({{why}}); {{heavy}}.',
      growingArray:
        'Array `{{path}}` grows by up to {{perDay}} elements per document per day: at that pace a document passes 16 MiB {{maxWhen}}; {{warnClause}}. Up to {{max}} elements now (p95 {{p95}}), {{elementBytes}} each; {{heavy}}.',
    },
    options: arrayGrowthOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, collection, options, report }) {
    if (!collection || collection.sample.size === 0) return;
    const now = Date.parse(snapshot.collectedAt);
    for (const s of arrayPathStats(collection, options, now)) {
      const grade = severityOf(s, options);
      if (!grade) continue;
      const when = (days: number | null): string =>
        days === null ? 'never at this pace' : days <= 0 ? 'already' : `in ${formatNumber(Math.round(days))} days (${new Date(now + days * 86_400_000).toISOString().slice(0, 10)})`;
      const growthDriven = s.growth !== null && s.daysToMaxBytes !== null && s.daysToMaxBytes <= options.warnWithinDays;
      report({
        messageId: growthDriven ? 'growingArray' : 'longArray',
        severity: grade.severity,
        target: { db: collection.db, collection: collection.name, path: s.path },
        data: {
          path: s.path,
          max: s.lengths.max,
          p50: Math.round(s.lengths.p50),
          p95: Math.round(s.lengths.p95),
          elementKinds: s.arrayOfArrays ? `arrays (an array of arrays: index and query it with care)` : kindsLabel(s.kinds),
          elementBytes: formatBytes(s.elementBytes),
          share: `${Math.round(s.share * 100)}%`,
          perDay: s.growth ? formatNumber(s.growth.maxPerDay) : '0',
          warnClause:
            s.daysToWarnBytes === null
              ? 'no document is on course to pass the warning size'
              : s.daysToWarnBytes <= 0
                ? `one is already past ${formatNumber(options.warnDocBytes / 1e6)} MB`
                : `one passes ${formatNumber(options.warnDocBytes / 1e6)} MB ${when(s.daysToWarnBytes)}`,
          maxWhen: when(s.daysToMaxBytes),
          why: grade.why,
          heavy: `${formatNumber(s.docsAtWarn)} of ${formatNumber(s.docsWithPath)} sampled documents hold ${formatNumber(options.warnLength)} or more${s.docsPastError ? ` (${formatNumber(s.docsPastError)} past ${formatNumber(options.errorLength)})` : ''}`,
        },
        evidence: {
          docsWithPath: s.docsWithPath,
          docsAtWarnLength: s.docsAtWarn,
          docsPastErrorLength: s.docsPastError,
          sampleSize: collection.sample.size,
          sampleRandom: collection.sample.random,
          lengthP50: s.lengths.p50,
          lengthP95: s.lengths.p95,
          lengthMax: s.lengths.max,
          elementBytes: Math.round(s.elementBytes),
          shareOfDocument: Math.round(s.share * 1000) / 1000,
          largestDocBytes: s.largestDocBytes,
          itemsPerDayMedian: s.growth ? Math.round(s.growth.medianPerDay * 100) / 100 : null,
          itemsPerDayMax: s.growth ? Math.round(s.growth.maxPerDay * 100) / 100 : null,
          daysToWarnBytes: s.daysToWarnBytes === null ? null : Math.round(s.daysToWarnBytes),
          daysToMaxBytes: s.daysToMaxBytes === null ? null : Math.round(s.daysToMaxBytes),
          projectedLengthInYear: s.projectedLengthInYear,
          timeSource: collection.sample.timeSource,
          nested: s.nested,
          arrayOfArrays: s.arrayOfArrays,
        },
        recommendation: recommend(collection.name, s, grade.severity, options),
      });
    }
  },
  confirm: { describe: '$push at growing array lengths vs inserts into a referenced collection', run: confirmArrayGrowth },
});
