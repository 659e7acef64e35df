import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { Profiler } from '../src/collect/profile';
import { ELEMENT_KIND } from '../src/core/types';

describe('profile paths', () => {
  it('names arrays of arrays `path.$[]`, nested arrays `a.b`, and records element kinds', () => {
    const p = new Profiler('_id');
    const doc = {
      _id: ObjectId.createFromTime(1_700_000_000),
      grid: [[1, 2], [3]],
      tags: ['a', 'b'],
      comments: [{ replies: [1, 2, 3] }, { replies: [4] }],
    };
    const prof = p.profile(doc);
    const by = Object.fromEntries(prof.arrays.map((a) => [a.path, a]));
    expect(Object.keys(by).sort()).toEqual(['comments', 'comments.replies', 'grid', 'grid.$[]', 'tags']);
    expect(by.grid?.kinds).toBe(ELEMENT_KIND.array);
    expect(by['grid.$[]']).toMatchObject({ occurrences: 2, maxLength: 2, totalLength: 3, kinds: ELEMENT_KIND.number });
    expect(by['comments.replies']).toMatchObject({ occurrences: 2, maxLength: 3, totalLength: 4 });
    expect(by.tags?.kinds).toBe(ELEMENT_KIND.string);
    expect(prof.createdAt).toBe(1_700_000_000_000);
    expect(p.fields.get('comments.replies')?.types.array).toBe(2);
  });

  it('keeps the three largest top-level fields', () => {
    const p = new Profiler(null);
    const prof = p.profile({ a: 'x'.repeat(10), b: 'x'.repeat(1000), c: 1, d: 'x'.repeat(100) });
    expect(prof.largestFields.map((f) => f.path)).toEqual(['b', 'd', 'a']);
  });
});

describe("string shapes in the census: blank and a number's text, counted, never kept", () => {
  it('counts blank strings and numbers written as text per path; other strings and other types are not counted', () => {
    const p = new Profiler(null);
    for (const depth of ['', '  ', '12.5', '-3', '1e6', ' 7 ', 'deep', 'n/a', 40, null]) p.profile({ depth });
    p.profile({ name: 'x'.repeat(40) });
    expect(p.fields.get('depth')).toEqual({
      present: 10,
      types: { string: 8, int: 1, null: 1 },
      strings: { blank: 2, numeric: 4, integer: 1 },
    });
    // no blank or numeric string: no strings entry at all
    expect(p.fields.get('name')).toEqual({ present: 1, types: { string: 1 } });
  });

  it('sums the shapes of keys folded into one map path', () => {
    const p = new Profiler(null);
    const docs = Array.from({ length: 12 }, (_, i) =>
      p.profile({ bySku: { [`SKU-${i}`]: i % 2 ? '' : String(i), [`SKU-${i + 100}`]: 'x' } }),
    );
    const { fields } = p.finish(docs);
    expect(fields.get('bySku.<key>')?.strings).toEqual({ blank: 6, numeric: 6, integer: 6 });
    expect(JSON.stringify([...fields.keys()])).not.toContain('SKU-');
  });
});

describe('maps that are empty in many objects', () => {
  it('counts the empty objects and takes the median keys over the others', () => {
    const p = new Profiler(null);
    // 30 objects: 18 empty, 12 holding 1, 2 or 3 UUID-like keys (median of those: 2)
    const docs = Array.from({ length: 30 }, (_, i) =>
      p.profile({
        tiers:
          i < 18
            ? {}
            : Object.fromEntries(
                Array.from({ length: 1 + (i % 3) }, (_, k) => [
                  `${String(i).padStart(8, '0')}-0000-4000-8000-${String(k).padStart(12, '0')}`,
                  { tier: 'x' },
                ]),
              ),
      }),
    );
    const { dynamicKeys } = p.finish(docs);
    expect(dynamicKeys).toHaveLength(1);
    expect(dynamicKeys[0]).toMatchObject({
      path: 'tiers',
      objects: 30,
      medianKeys: 0,
      emptyObjects: 18,
      medianKeysNonEmpty: 2,
    });
  });
});

describe('profile paths of maps (folded by finish)', () => {
  it(
    'names arrays under map keys inside arrays of objects `orders.serialsBySku.<key>`, one profile per ' + 'document',
    () => {
      const p = new Profiler(null);
      const docs = Array.from({ length: 20 }, (_, i) => ({
        orders: [
          { serialsBySku: { [`SKU-${1000 + 2 * i}`]: [1, 2], [`SKU-${1001 + 2 * i}`]: [3] } },
          { serialsBySku: { [`SKU-${5000 + i}`]: [4, 5, 6] } },
        ],
      }));
      const r = p.finish(docs.map((d) => p.profile(d)));
      expect(r.dynamicKeys.map((m) => m.path)).toEqual(['orders.serialsBySku']);
      const first = r.docs[0];
      expect(first?.arrays.map((a) => a.path)).toEqual(['orders.serialsBySku.<key>', 'orders']);
      expect(first?.arrays[0]).toMatchObject({
        occurrences: 3,
        maxLength: 3,
        totalLength: 6,
        kinds: ELEMENT_KIND.number,
      });
      expect(first?.largestFields.map((f) => f.path)).toEqual(['orders']);
      expect(JSON.stringify(r.docs)).not.toContain('SKU-');
    },
  );
});
