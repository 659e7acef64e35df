import { formatBytes, formatNumber } from '../../src/core/format';
import { pathSegments } from '../../src/lib/doc-path';
import { collectionNamesIn, newCollectionName } from '../../src/lib/new-collection';
import { shellCall, shellCollection, shellDbCall, shellKey, shellTemplate } from '../../src/lib/shell';
import { defineRule, type Report, sentence } from '../../src/core/rule';
import type { CollectionSnapshot, Finding, Recommendation, Severity, Target } from '../../src/core/types';
import { ELEMENT_KIND } from '../../src/core/types';
import { type ArrayPathStats, arrayPathStats, type Pace } from './analyze';
import { CONFIRM_MESSAGES, confirmArrayGrowth } from './confirm';
import { elementPace } from './collect';
import { dataOf } from '../../src/core/collector';
import { outlierSearch } from '../../src/collect/outliers';
import { type ArrayGrowthOptions, arrayGrowthOptionsSchema, BENCHMARK } from './options';

export { arrayGrowthOptionsSchema, type ArrayGrowthOptions } from './options';

const DAY_MS = 86_400_000;

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
 * document reaching maxDocBytes within warnWithinDays or errorWithinDays).
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

function recommend(
  db: string,
  collection: string,
  s: ArrayPathStats,
  severity: Severity,
  o: ArrayGrowthOptions,
  largestDoc: string,
  taken: ReadonlySet<string>,
): Recommendation {
  const r = advice(db, collection, s, severity, o, largestDoc, taken);
  return s.arrayOfArrays ? { ...r, reason: `${r.reason} It is an array of arrays: index and query it with care.` } : r;
}

function advice(
  db: string,
  collection: string,
  s: ArrayPathStats,
  severity: Severity,
  o: ArrayGrowthOptions,
  largestDoc: string,
  taken: ReadonlySet<string>,
): Recommendation {
  const leaf =
    pathSegments(s.path)
      .filter((p) => p !== '$[]')
      .pop() ?? s.path;
  const parentKey = `${singular(collection)}Id`;
  // Named after the parent and the array, like the buckets: a bare `comments` may already hold other data, and a
  // pasted createIndex or insert would then write into it.
  const child = newCollectionName(`${collection}_${leaf}`, taken);
  const buckets = newCollectionName(`${collection}_${leaf}_buckets`, taken);
  const growing =
    s.growth !== null && s.growth.maxPerDay > 0 && s.daysToMaxBytes !== null && s.daysToMaxBytes < o.growingWithinDays;
  if (severity === 'info' && !growing) {
    return {
      action: 'keep embedded, and bound it',
      reason:
        `At ${formatNumber(s.lengths.max)} elements an embedded array still reads in one round trip and costs ` +
        `little on write: in ${BENCHMARK} embedding cost nothing up to 100 comments per post and $push was ` +
        `2.3x slower at 1,000. Cap it so it cannot grow unnoticed.`,
      commands: [
        shellTemplate(
          `${shellCollection(db, collection)}.updateOne({ _id: <id> }, { $push: { ${shellKey(s.path)}: { ` +
            `$each: [<item>], $slice: -${o.infoLength} } } })`,
        ),
      ],
    };
  }
  if (s.elementBytes > 0 && s.elementBytes < o.bucketElementBytes && !(s.kinds & ELEMENT_KIND.object)) {
    return {
      action: 'bucket pattern',
      reason:
        `Elements are small (${formatBytes(s.elementBytes)} on average) and many: group them into bucket ` +
        `documents of a few hundred per ${singular(collection)}, so each write touches a small document and ` +
        `reads fetch few buckets.`,
      commands: [
        shellDbCall(db, 'createCollection', buckets),
        shellCall(db, buckets, 'createIndex', { [parentKey]: 1, first: 1 }),
        shellTemplate(
          `${shellCollection(db, buckets)}.updateOne({ ${shellKey(parentKey)}: <id>, count: { $lt: 200 } }, { ` +
            `$push: { items: <item> }, $inc: { count: 1 }, $setOnInsert: { first: <item time> } }, { upsert: ` +
            `true })`,
        ),
      ],
    };
  }
  return {
    action: 'reference',
    reason:
      `Each $push rewrites the whole document (the largest holding it is ${largestDoc}) and holds it in ` +
      `memory; a child collection keyed by the parent keeps every write the size of one element ` +
      `(${formatBytes(s.elementBytes)}). In ${BENCHMARK} $push was 2.3x slower than the referenced insert at ` +
      `1,000 comments per post and 26.5x at 10,000.`,
    commands: [
      shellDbCall(db, 'createCollection', child),
      shellCall(db, child, 'createIndex', { [parentKey]: 1, _id: 1 }),
      shellTemplate(`${shellCollection(db, child)}.insertOne({ ${shellKey(parentKey)}: <parent _id>, ...<item> })`),
    ],
  };
}

