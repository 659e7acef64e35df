import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { Doc } from '../../src/core/adapter';
import { outlierSearch } from '../../src/collect/outliers';
import { Profiler } from '../../src/collect/profile';
import { formatBytes } from '../../src/core/format';
import { type CollectionSnapshot, type DocProfile, ELEMENT_KIND } from '../../src/core/types';
import { collectionOf, docWithArray, sampleOf, snapshotOf, withData } from '../../test/support/fixtures';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import rule from './index';
import { arrayPathStats, windowIndex } from './analyze';
import { elementPace, elementPaces } from './collect';
import { lengthsToMeasure, projectionText } from './confirm';
import { resolveOptions } from '../../src/core/options';

const NOW = Date.parse('2026-11-01T00:00:00.000Z');
const DAY = 86_400_000;
const opts = resolveOptions<Parameters<typeof arrayPathStats>[1]>('array-growth', rule.meta.options, {});

function posts(docs: ReturnType<typeof docWithArray>[], timeSource: string | null = '_id') {
  return collectionOf('posts', { sample: sampleOf(docs, { timeSource }) });
}

const at = (path: string) => ({ db: 'app', collection: 'posts', path });

/**
 * A collection as collect would read these documents: profiled by the real profiler (sizes, arrays, the census),
 * creation times from the ObjectId `_id`, and the element-pace collector's data computed from the same documents.
 */
function profiled(name: string, docs: Doc[], over: Partial<CollectionSnapshot> = {}): CollectionSnapshot {
  const profiler = new Profiler('_id');
  const profiles = docs.map((d) => profiler.profile(d));
  const c = collectionOf(name, {
    sample: sampleOf(profiler.finish(profiles).docs, {
      timeSource: '_id',
      fields: Object.fromEntries(profiler.fields),
    }),
    ...over,
  });
  return withData(c, elementPace, elementPaces(c, docs, NOW));
}

/** A comment of about 1 KB, added at `t`. */
const comment = (t: number): Doc => ({ author: 'someone', at: new Date(t), text: 'x'.repeat(960) });
const oid = (t: number): ObjectId => ObjectId.createFromTime(Math.floor(t / 1000));

/**
 * The issue's case: a post created 200 days ago holding 3,000 comments, all added in the last 30 days (100 a day;
 * 15 a day by the post's age), an old post with one comment from 190 days ago (no growth in the window) and a new
 * post with one comment now (no span to tell a pace from: its age is used).
 */
const datedPosts = (): Doc[] => [
  {
    _id: oid(NOW - 200 * DAY),
    title: 'busy',
    comments: Array.from({ length: 3000 }, (_, i) => comment(NOW - (i + 1) * 0.01 * DAY)),
  },
  { _id: oid(NOW - 200 * DAY), title: 'quiet', comments: [comment(NOW - 190 * DAY)] },
  { _id: oid(NOW - 2 * DAY), title: 'new', comments: [comment(NOW)] },
];
/** The busy post's size, as the profiler measures it: the one figure every line prints for it. */
const busyBytes = (profiled('posts', datedPosts()).sample.docs[0] as DocProfile).bytes;

/**
 * The advice for a growing array of objects: a child collection named after the posts and the array (a bare
 * `comments` may already hold other data), keyed by the post.
 */
const reference = (array: string, leaf = `posts_${array}`) => ({
  action: 'reference',
  commands: [
    `db.getSiblingDB("app").createCollection("${leaf}")`,
    `db.getSiblingDB("app").getCollection("${leaf}").createIndex({ postId: 1, _id: 1 })`,
    `// fill in the <…> first: db.getSiblingDB("app").getCollection("${leaf}").insertOne({ postId: <parent` +
      ` _id>, ...<item> })`,
  ],
});
const bound = (path: string, limit: number) => ({
  action: 'keep embedded, and bound it',
  commands: [
    `// fill in the <…> first: db.getSiblingDB("app").getCollection("posts").updateOne({ _id: <id> }, ` +
      `{ $push: { ${path.includes('.') ? `"${path}"` : path}: { $each: [<item>], $slice: -${limit} } } })`,
  ],
});

