import type { OptionsOf, OptionsSchema } from '../../src/core/rule';

/**
 * The clustered-trap rule's options. In their own module so index.ts, analyze.ts and confirm.ts share them without
 * importing each other (no import cycle: test/cycles.test.ts).
 */
export const clusteredTrapOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    examinedRatio: {
      type: 'number',
      exclusiveMinimum: 0,
      default: 1000,
      description:
        'Documents examined per _id asked at which a multi-_id $in counts as the trap: explain read more ' +
        'than this many documents for each value of the $in (2). The default is the ratio at which Atlas ' +
        'raises its Query Targeting alert (Scanned Objects / Returned above 1,000: ' +
        'https://www.mongodb.com/docs/atlas/reference/alert-resolutions/query-targeting/).',
    },
  },
} as const satisfies OptionsSchema;

export type ClusteredTrapOptions = OptionsOf<typeof clusteredTrapOptionsSchema>;
