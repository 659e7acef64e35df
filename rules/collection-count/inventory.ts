/**
 * What the collection-count collector returns, in its own module: collect.ts fills it and analyze.ts reads it, and
 * collect.ts also uses analyze.ts' grouping, so neither imports the other's types (no import cycle).
 */

/** An index as listIndexes describes it, options reduced to flags (no filter values). */
export interface IndexDefinition {
  name: string;
  key: Record<string, number | string>;
  unique?: boolean;
  sparse?: boolean;
  partial?: boolean;
  expireAfterSeconds?: number;
  /** Fields of a text index (from its weights): listIndexes shows its key as {_fts: "text", _ftsx: 1}. */
  textFields?: string[];
}

/** A database's index count when some index lists were not read: each unread collection has 0 or 1 to 64 indexes. */
export interface IndexBounds {
  min: number;
  max: number;
  /** Collections whose index lists were not read. */
  unread: number;
}

/** Collection names of one kind in a database, sorted, each with its index set where its index list was read. */
export interface NameList {
  names: string[];
  /** Parallel to `names`: the position of its index set in the inventory's `indexSets`, -1 when not read; absent when
   * none was read. */
  sets?: number[];
}

export interface DatabaseCount {
  name: string;
  /** Collections with a table of their own (system and time-series bucket collections included, views not). */
  collections: number;
  views: number;
  timeseries: number;
  /** Indexes over those collections: exact when every index list was read, else bounds. */
  indexes: number | IndexBounds;
  /** Ordinary collections (system ones left out), for the tenant groups; absent for admin, local and config, and past
   * the name budget. */
  collectionNames?: NameList;
  /** Time-series collections, their index sets read on their system.buckets collections; absent when there are none. */
  timeseriesNames?: NameList;
}

/** What the collection-count collector read: counts per database, names and deduplicated index sets; never a value. */
export interface DeploymentInventory {
  databases: DatabaseCount[];
  /** Each distinct index set read, once; `NameList.sets` point here. */
  indexSets: IndexDefinition[][];
  /** Databases whose names were not kept (past the name budget): their tenant groups were not looked for. */
  namesOmitted?: { databases: number; collections: number };
  /** Databases not counted, with the reason. */
  skipped: { db: string; reason: string }[];
  /** Commands the collector sent. */
  roundTrips: number;
}
