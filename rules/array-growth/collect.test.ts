import { describe, expect, it } from 'vitest';
import type { Doc } from '../../src/core/adapter';
import { Profiler } from '../../src/collect/profile';
import type { CollectionContext } from '../../src/core/collector';
import type { CollectionSnapshot, DocProfile, FieldProfile } from '../../src/core/types';
import { elementPace, elementPaces } from './collect';

const NOW = Date.parse('2026-11-01T00:00:00.000Z');
const DAY = 86_400_000;

/** The collection as the core read leaves it for the collectors: profiled by the real profiler, census included. */
function read(
  docs: Doc[],
  over: { large?: DocProfile[]; fields?: Record<string, FieldProfile>; profiles?: DocProfile[] } = {},
): CollectionSnapshot {
  const profiler = new Profiler(null);
  const profiles = over.profiles ?? profiler.finish(docs.map((d) => profiler.profile(d))).docs;
  const all = [...profiles, ...(over.large ?? [])];
  return {
    db: 'app',
    name: 'posts',
    type: 'collection',
    capped: false,
    clustered: false,
    validator: { present: false },
    stats: null,
    indexes: [],
    sample: {
      method: '$sample',
      random: true,
      complete: false,
      requested: all.length,
      size: all.length,
      docs: all,
      fields: over.fields ?? Object.fromEntries(profiler.fields),
      timeSource: null,
      dynamicKeys: [],
    },
    notes: [],
  };
}

const hoursAgo = (h: number): Date => new Date(NOW - h * 3_600_000);

