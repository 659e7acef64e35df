import type { OptionsOf, OptionsSchema } from '../../src/core/rule';

const MiB = 1024 * 1024;
/** The benchmark behind the length lines (docs: the rule's README, "Why"). */
export const BENCHMARK =
  'a MongoDB 1.8 benchmark of 10,000 comments of 1 KB, pushed into posts against inserted into a comments collection,';

/**
 * The array-growth rule's options. In their own module so index.ts, analyze.ts and confirm.ts share them without
 * importing each other (no import cycle: test/cycles.test.ts).
 */
export const arrayGrowthOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    infoLength: {
      type: 'integer',
      minimum: 1,
      default: 250,
      description: 'Elements at which an array is worth a look. Compass flags arrays of 250+ elements.',
    },
    warnLength: {
      type: 'integer',
      minimum: 1,
      default: 1000,
      description:
        `Elements at which to warn. In ${BENCHMARK} $push was 2.3x slower than the referenced insert at 1,000 ` +
        `comments per post.`,
    },
    errorLength: {
      type: 'integer',
      minimum: 1,
      default: 10000,
      description:
        `Elements past which it is an error. Atlas flags arrays over 10,000 entries; in ${BENCHMARK} $push ` +
        `was 26.5x slower at 10,000.`,
    },
    warnWithinDays: {
      type: 'number',
      minimum: 0,
      default: 365,
      description: 'Warn when a document reaches the size limit (maxDocBytes) within this many days at its pace.',
    },
    errorWithinDays: {
      type: 'number',
      minimum: 0,
      default: 90,
      description: 'Error when a document reaches the size limit (maxDocBytes) within this many days at its pace.',
    },
    warnDocBytes: {
      type: 'integer',
      minimum: 1,
      default: 2_000_000,
      description:
        'The "warning size" whose projected date is reported, in bytes. Atlas Schema Suggestions flags ' +
        'documents over 2 MB.',
    },
    maxDocBytes: {
      type: 'integer',
      minimum: 1,
      default: 16 * MiB,
      description: "MongoDB's hard limit per document: 16 MiB (16,777,216 bytes).",
    },
    minAgeDays: {
      type: 'number',
      minimum: 0,
      default: 1,
      description:
        'A document filling for fewer days than this (since its creation, or since its oldest dated ' +
        'element) gives no pace: too little time to tell.',
    },
    paceWindowDays: {
      type: 'integer',
      minimum: 1,
      default: 30,
      description:
        'Where elements carry a date: count the elements added in this many days up to the newest one. The ' +
        'collector counts 7, 30, 90 and 365 days; another value takes the longest of those not above it. Our ' +
        'choice: a month, recent enough to be the current pace, long enough to smooth a week.',
    },
    projectionDays: {
      type: 'integer',
      minimum: 1,
      default: 365,
      description:
        'Days ahead the confirmation projects the longest array (its length now + its pace x these days). ' +
        'Our choice: a year, as warnWithinDays.',
    },
    growingWithinDays: {
      type: 'number',
      minimum: 0,
      default: 3650,
      description:
        'An info-level array that reaches the size limit within this many days still counts as growing, so ' +
        'it gets the reference advice rather than "keep embedded, and bound it". Our choice: ten years, a ' +
        'document that will outgrow the limit in its service life.',
    },
    bucketElementBytes: {
      type: 'integer',
      minimum: 1,
      default: 64,
      description:
        'Elements smaller than this (readings, timestamps, ids) suit the bucket pattern better than a child ' +
        'collection.',
    },
  },
} as const satisfies OptionsSchema;

export type ArrayGrowthOptions = OptionsOf<typeof arrayGrowthOptionsSchema>;
