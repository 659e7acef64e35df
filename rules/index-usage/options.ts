import type { OptionsOf, OptionsSchema } from '../../src/core/rule';

/**
 * The index-usage rule's options. In their own module so index.ts, analyze.ts and confirm.ts share them without
 * importing each other (no import cycle: test/cycles.test.ts).
 */
export const indexUsageOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    warmupDays: {
      type: 'number',
      minimum: 0,
      default: 7,
      description:
        'Counters younger than this prove nothing (they restart with the server and when an index is ' +
        'built): Atlas calls an index unused after no use for 7+ days.',
    },
    unusedMaxOps: {
      type: 'integer',
      minimum: 0,
      default: 0,
      description:
        'Uses ($indexStats accesses.ops summed over every member read) at or below which an index counts as ' +
        'unused: pt-mongodb-index-check flags accesses.ops == 0.',
    },
    warnIndexes: {
      type: 'integer',
      minimum: 1,
      default: 10,
      description:
        "More indexes than this on one collection is a warning: Compass's too-many-indexes signal is more " +
        'than 10 per collection.',
    },
    errorIndexes: {
      type: 'integer',
      minimum: 1,
      default: 30,
      description:
        'More indexes than this on one collection is an error: Atlas flags more than 30 indexes per collection.',
    },
    cacheShareWarn: {
      type: 'number',
      exclusiveMinimum: 0,
      default: 0.5,
      description:
        "Share of the WiredTiger cache (serverStatus wiredTiger.cache['maximum bytes configured']) the " +
        'indexes of the database may take before a warning. Past half, documents compete with indexes for ' +
        'the cache; once the working set outgrows it, reads go to disk: in a benchmark of random reads on ' +
        '103 GB of Wikipedia under a 27 GB memory limit, WiredTiger (62 GB on disk with snappy, so not in ' +
        'memory) served ~13k QPS against ~1.22M QPS for a compressed engine (TerarkDB) whose 23 GB copy fit.',
    },
  },
} as const satisfies OptionsSchema;

/** The options as the rule receives them, derived from the schema. */
export type IndexUsageOptions = OptionsOf<typeof indexUsageOptionsSchema>;
