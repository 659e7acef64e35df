import { dataOf } from '../../src/core/collector';
// Names in comments go through shellKey: bare when plain, quoted (so no newline ends the comment) otherwise.
import { shellCall, shellDbCall, shellKey } from '../../src/lib/shell';
import { formatBytes } from '../../src/core/format';
import { defineRule, type Report, sentence } from '../../src/core/rule';
import type { CollectionSnapshot, Recommendation, Snapshot } from '../../src/core/types';
import { serverStatus } from '../../src/collect/server-status';
import { type CompressionStats, compressionStats, supportNotes, zstdSupported } from './analyze';
import { compressibility } from './collect';
import { CONFIRM_MESSAGES, confirmCompression } from './confirm';
import { type CompressionOptions, compressionOptionsSchema } from './options';

export { compressionOptionsSchema, type CompressionOptions } from './options';

const ratio = (r: number | null): string => (r === null ? 'n/a' : `${r.toFixed(1)}:1`);

/** Why zstd pays when the data outgrows the cache: a published benchmark of reads from disk. */
const WHY_OUTGROWING =
  'Data outgrowing the cache is read from disk, where smaller blocks mean fewer reads: in a benchmark of ' +
  'WiredTiger against a searchable-compression engine (TerarkDB) on 103 GB of Wikipedia, random reads under a ' +
  '12 GB memory limit ran at ~6.7k QPS on WiredTiger against ~140k QPS on the smaller copy, whose compressed ' +
  'blocks stayed in the OS cache.';
const WHY_FITTING = 'zstd costs a little more CPU per block than snappy and stores less.';

function recommend(db: string, collection: string, s: CompressionStats): Recommendation {
  const target = `${collection}_zstd`;
  return {
    action: 'zstd block compression',
    reason:
      'The block compressor is fixed when a collection is created: create a zstd copy, copy the documents, ' +
      `rebuild the indexes, then swap names. ${s.outgrowsCache ? WHY_OUTGROWING : WHY_FITTING} ` +
      'New collections can default to zstd with the mongod option storage.wiredTiger.collectionConfig.blockCompressor.',
    commands: [
      shellDbCall(db, 'createCollection', target, {
        storageEngine: { wiredTiger: { configString: 'block_compressor=zstd' } },
      }),
      shellCall(db, collection, 'aggregate', [{ $merge: { into: target } }]),
      `${shellCall(db, collection, 'getIndexes')}  // create the same indexes on ${shellKey(target)}`,
    ],
    later: {
      // renameCollection with dropTarget replaces the original: never in the block pasted to make the copy.
      when: "after checking the copy's count matches the original's and its indexes are rebuilt",
      commands: [shellCall(db, target, 'renameCollection', collection, true)],
    },
  };
}

const SAMPLE = sentence(
  '`{{collection}}` uses {{current}} ({{serverRatio}}); its sample compresses {{zstdRatio}} with zstd ',
  'against {{currentRatio}} with {{current}}: {{gain}}x smaller',
);
const OUTGROWS = sentence(
  'Data and indexes of `{{collection}}` ({{dataBytes}} uncompressed) outgrow the WiredTiger cache ',
  '({{cacheBytes}}): reads past the cache come from disk, where smaller blocks help. It uses {{current}} ',
  '({{serverRatio}});',
);

const messages = {
  zstdSmaller: `${SAMPLE}.`,
  zstdSmallerOutgrowsCache: `${SAMPLE}, and its data and indexes ({{dataBytes}}) outgrow the cache ({{cacheBytes}}).`,
  outgrowsCache: `${OUTGROWS} its sample compresses {{zstdRatio}} with zstd, {{gain}}x smaller than with {{current}}.`,
  outgrowsCacheGainUnknown: `${OUTGROWS} zstd's gain could not be measured here ({{reason}}).`,
} as const;

const round2 = (n: number | null): number | null => (n === null ? null : Math.round(n * 100) / 100);

