import type { OptionsOf, OptionsSchema } from '../../src/core/rule';
import { NOISE_MARGIN } from '../../src/core/stats';

/**
 * The id-pattern rule's options. In their own module so index.ts, analyze.ts and confirm.ts share them without
 * importing each other (no import cycle: test/cycles.test.ts).
 */
export const idPatternOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    monotonicThreshold: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0.7,
      description:
        'Spearman correlation of _id order with natural (insertion) order at which _id is monotonic: the ' +
        "server's own analyzeShardKey line.",
    },
    randomThreshold: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0.3,
      description: 'Below this absolute correlation (with high leading-byte entropy) a non-UUID _id is random.',
    },
    randomEntropyShare: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0.8,
      description:
        "Entropy of _id's first byte (a UUID string's first decoded byte), as a share of the most the " +
        'sample can show (min(8, log2 n) bits), at which leading bytes count as random: it confirms a UUID ' +
        'v4 and refutes a v6/v7. Random bytes score 0.88-0.99 even in samples of 20 (simulated); ObjectId ' +
        'and UUID v7 lead with a timestamp and score near 0.',
    },
    smallIdBytes: {
      type: 'integer',
      minimum: 1,
      default: 16,
      description:
        "Largest _id (bytes of the value) still small enough to cluster on: a binary UUID's 16 bytes; ObjectId is 12.",
    },
    minSample: {
      type: 'integer',
      minimum: 2,
      default: 20,
      description:
        "Fewest _ids needed to judge their order or their leading bytes' entropy (mongosh analyze-schema's " +
        "minimum sample); below it a UUID's version digit alone decides.",
    },
    recordIdBytes: {
      type: 'integer',
      minimum: 1,
      default: 8,
      description:
        'Bytes of the recordId a regular collection stores in each secondary index entry (a 64-bit ' +
        'integer); an _id of this size or less makes no index grow.',
    },
    scanMargin: {
      type: 'number',
      minimum: 1,
      default: NOISE_MARGIN,
      description:
        'How far apart the clustered and regular _id range scans must be for the confirmation to give a ' +
        'verdict (1.1: a 10% difference): supported below 1 / scanMargin, refuted above scanMargin; closer, ' +
        'it is inconclusive. The default is the noise margin every timed verdict clears (NOISE_MARGIN, ' +
        'src/core/stats.ts): at 7-21 timed pairs on a loaded machine, differences under 10% flipped verdicts ' +
        'between reruns (bench/README.md, confirm-stability).',
    },
    clusterMinBytes: {
      type: 'integer',
      minimum: 0,
      default: 104_857_600,
      description:
        'Data size (collStats size, uncompressed) below which no clustering advice is given, for or ' +
        "against: 100 MB, the PMM advisors' floor for storage-layout findings (they check fragmentation only " +
        'on collections over 100 MB). Below it the _id index a clustered collection saves is small and both ' +
        'layouts sit in cache.',
    },
  },
} as const satisfies OptionsSchema;

export type IdPatternOptions = OptionsOf<typeof idPatternOptionsSchema>;
