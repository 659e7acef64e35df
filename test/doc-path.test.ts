/**
 * The census' path text (src/lib/doc-path.ts): a key holding a dot, a `$` key and an empty key each keep their own
 * path, read back to the same keys, and never print like a nested path.
 */
import { describe, expect, it } from 'vitest';
import {
  dottedPath,
  fieldExpr,
  fieldFilter,
  joinPath,
  pathOf,
  pathSegments,
  setFieldExpr,
  valueAt,
} from '../src/lib/doc-path';
import { shellValue } from '../src/lib/shell';

const cases: { keys: string[]; path: string }[] = [
  { keys: ['a', 'b'], path: 'a.b' },
  { keys: ['a.b'], path: '"a.b"' },
  { keys: ['a.b', 'c'], path: '"a.b".c' },
  { keys: ['x', 'a.b'], path: 'x."a.b"' },
  { keys: ['$in'], path: '$in' },
  { keys: ['a', '$in'], path: 'a.$in' },
  { keys: [''], path: '""' },
  { keys: ['a', ''], path: 'a.""' },
  { keys: ['', ''], path: '"".""' },
  { keys: ['"q"'], path: '"\\"q\\""' },
  { keys: ['a"b'], path: 'a"b' },
  { keys: ['back\\slash.dot'], path: '"back\\\\slash.dot"' },
  { keys: ['tags', '$[]'], path: 'tags.$[]' },
  { keys: ['m', '<key>', 'qty'], path: 'm.<key>.qty' },
  { keys: [], path: '' },
];

describe('census paths', () => {
  it.each(cases)('joins $keys as $path and splits it back', ({ keys, path }) => {
    expect(pathOf(keys)).toBe(path);
    expect(pathSegments(path)).toEqual(keys);
  });

  it('never prints a key holding a dot like the nested path, nor an empty key like its parent', () => {
    const printed = new Set(cases.map((c) => pathOf(c.keys)));
    expect(printed.size).toBe(cases.length);
    expect(joinPath('', 'a.b')).not.toBe(joinPath('a', 'b'));
    expect(joinPath('a', '')).not.toBe('a');
    expect(joinPath('a', '')).not.toBe('a.');
  });

  it('refuses text no join wrote', () => {
    expect(() => pathSegments('"a.b')).toThrow(/unclosed quote/);
    expect(() => pathSegments('"a"b')).toThrow(/followed by a dot/);
  });

  it('names a field by dots only where every key can be: no dot, no leading `$`, not empty', () => {
    expect(dottedPath('a.b.c')).toBe('a.b.c');
    expect(dottedPath('a$b')).toBe('a$b');
    expect(dottedPath('"a.b"')).toBeNull();
    expect(dottedPath('a.$in')).toBeNull();
    expect(dottedPath('a.""')).toBeNull();
  });

  it('reads values by census path, a key holding a dot as one key', () => {
    const doc = { 'a.b': 1, a: { b: 2, '': 3 }, $in: 4 };
    expect(valueAt(doc, '"a.b"')).toBe(1);
    expect(valueAt(doc, 'a.b')).toBe(2);
    expect(valueAt(doc, 'a.""')).toBe(3);
    expect(valueAt(doc, '$in')).toBe(4);
  });

  it('filters by dotted path where it can, else with $getField and $literal', () => {
    expect(fieldFilter('a.b', { type: 'string' })).toEqual({ 'a.b': { $type: 'string' } });
    expect(fieldFilter('a.b', { in: [1] })).toEqual({ 'a.b': { $in: [1] } });
    const get = { $getField: { field: { $literal: 'a.b' }, input: '$$CURRENT' } };
    expect(fieldExpr('"a.b"')).toEqual(get);
    expect(fieldFilter('"a.b"', { type: 'number' })).toEqual({ $expr: { $isNumber: get } });
    expect(fieldFilter('"a.b"', { in: ['$x'] })).toEqual({ $expr: { $in: [get, { $literal: ['$x'] }] } });
    const getIn = { $getField: { field: { $literal: '$in' }, input: '$$CURRENT' } };
    expect(fieldFilter('$in', { exists: true })).toEqual({ $expr: { $ne: [{ $type: getIn }, 'missing'] } });
  });

  it('sets a nested field under a key holding a dot with $setField, key by key', () => {
    const outer = { $literal: 'a.b' };
    const input = { $getField: { field: outer, input: '$$ROOT' } };
    const inner = { $setField: { field: { $literal: 'c' }, input, value: 1 } };
    expect(setFieldExpr('"a.b".c', 1)).toEqual({ $setField: { field: outer, input: '$$ROOT', value: inner } });
    const remove = '{ $setField: { field: { $literal: "a.b" }, input: "$$ROOT", value: "$$REMOVE" } }';
    expect(shellValue(setFieldExpr('"a.b"', '$$REMOVE'))).toBe(remove);
    expect(() => setFieldExpr('', 1)).toThrow();
  });
});
