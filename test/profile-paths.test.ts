import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { Profiler } from '../src/collect/profile';
import { ELEMENT_KIND } from '../src/core/types';

describe('profile paths', () => {
  it('names arrays of arrays `path.$[]`, nested arrays `a.b`, and records element kinds', () => {
    const p = new Profiler('_id');
    const doc = { _id: ObjectId.createFromTime(1_700_000_000), grid: [[1, 2], [3]], tags: ['a', 'b'], comments: [{ replies: [1, 2, 3] }, { replies: [4] }] };
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

describe('profile paths of maps (folded by finish)', () => {
  it('names arrays under map keys inside arrays of objects `orders.serialsBySku.<key>`, one profile per document', () => {
    const p = new Profiler(null);
    const docs = Array.from({ length: 20 }, (_, i) => ({
      orders: [{ serialsBySku: { [`SKU-${1000 + 2 * i}`]: [1, 2], [`SKU-${1001 + 2 * i}`]: [3] } }, { serialsBySku: { [`SKU-${5000 + i}`]: [4, 5, 6] } }],
    }));
    const r = p.finish(docs.map((d) => p.profile(d)));
    expect(r.dynamicKeys.map((m) => m.path)).toEqual(['orders.serialsBySku']);
    const first = r.docs[0];
    expect(first?.arrays.map((a) => a.path)).toEqual(['orders.serialsBySku.<key>', 'orders']);
    expect(first?.arrays[0]).toMatchObject({ occurrences: 3, maxLength: 3, totalLength: 6, kinds: ELEMENT_KIND.number });
    expect(first?.largestFields.map((f) => f.path)).toEqual(['orders']);
    expect(JSON.stringify(r.docs)).not.toContain('SKU-');
  });
});
