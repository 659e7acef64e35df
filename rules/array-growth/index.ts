import { formatBytes, formatNumber } from '../../src/core/format';
import { shellCollection, shellKey, shellString } from '../../src/lib/shell';
import { defineRule, type OptionsOf, type OptionsSchema } from '../../src/core/rule';
import type { Recommendation, Severity } from '../../src/core/types';
import { ELEMENT_KIND } from '../../src/core/types';
import { type ArrayPathStats, arrayPathStats } from './analyze';
import { confirmArrayGrowth } from './confirm';

const MiB = 1024 * 1024;
const DAY_MS = 86_400_000;

export const arrayGrowthOptionsSchema = {
  type: 'object',
  additionalProperties: false,
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
} as const satisfies OptionsSchema;

export type ArrayGrowthOptions = OptionsOf<typeof arrayGrowthOptionsSchema>;

function singular(name: string): string {
  return name.endsWith('ies') ? `${name.slice(0, -3)}y` : name.endsWith('s') ? name.slice(0, -1) : name;
}

/** The kinds of element an array holds, as a list of names (a value of the message, like a type list). */
function kindsLabel(kinds: number): string {
  const names: string[] = [];
  if (kinds & ELEMENT_KIND.object) names.push('objects');
  if (kinds & ELEMENT_KIND.array) names.push('arrays');
  if (kinds & ELEMENT_KIND.string) names.push('strings');
  if (kinds & ELEMENT_KIND.number) names.push('numbers');
  if (kinds & ELEMENT_KIND.objectId) names.push('ObjectIds');
  if (kinds & ELEMENT_KIND.other || names.length === 0) names.push('other values');
  return names.join(' and ');
}

/**
 * The severity and what set it: the length past the error line, a length line (warn or info), or the growth (a
 * document reaching 16 MiB within warnWithinDays or errorWithinDays).
 */
type Grade = { severity: Severity; by: 'tooLong' | 'growth' } | { severity: Severity; by: 'length'; line: number };

function severityOf(s: ArrayPathStats, o: ArrayGrowthOptions): Grade | null {
  const grows = (days: number): boolean => s.daysToMaxBytes !== null && s.daysToMaxBytes <= days;
  if (s.lengths.max > o.errorLength) return { severity: 'error', by: 'tooLong' };
  if (grows(o.errorWithinDays)) return { severity: 'error', by: 'growth' };
  if (s.lengths.max >= o.warnLength) return { severity: 'warn', by: 'length', line: o.warnLength };
  if (grows(o.warnWithinDays)) return { severity: 'warn', by: 'growth' };
  if (s.lengths.max >= o.infoLength) return { severity: 'info', by: 'length', line: o.infoLength };
  return null;
}

function recommend(collection: string, s: ArrayPathStats, severity: Severity, o: ArrayGrowthOptions): Recommendation {
  const r = advice(collection, s, severity, o);
  return s.arrayOfArrays ? { ...r, reason: `${r.reason} It is an array of arrays: index and query it with care.` } : r;
}

function advice(collection: string, s: ArrayPathStats, severity: Severity, o: ArrayGrowthOptions): Recommendation {
  const leaf = s.path.split('.').filter((p) => p !== '$[]').pop() ?? s.path;
  const parentKey = `${singular(collection)}Id`;
  const buckets = `${collection}_${leaf}_buckets`;
  const growing = s.growth !== null && s.growth.medianPerDay > 0 && s.daysToMaxBytes !== null && s.daysToMaxBytes < o.growingWithinDays;
  if (severity === 'info' && !growing) {
    return {
      action: 'keep embedded, and bound it',
      reason: `At ${formatNumber(s.lengths.max)} elements an embedded array still reads in one round trip and costs little on write (the field report saw no cost up to ~100 items and 2.3x at 1,000). Cap it so it cannot grow unnoticed.`,
      commands: [`${shellCollection(collection)}.updateOne({ _id: <id> }, { $push: { ${shellString(s.path)}: { $each: [<item>], $slice: -${o.infoLength} } } })`],
    };
  }
  if (s.elementBytes > 0 && s.elementBytes < o.bucketElementBytes && !(s.kinds & ELEMENT_KIND.object)) {
    return {
      action: 'bucket pattern',
      reason: `Elements are small (${formatNumber(s.elementBytes)} bytes on average) and many: group them into bucket documents of a few hundred per ${singular(collection)}, so each write touches a small document and reads fetch few buckets.`,
      commands: [
        `db.createCollection(${shellString(buckets)})`,
        `${shellCollection(buckets)}.createIndex({ ${shellKey(parentKey)}: 1, first: 1 })`,
        `${shellCollection(buckets)}.updateOne({ ${shellKey(parentKey)}: <id>, count: { $lt: 200 } }, { $push: { items: <item> }, $inc: { count: 1 }, $setOnInsert: { first: <item time> } }, { upsert: true })`,
      ],
    };
  }
  return {
    action: 'reference',
    reason: `Each $push rewrites the whole ${formatBytes(s.largestDocBytes)} document and holds it in memory; a child collection keyed by the parent keeps every write the size of one element (${formatBytes(s.elementBytes)}). The blog field report measured $push 2.3x slower than referenced inserts at 1,000 items and 26.5x at 10,000.`,
    commands: [`db.createCollection(${shellString(leaf)})`, `${shellCollection(leaf)}.createIndex({ ${shellKey(parentKey)}: 1, _id: 1 })`, `${shellCollection(leaf)}.insertOne({ ${shellKey(parentKey)}: <${singular(collection)} _id>, ...<item> })`],
  };
}

