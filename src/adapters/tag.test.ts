import { describe, expect, it } from 'vitest';
import { OWN_COMMENT } from '../core/names';
import { exclusionOf } from '../workload/record';
import { recordOfProfileDocument } from '../workload/profiler';
import { tagged } from './tag';

describe("the advisor's comment on its own reads", () => {
  it('tags finds and aggregates, keeps the command name first, and leaves a comment of its own alone', () => {
    const find = tagged({ find: 'orders', filter: {}, limit: 1 });
    expect(Object.keys(find)[0]).toBe('find');
    expect(find.comment).toBe(OWN_COMMENT);
    expect(tagged({ aggregate: 'orders', pipeline: [], cursor: {} }).comment).toBe(OWN_COMMENT);
    expect(tagged({ find: 'orders', comment: 'theirs' }).comment).toBe('theirs');
    // Commands that took `comment` only from MongoDB 4.4 go as they are: older servers refuse an unknown field.
    expect(tagged({ count: 'orders', query: {} })).toEqual({ count: 'orders', query: {} });
    expect(tagged({ listIndexes: 'orders' })).toEqual({ listIndexes: 'orders' });
  });

  it('leaves out of the workload an entry whose command or originating command carries it', () => {
    const ns = { db: 'shop', coll: 'orders' };
    expect(exclusionOf(undefined, ns, { find: 'orders', comment: OWN_COMMENT })).toBe('own');
    expect(exclusionOf(undefined, ns, { getMore: 1 }, { aggregate: 'orders', comment: OWN_COMMENT })).toBe('own');
    expect(exclusionOf(undefined, ns, { find: 'orders', comment: 'theirs' })).toBeNull();
    const entry = { op: 'query', ns: 'shop.orders', millis: 3, command: { find: 'orders', comment: OWN_COMMENT } };
    expect(recordOfProfileDocument(entry)).toBe('own');
    expect(recordOfProfileDocument({ ...entry, command: { find: 'orders', filter: { a: 1 } } })).not.toBe('own');
  });
});
