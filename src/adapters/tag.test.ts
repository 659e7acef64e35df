import { describe, expect, it } from 'vitest';
import { OWN_COMMENT } from '../core/names';
import { exclusionOf } from '../workload/record';
import { recordOfProfileDocument } from '../workload/profiler';
import { tagged, versionOfReply } from './tag';

describe("the advisor's comment on its own reads", () => {
  it('tags finds and aggregates, keeps the command name first, and leaves a comment of its own alone', () => {
    const find = tagged({ find: 'orders', filter: {}, limit: 1 });
    expect(Object.keys(find)[0]).toBe('find');
    expect(find.comment).toBe(OWN_COMMENT);
    expect(tagged({ aggregate: 'orders', pipeline: [], cursor: {} }).comment).toBe(OWN_COMMENT);
    expect(tagged({ find: 'orders', comment: 'theirs' }).comment).toBe('theirs');
    // Commands that took `comment` only from MongoDB 4.4 go as they are while the version is unknown or older.
    expect(tagged({ count: 'orders', query: {} })).toEqual({ count: 'orders', query: {} });
    expect(tagged({ count: 'orders', query: {} }, [4, 2, 24, 0])).toEqual({ count: 'orders', query: {} });
    expect(tagged({ listIndexes: 'orders' })).toEqual({ listIndexes: 'orders' });
  });

  it('tags count and distinct on 4.4 and later, the version read from the buildInfo reply', () => {
    for (const v of [
      [4, 4, 0, 0],
      [7, 0, 42, 0],
      [8, 2, 11, 0],
    ]) {
      expect(tagged({ count: 'orders', query: { $nor: [] } }, v).comment).toBe(OWN_COMMENT);
      expect(tagged({ distinct: 'orders', key: 'status' }, v).comment).toBe(OWN_COMMENT);
      expect(tagged({ count: 'orders', comment: 'theirs' }, v).comment).toBe('theirs');
    }
    expect(versionOfReply({ buildInfo: 1 }, { version: '8.2.11', versionArray: [8, 2, 11, 0] })).toEqual([8, 2, 11, 0]);
    expect(versionOfReply({ hello: 1 }, { versionArray: [8, 2, 11, 0] })).toBeUndefined();
    expect(versionOfReply({ buildInfo: 1 }, { version: '8.2.11' })).toBeUndefined();
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
