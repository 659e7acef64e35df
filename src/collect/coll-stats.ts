/**
 * `$collStats: { storageStats: {}, count: {} }` read into one CollectionStats. Pure: no I/O.
 * https://www.mongodb.com/docs/manual/reference/operator/aggregation/collStats/: one document per shard through mongos
 * (each with `shard`), one on a replica set or standalone. `count: {}` puts the document count at the top level of each
 * row (`count: <n>`); `storageStats` holds `count` too, from the storage engine's metadata. `freeStorageSize` (4.4+) is
 * the space inside the files that WiredTiger can reuse: part of `storageSize`, but not compressed data.
 */
import type { Doc } from '../adapters/types';
import type { CollectionStats } from '../core/types';

const num = (v: unknown): number => (v === undefined || v === null ? 0 : Number(v));

export function collStatsOf(rows: readonly Doc[]): CollectionStats {
  const s: CollectionStats = {
    count: 0,
    sizeBytes: 0,
    avgObjSize: 0,
    storageSizeBytes: 0,
    totalIndexSizeBytes: 0,
    nindexes: 0,
    blockCompressor: null,
  };
  let free: number | null = null;
  for (const r of rows) {
    const st = (r.storageStats as Doc | undefined) ?? {};
    // the top-level count of `count: {}`; an older reply nesting it, or storageStats.count, stands in for it
    const nested =
      typeof r.count === 'object' && r.count !== null && 'count' in r.count ? (r.count as Doc).count : undefined;
    const top = nested ?? r.count;
    s.count += num(top ?? st.count);
    s.sizeBytes += num(st.size);
    s.storageSizeBytes += num(st.storageSize);
    s.totalIndexSizeBytes += num(st.totalIndexSize);
    s.nindexes = Math.max(s.nindexes, num(st.nindexes));
    if (st.freeStorageSize !== undefined && st.freeStorageSize !== null) free = (free ?? 0) + num(st.freeStorageSize);
    const creation = ((st.wiredTiger as Doc | undefined)?.creationString as string | undefined) ?? '';
    const m = /block_compressor=(\w*)/.exec(creation);
    if (m) s.blockCompressor = m[1] || 'none';
  }
  s.avgObjSize = s.count > 0 ? s.sizeBytes / s.count : 0;
  if (free !== null) s.freeStorageSizeBytes = free;
  return s;
}
