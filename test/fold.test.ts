import { describe, expect, it } from 'vitest';
import { foldPath, keyShape, mapOfIndexKey, PathFolder } from '../src/core/fold';

describe('PathFolder: raw paths to the census paths (pure)', () => {
  it('folds keys under a map, maps of maps, and never array elements', () => {
    const f = new PathFolder(['itemsBySku', 'visits', 'visits.<key>']);
    expect(f.fold('itemsBySku.SKU-1.qty')).toBe('itemsBySku.<key>.qty');
    expect(f.fold('visits.65f0c0ffee0000000000beef.1042')).toBe('visits.<key>.<key>');
    expect(f.fold('orders.$[].sku')).toBe('orders.$[].sku');
    expect(f.child('itemsBySku', 'SKU-9')).toBe('itemsBySku.<key>');
    expect(f.child('', 'itemsBySku')).toBe('itemsBySku');
  });

  it('a path no map contains comes back as the same string', () => {
    const path = 'address.city';
    expect(new PathFolder(['itemsBySku']).fold(path)).toBe(path);
    expect(new PathFolder([]).fold('SKU-1')).toBe('SKU-1');
  });

  it("the document itself as a map (''): every top-level key but _id folds, at any depth below", () => {
    const f = new PathFolder([{ path: '' }]);
    expect(f.fold('2024-03-01')).toBe('<key>');
    expect(f.fold('2024-03-01.visits')).toBe('<key>.visits');
    expect(f.fold('_id')).toBe('_id');
    expect(f.fold('_id.region')).toBe('_id.region');
    expect(f.fold('<key>.visits')).toBe('<key>.visits');
    expect(f.child('', '2024-03-01')).toBe('<key>');
    expect(f.child('', '_id')).toBe('_id');
    expect(f.child('<key>', 'visits')).toBe('<key>.visits');
    expect(foldPath('SKU-7.byDay.2024-01-01', ['', '<key>.byDay'])).toBe('<key>.byDay.<key>');
  });

  it('names key shapes without keeping a key', () => {
    expect(
      [
        '65f0c0ffee0000000000beef',
        '0f8fad5b-d9cb-469f-a165-70867728950e',
        '1042',
        '2024-03-01',
        'SKU-00042',
        'email',
      ].map(keyShape),
    ).toEqual(['objectId', 'uuid', 'integer', 'date', 'code', 'word']);
  });

  it(
    'tells an index on a key of a map (its key and default name hold the key) from one on the map or beside ' + 'it',
    () => {
      const f = new PathFolder(['itemsBySku', '']);
      expect(mapOfIndexKey({ 'itemsBySku.SKU-1': 1 }, new PathFolder(['itemsBySku']))).toBe('itemsBySku');
      expect(mapOfIndexKey({ status: 1, 'itemsBySku.SKU-1.qty': -1 }, new PathFolder(['itemsBySku']))).toBe(
        'itemsBySku',
      );
      expect(mapOfIndexKey({ 'itemsBySku.$**': 1 }, new PathFolder(['itemsBySku']))).toBeNull();
      expect(mapOfIndexKey({ itemsBySku: 1, status: 1 }, new PathFolder(['itemsBySku']))).toBeNull();
      expect(mapOfIndexKey({ _id: 1 }, f)).toBeNull();
      expect(mapOfIndexKey({ '$**': 1 }, f)).toBeNull();
      expect(mapOfIndexKey({ '2031-01-01.visits': 1 }, f)).toBe('');
      expect(mapOfIndexKey({ 'SKU-1': 'hashed' }, new PathFolder([]))).toBeNull();
    },
  );
});
