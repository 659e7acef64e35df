import { describe, expect, it } from 'vitest';
import { foldPath, keyShape, PathFolder } from '../src/collect/fold';

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
    expect(['65f0c0ffee0000000000beef', '0f8fad5b-d9cb-469f-a165-70867728950e', '1042', '2024-03-01', 'SKU-00042', 'email'].map(keyShape)).toEqual(['objectId', 'uuid', 'integer', 'date', 'code', 'word']);
  });
});
