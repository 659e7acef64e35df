import type { OptionsOf, OptionsSchema } from '../../src/core/rule';

/** The query-indexes rule's options, shared by index.ts and analyze.ts (no import cycle). */
export const queryIndexesOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    wastedDocsPerCall: {
      type: 'integer',
      minimum: 0,
      default: 500,
      description:
        'Documents read and not returned per call (docsExamined - nreturned) past which a shape no index serves ' +
        'fully is reported: the line the workload room takes from Atlas Performance Advisor (shape-stats.ts).',
    },
    maxPerCollection: {
      type: 'integer',
      minimum: 1,
      default: 3,
      description:
        'Most indexes proposed per collection, ranked by the time of the shapes they serve: each index costs ' +
        'every insert and every update of its fields (src/workload/candidates.ts).',
    },
  },
} as const satisfies OptionsSchema;

export type QueryIndexesOptions = OptionsOf<typeof queryIndexesOptionsSchema>;
