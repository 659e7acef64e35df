/*
 * Compile-time proof that the snapshot's TypeScript types (src/core/types.ts) and its JSON Schema
 * (src/core/snapshot-file.ts) describe the same shape: each line below fails `tsc` when a field is added, removed,
 * made optional or retyped on one side only. test/snapshot-shape.test.ts plants such drifts and expects failures.
 */
import type { Equals, FromSchema } from '../src/core/from-schema';
import type { SNAPSHOT_JSON_SCHEMA } from '../src/core/snapshot-file';
import type * as T from '../src/core/types';
import type { OUTLIER_SEARCH_SCHEMA, OutlierSearch } from '../src/collect/outliers';
import type { ID_PROFILE_SCHEMA } from '../rules/id-pattern/collect';
import type { IdProfile } from '../rules/id-pattern/id-profile';

type Root = typeof SNAPSHOT_JSON_SCHEMA;
type Props = Root['properties'];
type Collection = Props['databases']['items']['properties']['collections']['items'];
type Sample = Collection['properties']['sample'];
type Doc = Sample['properties']['docs']['items'];
type Of<S> = NonNullable<FromSchema<S>>;
type Capabilities = Props['server']['properties']['capabilities'];

export const shapeChecks = {
  snapshot: true satisfies Equals<FromSchema<Root>, T.Snapshot>,
  server: true satisfies Equals<Of<Props['server']>, T.ServerInfo>,
  capability: true satisfies Equals<Of<Capabilities['additionalProperties']>, T.Capability>,
  collectorRun: true satisfies Equals<Of<Props['collectors']['items']>, T.CollectorRun>,
  privileges: true satisfies Equals<Of<Props['privileges']>, T.PrivilegeSummary>,
  note: true satisfies Equals<Of<Props['notes']['items']>, T.Note>,
  target: true satisfies Equals<Of<Props['notes']['items']['properties']['target']>, T.Target>,
  database: true satisfies Equals<Of<Props['databases']['items']>, T.DatabaseSnapshot>,
  collection: true satisfies Equals<Of<Collection>, T.CollectionSnapshot>,
  stats: true satisfies Equals<Of<Collection['properties']['stats']>, T.CollectionStats>,
  index: true satisfies Equals<Of<Collection['properties']['indexes']['items']>, T.IndexSnapshot>,
  sample: true satisfies Equals<Of<Sample>, T.SampleSnapshot>,
  doc: true satisfies Equals<Of<Doc>, T.DocProfile>,
  array: true satisfies Equals<Of<Doc['properties']['arrays']['items']>, T.ArrayProfile>,
  idProfile: true satisfies Equals<Of<typeof ID_PROFILE_SCHEMA>, IdProfile>,
  field: true satisfies Equals<Of<Sample['properties']['fields']['additionalProperties']>, T.FieldProfile>,
  dynamicKey: true satisfies Equals<Of<Sample['properties']['dynamicKeys']['items']>, T.DynamicKeyProfile>,
  outliers: true satisfies Equals<Of<typeof OUTLIER_SEARCH_SCHEMA>, OutlierSearch>,
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
