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
    proofDocs: {
      type: 'integer',
      minimum: 1,
      default: 20_000,
      description:
        "Documents copied for the proof on scratch: twice the multi-planner's trial of 10,000 works (MongoDB's " +
        'internalQueryPlanEvaluationWorks, src/mongo/db/query/query_knobs.cpp), so a trial ends before the end of ' +
        "the copy; past the run's default copy limit, never past its byte limit, a --confirm-docs given or the " +
        'collection.',
    },
    plannerTrialWorks: {
      type: 'integer',
      minimum: 1,
      default: 10_000,
      description:
        "A copy smaller than this and than the collection makes the proof inconclusive: the planner's trial would " +
        'read all of it and every plan tie (internalQueryPlanEvaluationWorks, 10,000 in query_knobs.cpp).',
    },
    examinedShare: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.5,
      description:
        'Keys + documents examined with the index must fall to this share of without it (and a compound index ' +
        "beat its prefix by as much again): Dexter's --min-cost-savings-pct, 50 by default (ankane/dexter, " +
        'lib/dexter/client.rb; lib/dexter/indexer.rb holds a multicolumn index to the same bar over its prefix).',
    },
    insertBatch: {
      type: 'integer',
      minimum: 1,
      default: 200,
      description:
        "Documents per timed insert batch of the index's write cost, re-inserted with and without it in alternation " +
        '(bench/README.md, Index proof: a batch takes milliseconds, so the rounds fit the budget).',
    },
  },
} as const satisfies OptionsSchema;

export type QueryIndexesOptions = OptionsOf<typeof queryIndexesOptionsSchema>;
