/*
 * Compile-time checks of the types derived from JSON Schemas (src/core/from-schema.ts): the snapshot's
 * (src/core/snapshot-schema.ts) and the collectors' data. There is no hand-written twin left to compare with, so these
 * pin what the code relies on and what FromSchema makes of each construct; test/snapshot-shape.test.ts edits the
 * schemas in memory and shows the derived types follow.
 */
import type { Equals, FromSchema } from '../src/core/from-schema';
import type * as T from '../src/core/types';
import type { OutlierSearch } from '../src/collect/outliers';
import type { IdProfile } from '../rules/id-pattern/id-profile';

/** The derived snapshot types, on facts the code relies on. */
export const derivedChecks = {
  format: true satisfies Equals<T.Snapshot['format'], 'mongo-advisor-snapshot'>,
  level: true satisfies Equals<T.Note['level'], 'info' | 'skipped' | 'error'>,
  capabilities: true satisfies Equals<keyof T.ServerInfo['capabilities'], T.CapabilityName>,
  capability: true satisfies Equals<T.Capability, { supported: boolean | null; evidence: string }>,
  stats: true satisfies Equals<T.CollectionSnapshot['stats'], T.CollectionStats | null>,
  keyShapes: true satisfies Equals<T.KeyShape, 'objectId' | 'uuid' | 'integer' | 'date' | 'code' | 'word'>,
  data: true satisfies Equals<T.DatabaseSnapshot['data'], Record<string, unknown> | undefined>,
  outlierDocs: true satisfies Equals<OutlierSearch['docs'], T.DocProfile[]>,
  idTypes: true satisfies Equals<IdProfile['types'], Partial<Record<T.IdType, number>>>,
};

/** FromSchema itself, on the constructs it knows (a collector's schema may use any of them). */
const _mapOfCounts = { type: 'object', additionalProperties: { type: 'integer' } } as const;
const _countOrRange = {
  anyOf: [
    { type: 'integer' },
    {
      type: 'object',
      required: ['min'],
      additionalProperties: false,
      properties: { min: { type: 'integer' }, max: { type: 'number' } },
    },
  ],
} as const;
const _kinds = {
  type: 'object',
  propertyNames: { enum: ['a', 'b'] },
  additionalProperties: { type: 'string' },
} as const;
const _list = { type: ['array', 'null'], items: { enum: ['x', 'y'] } } as const;

export const fromSchemaChecks = {
  map: true satisfies Equals<FromSchema<typeof _mapOfCounts>, Record<string, number>>,
  union: true satisfies Equals<FromSchema<typeof _countOrRange>, number | { min: number; max?: number }>,
  keys: true satisfies Equals<FromSchema<typeof _kinds>, { a?: string; b?: string }>,
  nullableList: true satisfies Equals<FromSchema<typeof _list>, ('x' | 'y')[] | null>,
  open: true satisfies Equals<FromSchema<{ type: 'object' }>, Record<string, unknown>>,
  unknown: true satisfies Equals<FromSchema<{ description: 'anything' }>, unknown>,
};
