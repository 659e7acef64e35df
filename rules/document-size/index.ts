import { formatBytes, formatNumber } from '../../src/core/format';
import { codeSpan, shellCall, shellDbCall } from '../../src/lib/shell';
import { defineRule, sentence } from '../../src/core/rule';
import type { CollectionSnapshot, Finding, Recommendation } from '../../src/core/types';
import { type DocumentSizeStats, documentSizeStats } from './analyze';
import { outlierSearch } from '../../src/collect/outliers';
import { dataOf } from '../../src/core/collector';
import { documentSizeOptionsSchema } from './options';

export { documentSizeOptionsSchema, type DocumentSizeOptions } from './options';

/** The child collection a large field moves to: `<collection>_<field path, word characters only>`. */
const child = (collection: string, path: string): string => `${collection}_${path.replace(/[^A-Za-z0-9_]/g, '_')}`;

const LIMITS_URL = 'https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-BSON-Document-Size';

function recommend(db: string, collection: string, s: DocumentSizeStats): Recommendation {
  const top = s.largest.largestFields[0];
  if (s.dominantArray) {
    return {
      action: 'move the array out (see array-growth)',
      reason:
        `The array ${codeSpan(s.dominantArray.path)} (${formatNumber(s.dominantArray.length)} elements) ` +
        `is ${Math.round(s.dominantArray.share * 100)}% of the document: every write rewrites it whole and ` +
        `every read pulls it. The array-growth rule measures whether it still grows and proposes a child ` +
        `collection or buckets.`,
    };
  }
  if (top && s.largestFieldType === 'binData') {
    return {
      action: 'store the binary outside the document',
      reason:
        `${codeSpan(top.path)} holds binary data (${formatBytes(top.bytes)}): GridFS splits it into 255 KB chunks, ` +
        `and the document keeps a reference, so reads that do not need it stay small.`,
      commands: [
        `${shellCall(db, collection, 'find', {}, { [top.path]: 0 })}  // reads without the ` + `large field meanwhile`,
      ],
    };
  }
  return {
    action: 'split the document (subset pattern)',
    reason:
      `Keep the fields read together in ${collection} and ` +
      `move ${top ? `${codeSpan(top.path)}` : 'the largest fields'} to a collection keyed by the parent's _id, read ` +
      `only when needed; the working set then holds small documents.`,
    ...(top
      ? {
          commands: [
            shellDbCall(db, 'createCollection', child(collection, top.path)),
            shellCall(db, child(collection, top.path), 'createIndex', { parentId: 1 }),
          ],
        }
      : {}),
  };
}

const LIMIT = '{{bytes}} ({{share}}% of the 16 MiB limit)';
const FIELDS = 'Largest fields: {{fields}}.';
const OVER_LINE = 'over {{line}}, {{whose}}';
const OVER_ERROR = 'over {{errorPercent}}% of the limit';
const SAMPLED = 'Sampled documents reach';
const ON_SERVER = 'measured on the server with $bsonSize';
const ALL = 'Documents reach';
// Counts after the line, so "1 of 31" needs no verb to agree with it.
const ALL_READ_COUNT = '{{over}} of all {{sample}} (every one was read)';
const BEYOND = 'A document found by a server-side pass over the whole collection reaches';

/** The figures behind a finding: the largest document, how it was found, what crossed each line. */
function evidenceOf(c: CollectionSnapshot, s: DocumentSizeStats, searchStatus: string | null): Finding['evidence'] {
  const top = s.largest.largestFields[0];
  return {
    largestDocBytes: s.largest.bytes,
    largestFrom: s.largestFrom,
    measuredOnServer: s.largest.measuredOnServer,
    sampleSize: s.sampleSize,
    sampleRandom: c.sample.random,
    sampleComplete: c.sample.complete,
    outlierSearch: searchStatus,
    docsOverInfoBytes: s.overInfo,
    docsOverWarnBytes: s.overWarn,
    docsOverErrorShare: s.overError,
    beyondSampleOverInfoBytes: s.beyond.overInfo,
    beyondSampleOverWarnBytes: s.beyond.overWarn,
    beyondSampleOverErrorShare: s.beyond.overError,
    largestField: top?.path ?? null,
    largestFieldBytes: top?.bytes ?? null,
    largestFieldType: s.largestFieldType,
    dominantArray: s.dominantArray?.path ?? null,
    avgObjSize: c.stats ? Math.round(c.stats.avgObjSize) : null,
  };
}

