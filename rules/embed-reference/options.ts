import type { OptionsOf, OptionsSchema } from '../../src/core/rule';

const MiB = 1024 * 1024;

/**
 * The options of embed-reference. The bounds an embedded array must keep (maxChildren, maxEmbeddedBytes,
 * projectionDays, minAgeDays) take array-growth's defaults, so that embedding never makes an array array-growth would
 * then report: this rule owns the decision for a pair of collections, array-growth the arrays already embedded
 * (README, "When not to use it"). Change them together.
 */
export const embedReferenceOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    minJoinCalls: {
      type: 'integer',
      minimum: 1,
      default: 10,
      description:
        'Reads joining the two collections, at the least, for the pair to be judged: fewer say little about the ' +
        "workload. After Dexter's --min-calls; our choice of 10.",
    },
    sampleParents: {
      type: 'integer',
      minimum: 1,
      maximum: 10000,
      default: 200,
      description:
        'Parents whose children are counted (one bounded read of the parent, one $group of their children): ' +
        'the median, p95 and most children per parent come from them. Our choice: enough for a p95, cheap to read.',
    },
    maxChildren: {
      type: 'integer',
      minimum: 1,
      default: 250,
      description:
        'Children per parent, now and at the projected growth, from which they stay referenced: ' +
        "array-growth's infoLength (Compass flags arrays of 250+ elements), so an embedded array never starts as " +
        'one of its findings.',
    },
    maxEmbeddedBytes: {
      type: 'integer',
      minimum: 1,
      default: 2_000_000,
      description:
        "Largest parent with its children embedded, at the projected growth, in bytes: array-growth's " +
        'warnDocBytes (Atlas Schema Suggestions flags documents over 2 MB), far under the 16 MiB limit.',
    },
    projectionDays: {
      type: 'integer',
      minimum: 1,
      default: 365,
      description:
        "Days ahead the children per parent are projected at each parent's own pace: array-growth's " +
        'projectionDays (a year).',
    },
    minAgeDays: {
      type: 'number',
      minimum: 0,
      default: 1,
      description:
        "A parent whose first child is younger than this gives no pace (array-growth's minAgeDays): too little " +
        'time to tell.',
    },
    pairRateFactor: {
      type: 'number',
      minimum: 1,
      default: 2,
      description:
        'Without a $lookup, a find on the child by the parent key beside a find on the parent by _id count as one ' +
        'read when their call counts are within this factor. Our choice: 2, read together most of the time.',
    },
    confirmParents: {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 50,
      description:
        'Parents copied to scratch with all their children for the proof (the run maxDocs and maxBytes bound the ' +
        'copy too). Our choice: enough distinct documents that a timed read is not one cached document.',
    },
    maxBytesLimit: {
      type: 'integer',
      minimum: 1,
      default: 16 * MiB,
      description: "MongoDB's hard limit per document: 16 MiB (16,777,216 bytes), named in the size figures.",
    },
  },
} as const satisfies OptionsSchema;

export type EmbedReferenceOptions = OptionsOf<typeof embedReferenceOptionsSchema>;
