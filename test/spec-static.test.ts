import { describe, expect, it } from 'vitest';
import type { DeclaredIndex, Spec } from '../src/spec/format';
import { redundantIndexes } from '../src/spec/static';

const spec: Spec = { db: 'app', collections: [] };
const prefixOf = (indexes: DeclaredIndex[]): string[] =>
  redundantIndexes({ name: 'orders', indexes }, spec)
    .filter((f) => f.messageId === 'prefix')
    .map((f) => String(f.evidence.index));

describe('lint --spec redundant indexes: the same prefix test as the live index-usage rule', () => {
  it('flags a plain prefix of a compound index', () => {
    expect(prefixOf([{ key: { a: 1 } }, { key: { a: 1, b: -1 } }])).toEqual(['a_1']);
    expect(prefixOf([{ key: { a: 1 } }, { key: { a: 2, b: 1 } }])).toEqual(['a_1']);
  });

  it("never when the longer index cannot serve the shorter one's queries", () => {
    // a different collation: a query uses an index only with its own collation (the old spec check ignored this)
    expect(prefixOf([{ key: { a: 1 } }, { key: { a: 1, b: 1 }, collation: { locale: 'fr' } }])).toEqual([]);
    // a hidden longer index: the planner cannot use it (ignored before too)
    expect(prefixOf([{ key: { a: 1 } }, { key: { a: 1, b: 1 }, hidden: true }])).toEqual([]);
    expect(prefixOf([{ key: { a: 1 }, unique: true }, { key: { a: 1, b: 1 } }])).toEqual([]);
    expect(prefixOf([{ key: { a: 1 } }, { key: { a: 1, b: 1 }, partialFilterExpression: { b: { $gt: 1 } } }])).toEqual(
      [],
    );
    expect(prefixOf([{ key: { a: 1 } }, { key: { a: -1, b: 1 } }])).toEqual([]);
    expect(prefixOf([{ key: { a: 'hashed' } }, { key: { a: 'hashed', b: 1 } }])).toEqual([]);
  });
});