export default defineRule({
  id: 'document-size',
  needs: [outlierSearch],
  scope: 'collection',
  meta: {
    description: 'Documents near the size limits: 2 MB (Atlas), 10 MB (Compass), 16 MiB (hard limit)',
    docsUrl: 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/bloated-documents/',
    // Near the hard limit, the page that states it.
    docsUrls: {
      nearLimit: LIMITS_URL,
      nearLimitMeasuredOnServer: LIMITS_URL,
      nearLimitAllRead: LIMITS_URL,
      nearLimitAllReadMeasuredOnServer: LIMITS_URL,
      nearLimitBeyondSample: LIMITS_URL,
    },
    severity: 'warn',
    messages: {
      largeDocument: `${SAMPLED} ${LIMIT}; sampled documents ${OVER_LINE}: {{over}} of {{sample}}. ${FIELDS}`,
      largeDocumentMeasuredOnServer: sentence(
        `${SAMPLED} ${LIMIT}, ${ON_SERVER}; sampled documents ${OVER_LINE}: {{over}} `,
        `of {{sample}}. ${FIELDS}`,
      ),
      nearLimit: `${SAMPLED} ${LIMIT}; sampled documents ${OVER_ERROR}: {{over}} of {{sample}}. ${FIELDS}`,
      nearLimitMeasuredOnServer: sentence(
        `${SAMPLED} ${LIMIT}, ${ON_SERVER}; sampled documents ${OVER_ERROR}: {{over}} of `,
        `{{sample}}. ${FIELDS}`,
      ),
      largeDocumentAllRead: `${ALL} ${LIMIT}; documents ${OVER_LINE}: ${ALL_READ_COUNT}. ${FIELDS}`,
      largeDocumentAllReadMeasuredOnServer: sentence(
        `${ALL} ${LIMIT}, ${ON_SERVER}; `,
        `documents ${OVER_LINE}: ${ALL_READ_COUNT}. ${FIELDS}`,
      ),
      nearLimitAllRead: `${ALL} ${LIMIT}; documents ${OVER_ERROR}: ${ALL_READ_COUNT}. ${FIELDS}`,
      nearLimitAllReadMeasuredOnServer: sentence(
        `${ALL} ${LIMIT}, ${ON_SERVER}; `,
        `documents ${OVER_ERROR}: ${ALL_READ_COUNT}. ${FIELDS}`,
      ),
      largeDocumentBeyondSample: sentence(
        `${BEYOND} ${LIMIT}, ${ON_SERVER}; sampled documents ${OVER_LINE}: {{over}} of {{sample}}, and the `,
        `pass found {{beyond}} more beyond the sample. ${FIELDS}`,
      ),
      nearLimitBeyondSample: sentence(
        `${BEYOND} ${LIMIT}, ${ON_SERVER}; sampled documents ${OVER_ERROR}: {{over}} of {{sample}}, and the `,
        `pass found {{beyond}} more beyond the sample. ${FIELDS}`,
      ),
    },
    options: documentSizeOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ collection: c, options, report }) {
    if (!c) return;
    const search = dataOf(outlierSearch, c);
    const s = documentSizeStats(c, search?.docs ?? [], options);
    if (!s) return;
    const top = s.largest.largestFields[0];
    const base = {
      target: { db: c.db, collection: c.name, ...(top ? { path: top.path } : {}) },
      evidence: evidenceOf(c, s, search?.status ?? null),
      recommendation: recommend(c.db, c.name, s),
    };
    const common = {
      bytes: formatBytes(s.largest.bytes),
      share: Math.round((s.largest.bytes / options.maxDocBytes) * 100),
      sample: s.sampleSize,
      // paths and sizes, never values
      fields:
        s.largest.largestFields.map((f) => `${codeSpan(f.path)} ${formatBytes(f.bytes)}`).join(', ') || 'not measured',
    };
    const onServer = s.largest.measuredOnServer;
    if (s.largest.bytes >= options.errorShare * options.maxDocBytes) {
      const near = { ...common, over: s.overError, errorPercent: Math.round(options.errorShare * 100) };
      const at = { ...base, severity: 'error' as const };
      if (s.largestFrom === 'outlierPass')
        report({ ...at, messageId: 'nearLimitBeyondSample', data: { ...near, beyond: s.beyond.overError } });
      else if (s.largestFrom === 'whole')
        report(
          onServer
            ? { ...at, messageId: 'nearLimitAllReadMeasuredOnServer', data: near }
            : { ...at, messageId: 'nearLimitAllRead', data: near },
        );
      else
        report(
          onServer
            ? { ...at, messageId: 'nearLimitMeasuredOnServer', data: near }
            : { ...at, messageId: 'nearLimit', data: near },
        );
      return;
    }
    const warn = s.largest.bytes > options.warnBytes;
    // the line crossed, in decimal megabytes, and the tool that draws it
    // The third parties' lines in their own units (decimal MB); a line set in the options is the user's, in IEC units.
    const lineOf = (bytes: number, option: 'infoBytes' | 'warnBytes', def: number, tool: string) =>
      bytes === def
        ? { line: `${formatNumber(def / 1e6)} MB`, whose: `the size ${tool} flags` }
        : { line: formatBytes(bytes), whose: `your ${option} setting` };
    const large = warn
      ? {
          ...common,
          over: s.overWarn,
          ...lineOf(options.warnBytes, 'warnBytes', documentSizeOptionsSchema.properties.warnBytes.default, 'Compass'),
        }
      : {
          ...common,
          over: s.overInfo,
          ...lineOf(options.infoBytes, 'infoBytes', documentSizeOptionsSchema.properties.infoBytes.default, 'Atlas'),
        };
    const at = { ...base, severity: warn ? ('warn' as const) : ('info' as const) };
    if (s.largestFrom === 'outlierPass')
      report({
        ...at,
        messageId: 'largeDocumentBeyondSample',
        data: { ...large, beyond: warn ? s.beyond.overWarn : s.beyond.overInfo },
      });
    else if (s.largestFrom === 'whole')
      report(
        onServer
          ? { ...at, messageId: 'largeDocumentAllReadMeasuredOnServer', data: large }
          : { ...at, messageId: 'largeDocumentAllRead', data: large },
      );
    else
      report(
        onServer
          ? { ...at, messageId: 'largeDocumentMeasuredOnServer', data: large }
          : { ...at, messageId: 'largeDocument', data: large },
      );
  },
});
