import type { OptionsOf, OptionsSchema } from '../../src/core/rule';

const MiB = 1024 * 1024;

/**
 * The document-size rule's options. In their own module so index.ts, analyze.ts and confirm.ts share them without
 * importing each other (no import cycle: test/cycles.test.ts).
 */
export const documentSizeOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    infoBytes: {
      type: 'integer',
      minimum: 1,
      default: 2_000_000,
      description:
        'Document size worth a look: Atlas Schema Suggestions flag documents over 2 MB (Atlas ' +
        "documentation, 'Reduce the Size of Large Documents').",
    },
    warnBytes: {
      type: 'integer',
      minimum: 1,
      default: 10_000_000,
      description: "Document size to warn at: Compass's performance insights flag documents over 10,000,000 bytes.",
    },
    errorShare: {
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 1,
      default: 0.8,
      description:
        'Share of the 16 MiB limit at which it is an error: our choice, leaving 20% of headroom before ' +
        "writes to the document fail (MongoDB's manual, Limits and Thresholds: 16 MiB per document).",
    },
    maxDocBytes: {
      type: 'integer',
      minimum: 1,
      default: 16 * MiB,
      description: "MongoDB's hard limit per document: 16 MiB (MongoDB's manual, Limits and Thresholds).",
    },
    arrayShare: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: 0.5,
      description:
        'Share of the document an array must hold for the finding to point to array-growth: our choice ' +
        '(half the document).',
    },
  },
} as const satisfies OptionsSchema;

export type DocumentSizeOptions = OptionsOf<typeof documentSizeOptionsSchema>;