function analyzeCollection(
  c: CollectionSnapshot,
  snapshot: Snapshot,
  options: CompressionOptions,
  report: Report<typeof messages>,
): void {
  const s = compressionStats(c, snapshot.server, options);
  if (!s || s.current === 'zstd') return;
  const size = c.stats?.sizeBytes ?? 0;
  const comp = dataOf(compressibility, c);
  const finding = {
    target: { db: c.db, collection: c.name },
    evidence: {
      blockCompressor: s.current,
      serverRatio: round2(s.serverRatio),
      freeStorageSizeBytes: s.freeBytes,
      sizeBytes: size,
      storageSizeBytes: c.stats?.storageSizeBytes ?? null,
      totalIndexSizeBytes: c.stats?.totalIndexSizeBytes ?? null,
      cacheBytes: s.cacheBytes,
      outgrowsCache: s.outgrowsCache,
      sampleRatioSnappy: round2(s.ratios.snappy),
      sampleRatioZlib: round2(s.ratios.zlib),
      sampleRatioZstd: round2(s.ratios.zstd),
      gain: round2(s.gain),
      sampleDocs: comp?.docs ?? 0,
      sampleBytes: comp?.bytes ?? 0,
      serializer: comp?.serializer ?? null,
    },
    recommendation: recommend(c.db, c.name, s),
  };
  // the on-disk ratio says whether reusable space was left out of it (freeStorageSize) or could not be
  const reusable =
    s.freeBytes === null
      ? '; reusable space not reported'
      : s.freeBytes > 0
        ? `, net of ${formatBytes(s.freeBytes)} reusable`
        : '';
  const onDisk = s.serverRatio === null ? 'n/a on disk' : `${ratio(s.serverRatio)} on disk${reusable}`;
  const on = { collection: c.name, current: s.current, serverRatio: onDisk };
  if (s.gain !== null && s.gain >= options.minGain && (size >= options.minDataBytes || s.outgrowsCache)) {
    const sample = {
      ...on,
      zstdRatio: ratio(s.ratios.zstd),
      currentRatio: ratio(s.currentRatio),
      gain: s.gain.toFixed(2),
    };
    // outgrowsCache implies a known cache size
    if (s.outgrowsCache && s.cacheBytes !== null)
      report({
        ...finding,
        messageId: 'zstdSmallerOutgrowsCache',
        severity: 'warn',
        data: { ...sample, dataBytes: formatBytes(s.dataAndIndexBytes), cacheBytes: formatBytes(s.cacheBytes) },
      });
    else report({ ...finding, messageId: 'zstdSmaller', severity: 'info', data: sample });
    return;
  }
  if (s.outgrowsCache && s.cacheBytes !== null && (s.gain === null || s.gain > 1)) {
    const cache = { ...on, dataBytes: formatBytes(s.dataAndIndexBytes), cacheBytes: formatBytes(s.cacheBytes) };
    if (s.gain === null)
      report({
        ...finding,
        messageId: 'outgrowsCacheGainUnknown',
        severity: 'warn',
        data: { ...cache, reason: s.gainUnknown ?? 'unknown' },
      });
    else
      report({
        ...finding,
        messageId: 'outgrowsCache',
        severity: 'warn',
        data: { ...cache, zstdRatio: ratio(s.ratios.zstd), gain: s.gain.toFixed(2) },
      });
  }
}

export default defineRule({
  id: 'compression',
  needs: [serverStatus, compressibility],
  // One pass over every collection: what keeps the rule from advising is said once for the whole run (the cause is the
  // server).
  scope: 'snapshot',
  meta: {
    description: 'Block compressor per collection: zstd when data outgrows the cache or compresses much better',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/wiredtiger/#compression',
    // Data outgrowing the cache: the page's section on the WiredTiger cache, not the compression one.
    docsUrls: {
      outgrowsCache: 'https://www.mongodb.com/docs/manual/core/wiredtiger/#memory-use',
      outgrowsCacheGainUnknown: 'https://www.mongodb.com/docs/manual/core/wiredtiger/#memory-use',
    },
    severity: 'info',
    messages,
    options: compressionOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, options, report, note }) {
    for (const n of supportNotes(snapshot)) note(n.message, undefined, n.level, n.gap);
    if (snapshot.server.storageEngine !== null && snapshot.server.storageEngine !== 'wiredTiger') return;
    if (!zstdSupported(snapshot.server)) return;
    for (const db of snapshot.databases) {
      for (const c of db.collections) if (c.type === 'collection') analyzeCollection(c, snapshot, options, report);
    }
  },
  confirm: {
    describe:
      'the same documents in scratch collections created with each block compressor: storageSize after ' +
      'fsync, and full-scan read time',
    messages: CONFIRM_MESSAGES,
    run: confirmCompression,
  },
});