const LENGTHS = 'holds up to {{max}} elements (p50 {{p50}}, p95 {{p95}}) of {{elementKinds}}, {{elementBytes}} each; it is {{share}}% of its document';
const GROWTH = 'grows by up to {{perDay}} elements per document per day';
const NOW_HELD = 'Up to {{max}} elements now (p95 {{p95}}), {{elementBytes}} each; {{atWarn}} of {{withPath}} sampled documents hold {{warnLength}} or more.';

export default defineRule({
  id: 'array-growth',
  scope: 'collection',
  meta: {
    description: 'Arrays that grow without bound inside documents: embed or reference',
    docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/unbounded-arrays/',
    severity: 'warn',
    messages: {
      longArray: `Array \`{{path}}\` ${LENGTHS} ({{line}}+ elements); {{atWarn}} of {{withPath}} sampled documents hold {{warnLength}} or more.`,
      tooLongArray: `Array \`{{path}}\` ${LENGTHS} (longer than {{errorLength}} elements); {{atWarn}} of {{withPath}} sampled documents hold {{warnLength}} or more ({{pastError}} past {{errorLength}}).`,
      growingArray: `Array \`{{path}}\` ${GROWTH}: at that pace a document passes 16 MiB in {{maxDays}} days ({{maxDate}}); one passes {{warnMB}} MB in {{warnDays}} days ({{warnDate}}). ${NOW_HELD}`,
      growingArrayPastWarning: `Array \`{{path}}\` ${GROWTH}: at that pace a document passes 16 MiB in {{maxDays}} days ({{maxDate}}); one is already past {{warnMB}} MB. ${NOW_HELD}`,
      growingArrayAtLimit: `Array \`{{path}}\` ${GROWTH}, and a sampled document is already at the 16 MiB limit. ${NOW_HELD}`,
    },
    options: arrayGrowthOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, collection, options, report }) {
    if (!collection || collection.sample.size === 0) return;
    const now = Date.parse(snapshot.collectedAt);
    const date = (days: number): string => new Date(now + days * DAY_MS).toISOString().slice(0, 10);
    for (const s of arrayPathStats(collection, options, now)) {
      const grade = severityOf(s, options);
      if (!grade) continue;
      const base = {
        severity: grade.severity,
        target: { db: collection.db, collection: collection.name, path: s.path },
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
      };
      const held = { path: s.path, max: s.lengths.max, p95: Math.round(s.lengths.p95), elementBytes: formatBytes(s.elementBytes), atWarn: s.docsAtWarn, withPath: s.docsWithPath, warnLength: options.warnLength };
      // A document on course to reach 16 MiB within the warn (or error) window: the growth is the finding.
      const toMax = s.growth !== null && s.daysToMaxBytes !== null && s.daysToMaxBytes <= Math.max(options.warnWithinDays, options.errorWithinDays) ? s.daysToMaxBytes : null;
      if (toMax !== null && s.growth !== null) {
        const growth = { ...held, perDay: s.growth.maxPerDay };
        if (toMax <= 0) {
          report({ ...base, messageId: 'growingArrayAtLimit', data: growth });
          continue;
        }
        const max = { maxDays: Math.round(toMax), maxDate: date(toMax), warnMB: options.warnDocBytes / 1e6 };
        // set with daysToMaxBytes from the same documents, so never null here
        const toWarn = s.daysToWarnBytes ?? 0;
        if (toWarn <= 0) report({ ...base, messageId: 'growingArrayPastWarning', data: { ...growth, ...max } });
        else report({ ...base, messageId: 'growingArray', data: { ...growth, ...max, warnDays: Math.round(toWarn), warnDate: date(toWarn) } });
        continue;
      }
      const lengths = { ...held, p50: Math.round(s.lengths.p50), elementKinds: kindsLabel(s.kinds), share: Math.round(s.share * 100) };
      if (grade.by === 'length') report({ ...base, messageId: 'longArray', data: { ...lengths, line: grade.line } });
      else if (grade.by === 'tooLong') report({ ...base, messageId: 'tooLongArray', data: { ...lengths, errorLength: options.errorLength, pastError: s.docsPastError } });
    }
  },
  confirm: { describe: '$push at growing array lengths vs inserts into a referenced collection', run: confirmArrayGrowth },
});