describe('array-growth element-pace collector', () => {
  it(
    'counts the elements dated within each window before the newest, per document, by the `at` field (not ' +
      '`editedAt`)',
    () => {
      const docs: Doc[] = [
        // 20 comments, one every 12 hours: the newest 12 hours ago, the oldest 10 days ago
        {
          comments: Array.from({ length: 20 }, (_, i) => ({
            at: hoursAgo(12 * (i + 1)),
            editedAt: new Date(NOW),
            text: 'secret words',
          })),
        },
        { comments: [{ at: hoursAgo(24 * 100), editedAt: new Date(NOW), text: 'old' }] },
      ];
      const data = elementPaces(read(docs), docs, NOW);
      expect(data.windowsDays).toEqual([7, 30, 90, 365]);
      expect(data.paths).toEqual([
        {
          path: 'comments',
          field: 'at',
          datedShare: 1,
          quietDays: 0,
          docs: [
            // ages from the newest (12 h ago): 0 to 9.5 days; 7 days hold 15 of them
            { doc: 0, dated: 20, spanDays: 9.5, recent: [15, 20, 20, 20] },
            { doc: 1, dated: 1, spanDays: 99.5, recent: [0, 0, 0, 1] },
          ],
        },
      ]);
      // counts and spans only: no date, no text
      const json = JSON.stringify(data);
      expect(json).not.toMatch(/20\d\d-|secret|old"/);
    },
  );

  it('says how long the path has been quiet: whole days from its newest element to the collection time', () => {
    const docs: Doc[] = [{ events: [{ ts: new Date(NOW - 40.5 * DAY) }, { ts: new Date(NOW - 41 * DAY) }] }];
    expect(elementPaces(read(docs), docs, NOW).paths[0]).toMatchObject({
      field: 'ts',
      quietDays: 40,
      docs: [{ doc: 0, dated: 2, spanDays: 0.5, recent: [2, 2, 2, 2] }],
    });
  });

  it('takes any field that is a date in 90% of the elements; not when fewer carry one', () => {
    const dated = (n: number, of: number): Doc => ({
      log: Array.from({ length: of }, (_, i) => (i < n ? { when: hoursAgo(i), v: 1 } : { v: 1 })),
    });
    const most = [dated(9, 10)];
    expect(elementPaces(read(most), most, NOW).paths.map((p) => [p.path, p.field, p.datedShare])).toEqual([
      ['log', 'when', 0.9],
    ]);
    const few = [dated(8, 10)];
    expect(elementPaces(read(few), few, NOW).paths).toEqual([]);
  });

  it('prefers the names that say when an element was added over other date fields', () => {
    const docs: Doc[] = [{ items: [{ shippedOn: hoursAgo(1), createdAt: hoursAgo(50) }] }];
    expect(elementPaces(read(docs), docs, NOW).paths[0]?.field).toBe('createdAt');
    // a date that says when the element changed or ends, not when it was added, is never a pace
    const other: Doc[] = [
      {
        tasks: [
          { dueAt: hoursAgo(1), updatedAt: hoursAgo(2) },
          { dueAt: hoursAgo(3), updatedAt: hoursAgo(4) },
        ],
      },
    ];
    expect(elementPaces(read(other), other, NOW).paths).toEqual([]);
  });

  it('reads arrays of dates (`logins.$[]`), nested arrays (`comments.replies`) and maps folded to `<key>`', () => {
    const scalars: Doc[] = [{ logins: [hoursAgo(1), hoursAgo(2), hoursAgo(3)] }];
    expect(elementPaces(read(scalars), scalars, NOW).paths.map((p) => [p.path, p.field, p.docs[0]?.dated])).toEqual([
      ['logins', '$[]', 3],
    ]);

    const nested: Doc[] = [
      { comments: [{ replies: [{ at: hoursAgo(1) }, { at: hoursAgo(2) }] }, { replies: [{ at: hoursAgo(3) }] }] },
    ];
    expect(elementPaces(read(nested), nested, NOW).paths.map((p) => [p.path, p.field, p.docs[0]?.dated])).toEqual([
      ['comments.replies', 'at', 3],
    ]);

    // a map keyed by SKU, as collect folds it: the profile and the census name `bySku.<key>.history`
    const mapped: Doc[] = [
      {
        bySku: {
          'SKU-1': { history: [{ at: hoursAgo(1) }, { at: hoursAgo(30) }] },
          'SKU-9': { history: [{ at: hoursAgo(2) }] },
        },
      },
    ];
    const profile: DocProfile = {
      bytes: 200,
      createdAt: null,
      measuredOnServer: false,
      largestFields: [],
      arrays: [
        {
          path: 'bySku.<key>.history',
          occurrences: 2,
          maxLength: 2,
          totalLength: 3,
          bytes: 100,
          elementBytes: 80,
          kinds: 1,
        },
      ],
    };
    const c = read(mapped, {
      profiles: [profile],
      fields: {
        'bySku.<key>.history': { present: 2, types: { array: 2 } },
        'bySku.<key>.history.at': { present: 3, types: { date: 3 } },
      },
    });
    expect(elementPaces(c, mapped, NOW).paths).toEqual([
      {
        path: 'bySku.<key>.history',
        field: 'at',
        datedShare: 1,
        quietDays: 0,
        docs: [{ doc: 0, dated: 3, spanDays: 1.21, recent: [3, 3, 3, 3] }],
      },
    ]);
  });

  it('skips documents measured on the server (not pulled whole) and dates after the collection time', () => {
    const docs: Doc[] = [{ comments: [{ at: hoursAgo(24) }, { at: new Date(NOW + 5 * DAY) }] }];
    const large: DocProfile = {
      bytes: 2_000_000,
      createdAt: null,
      measuredOnServer: true,
      largestFields: [],
      arrays: [
        {
          path: 'comments',
          occurrences: 1,
          maxLength: 9000,
          totalLength: 9000,
          bytes: 1_990_000,
          elementBytes: 1_900_000,
          kinds: 1,
        },
      ],
    };
    const c = read(docs, { large: [large] });
    // the census counts 2 dated elements of 2 pulled; the future one is not counted
    expect(elementPaces(c, docs, NOW).paths).toEqual([
      {
        path: 'comments',
        field: 'at',
        datedShare: 1,
        quietDays: 1,
        docs: [{ doc: 0, dated: 1, spanDays: 0, recent: [1, 1, 1, 1] }],
      },
    ]);
  });

  it('sends no command and stores nothing for a collection with nothing pulled', async () => {
    const ctx = { docs: [], collection: read([]) } as unknown as CollectionContext;
    expect(await elementPace.collect(ctx)).toBeNull();
    const docs: Doc[] = [{ comments: [{ at: new Date() }] }];
    const refuse = { command: () => Promise.reject(new Error('no command expected')) };
    const out = await elementPace.collect({
      docs,
      collection: read(docs),
      adapter: refuse,
    } as unknown as CollectionContext);
    expect(out?.paths.map((p) => p.path)).toEqual(['comments']);
  });
});
