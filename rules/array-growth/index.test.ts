import { describe, expect, it } from 'vitest';
import { ELEMENT_KIND } from '../../src/core/types';
import { collectionOf, docWithArray, sampleOf, snapshotOf } from '../../test/support/fixtures';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import rule from './index';
import { arrayPathStats } from './analyze';
import { lengthsToMeasure } from './confirm';
import { resolveOptions } from '../../src/core/options';

const NOW = Date.parse('2026-11-01T00:00:00.000Z');
const DAY = 86_400_000;
const opts = resolveOptions<Parameters<typeof arrayPathStats>[1]>('array-growth', rule.meta.options, {});

function posts(docs: ReturnType<typeof docWithArray>[], timeSource: string | null = '_id') {
  return collectionOf('posts', { sample: sampleOf(docs, { timeSource }) });
}

const at = (path: string) => ({ db: 'app', collection: 'posts', path });
/** The advice for a growing array of objects: a child collection named after the array, keyed by the post. */
const reference = (leaf: string) => ({
  action: 'reference',
  commands: [`db.createCollection("${leaf}")`, `db.${leaf}.createIndex({ postId: 1, _id: 1 })`, `db.${leaf}.insertOne({ postId: <post _id>, ...<item> })`],
});
const bound = (path: string, limit: number) => ({
  action: 'keep embedded, and bound it',
  commands: [`db.posts.updateOne({ _id: <id> }, { $push: { "${path}": { $each: [<item>], $slice: -${limit} } } })`],
});

