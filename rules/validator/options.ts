import type { OptionsOf, OptionsSchema } from '../../src/core/rule';
import { NOISE_MARGIN } from '../../src/core/stats';

/**
 * The validator rule's options. In their own module so the collector (collect.ts), which counts the proposal made
 * with the defaults, and the rule (index.ts) share them without importing each other.
 */
export const validatorOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    requiredShare: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 1,
      description:
        'Share of the documents holding an object (the sampled documents, for top-level fields) in which a ' +
        'field must be present and not null to be proposed as required; only from a random sample or a read ' +
        "of every document (a natural-order sample requires nothing but `_id`). 1, every one, as Compass' " +
        'schema engine does (mongodb-schema 12.7, convertInternalToMongodb: required only at probability 1). ' +
        'Below 1 the proposal requires fields some documents lack: it then starts as moderate/warn.',
    },
    minSample: {
      type: 'integer',
      minimum: 1,
      default: 20,
      description:
        "Fewest sampled documents to propose a validator from: mongosh's analyze-schema snippet never " +
        'samples fewer than 20.',
    },
    proposeEnums: {
      type: 'boolean',
      default: false,
      description:
        "Opt-in, and only when every document was read (a sample cannot show a field's closed list of " +
        "values): give low-cardinality string fields an enum. Off by default because an enum freezes today's " +
        'values (a new status would be rejected) and because the values are document data, which reports ' +
        'never print: the proposal reads them on your server with distinct() when you run it.',
    },
    enumMaxDistinct: {
      type: 'integer',
      minimum: 1,
      maximum: 64,
      default: 10,
      description:
        'With proposeEnums: most distinct strings for a field to get an enum (the collector counts up to 64).',
    },
    enumMinOccurrences: {
      type: 'integer',
      minimum: 1,
      default: 10,
      description:
        'With proposeEnums: each distinct value must be seen this many times on average, so a field with ' +
        'few documents is not mistaken for a closed list.',
    },
    maxProperties: {
      type: 'integer',
      minimum: 1,
      default: 100,
      description:
        'Objects with more keys than this look like maps keyed by data (ids, dates) that the profiler did ' +
        'not fold: the proposal leaves them open (any keys, any values) instead of listing every key, and ' +
        'says so. Maps the profiler folded get one schema for all their values (additionalProperties).',
    },
    maxDepth: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 10,
      description:
        'Deepest level the proposal describes (top-level fields are level 1; array elements and map values ' +
        'count as a level). Below it, values are typed but their contents are left out: they accept ' +
        "anything, so the cap rejects nothing, and the finding names what was left out. 10 is the advisor's " +
        'own choice for a proposal a person can read (MongoDB allows 100 levels of nesting; no tool ' +
        'publishes a cap).',
    },
    maxFields: {
      type: 'integer',
      minimum: 1,
      default: 300,
      description:
        'Most field paths the proposal types: shallower and more common paths first; the rest are left out ' +
        "(they accept anything) and the finding counts and names them. 300 is the advisor's own choice for a " +
        'command a person can review (no tool publishes a cap).',
    },
    noiseRatio: {
      type: 'number',
      minimum: 1,
      default: NOISE_MARGIN,
      description:
        'Confirmation: a validator costing at most this ratio of the time without it counts as negligible ' +
        '("within noise"). The default is the noise margin every timed verdict clears (NOISE_MARGIN, ' +
        'src/core/stats.ts: reruns here moved a ratio near 1 by up to 10%, bench/README.md ' +
        'confirm-stability); the published YCSB benchmark (10M x 1 KB documents, 100 threads, with and ' +
        'without a validator) saw throughput differ by up to 7% either way (r10/i90: 112k vs 120k ops/s).',
    },
    costlyRatio: {
      type: 'number',
      minimum: 1,
      default: 2,
      description:
        'Confirmation: writes with the validator taking at least this ratio of the time without it make it ' +
        'costly, and the finding is refuted. 2 (the check costs as much as the write itself) is the ' +
        "advisor's own line, well clear of benchmark noise (noiseRatio): between the two the cost is " +
        'measurable, reported with its figure and interval, and left to your judgement. The verdict turns on ' +
        'it, not on noiseRatio, because a cost of 10-30% sits within a few percent of noiseRatio on many ' +
        'servers and would flip between runs.',
    },
  },
} as const satisfies OptionsSchema;

export type ValidatorOptions = OptionsOf<typeof validatorOptionsSchema>;
