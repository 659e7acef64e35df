import { formatBytes } from '../../src/core/format';
import { defineRule } from '../../src/core/rule';
import type { Recommendation } from '../../src/core/types';
import { type CompressionOptions, type CompressionStats, compressionStats, zstdSupported } from './analyze';
import { confirmCompression } from './confirm';

export const compressionOptionsSchema = {
  type: 'object' as const,
  additionalProperties: false as const,
  properties: {
    minGain: { type: 'number', minimum: 1, default: 1.3, description: "How much better zstd's ratio must be than the current compressor's, on the same sample, to recommend it: 1.3x (the compression field report: snappy stored 103 GB of Wikipedia in 62 GB where a stronger scheme needed 23 GB)." },
    cacheShare: { type: 'number', exclusiveMinimum: 0, default: 1, description: "Uncompressed data plus indexes, as a share of the WiredTiger cache, past which the collection outgrows it and compressed size decides read speed (the compression field report: 27 GB limit ~13k vs ~1.22M QPS once the smaller copy fit in RAM)." },
    minDataBytes: { type: 'integer', minimum: 0, default: 64 * 1024 * 1024, description: 'Collections smaller than this (uncompressed) get a ratio finding only when they outgrow the cache: our choice, below it the disk and cache saved are too small to be worth recreating the collection.' },
  },
};

const ratio = (r: number | null): string => (r === null ? 'n/a' : `${r.toFixed(1)}:1`);

function recommend(collection: string, s: CompressionStats): Recommendation {
  const target = `${collection}_zstd`;
  return {
    action: 'zstd block compression',
    reason: `The block compressor is fixed when a collection is created: create a zstd copy, copy the documents, rebuild the indexes, then swap names. ${s.outgrowsCache ? 'Data outgrowing the cache is read from disk, where smaller blocks mean fewer reads (the compression field report: compressed blocks in the OS cache beat uncompressed pages when IO is weak).' : 'zstd costs a little more CPU per block than snappy and stores less.'} New collections can default to zstd with the mongod option storage.wiredTiger.collectionConfig.blockCompressor.`,
    commands: [
      `db.createCollection("${target}", { storageEngine: { wiredTiger: { configString: "block_compressor=zstd" } } })`,
      `db.${collection}.aggregate([{ $merge: { into: "${target}" } }])`,
      `db.${collection}.getIndexes()  // create the same indexes on ${target}`,
      `db.${target}.renameCollection("${collection}", true)  // replaces ${collection}: only after checking counts`,
    ],
  };
}

export default defineRule<CompressionOptions>({
  id: 'compression',
  needs: ['serverStatus', 'compressibility'],
  scope: 'collection',
  meta: {
    description: 'Block compressor per collection: zstd when data outgrows the cache or compresses much better',
    docsUrl: 'https://www.mongodb.com/docs/manual/core/wiredtiger/#compression',
    severity: 'info',
    messages: {
      zstdSmaller:
        '`{{collection}}` uses {{current}} ({{serverRatio}} on disk); its sample compresses {{zstdRatio}} with zstd against {{currentRatio}} with {{current}}: {{gain}} smaller{{cacheNote}}.',
      outgrowsCache:
        'Data and indexes of `{{collection}}` ({{dataBytes}} uncompressed) outgrow the WiredTiger cache ({{cacheBytes}}): reads past the cache come from disk, where smaller blocks help. It uses {{current}} ({{serverRatio}} on disk); {{zstdNote}}.',
    },
    options: compressionOptionsSchema,
    requires: { capabilities: [] },
  },
  analyze({ snapshot, collection: c, options, report }) {
    if (!c) return;
    if (snapshot.server.storageEngine !== null && snapshot.server.storageEngine !== 'wiredTiger') return;
    if (!zstdSupported(snapshot.server)) return;
    const s = compressionStats(c, snapshot.server, options);
    if (!s || s.current === 'zstd') return;
    const size = c.stats?.sizeBytes ?? 0;
    const evidence = {
      blockCompressor: s.current,
      serverRatio: s.serverRatio === null ? null : Math.round(s.serverRatio * 100) / 100,
      sizeBytes: size,
      storageSizeBytes: c.stats?.storageSizeBytes ?? null,
      totalIndexSizeBytes: c.stats?.totalIndexSizeBytes ?? null,
      cacheBytes: s.cacheBytes,
      outgrowsCache: s.outgrowsCache,
      sampleRatioSnappy: s.ratios.snappy === null ? null : Math.round(s.ratios.snappy * 100) / 100,
      sampleRatioZlib: s.ratios.zlib === null ? null : Math.round(s.ratios.zlib * 100) / 100,
      sampleRatioZstd: s.ratios.zstd === null ? null : Math.round(s.ratios.zstd * 100) / 100,
      gain: s.gain === null ? null : Math.round(s.gain * 100) / 100,
      sampleDocs: c.compressibility?.docs ?? 0,
      sampleBytes: c.compressibility?.bytes ?? 0,
      serializer: c.compressibility?.serializer ?? null,
    };
    const target = { db: c.db, collection: c.name };
    const cacheNote = s.outgrowsCache && s.cacheBytes !== null ? `, and its data and indexes (${formatBytes(s.dataAndIndexBytes)}) outgrow the cache (${formatBytes(s.cacheBytes)})` : '';
    if (s.gain !== null && s.gain >= options.minGain && (size >= options.minDataBytes || s.outgrowsCache)) {
      report({
        messageId: 'zstdSmaller',
        severity: s.outgrowsCache ? 'warn' : 'info',
        target,
        data: {
          collection: c.name,
          current: s.current,
          serverRatio: ratio(s.serverRatio),
          zstdRatio: ratio(s.ratios.zstd),
          currentRatio: ratio(s.currentRatio),
          gain: `${s.gain.toFixed(2)}x`,
          cacheNote,
        },
        evidence,
        recommendation: recommend(c.name, s),
      });
      return;
    }
    if (s.outgrowsCache && s.cacheBytes !== null && (s.gain === null || s.gain > 1)) {
      report({
        messageId: 'outgrowsCache',
        severity: 'warn',
        target,
        data: {
          collection: c.name,
          dataBytes: formatBytes(s.dataAndIndexBytes),
          cacheBytes: formatBytes(s.cacheBytes),
          current: s.current,
          serverRatio: ratio(s.serverRatio),
          zstdNote: s.gain === null ? `zstd's gain could not be measured here (${s.gainUnknown ?? 'unknown'})` : `its sample compresses ${ratio(s.ratios.zstd)} with zstd, ${s.gain.toFixed(2)}x smaller than with ${s.current}`,
        },
        evidence,
        recommendation: recommend(c.name, s),
      });
    }
  },
  confirm: { describe: 'the same documents in scratch collections created with each block compressor: storageSize after fsync, and full-scan read time', run: confirmCompression },
});