ruleTester(rule, {
  valid: [
    { name: 'short arrays of comments', snapshot: snapshotOf([posts([1, 5, 12, 40, 90].map((n) => docWithArray('comments', n, 1000, NOW - 400 * DAY)))]) },
    { name: 'no arrays at all', snapshot: snapshotOf([posts([{ bytes: 300, createdAt: null, measuredOnServer: false, arrays: [], largestFields: [] }])]) },
    { name: 'empty collection (nothing sampled)', snapshot: snapshotOf([collectionOf('empty')]) },
    {
      name: '249 tags stays below Compass line',
      snapshot: snapshotOf([posts([docWithArray('tags', 249, 8, null, ELEMENT_KIND.string)], null)]),
    },
  ],
  invalid: [
    {
      name: 'the field report blog: 1,000 and 10,000 comments is a warning (Atlas errs only past 10,000)',
      snapshot: snapshotOf([posts([1, 10, 100, 1000, 10000].map((n) => docWithArray('comments', n, 1000, NOW - 3000 * DAY)))]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'warn',
          target: at('comments'),
          message:
            'Array `comments` holds up to 10,000 elements (p50 100, p95 8,200) of objects, 1000 B each; it is 100% of its document (1,000+ elements); 2 of 5 sampled documents hold 1,000 or more.',
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
          messageIncludes: ['holds up to 12,000 elements', '(longer than 10,000 elements)', '1 of 3 sampled documents hold 1,000 or more (1 past 10,000)'],
          data: { path: 'comments', max: 12000, p50: 100, p95: 10810, elementKinds: 'objects', elementBytes: '1000 B', share: 100, atWarn: 1, withPath: 3, warnLength: 1000, errorLength: 10000, pastError: 1 },
          recommendation: reference('comments'),
        },
      ],
    },
    {
      name: '1,000 elements is a warning',
      snapshot: snapshotOf([posts([docWithArray('comments', 1000, 100, null)], null)]),
      findings: [{ messageId: 'longArray', severity: 'warn', target: at('comments'), messageIncludes: ['holds up to 1,000 elements', '(1,000+ elements)'], recommendation: reference('comments') }],
    },
    {
      name: '250 elements is Compass line: info, keep embedded and bound',
      snapshot: snapshotOf([posts([docWithArray('comments', 300, 100, null)], null)]),
      findings: [{ messageId: 'longArray', severity: 'info', target: at('comments'), messageIncludes: ['holds up to 300 elements', '(250+ elements)'], recommendation: bound('comments', 250) }],
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
            'Array `events` grows by up to 200 elements per document per day: at that pace a document passes 16 MiB in 73 days (2027-01-13); one is already past 2 MB. Up to 2,000 elements now (p95 2,000), 1000 B each; 1 of 1 sampled documents hold 1,000 or more.',
          evidence: { itemsPerDayMax: 200, daysToMaxBytes: 73, daysToWarnBytes: 0, timeSource: '_id' },
          recommendation: reference('events'),
        },
      ],
    },
    {
      name: 'nested array path (comments.replies)',
      snapshot: snapshotOf([posts([docWithArray('comments.replies', 1500, 200, null)], null)]),
      findings: [{ messageId: 'longArray', severity: 'warn', target: at('comments.replies'), messageIncludes: 'Array `comments.replies` holds up to 1,500 elements', evidence: { nested: true }, recommendation: reference('replies') }],
    },
    {
      name: 'array of arrays is named as such',
      snapshot: snapshotOf([posts([docWithArray('grid', 1200, 40, null, ELEMENT_KIND.array)], null)]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'warn',
          target: at('grid'),
          messageIncludes: 'of arrays, 40 B each',
          evidence: { arrayOfArrays: true },
          // the caution goes with the advice
          recommendation: { action: 'bucket pattern', reasonIncludes: 'It is an array of arrays: index and query it with care.' },
        },
      ],
    },
    {
      name: 'threshold is an option',
      snapshot: snapshotOf([posts([docWithArray('comments', 60, 100, null)], null)]),
      options: { infoLength: 50 },
      findings: [{ messageId: 'longArray', severity: 'info', target: at('comments'), messageIncludes: ['holds up to 60 elements', '(50+ elements)'], recommendation: bound('comments', 50) }],
    },
    {
      name: 'large object elements: a child collection with the index it needs',
      snapshot: snapshotOf([posts([docWithArray('comments', 5000, 1000, null)], null)]),
      findings: [{ messageId: 'longArray', severity: 'warn', target: at('comments'), messageIncludes: 'holds up to 5,000 elements', recommendation: reference('comments') }],
    },
    {
      name: 'many small scalar elements: the bucket pattern',
      snapshot: snapshotOf([posts([docWithArray('readings', 5000, 8, null, ELEMENT_KIND.number)], null)]),
      findings: [
        {
          messageId: 'longArray',
          severity: 'warn',
          target: at('readings'),
          messageIncludes: 'holds up to 5,000 elements (p50 5,000, p95 5,000) of numbers, 8 B each',
          recommendation: {
            action: 'bucket pattern',
            commands: [
              'db.createCollection("posts_readings_buckets")',
              'db.posts_readings_buckets.createIndex({ postId: 1, first: 1 })',
              'db.posts_readings_buckets.updateOne({ postId: <id>, count: { $lt: 200 } }, { $push: { items: <item> }, $inc: { count: 1 }, $setOnInsert: { first: <item time> } }, { upsert: true })',
            ],
          },
        },
      ],
    },
    {
      name: 'growing, and not yet past the warning size: both dates',
      // 300 items of 1 KB in 30 days: 10/day, ~0.3 MB now; 2 MB in ~170 days, 16 MiB in ~1,640 days: a warn window of 2,000 days
      snapshot: snapshotOf([posts([docWithArray('events', 300, 1000, NOW - 30 * DAY)])]),
      options: { warnWithinDays: 2000 },
      findings: [
        {
          messageId: 'growingArray',
          severity: 'warn',
          target: at('events'),
          message:
            'Array `events` grows by up to 10 elements per document per day: at that pace a document passes 16 MiB in 1,638 days (2031-04-26); one passes 2 MB in 169 days (2027-04-18). Up to 300 elements now (p95 300), 1000 B each; 0 of 1 sampled documents hold 1,000 or more.',
          evidence: { daysToWarnBytes: 169, daysToMaxBytes: 1638 },
          recommendation: reference('events'),
        },
      ],
    },
    {
      name: 'a document already at the limit, still growing',
      // 400 items of 1 KB in 40 days, in a document of about 0.4 MB: at a limit of 0.3 MB (an option) it is already there
      snapshot: snapshotOf([posts([docWithArray('events', 400, 1000, NOW - 40 * DAY)])]),
      options: { maxDocBytes: 300_000, warnDocBytes: 200_000 },
      findings: [
        {
          messageId: 'growingArrayAtLimit',
          severity: 'error',
          target: at('events'),
          message: 'Array `events` grows by up to 10 elements per document per day, and a sampled document is already at the 16 MiB limit. Up to 400 elements now (p95 400), 1000 B each; 0 of 1 sampled documents hold 1,000 or more.',
          evidence: { daysToMaxBytes: 0 },
          recommendation: reference('events'),
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

  it('rejects an unknown option with a message naming it', () => {
    const snapshot = snapshotOf([posts([docWithArray('comments', 10, 10, null)], null)]);
    expect(() => runRule(rule, snapshot, { warnLenght: 5 })).toThrow(/unknown option "warnLenght"/);
  });
});

describe('array-growth confirmation plan', () => {
  it('measures 1, 100, p95 and the projected length, capped below 16 MiB', () => {
    expect(lengthsToMeasure({ lengthP95: 1450, projectedLengthInYear: 91000, lengthMax: 10000 }, 1000)).toEqual([1, 100, 1450, 10000, Math.floor((15 * 1024 * 1024) / 1008)]);
    expect(lengthsToMeasure({ lengthP95: 5, projectedLengthInYear: null, lengthMax: 10 }, 100)).toEqual([1, 5, 10, 100]);
  });
});
