import { Binary, Decimal128, Double, Int32, Long, ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import type { FieldProfile } from '../../src/core/types';
import { collectFromDocs } from '../../test/support/rule-tester';
import { fieldSelectivity, MAX_SELECTIVITY_PATHS, pathsToCount, valueHash } from './selectivity';

const MARKER = 'ZZMARKER_SEL_91b2';

describe('the query-indexes selectivity collector', () => {
  it("counts a map's values under <key>, and keeps no key nor value", async () => {
    // 12 distinct SKUs: enough for the profiler to call bySku a map (FOLD_DEFAULTS.minDistinctKeys is 10)
    const docs = Array.from({ length: 12 }, (_, i) => ({
      _id: i,
      status: `${MARKER}-${i % 3}`,
      bySku: { [`SKU-${100 + i}`]: i % 4 },
    }));
    const { data } = await collectFromDocs(fieldSelectivity, docs);
    expect(data).toEqual({
      documents: 12,
      paths: {
        _id: { present: 12, distinct: 12 },
        'bySku.<key>': { present: 12, distinct: 4 },
        status: { present: 12, distinct: 3 },
      },
      leftOut: 0,
    });
    expect(JSON.stringify(data)).not.toContain(MARKER);
    expect(JSON.stringify(data)).not.toContain('SKU-');
  });

  it('counts array elements at the array, fields of its documents under it, and no arrays of arrays', async () => {
    const docs = [
      { _id: 1, tags: ['a', 'b'], items: [{ sku: 'x', qty: 1 }, { sku: 'y' }], grid: [[1, 2]] },
      { _id: 2, tags: ['b', 'c', 'b'], items: [{ sku: 'x', qty: 1 }], grid: [[3]] },
      { _id: 3, tags: [], items: [] },
    ];
    const { data } = await collectFromDocs(fieldSelectivity, docs);
    expect(data?.paths).toEqual({
      _id: { present: 3, distinct: 3 },
      tags: { present: 2, distinct: 3 },
      'items.sku': { present: 2, distinct: 2 },
      'items.qty': { present: 2, distinct: 1 },
    });
  });

  it('counts the documents holding a path, walks sub-documents and leaves missing fields out', async () => {
    const docs = [
      { _id: 1, addr: { city: 'x', zip: 1 }, note: 'n' },
      { _id: 2, addr: { city: 'y' } },
      { _id: 3, addr: { city: 'x' } },
      { _id: 4 },
    ];
    const { data } = await collectFromDocs(fieldSelectivity, docs);
    expect(data?.documents).toBe(4);
    expect(data?.paths).toEqual({
      _id: { present: 4, distinct: 4 },
      'addr.city': { present: 3, distinct: 2 },
      'addr.zip': { present: 1, distinct: 1 },
      note: { present: 1, distinct: 1 },
    });
  });

  it('counts equal numbers of any type as one value, as an equality matches them, and other types apart', async () => {
    const t = new Date(1_700_000_000_000);
    const id = new ObjectId();
    const values = [
      1,
      new Int32(1),
      new Long(1),
      new Double(1),
      Decimal128.fromString('1.0'),
      '1',
      true,
      null,
      null,
      t,
      new Date(t.getTime()),
      t.getTime(),
      id,
      new ObjectId(id.toHexString()),
      new Binary(Buffer.from('ab')),
      new Binary(Buffer.from('ab'), 4),
      new Binary(Buffer.from('ac')),
    ];
    const docs = values.map((v, i) => ({ _id: i, v }));
    const { data } = await collectFromDocs(fieldSelectivity, docs);
    // numbers 1 · '1' · true · null · the date · its milliseconds · the ObjectId · 3 binaries
    expect(data?.paths.v).toEqual({ present: values.length, distinct: 10 });
  });

  it('hashes scalars only: documents, arrays and BSON undefined are not values', () => {
    expect(valueHash({ a: 1 })).toBeNull();
    expect(valueHash([1])).toBeNull();
    expect(valueHash(undefined)).toBeNull();
    expect(valueHash('a')).not.toBe(valueHash('b'));
    expect(valueHash(/a/i)).not.toBe(valueHash(/a/));
  });

  it('hashes a long value by its length and both ends', () => {
    const long = (middle: string, n = 2000): string => `${'a'.repeat(300)}${middle.repeat(n)}${'z'.repeat(300)}`;
    expect(valueHash(long('b'))).toBe(valueHash(long('c')));
    expect(valueHash(long('b'))).not.toBe(valueHash(long('b', 2001)));
    expect(valueHash(`x${long('b')}`)).not.toBe(valueHash(`y${long('b')}`));
    expect(valueHash(`${long('b')}x`)).not.toBe(valueHash(`${long('b')}y`));
    const bytes = (end: number) => new Binary(Buffer.from([...Array<number>(1000).fill(7), end]));
    expect(valueHash(bytes(1))).not.toBe(valueHash(bytes(2)));
    // a string of 512 units is hashed whole
    expect(valueHash(`${'a'.repeat(256)}b${'a'.repeat(255)}`)).not.toBe(valueHash('a'.repeat(512)));
  });
});

describe('the paths counted', () => {
  const field = (present: number, types: Record<string, number>): FieldProfile => ({ present, types });

  it('keeps those holding scalars (themselves or as elements), most present first, and says how many were left', () => {
    const fields: Record<string, FieldProfile> = {
      a: field(5, { string: 5 }),
      b: field(9, { int: 9 }),
      c: field(9, { object: 9 }),
      'c.d': field(9, { date: 9 }),
      tags: field(7, { array: 7 }),
      'tags.$[]': field(20, { string: 20 }),
      rows: field(3, { array: 3 }),
      'rows.$[]': field(3, { array: 3 }),
      'rows.$[].$[]': field(6, { int: 6 }),
    };
    expect(pathsToCount(fields)).toEqual({ paths: ['b', 'c.d', 'tags', 'a'], leftOut: 0 });
    expect(pathsToCount(fields, 2)).toEqual({ paths: ['b', 'c.d'], leftOut: 2 });
  });

  it(`counts at most ${MAX_SELECTIVITY_PATHS} paths of a wide collection, the same whatever the order`, async () => {
    // word-shaped names (no digits), each in every document: fields of a schema, not a map's keys
    const name = (i: number): string => `f${String.fromCharCode(97 + Math.floor(i / 26), 97 + (i % 26))}`;
    const wide = (n: number) => Object.fromEntries(Array.from({ length: 310 }, (_, i) => [name(i), i % (n + 1)]));
    const docs = Array.from({ length: 3 }, (_, n) => ({ _id: n, ...wide(n) }));
    const one = await collectFromDocs(fieldSelectivity, docs);
    expect(Object.keys(one.data?.paths ?? {})).toHaveLength(MAX_SELECTIVITY_PATHS);
    expect(one.data?.leftOut).toBe(11);
    const reversed = await collectFromDocs(fieldSelectivity, [...docs].reverse());
    expect(reversed.data).toEqual(one.data);
  });
});
