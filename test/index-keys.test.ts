import { Int32, Long } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { indexDefinitionOf } from '../rules/collection-count/collect';
import { indexFlag, indexFromListIndexes, isKeyPrefix, prefixBlockers } from '../src/lib/index-keys';
import { scratchSpecs } from '../rules/index-usage/confirm';

describe('indexFlag: index options MongoDB reads as booleans', () => {
  it('takes true and non-zero numbers (legacy `unique: 1`) as true', () => {
    for (const v of [true, 1, -1, 0.5, 1n, new Int32(1), Long.fromNumber(1)])
      expect(indexFlag(v), typeof v === 'bigint' ? String(v) : JSON.stringify(v)).toBe(true);
  });
  it('takes false, zero, NaN and absent values as false', () => {
    for (const v of [false, 0, -0, NaN, 0n, new Int32(0), undefined, null, 'true', {}])
      expect(indexFlag(v), typeof v === 'bigint' ? String(v) : JSON.stringify(v)).toBe(false);
  });
});

describe('indexFromListIndexes: the one listIndexes reducer', () => {
  it('reduces an entry to its key and option flags, no filter values', () => {
    expect(
      indexFromListIndexes({
        v: 2,
        name: 'a_1_b_-1',
        key: { a: 1, b: new Int32(-1), loc: '2dsphere' },
        unique: true,
        sparse: true,
        hidden: true,
        partialFilterExpression: { a: { $gt: 5 } },
        expireAfterSeconds: new Int32(3600),
        collation: { locale: 'fr', strength: 2 },
      }),
    ).toEqual({
      name: 'a_1_b_-1',
      key: { a: 1, b: -1, loc: '2dsphere' },
      unique: true,
      sparse: true,
      hidden: true,
      partial: true,
      expireAfterSeconds: 3600,
      collation: { locale: 'fr', strength: 2 },
    });
  });

  it('reads legacy numeric options as MongoDB does: unique: 1, sparse: 1, hidden: 1 are true, 0 is false', () => {
    expect(indexFromListIndexes({ v: 1, name: 'email_1', key: { email: 1 }, unique: 1, sparse: 1, hidden: 1 })).toEqual(
      { name: 'email_1', key: { email: 1 }, unique: true, sparse: true, hidden: true },
    );
    expect(indexFromListIndexes({ v: 1, name: 'email_1', key: { email: 1 }, unique: 0, sparse: 0, hidden: 0 })).toEqual(
      { name: 'email_1', key: { email: 1 } },
    );
  });

  it('keeps a text index its fields (from its weights), sorted', () => {
    expect(
      indexFromListIndexes({ name: 'body_text', key: { _fts: 'text', _ftsx: 1 }, weights: { title: 10, body: 1 } })
        .textFields,
    ).toEqual(['body', 'title']);
  });

  it('gives the deployment inventory the same flags (collection-count)', () => {
    expect(
      indexDefinitionOf({ name: 'email_1', key: { email: 1 }, unique: 1, hidden: 1, expireAfterSeconds: 60 }),
    ).toEqual({ name: 'email_1', key: { email: 1 }, unique: true, expireAfterSeconds: 60 });
  });

  it('never calls a legacy `unique: 1` index redundant: its prefix cannot give way to the longer index', () => {
    const short = indexFromListIndexes({ name: 'email_1', key: { email: 1 }, unique: 1 });
    const long = indexFromListIndexes({ name: 'email_1_at_1', key: { email: 1, at: 1 } });
    expect(isKeyPrefix(short, long)).toBe(true);
    expect(prefixBlockers(short, long)).toEqual([
      '`email_1` is unique: it enforces a constraint the longer index does not',
    ]);
  });
});

describe('index-usage scratch specs', () => {
  it('builds a legacy `unique: 1` index as non-unique on the copy', () => {
    const { specs, changes } = scratchSpecs([
      { v: 2, name: '_id_', key: { _id: 1 } },
      { v: 1, name: 'email_1', key: { email: 1 }, unique: 1 },
    ]);
    expect(specs).toEqual([{ name: 'email_1', key: { email: 1 } }]);
    expect(changes).toEqual(['unique indexes were built as non-unique so the copied documents can be inserted again']);
  });
});
