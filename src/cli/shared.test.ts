import { describe, expect, it } from 'vitest';
import { collectOptionsOf } from './shared';

describe("collectOptionsOf: collect's options from any door's flags, in one place", () => {
  it('passes every collect flag a door has, the configuration under the flags', () => {
    const flags = {
      collection: ['orders'],
      sampleSize: 50,
      timeField: 'createdAt',
      maxTimeMs: 2500,
      readPreference: 'primary' as const,
      concurrency: 3,
    };
    expect(collectOptionsOf(flags, { sampleSize: 999, maps: { minDistinctKeys: 9 } })).toEqual({
      collections: ['orders'],
      sampleSize: 50,
      maps: { minDistinctKeys: 9 },
      timeField: 'createdAt',
      maxTimeMS: 2500,
      readPreference: 'primary',
      concurrency: 3,
    });
  });

  it('leaves out what a door has no flag for, and takes the sample size from the configuration', () => {
    expect(collectOptionsOf({ maxTimeMs: 10_000, collection: [] }, { sampleSize: 200 })).toEqual({
      sampleSize: 200,
      maxTimeMS: 10_000,
    });
    expect(Object.keys(collectOptionsOf({ maxTimeMs: 1 }, {}))).toEqual(['maxTimeMS']);
  });
});
