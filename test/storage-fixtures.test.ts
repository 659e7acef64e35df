import { describe, expect, it } from 'vitest';
import { collStatsOf } from '../src/collect/coll-stats';
import { rows } from './fixtures/mongodb/collstats-sharded';

describe('$collStats as MongoDB returns it (fixture from the manual)', () => {
  it('sums count, sizes and reusable space over the shards; count from the top-level field of `count: {}`', () => {
    const s = collStatsOf(rows);
    expect(s).toMatchObject({
      count: 500,
      sizeBytes: 50_000,
      storageSizeBytes: 28_672,
      totalIndexSizeBytes: 16_384,
      nindexes: 2,
      blockCompressor: 'snappy',
      freeStorageSizeBytes: 1_600,
    });
    expect(s.avgObjSize).toBe(100);
  });

  it('the top-level count wins over storageStats.count (metadata that can drift after an unclean shutdown)', () => {
    const drifted = rows.map((r) => ({ ...r, storageStats: { ...r.storageStats, count: 1 } }));
    expect(collStatsOf(drifted).count).toBe(500);
    // without `count: {}` in the request, storageStats.count is all there is
    const noCount = rows.map(({ count: _c, ...r }) => r);
    expect(collStatsOf(noCount).count).toBe(500);
  });

  it('a server that does not report freeStorageSize (before 4.4) leaves it unknown, not 0', () => {
    const old = rows.map((r) => {
      const { freeStorageSize: _f, ...st } = r.storageStats;
      return { ...r, storageStats: st };
    });
    expect(collStatsOf(old).freeStorageSizeBytes).toBeUndefined();
  });
});
