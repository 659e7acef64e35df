import { describe, expect, it } from 'vitest';
import { readOf } from './index-proof';

describe('readOf', () => {
  it('aims reads at the scratch collection and leaves session fields out', () => {
    const find = { find: 'orders', filter: { a: 1 }, sort: { b: -1 }, $db: 'shop', lsid: { id: 1 } };
    expect(readOf(find, 'proof_1_a')).toEqual({ find: 'proof_1_a', filter: { a: 1 }, sort: { b: -1 } });
    expect(readOf({ aggregate: 'orders', pipeline: [] }, 'x')).toEqual({ aggregate: 'x', pipeline: [], cursor: {} });
    expect(readOf({ count: 'orders', query: { a: 1 } }, 'x')).toEqual({ count: 'x', query: { a: 1 } });
  });
  it('replays the query part of an update or delete as a find', () => {
    const update = { update: 'orders', updates: [{ q: { a: 1 }, u: { $set: { b: 2 } } }] };
    expect(readOf(update, 'x')).toEqual({ find: 'x', filter: { a: 1 }, limit: 1 });
    const many = { update: 'orders', updates: [{ q: { a: 1 }, u: { $set: { b: 2 } }, multi: true }] };
    expect(readOf(many, 'x')).toEqual({ find: 'x', filter: { a: 1 } });
    expect(readOf({ delete: 'orders', deletes: [{ q: { a: 1 }, limit: 0 }] }, 'x')).toEqual({
      find: 'x',
      filter: { a: 1 },
    });
  });
  it('refuses anything else', () => {
    expect(readOf({ insert: 'orders', documents: [] }, 'x')).toBeNull();
  });
});
