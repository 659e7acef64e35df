import { describe, expect, it } from 'vitest';
import { ELEMENT_KIND } from '../../src/core/types';
import { collectionOf, docWithArray, snapshotOf } from '../../test/support/fixtures';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import rule from './index';
import { arrayPathStats } from './analyze';
import { lengthsToMeasure } from './confirm';
import { resolveOptions } from '../../src/core/options';

const NOW = Date.parse('2026-11-01T00:00:00.000Z');
const DAY = 86_400_000;
const opts = resolveOptions<Parameters<typeof arrayPathStats>[1]>('array-growth', rule.meta.options, {});

function posts(docs: ReturnType<typeof docWithArray>[], timeSource: string | null = '_id') {
  return collectionOf('posts', { sample: { method: '$sample', random: true, requested: docs.length, size: docs.length, docs, id: null, fields: {}, timeSource } });
}

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
      expect: [{ messageId: 'longArray', severity: 'warn', path: 'comments', messageIncludes: '10,000' }],
    },
    {
      name: 'past 10,000 elements is an error',
      snapshot: snapshotOf([posts([1, 100, 12000].map((n) => docWithArray('comments', n, 1000, NOW - 3000 * DAY)))]),
      expect: [{ messageId: 'longArray', severity: 'error', path: 'comments', messageIncludes: '12,000' }],
    },
    {
      name: '1,000 elements is a warning',
      snapshot: snapshotOf([posts([docWithArray('comments', 1000, 100, null)], null)]),
      expect: [{ severity: 'warn', path: 'comments' }],
    },
    {
      name: '250 elements is Compass line: info, keep embedded and bound',
      snapshot: snapshotOf([posts([docWithArray('comments', 300, 100, null)], null)]),
      expect: [{ severity: 'info', path: 'comments', messageIncludes: '300' }],
    },
    {
      name: 'slow-length array growing fast reaches 16 MiB within 90 days: error by growth',
      // 2,000 items of 1 KB in 10 days: 200/day, ~2 MB now, 16 MiB in ~70 days
      snapshot: snapshotOf([posts([docWithArray('events', 2000, 1000, NOW - 10 * DAY)])]),
      expect: [{ messageId: 'growingArray', severity: 'error', path: 'events', messageIncludes: '16 MiB in' }],
    },
    {
      name: 'nested array path (comments.replies)',
      snapshot: snapshotOf([posts([docWithArray('comments.replies', 1500, 200, null)], null)]),
      expect: [{ severity: 'warn', path: 'comments.replies' }],
    },
    {
      name: 'array of arrays is named as such',
      snapshot: snapshotOf([posts([docWithArray('grid', 1200, 40, null, ELEMENT_KIND.array)], null)]),
      expect: [{ path: 'grid', messageIncludes: 'array of arrays' }],
    },
    {
      name: 'threshold is an option',
      snapshot: snapshotOf([posts([docWithArray('comments', 60, 100, null)], null)]),
      options: { infoLength: 50 },
      expect: [{ severity: 'info', path: 'comments' }],
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

  it('recommends a child collection with the index it needs for large object elements', () => {
    const snapshot = snapshotOf([posts([docWithArray('comments', 5000, 1000, null)], null)]);
    const [f] = runRule(rule, snapshot);
    expect(f?.recommendation?.action).toBe('reference');
    expect(f?.recommendation?.commands?.join('\n')).toContain('createIndex({ postId: 1, _id: 1 })');
  });

  it('recommends the bucket pattern for many small scalar elements', () => {
    const snapshot = snapshotOf([posts([docWithArray('readings', 5000, 8, null, ELEMENT_KIND.number)], null)]);
    const [f] = runRule(rule, snapshot);
    expect(f?.recommendation?.action).toBe('bucket pattern');
  });

  it('reports evidence without document values', () => {
    const snapshot = snapshotOf([posts([docWithArray('comments', 5000, 1000, NOW - 30 * DAY)])]);
    const [f] = runRule(rule, snapshot);
    for (const v of Object.values(f?.evidence ?? {})) expect(['number', 'string', 'boolean'].includes(typeof v) || v === null).toBe(true);
    expect(f?.evidence.lengthMax).toBe(5000);
    expect(f?.evidence.timeSource).toBe('_id');
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