const LENGTHS = sentence(
  'holds up to {{max}} elements (p50 {{p50}}, p95 {{p95}}) of {{elementKinds}}, {{elementBytes}} each; in ',
  'the {{shareDocs}} sampled documents holding {{shareFrom}} or more it is a median {{share}}% of the ',
  'document',
);
const BY_DATES = sentence(
  'grows by up to {{perDay}} elements per document per day (median {{medianPerDay}} over {{paceDocs}} ',
  'documents), counted from the dates at `{{datePath}}` over the {{windowDays}} days up to the newest one',
);
const BY_AGE = sentence(
  'grows by up to {{perDay}} elements per document per day (median {{medianPerDay}} over {{paceDocs}} ',
  "documents), its length over the document's age (creation time from `{{timeSource}}`)",
);
const TO_MAX = 'at that pace the first document passes {{maxBytes}} in {{maxDays}} days ({{maxDate}})';
const TO_BOTH = `${TO_MAX}; the first passes {{warnBytes}} in {{warnDays}} days ({{warnDate}})`;
const PAST_WARNING = `${TO_MAX}; already past {{warnBytes}}: {{pastWarn}} of the {{docsRead}} documents read`;
const PAST_WARNING_NEXT = `${PAST_WARNING}, and the first of the others passes it in {{warnDays}} days ({{warnDate}})`;
const AT_LIMIT = 'and already at the {{maxBytes}} limit: {{pastMax}} of the {{docsRead}} documents read';
const NOW_HELD = sentence(
  'Up to {{max}} elements now (p95 {{p95}}), {{elementBytes}} each; {{atWarn}} of {{withPath}} sampled ',
  'documents hold {{warnLength}} or more; the largest document holding it is {{largestDoc}}.',
);
/** The one projected length, the same the confirmation measures (the evidence's projectedLength). */
const PROJECTED = 'At its own pace, one document would hold {{projected}} elements in {{projectionDays}} days.';
const GROWING = `${NOW_HELD} ${PROJECTED}`;

const messages = {
  longArray: sentence(
    `Array \`{{path}}\` ${LENGTHS} ({{line}}+ elements); {{atWarn}} of {{withPath}} sampled documents hold `,
    `{{warnLength}} or more; the largest document holding it is {{largestDoc}}.`,
  ),
  tooLongArray: sentence(
    `Array \`{{path}}\` ${LENGTHS} (longer than {{errorLength}} elements); {{atWarn}} of {{withPath}} sampled `,
    `documents hold {{warnLength}} or more ({{pastError}} past {{errorLength}}); the largest document holding `,
    `it is {{largestDoc}}.`,
  ),
  growingArray: `Array \`{{path}}\` ${BY_AGE}: ${TO_BOTH}. ${GROWING}`,
  growingArrayPastWarning: `Array \`{{path}}\` ${BY_AGE}: ${PAST_WARNING}. ${GROWING}`,
  growingArrayPastWarningNext: `Array \`{{path}}\` ${BY_AGE}: ${PAST_WARNING_NEXT}. ${GROWING}`,
  growingArrayAtLimit: `Array \`{{path}}\` ${BY_AGE}, ${AT_LIMIT}. ${GROWING}`,
  growingArrayDated: `Array \`{{path}}\` ${BY_DATES}: ${TO_BOTH}. ${GROWING}`,
  growingArrayDatedPastWarning: `Array \`{{path}}\` ${BY_DATES}: ${PAST_WARNING}. ${GROWING}`,
  growingArrayDatedPastWarningNext: `Array \`{{path}}\` ${BY_DATES}: ${PAST_WARNING_NEXT}. ${GROWING}`,
  growingArrayDatedAtLimit: `Array \`{{path}}\` ${BY_DATES}, ${AT_LIMIT}. ${GROWING}`,
} as const;

const LIMITS_PAGE = 'https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-BSON-Document-Size';

