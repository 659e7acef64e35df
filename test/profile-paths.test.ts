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
