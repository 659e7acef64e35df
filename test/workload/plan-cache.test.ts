import { describe, expect, it } from 'vitest';
import { planCacheEntries, planCacheEntry } from '../../src/workload/plan-cache';
import {
  classicActive,
  classicCollscan,
  classicInactive,
  newer,
  sbe,
  stripped,
} from '../fixtures/workload/plan-cache-stats';

describe('planCacheEntry', () => {
  it('reads a classic entry: shape hash, key, inactive, works, the cached plan index', () => {
    expect(planCacheEntry(classicInactive)).toEqual({
      shapeHash: '5F5D4B3C',
      planCacheKey: '9A1C47E2',
      engine: 'classic',
      isActive: false,
      works: 2,
      indexes: ['a_1_b_1'],
      collectionScan: false,
    });
  });

  it('reads the cached plan only, not the candidates the multi-planner rejected', () => {
    // creationExecStats names both a_1_b_1 and a_1: only the cached plan's index counts.
    expect(planCacheEntry(classicActive)).toMatchObject({ isActive: true, works: 1, indexes: ['a_1'] });
  });

  it('tells a cached collection scan', () => {
    expect(planCacheEntry(classicCollscan)).toMatchObject({ indexes: [], collectionScan: true });
  });

  it('reads a slot-based entry, whose plan is text: its indexes are unknown, not none', () => {
    expect(planCacheEntry(sbe)).toEqual({
      shapeHash: '8C3D1E55',
      planCacheKey: '6B0F2A9D',
      engine: 'sbe',
      isActive: true,
      works: 3,
      indexes: null,
      collectionScan: null,
    });
  });

  it('takes planCacheShapeHash where the server no longer says queryHash', () => {
    expect(planCacheEntry(newer)).toMatchObject({ shapeHash: '5F5D4B3C', indexes: ['a_1'] });
    expect(planCacheEntry({ ...newer, queryHash: '00000000' })?.shapeHash).toBe('5F5D4B3C');
  });

  it('reads an entry stripped of its debug info: hashes and works, plan unknown', () => {
    expect(planCacheEntry(stripped)).toMatchObject({
      shapeHash: '1B7E9D20',
      engine: 'classic',
      isActive: true,
      works: 1,
      indexes: null,
      collectionScan: null,
    });
  });

  it('infers the engine from the plan when the row has no version, and reads 64-bit works', () => {
    const { version: _v, ...noVersion } = sbe;
    expect(planCacheEntry(noVersion)?.engine).toBe('sbe');
    const long = { toNumber: () => 7 };
    expect(planCacheEntry({ ...classicInactive, version: undefined, works: long })).toMatchObject({
      engine: 'classic',
      works: 7,
    });
  });

  it('keeps no value of the query: createdFromQuery is not read', () => {
    const marked = { ...classicInactive, createdFromQuery: { query: { a: 'MARKER-5150' }, sort: {}, projection: {} } };
    expect(JSON.stringify(planCacheEntry(marked))).not.toContain('MARKER-5150');
  });
});

describe('planCacheEntries', () => {
  it('reads every entry and counts the rows that are none', () => {
    const read = planCacheEntries([classicInactive, sbe, { works: 3 }, null, 'x']);
    expect(read.entries.map((e) => e.shapeHash)).toEqual(['5F5D4B3C', '8C3D1E55']);
    expect(read.malformed).toBe(3);
  });
});