type Base = { severity: Severity; target: Target; evidence: Finding['evidence']; recommendation: Recommendation };

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** What the finding rests on: counts, lengths, sizes, paces and the forecast; never a document value. */
function evidenceOf(c: CollectionSnapshot, s: ArrayPathStats): Finding['evidence'] {
  const g = s.growth;
  const p = s.projection;
  return {
    docsWithPath: s.docsWithPath,
    docsAtWarnLength: s.docsAtWarn,
    docsPastErrorLength: s.docsPastError,
    sampleSize: c.sample.size,
    sampleRandom: c.sample.random,
    lengthP50: s.lengths.p50,
    lengthP95: s.lengths.p95,
    lengthMax: s.lengths.max,
    lengthMaxBeyondSample: s.maxBeyondSample,
    elementBytes: Math.round(s.elementBytes),
    shareOfDocument: Math.round(s.share * 1000) / 1000,
    shareDocs: s.shareDocs,
    shareFromLength: s.shareFrom,
    largestDocBytes: s.largestDocBytes,
    paceSource: g ? g.source : null,
    paceFrom: g ? g.from : null,
    paceWindowDays: g ? g.windowDays : null,
    paceQuietDays: g ? g.quietDays : null,
    paceDocs: g ? g.docs : 0,
    paceDocsFromElements: g ? g.docsFromElements : 0,
    itemsPerDayMedian: g ? round2(g.medianPerDay) : null,
    itemsPerDayP90: g ? round2(g.p90PerDay) : null,
    itemsPerDayMax: g ? round2(g.maxPerDay) : null,
    docsRead: s.docsRead,
    docsPastWarnBytes: s.warnLine.past,
    docsPastMaxBytes: s.maxLine.past,
    // the earliest crossing by a document not yet past the line (null: none of them grows)
    daysToWarnBytes: s.warnLine.days === null ? null : Math.round(s.warnLine.days),
    daysToMaxBytes: s.maxLine.days === null ? null : Math.round(s.maxLine.days),
    projectedLength: p ? p.length : null,
    projectedFromLength: p ? p.fromLength : null,
    projectedPerDay: p ? round2(p.perDay) : null,
    projectionDays: p ? p.days : null,
    timeSource: c.sample.timeSource,
    nested: s.nested,
    arrayOfArrays: s.arrayOfArrays,
  };
}

/** What every growth and length message says about the array now. */
interface Held {
  path: string;
  max: number;
  p95: number;
  elementBytes: string;
  atWarn: number;
  withPath: number;
  warnLength: number;
  largestDoc: string;
}

/**
 * The growth finding: how many documents are already past each line (never "in N days" for those), and the earliest
 * crossing by one of the others. `now` is the collection time.
 */
function reportGrowth(
  report: Report<typeof messages>,
  base: Base,
  s: ArrayPathStats,
  g: Pace,
  held: Held,
  o: ArrayGrowthOptions,
  now: number,
): void {
  const date = (days: number): string => new Date(now + days * DAY_MS).toISOString().slice(0, 10);
  const rate = {
    ...held,
    perDay: g.maxPerDay,
    medianPerDay: g.medianPerDay,
    paceDocs: g.docs,
    maxBytes: formatBytes(o.maxDocBytes),
    warnBytes: formatBytes(o.warnDocBytes),
    docsRead: s.docsRead,
    // set whenever a document grows, which a growth finding needs (analyze.ts, daysToMaxBytes)
    projected: s.projection?.length ?? 0,
    projectionDays: o.projectionDays,
  };
  const dates = g.source === 'elements' ? { datePath: g.from, windowDays: g.windowDays ?? 0 } : null;
  const age = { timeSource: g.from };
  if (s.maxLine.past > 0) {
    const atLimit = { ...rate, pastMax: s.maxLine.past };
    if (dates) report({ ...base, messageId: 'growingArrayDatedAtLimit', data: { ...atLimit, ...dates } });
    else report({ ...base, messageId: 'growingArrayAtLimit', data: { ...atLimit, ...age } });
    return;
  }
  const toMax = s.maxLine.days ?? 0;
  const max = { ...rate, maxDays: Math.round(toMax), maxDate: date(toMax) };
  // none past the warning size: the document that passes the limit first passes the warning size before it
  const toWarn = s.warnLine.days ?? toMax;
  const warn = { warnDays: Math.round(toWarn), warnDate: date(toWarn) };
  if (s.warnLine.past === 0) {
    if (dates) report({ ...base, messageId: 'growingArrayDated', data: { ...max, ...warn, ...dates } });
    else report({ ...base, messageId: 'growingArray', data: { ...max, ...warn, ...age } });
    return;
  }
  const past = { ...max, pastWarn: s.warnLine.past };
  // the next crossing is named within growingWithinDays (a document's service life); the evidence keeps it either way
  if (s.warnLine.days === null || s.warnLine.days > o.growingWithinDays) {
    if (dates) report({ ...base, messageId: 'growingArrayDatedPastWarning', data: { ...past, ...dates } });
    else report({ ...base, messageId: 'growingArrayPastWarning', data: { ...past, ...age } });
    return;
  }
  const next = { ...past, ...warn };
  if (dates) report({ ...base, messageId: 'growingArrayDatedPastWarningNext', data: { ...next, ...dates } });
  else report({ ...base, messageId: 'growingArrayPastWarningNext', data: { ...next, ...age } });
}

