import type { OptionsOf, OptionsSchema } from '../../src/core/rule';

/**
 * The compression rule's options. In their own module so index.ts, analyze.ts and confirm.ts share them without
 * importing each other (no import cycle: test/cycles.test.ts).
 */
export const compressionOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    minGain: {
      type: 'number',
      minimum: 1,
      default: 1.3,
      description:
        "How much better zstd's ratio must be than the current compressor's, on the same sample, to " +
        'recommend it: 1.3x, our line below the gap in a benchmark of WiredTiger against a ' +
        'searchable-compression engine (TerarkDB) on 103 GB of Wikipedia, where WiredTiger with snappy ' +
        'stored 62 GB and the stronger compression 23 GB.',
    },
    cacheShare: {
      type: 'number',
      exclusiveMinimum: 0,
      default: 1,
      description:
        'Uncompressed data plus indexes, as a share of the WiredTiger cache, past which the collection ' +
        'outgrows it and compressed size decides read speed: in a benchmark of WiredTiger against a ' +
        'searchable-compression engine (TerarkDB) on 103 GB of Wikipedia, random reads under a 27 GB memory ' +
        "limit ran at ~13k QPS on WiredTiger's 62 GB against ~1.22M QPS on the 23 GB copy that fit.",
    },
    minDataBytes: {
      type: 'integer',
      minimum: 0,
      default: 64 * 1024 * 1024,
      description:
        'Collections smaller than this (uncompressed) get a ratio finding only when they outgrow the cache: ' +
        'our choice, below it the disk and cache saved are too small to be worth recreating the collection.',
    },
  },
} as const satisfies OptionsSchema;

export type CompressionOptions = OptionsOf<typeof compressionOptionsSchema>;
