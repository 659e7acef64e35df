import type { FromSchema } from '../../src/core/from-schema';

/**
 * What the collection-count collector returns, in its own module: collect.ts fills it and analyze.ts reads it, and
 * collect.ts also uses analyze.ts' grouping, so neither imports the other's types (no import cycle). The types are
 * the ones its JSON Schema describes.
 */

const nonNegInt = { type: 'integer', minimum: 0 } as const;

/** Collection names of one kind in a database, sorted, each with its index set where its index list was read. */
const nameList = {
  type: 'object',
  required: ['names'],
  additionalProperties: false,
  properties: {
    names: { type: 'array', items: { type: 'string' } },
    /**
     * Parallel to `names`: the position of its index set in the inventory's `indexSets`, -1 when not read; absent
     * when none was read.
     */
    sets: { type: 'array', items: { type: 'integer', minimum: -1 } },
  },
} as const;

/** An index as listIndexes describes it, options reduced to flags (no filter values). */
const indexDefinition = {
  type: 'object',
  required: ['name', 'key'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    /**
     * Index key values are directions (numbers) or index types (text, 2dsphere, hashed…): a word, never a document
     * value.
     */
    key: {
      type: 'object',
      additionalProperties: { anyOf: [{ type: 'number' }, { type: 'string', pattern: '^[A-Za-z0-9_]{1,32}$' }] },
    },
    unique: { type: 'boolean' },
    sparse: { type: 'boolean' },
    partial: { type: 'boolean' },
    expireAfterSeconds: { type: 'number' },
    /** Fields of a text index (from its weights): listIndexes shows its key as {_fts: "text", _ftsx: 1}. */
    textFields: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** A database's index count when some index lists were not read: each unread collection has 0 or 1 to 64 indexes. */
const indexBounds = {
  type: 'object',
  required: ['min', 'max', 'unread'],
  additionalProperties: false,
  properties: {
    min: nonNegInt,
    max: nonNegInt,
    /** Collections whose index lists were not read. */
    unread: nonNegInt,
    /**
     * Read by groups (src/collect/groups.ts): the index count with each unread group member counted as its group's
     * representatives are (their most common number of indexes).
     */
    estimate: nonNegInt,
  },
} as const;

/** A group of alike-named collections the core read through representatives: counted, never listed. */
const groupCount = {
  type: 'object',
  required: ['pattern', 'kind', 'members', 'examples', 'sets'],
  additionalProperties: false,
  properties: {
    pattern: { type: 'string' },
    kind: { enum: ['collection', 'timeseries'] },
    members: nonNegInt,
    examples: { type: 'array', items: { type: 'string' } },
    /** The representatives' index sets (positions in `indexSets`; -1 when a list could not be read). */
    sets: { type: 'array', items: { type: 'integer', minimum: -1 } },
  },
} as const;

const databaseCount = {
  type: 'object',
  required: ['name', 'collections', 'views', 'timeseries', 'indexes'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    /** Collections with a table of their own (system and time-series bucket collections included, views not). */
    collections: nonNegInt,
    views: nonNegInt,
    timeseries: nonNegInt,
    /** Indexes over those collections: exact when every index list was read, else bounds. */
    indexes: { anyOf: [nonNegInt, indexBounds] },
    /**
     * Ordinary collections (system ones left out), for the tenant groups; absent for admin, local and config, and
     * past the name budget.
     */
    collectionNames: nameList,
    /** Time-series collections, their index sets read on their system.buckets collections; absent when none. */
    timeseriesNames: nameList,
    /**
     * Many-collection databases: the groups the core read through representatives (their members are in neither
     * name list, so the snapshot stays linear in groups, not collections).
     */
    groups: { type: 'array', items: groupCount },
  },
} as const;

/** What the collection-count collector read: counts per database, names and deduplicated index sets; never a value. */
export const INVENTORY_SCHEMA = {
  type: 'object',
  required: ['databases', 'indexSets', 'skipped', 'roundTrips'],
  additionalProperties: false,
  properties: {
    databases: { type: 'array', items: databaseCount },
    /** Each distinct index set read, once; `NameList.sets` point here. */
    indexSets: { type: 'array', items: { type: 'array', items: indexDefinition } },
    /** Databases whose names were not kept (past the name budget): their tenant groups were not looked for. */
    namesOmitted: {
      type: 'object',
      required: ['databases', 'collections'],
      additionalProperties: false,
      properties: { databases: nonNegInt, collections: nonNegInt },
    },
    /** Databases not counted, with the reason. */
    skipped: {
      type: 'array',
      items: {
        type: 'object',
        required: ['db', 'reason'],
        additionalProperties: false,
        properties: { db: { type: 'string' }, reason: { type: 'string' } },
      },
    },
    /** Commands the collector sent. */
    roundTrips: nonNegInt,
  },
} as const;

export type IndexDefinition = FromSchema<typeof indexDefinition>;
export type IndexBounds = FromSchema<typeof indexBounds>;
export type NameList = FromSchema<typeof nameList>;
export type DatabaseCount = FromSchema<typeof databaseCount>;
export type GroupCount = FromSchema<typeof groupCount>;
export type DeploymentInventory = FromSchema<typeof INVENTORY_SCHEMA>;