ruleTester(rule, {
  valid: [
    {
      name: 'short arrays of comments',
      snapshot: snapshotOf([posts([1, 5, 12, 40, 90].map((n) => docWithArray('comments', n, 1000, NOW - 400 * DAY)))]),
    },
    {
      name: 'no arrays at all',
      snapshot: snapshotOf([
        posts([{ bytes: 300, createdAt: null, measuredOnServer: false, arrays: [], largestFields: [] }]),
      ]),
    },
    { name: 'empty collection (nothing sampled)', snapshot: snapshotOf([collectionOf('empty')]) },
    {
      name: '249 tags stays below Compass line',
      snapshot: snapshotOf([posts([docWithArray('tags', 249, 8, null, ELEMENT_KIND.string)], null)]),
    },
  ],
  invalid: [
    {
      name: 'the benchmark blog: 1,000 and 10,000 comments is a warning (Atlas errs only past 10,000)',
      snapshot: snapshotOf([
        posts([1, 10, 100, 1000, 10000].map((n) => docWithArray('comments', n, 1000, NOW - 3000 * DAY))),
      ]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'warn',
          target: at('comments'),
          message:
            `Array \`comments\` holds up to 10,000 elements (p50 100, p95 8,200) of ` +
            `objects, ${formatBytes(1000)} each; in the 2 sampled documents holding 250 or more it is a median ` +
            `100% of the document (1,000+ elements); 2 of 5 sampled documents hold 1,000 or more; the largest ` +
            `document holding it is ${formatBytes(docWithArray('comments', 10000, 1000, null).bytes)}.`,
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name: 'past 10,000 elements is an error',
      snapshot: snapshotOf([posts([1, 100, 12000].map((n) => docWithArray('comments', n, 1000, NOW - 3000 * DAY)))]),
      findings: [
        {
          messageId: 'tooLongArray',
          severity: 'error',
          target: at('comments'),
          messageIncludes: [
            'holds up to 12,000 elements',
            '(longer than 10,000 elements)',
            '1 of 3 sampled documents hold 1,000 or more (1 past 10,000)',
          ],
          data: {
            path: 'comments',
            max: 12000,
            p50: 100,
            p95: 10810,
            elementKinds: 'objects',
            elementBytes: formatBytes(1000),
            share: 100,
            shareDocs: 1,
            shareFrom: 250,
            atWarn: 1,
            withPath: 3,
            warnLength: 1000,
            errorLength: 10000,
            pastError: 1,
            largestDoc: formatBytes(docWithArray('comments', 12000, 1000, null).bytes),
          },
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name: '1,000 elements is a warning',
      snapshot: snapshotOf([posts([docWithArray('comments', 1000, 100, null)], null)]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'warn',
          target: at('comments'),
          messageIncludes: ['holds up to 1,000 elements', '(1,000+ elements)'],
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name: '250 elements is Compass line: info, keep embedded and bound',
      snapshot: snapshotOf([posts([docWithArray('comments', 300, 100, null)], null)]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'info',
          target: at('comments'),
          messageIncludes: ['holds up to 300 elements', '(250+ elements)'],
          recommendation: bound('comments', 250),
        },
      ],
    },
    {
      name: 'slow-length array growing fast reaches 16 MiB within 90 days: error by growth',
      // 2,000 items of 1 KB in 10 days: 200/day, ~2 MB now, 16 MiB in ~70 days
      snapshot: snapshotOf([posts([docWithArray('events', 2000, 1000, NOW - 10 * DAY)])]),
      findings: [
        {
          messageId: 'growingArrayPastWarning',
          severity: 'error',
          target: at('events'),
          message:
            `Array \`events\` grows by up to 200 elements per document per day (median 200 over 1 documents), ` +
            `its length over the document's age (creation time from \`_id\`): at that pace the first document ` +
            `passes ${formatBytes(16 * 1024 * 1024)} in 73 days (2027-01-13); already ` +
            `past ${formatBytes(2_000_000)}: 1 of the 1 documents read. Up to 2,000 elements now (p95 ` +
            `2,000), ${formatBytes(1000)} each; 1 of 1 sampled documents hold 1,000 or more; the largest ` +
            `document holding it is ${formatBytes(docWithArray('events', 2000, 1000, null).bytes)}. At its own ` +
            `pace, one document would hold 75,000 elements in 365 days.`,
          // already past the warning size: counted, never forecast
          evidence: {
            itemsPerDayMax: 200,
            daysToMaxBytes: 73,
            daysToWarnBytes: null,
            docsPastWarnBytes: 1,
            docsPastMaxBytes: 0,
            docsRead: 1,
            timeSource: '_id',
            paceSource: 'age',
            paceFrom: '_id',
            paceWindowDays: null,
            projectedLength: 2000 + 200 * 365,
            projectedFromLength: 2000,
            projectedPerDay: 200,
            projectionDays: 365,
          },
          recommendation: reference('events'),
        },
      ],
    },
    {
      name: 'nested array path (comments.replies)',
      snapshot: snapshotOf([posts([docWithArray('comments.replies', 1500, 200, null)], null)]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'warn',
          target: at('comments.replies'),
          messageIncludes: 'Array `comments.replies` holds up to 1,500 elements',
          evidence: { nested: true },
          recommendation: reference('replies'),
        },
      ],
    },
    {
      name: 'array of arrays is named as such',
      snapshot: snapshotOf([posts([docWithArray('grid', 1200, 40, null, ELEMENT_KIND.array)], null)]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'warn',
          target: at('grid'),
          messageIncludes: `of arrays, ${formatBytes(40)} each`,
          evidence: { arrayOfArrays: true },
          // the caution goes with the advice
          recommendation: {
            action: 'bucket pattern',
            reasonIncludes: 'It is an array of arrays: index and query it with care.',
          },
        },
      ],
    },
    {
      name: 'threshold is an option',
      snapshot: snapshotOf([posts([docWithArray('comments', 60, 100, null)], null)]),
      options: { infoLength: 50 },
      findings: [
        {
          messageId: 'longArray',
          severity: 'info',
          target: at('comments'),
          messageIncludes: ['holds up to 60 elements', '(50+ elements)'],
          recommendation: bound('comments', 50),
        },
      ],
    },
    {
      name: 'large object elements: a child collection with the index it needs',
      snapshot: snapshotOf([posts([docWithArray('comments', 5000, 1000, null)], null)]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'warn',
          target: at('comments'),
          messageIncludes: 'holds up to 5,000 elements',
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name: 'many small scalar elements: the bucket pattern',
      snapshot: snapshotOf([posts([docWithArray('readings', 5000, 8, null, ELEMENT_KIND.number)], null)]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'warn',
          target: at('readings'),
          messageIncludes: `holds up to 5,000 elements (p50 5,000, p95 5,000) of numbers, ${formatBytes(8)} each`,
          recommendation: {
            action: 'bucket pattern',
            commands: [
              'db.getSiblingDB("app").createCollection("posts_readings_buckets")',
              'db.getSiblingDB("app").getCollection("posts_readings_buckets").createIndex({ postId: 1, first: 1 })',
              '// fill in the <…> first:' +
                ' db.getSiblingDB("app").getCollection("posts_readings_buckets")' +
                '.updateOne({ postId: <id>, count: { $lt: 200 } }, { $push: { items: ' +
                '<item> }, $inc: { count: 1 }, $setOnInsert: { first: <item time> } }, { upsert: true })',
            ],
          },
        },
      ],
    },
    {
      name: 'growing, and not yet past the warning size: both dates',
      // 300 items of 1 KB in 30 days: 10/day, ~0.3 MB now; 2 MB in ~170 days, 16 MiB in ~1,640 days: a warn window of
      // 2,000 days
      snapshot: snapshotOf([posts([docWithArray('events', 300, 1000, NOW - 30 * DAY)])]),
      options: { warnWithinDays: 2000 },
      findings: [
        {
          messageId: 'growingArray',
          severity: 'warn',
          target: at('events'),
          message:
            `Array \`events\` grows by up to 10 elements per document per day (median 10 over 1 documents), ` +
            `its length over the document's age (creation time from \`_id\`): at that pace the first document ` +
            `passes ${formatBytes(16 * 1024 * 1024)} in 1,638 days (2031-04-26); the first ` +
            `passes ${formatBytes(2_000_000)} in 169 days (2027-04-18). Up to 300 elements now (p95 ` +
            `300), ${formatBytes(1000)} each; 0 of 1 sampled documents hold 1,000 or more; the largest ` +
            `document holding it is ${formatBytes(docWithArray('events', 300, 1000, null).bytes)}. At its own ` +
            `pace, one document would hold 3,950 elements in 365 days.`,
          evidence: { daysToWarnBytes: 169, daysToMaxBytes: 1638, docsPastWarnBytes: 0 },
          recommendation: reference('events'),
        },
      ],
    },
    {
      name: 'a document already at the limit, still growing',
      // 400 items of 1 KB in 40 days, in a document of about 0.4 MB: at a limit of 0.3 MB (an option) it is already
      // there
      snapshot: snapshotOf([posts([docWithArray('events', 400, 1000, NOW - 40 * DAY)])]),
      options: { maxDocBytes: 300_000, warnDocBytes: 200_000 },
      findings: [
        {
          messageId: 'growingArrayAtLimit',
          severity: 'error',
          target: at('events'),
          message:
            `Array \`events\` grows by up to 10 elements per document per day (median 10 over 1 documents), ` +
            `its length over the document's age (creation time from \`_id\`), and already at ` +
            `the ${formatBytes(300_000)} limit: 1 of the 1 documents read. Up to 400 elements now (p95 ` +
            `400), ${formatBytes(1000)} each; 0 of 1 sampled documents hold 1,000 or more; the largest ` +
            `document holding it is ${formatBytes(docWithArray('events', 400, 1000, null).bytes)}. At its own ` +
            `pace, one document would hold 4,050 elements in 365 days.`,
          evidence: { daysToMaxBytes: null, docsPastMaxBytes: 1 },
          recommendation: reference('events'),
        },
      ],
    },
    {
      name: 'elements carry dates: the pace is counted from them (100 a day), not from the post age (15 a day)',
      snapshot: snapshotOf([profiled('posts', datedPosts())]),
      findings: [
        {
          messageId: 'growingArrayDatedPastWarning',
          severity: 'warn',
          target: at('comments'),
          // the busy post is past the warning size; the new one (1 comment in 2 days) would pass it in 3,935 days,
          // beyond growingWithinDays: not named
          message:
            `Array \`comments\` grows by up to 100 elements per document per day (median 0.5 over 3 ` +
            `documents), counted from the dates at \`comments.at\` over the 30 days up to the newest one: at ` +
            `that pace the first document passes ${formatBytes(16 * 1024 * 1024)} in 136 days (2027-03-16); ` +
            `already past ${formatBytes(2_000_000)}: 1 of the 3 documents read. Up to 3,000 elements now (p95 ` +
            `2,700), ${formatBytes(1008)} each; 1 of 3 sampled documents hold 1,000 or more; the largest ` +
            `document holding it is ${formatBytes(busyBytes)}. At its own pace, one document would hold 39,500 ` +
            `elements in 365 days.`,
          evidence: {
            paceSource: 'elements',
            paceFrom: 'comments.at',
            paceWindowDays: 30,
            paceQuietDays: 0,
            // the busy post (100 a day) and the quiet one (0) by their comments' dates; the new one, whose only comment
            // gives no span, by its age (1 comment in 2 days)
            paceDocs: 3,
            paceDocsFromElements: 2,
            itemsPerDayMax: 100,
            itemsPerDayMedian: 0.5,
            projectedLength: 3000 + 100 * 365,
            projectedFromLength: 3000,
            projectedPerDay: 100,
            projectionDays: 365,
            largestDocBytes: busyBytes,
          },
          // the same figure for the same document in the message and the advice
          recommendation: {
            action: 'reference',
            reasonIncludes: `the largest holding it is ${formatBytes(busyBytes)}`,
          },
        },
      ],
    },
    {
      name:
        'a document too large to pull (measured on the server) has no element dates: its age gives its pace, ' +
        'and the fastest sets the source',
      snapshot: snapshotOf([
        ((c: CollectionSnapshot) => ({
          ...c,
          sample: {
            ...c.sample,
            size: 4,
            docs: [
              ...c.sample.docs,
              { ...docWithArray('comments', 10000, 1000, NOW - 45 * DAY), measuredOnServer: true },
            ],
          },
        }))(profiled('posts', datedPosts())),
      ]),
      findings: [
        {
          messageId: 'growingArrayPastWarning',
          severity: 'error',
          target: at('comments'),
          messageIncludes: [
            'grows by up to 222 elements per document per day (median 50.3 over 4 documents), its length ' +
              "over the document's age (creation time from `_id`)",
          ],
          evidence: {
            paceSource: 'age',
            paceFrom: '_id',
            paceDocs: 4,
            paceDocsFromElements: 2,
            paceWindowDays: null,
            lengthMax: 10000,
          },
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name: 'the pace window is an option: 10 days takes the 7-day count, and the message names it',
      snapshot: snapshotOf([profiled('posts', datedPosts())]),
      options: { paceWindowDays: 10 },
      findings: [
        {
          messageId: 'growingArrayDatedPastWarning',
          severity: 'warn',
          target: at('comments'),
          messageIncludes: 'counted from the dates at `comments.at` over the 7 days up to the newest one',
          evidence: { paceWindowDays: 7, itemsPerDayMax: 100 },
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name: 'the share is over the documents that matter (250+ elements), not a median over one-element documents',
      snapshot: snapshotOf([
        posts(
          [
            docWithArray('comments', 1000, 1000, null),
            ...Array.from({ length: 9 }, () => ({ ...docWithArray('comments', 1, 100, null), bytes: 1110 })),
          ],
          null,
        ),
      ]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'warn',
          target: at('comments'),
          messageIncludes: 'in the 1 sampled documents holding 250 or more it is a median 100% of the document',
          evidence: { shareOfDocument: 1, shareDocs: 1, shareFromLength: 250 },
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name:
        'the outlier pass: the longest array beyond the sample sets the maximum and the largest document; ' +
        'counts stay over the sample',
      snapshot: snapshotOf(
        [
          posts(
            Array.from({ length: 10 }, () => docWithArray('comments', 300, 1000, null)),
            null,
          ),
        ].map((c) =>
          withData(c, outlierSearch, {
            status: 'done',
            reason: null,
            docs: [docWithArray('comments', 12000, 1000, null)],
          }),
        ),
      ),
      findings: [
        {
          messageId: 'tooLongArray',
          severity: 'error',
          target: at('comments'),
          messageIncludes: [
            'holds up to 12,000 elements (p50 300, p95 300)',
            'in the 10 sampled documents holding 250 or more',
            '0 of 10 sampled documents hold 1,000 or more (0 past 10,000)',
            `the largest document holding it is ${formatBytes(docWithArray('comments', 12000, 1000, null).bytes)}`,
          ],
          evidence: { lengthMax: 12000, lengthMaxBeyondSample: true, docsWithPath: 10, shareDocs: 10 },
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name:
        'documents already past the warning size are counted, never forecast; the first of the others gives ' +
        'the date',
      // 1 KB comments at 100 a day: three posts past 2 MB (3,000, 2,500 and 2,100 comments), one of 1,000 that passes
      // it in 10 days, and an old one of 10; the 3,000 post passes 16 MiB first, in 137 days
      snapshot: snapshotOf([
        posts([
          docWithArray('comments', 3000, 1000, NOW - 30 * DAY),
          docWithArray('comments', 2500, 1000, NOW - 25 * DAY),
          docWithArray('comments', 2100, 1000, NOW - 21 * DAY),
          docWithArray('comments', 1000, 1000, NOW - 10 * DAY),
          docWithArray('comments', 10, 1000, NOW - 300 * DAY),
        ]),
      ]),
      findings: [
        {
          messageId: 'growingArrayPastWarningNext',
          severity: 'warn',
          target: at('comments'),
          messageIncludes: [
            `at that pace the first document passes ${formatBytes(16 * 1024 * 1024)} in 137 days ` +
              `(2027-03-17); already past ${formatBytes(2_000_000)}: 3 of the 5 documents read, and the first ` +
              `of the others passes it in 10 days (2026-11-10).`,
            `the largest document holding it is ${formatBytes(docWithArray('comments', 3000, 1000, null).bytes)}.`,
          ],
          evidence: {
            docsRead: 5,
            docsPastWarnBytes: 3,
            docsPastMaxBytes: 0,
            daysToWarnBytes: 10,
            daysToMaxBytes: 137,
            projectedFromLength: 3000,
            projectedLength: 3000 + 100 * 365,
          },
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name:
        'documents measured on the server (too large to pull) with a creation time get a pace: counted in the ' +
        'median, first to cross',
      // 20 pulled posts of 5 comments over 100 days, and two posts over 1 MiB measured on the server: 4,000 comments in
      // 20 days (200 a day) and 3,000 in 30 (100 a day)
      snapshot: snapshotOf([
        posts([
          ...Array.from({ length: 20 }, () => docWithArray('comments', 5, 1000, NOW - 100 * DAY)),
          { ...docWithArray('comments', 4000, 1000, NOW - 20 * DAY), measuredOnServer: true },
          { ...docWithArray('comments', 3000, 1000, NOW - 30 * DAY), measuredOnServer: true },
        ]),
      ]),
      findings: [
        {
          messageId: 'growingArrayPastWarning',
          severity: 'error',
          target: at('comments'),
          messageIncludes: [
            'grows by up to 200 elements per document per day (median 0.05 over 22 documents), its length ' +
              "over the document's age",
            `the first document passes ${formatBytes(16 * 1024 * 1024)} in 63 days (2027-01-03); already ` +
              `past ${formatBytes(2_000_000)}: 2 of the 22 documents read.`,
            'one document would hold 77,000 elements in 365 days.',
          ],
          evidence: {
            paceDocs: 22,
            docsRead: 22,
            docsPastWarnBytes: 2,
            daysToWarnBytes: 39618,
            daysToMaxBytes: 63,
            projectedFromLength: 4000,
            projectedPerDay: 200,
            projectedLength: 77000,
          },
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name: 'the headline is the earliest crossing, not the median pace: one fast post among nine slow ones',
      // nine posts of 500 comments in 50 days (10 a day, the median) and one of 400 in 2 days (200 a day)
      snapshot: snapshotOf([
        posts([
          ...Array.from({ length: 9 }, () => docWithArray('comments', 500, 1000, NOW - 50 * DAY)),
          docWithArray('comments', 400, 1000, NOW - 2 * DAY),
        ]),
      ]),
      findings: [
        {
          messageId: 'growingArray',
          severity: 'error',
          target: at('comments'),
          messageIncludes: [
            'grows by up to 200 elements per document per day (median 10 over 10 documents)',
            `at that pace the first document passes ${formatBytes(16 * 1024 * 1024)} in 81 days ` +
              `(2027-01-21); the first passes ${formatBytes(2_000_000)} in 8 days (2026-11-08).`,
          ],
          evidence: {
            itemsPerDayMedian: 10,
            itemsPerDayMax: 200,
            daysToMaxBytes: 81,
            daysToWarnBytes: 8,
            docsPastWarnBytes: 0,
            projectedFromLength: 400,
            projectedLength: 400 + 200 * 365,
          },
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name: 'evidence: lengths and the time source, no document values',
      snapshot: snapshotOf([posts([docWithArray('comments', 5000, 1000, NOW - 30 * DAY)])]),
      findings: [
        {
          messageId: 'growingArrayPastWarning',
          severity: 'error',
          target: at('comments'),
          messageIncludes: 'grows by up to 167 elements per document per day',
          evidence: { lengthMax: 5000, timeSource: '_id', docsWithPath: 1, sampleSize: 1 },
          recommendation: reference('comments'),
        },
      ],
    },
  ],
});

describe('array-growth analysis', () => {
  it('computes p50/p95/max, element size and share per path', () => {
    const c = posts([10, 20, 30, 40, 1000].map((n) => docWithArray('comments', n, 500, NOW - 100 * DAY)));
    const [s] = arrayPathStats(c, opts, NOW);
    expect(s?.lengths.p50).toBe(30);
    expect(s?.lengths.p95).toBeCloseTo(808, 6);
    expect(s?.lengths.max).toBe(1000);
    expect(s?.elementBytes).toBe(500);
    expect(s?.share).toBeGreaterThan(0.5);
    expect(s?.share).toBeLessThan(1);
    // 1000 items in 100 days is the fastest: 10 a day
    expect(s?.growth?.maxPerDay).toBeCloseTo(10, 5);
  });

  it('gives no growth for documents younger than minAgeDays', () => {
    const c = posts([docWithArray('comments', 5000, 1000, NOW - 3_600_000)]);
    const [s] = arrayPathStats(c, opts, NOW);
    expect(s?.growth).toBeNull();
    expect(s?.daysToMaxBytes).toBeNull();
  });

  it("prefers the elements' pace; falls back to the age where no document has filled for minAgeDays", () => {
    const c = profiled('posts', datedPosts());
    const [s] = arrayPathStats(
      c,
      opts,
      NOW,
      c.data?.['array-growth/element-pace'] as Parameters<typeof arrayPathStats>[3],
    );
    expect(s?.growth).toMatchObject({
      source: 'elements',
      from: 'comments.at',
      windowDays: 30,
      maxPerDay: 100,
      docs: 3,
      docsFromElements: 2,
    });
    // the same documents by their age: 3,000 comments in 200 days
    expect(arrayPathStats(c, opts, NOW)[0]?.growth).toMatchObject({ source: 'age', from: '_id', maxPerDay: 15 });
    // elements spanning less than minAgeDays give no pace: the age is used
    const brief = [
      {
        _id: ObjectId.createFromTime(Math.floor((NOW - 200 * DAY) / 1000)),
        comments: Array.from({ length: 50 }, (_, i) => comment(NOW - i * 60_000)),
      },
    ];
    const b = profiled('posts', brief);
    expect(
      arrayPathStats(b, opts, NOW, b.data?.['array-growth/element-pace'] as Parameters<typeof arrayPathStats>[3])[0]
        ?.growth,
    ).toMatchObject({ source: 'age', maxPerDay: 0.25 });
  });

  it('picks the longest collected window not above the option, else the shortest', () => {
    expect(windowIndex([7, 30, 90, 365], 30)).toBe(1);
    expect(windowIndex([7, 30, 90, 365], 45)).toBe(1);
    expect(windowIndex([7, 30, 90, 365], 1000)).toBe(3);
    expect(windowIndex([7, 30, 90, 365], 3)).toBe(0);
  });

  it('never names the child collection after one the database already holds', () => {
    const held = [collectionOf('comments'), collectionOf('posts_comments')];
    const [f] = runRule(rule, snapshotOf([posts([docWithArray('comments', 5000, 1000, null)], null), ...held]));
    expect(f?.recommendation).toMatchObject(reference('comments', 'posts_comments_2'));
  });

  it('rejects an unknown option with a message naming it', () => {
    const snapshot = snapshotOf([posts([docWithArray('comments', 10, 10, null)], null)]);
    expect(() => runRule(rule, snapshot, { warnLenght: 5 })).toThrow(/unknown option "warnLenght"/);
  });
});

describe('array-growth confirmation plan', () => {
  it('says how the projected length was derived: length now + pace × days, and from which pace', () => {
    const f = runRule(rule, snapshotOf([profiled('posts', datedPosts())]))[0];
    expect(projectionText(f?.evidence ?? {}, 1008)).toBe(
      `The projected length, 39,500, is one document's 3,000 elements now + its 100 a day × 365 days (the ` +
        `pace counted from the dates at \`comments.at\` over 30 days); measured at 15,480, the most elements ` +
        `of ${formatBytes(1008)} a parent holds below ${formatBytes(15 * 1024 * 1024)}.`,
    );
    expect(projectionText(f?.evidence ?? {}, 100)).toBe(
      "The projected length, 39,500, is one document's 3,000 elements now + its 100 a day × 365 days (the " +
        'pace counted from the dates at `comments.at` over 30 days).',
    );
    // a pace from the age, and a projection past what a parent below 15 MiB holds
    const aged = {
      projectedLength: 100_000,
      projectedFromLength: 2000,
      projectedPerDay: 268.49,
      projectionDays: 365,
      paceSource: 'age',
      paceFrom: '_id',
    };
    expect(projectionText(aged, 1000)).toBe(
      `The projected length, 100,000, is one document's 2,000 elements now + its 268 a day × 365 days (the ` +
        `pace of its length over its document's age, dated by \`_id\`); measured at 15,603, the most elements ` +
        `of ${formatBytes(1000)} a parent holds below ${formatBytes(15 * 1024 * 1024)}.`,
    );
    expect(projectionText({ projectedLength: null }, 1000)).toBe('');
  });

  it('measures 1, 100, p95 and the projected length, capped below 16 MiB', () => {
    expect(lengthsToMeasure({ lengthP95: 1450, projectedLength: 91000, lengthMax: 10000 }, 1000)).toEqual([
      1,
      100,
      1450,
      10000,
      Math.floor((15 * 1024 * 1024) / 1008),
    ]);
    expect(lengthsToMeasure({ lengthP95: 5, projectedLength: null, lengthMax: 10 }, 100)).toEqual([1, 5, 10, 100]);
  });
});