export default defineRule({
  id: 'array-growth',
  scope: 'collection',
  needs: [elementPace, outlierSearch],
  meta: {
    description: 'Arrays that grow without bound inside documents: embed or reference',
    docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/unbounded-arrays/',
    // the growth findings are about the document size limit: they link to it
    docsUrls: {
      growingArray: LIMITS_PAGE,
      growingArrayPastWarning: LIMITS_PAGE,
      growingArrayPastWarningNext: LIMITS_PAGE,
      growingArrayAtLimit: LIMITS_PAGE,
      growingArrayDated: LIMITS_PAGE,
      growingArrayDatedPastWarning: LIMITS_PAGE,
      growingArrayDatedPastWarningNext: LIMITS_PAGE,
      growingArrayDatedAtLimit: LIMITS_PAGE,
    },
    severity: 'warn',
    messages,
    options: arrayGrowthOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, collection, options, report }) {
    if (!collection || collection.sample.size === 0) return;
    const now = Date.parse(snapshot.collectedAt);
    const outliers = dataOf(outlierSearch, collection)?.docs ?? [];
    // The names a new collection must not take: those of the database this run read.
    const taken = collectionNamesIn(snapshot, collection.db);
    for (const stats of arrayPathStats(collection, options, now, dataOf(elementPace, collection), outliers)) {
      const grade = severityOf(stats, options);
      if (!grade) continue;
      // one figure per document, printed the same in the message and the advice
      const largestDoc = formatBytes(stats.largestDocBytes);
      const base: Base = {
        severity: grade.severity,
        target: { db: collection.db, collection: collection.name, path: stats.path },
        evidence: evidenceOf(collection, stats),
        recommendation: recommend(collection.db, collection.name, stats, grade.severity, options, largestDoc, taken),
      };
      const held: Held = {
        path: stats.path,
        max: stats.lengths.max,
        p95: Math.round(stats.lengths.p95),
        elementBytes: formatBytes(stats.elementBytes),
        atWarn: stats.docsAtWarn,
        withPath: stats.docsWithPath,
        warnLength: options.warnLength,
        largestDoc,
      };
      // A document at the limit, or on course to reach it within the warn (or error) window: the growth is the finding.
      const window = Math.max(options.warnWithinDays, options.errorWithinDays);
      if (stats.growth !== null && stats.daysToMaxBytes !== null && stats.daysToMaxBytes <= window) {
        reportGrowth(report, base, stats, stats.growth, held, options, now);
        continue;
      }
      const lengths = {
        ...held,
        p50: Math.round(stats.lengths.p50),
        elementKinds: kindsLabel(stats.kinds),
        share: Math.round(stats.share * 100),
        shareDocs: stats.shareDocs,
        shareFrom: stats.shareFrom,
      };
      if (grade.by === 'length') report({ ...base, messageId: 'longArray', data: { ...lengths, line: grade.line } });
      else if (grade.by === 'tooLong')
        report({
          ...base,
          messageId: 'tooLongArray',
          data: { ...lengths, errorLength: options.errorLength, pastError: stats.docsPastError },
        });
    }
  },
  confirm: {
    describe: '$push at growing array lengths vs inserts into a referenced collection',
    messages: CONFIRM_MESSAGES,
    run: confirmArrayGrowth,
  },
});
