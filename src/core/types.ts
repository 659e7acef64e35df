/**
 * The data that flows through the advisor: collect -> Snapshot -> analyze -> Finding[] -> confirm -> report.
 * Everything here is plain JSON: no driver objects, no document values.
 */

export type Severity = 'info' | 'warn' | 'error';
export const SEVERITIES: readonly Severity[] = ['info', 'warn', 'error'];
export const severityRank = (s: Severity): number => SEVERITIES.indexOf(s);

/** Capabilities collect proves by asking the server (read-only probes), never by version alone. */
export type CapabilityName =
  | 'sample'
  | 'indexStats'
  | 'bsonSize'
  | 'arraySize'
  | 'collStats'
  | 'validators'
  | 'clusteredCollections'
  | 'collMod';

export interface Capability {
  /** true: proven; false: proven missing; null: not probed (the reason says why). */
  supported: boolean | null;
  /** How it was established, e.g. "aggregate $sample answered" or "error 59: no such command". */
  evidence: string;
}

export interface ServerInfo {
  version: string;
  versionArray: number[];
  /** `ferretdb` when buildInfo carries ferretdbVersion; such a server answers MongoDB's wire protocol. */
  flavor: 'mongodb' | 'ferretdb';
  storageEngine: string | null;
  topology: 'standalone' | 'replicaSet' | 'sharded' | 'unknown';
  capabilities: Record<CapabilityName, Capability>;
  /** WiredTiger `cache["maximum bytes configured"]`, when serverStatus has it. */
  cacheBytes: number | null;
}

export interface IndexSnapshot {
  name: string;
  key: Record<string, number | string>;
  unique?: boolean;
  sparse?: boolean;
  hidden?: boolean;
  partial?: boolean;
  expireAfterSeconds?: number;
  collation?: Record<string, unknown>;
  sizeBytes: number | null;
  /** $indexStats per member read; null when it could not be read (see notes). */
  accesses: { host: string; ops: number; since: string }[] | null;
}

export interface CollectionStats {
  count: number;
  sizeBytes: number;
  avgObjSize: number;
  storageSizeBytes: number;
  totalIndexSizeBytes: number;
  nindexes: number;
  /** From the WiredTiger creationString, e.g. snappy; null when the server does not say. */
  blockCompressor: string | null;
}

/** Per array path, the statistics of one sampled document. Nested array paths read `comments.replies`. */
export interface ArrayProfile {
  path: string;
  /** How many arrays at this path the document holds (more than 1 inside arrays of objects). */
  occurrences: number;
  maxLength: number;
  totalLength: number;
  /** BSON bytes of all arrays at this path, and of their elements alone. */
  bytes: number;
  elementBytes: number;
  /** Element kinds seen: bit flags of ELEMENT_KIND. */
  kinds: number;
}

export const ELEMENT_KIND = {
  object: 1,
  array: 2,
  string: 4,
  number: 8,
  objectId: 16,
  other: 32,
} as const;

export interface DocProfile {
  bytes: number;
  /** Where the document's creation time came from and its value (ms since epoch). */
  createdAt: number | null;
  /** true when the size came from the server ($bsonSize) because the document was too large to pull. */
  measuredOnServer: boolean;
  arrays: ArrayProfile[];
  /** The largest top-level fields by BSON bytes, at most 3. */
  largestFields: { path: string; bytes: number }[];
}

export type IdType =
  | 'objectId'
  | 'uuid'
  | 'binary'
  | 'string'
  | 'int'
  | 'long'
  | 'double'
  | 'decimal'
  | 'date'
  | 'object'
  | 'other';

export interface IdProfile {
  types: Partial<Record<IdType, number>>;
  /** For UUIDs: count per version (4 random, 7 time-ordered). */
  uuidVersions: Record<string, number>;
  sizeBytes: { p50: number; max: number; mean: number };
  /** Shannon entropy in bits of each of the first bytes of the _id's binary form, over the sample. */
  leadingByteEntropy: number[];
  /**
   * The rank of each _id (among those read) in the order documents were read in natural order.
   * Spearman's rho of this against 0..n-1 is the monotonicity. Ranks, not values.
   */
  naturalOrderRanks: number[];
  /** Where the natural-order reading came from. */
  naturalOrderSource: 'natural-scan' | 'none';
}

export interface FieldProfile {
  /** Documents (or array elements, for paths under arrays) in which the path is present. */
  present: number;
  types: Record<string, number>;
}

export interface SampleSnapshot {
  method: '$sample' | 'natural-order' | 'none';
  /** false when documents are not a random sample (the report says so). */
  random: boolean;
  requested: number;
  size: number;
  docs: DocProfile[];
  id: IdProfile | null;
  fields: Record<string, FieldProfile>;
  /** Where document creation times came from: `_id` (ObjectId timestamp) or a date field's path. */
  timeSource: string | null;
}

export interface CollectionSnapshot {
  db: string;
  name: string;
  type: 'collection' | 'view' | 'timeseries' | 'system' | 'unknown';
  capped: boolean;
  clustered: boolean;
  validator: {
    present: boolean;
    /** The $jsonSchema part (a schema, not data) when there is one. */
    jsonSchema?: Record<string, unknown>;
    /** Operator names used outside $jsonSchema (query-operator validators). */
    queryOperators?: string[];
    validationLevel?: string;
    validationAction?: string;
  };
  stats: CollectionStats | null;
  indexes: IndexSnapshot[];
  sample: SampleSnapshot;
  /** What could not be read for this collection, with the reason. */
  notes: Note[];
  /** index-usage: replica-set members whose $indexStats were summed, and those not read with the reason (absent on a standalone). */
  indexUsageMembers?: IndexUsageMembers;
  /** validator: the stored validator checked against the sample (counts per path, never values) and counted on the server. */
  validatorDryRun?: ValidatorDryRun;
  /** validator: distinct string values per path in the sample, counted up to 65 (65 means more); counts only, never values. */
  stringCardinality?: Record<string, number>;
  /** compression: the sample's bytes compressed in process with each block compressor (byte counts only). */
  compressibility?: Compressibility;
  /** clustered-trap: plan stage names of explain() for a two-_id $in find and deleteMany (never the _ids). */
  clusteredExplain?: ClusteredExplain;
}

/** The sampled documents serialised and compressed in WiredTiger-sized blocks, per codec. */
export interface Compressibility {
  /** Documents measured and their serialised bytes (the uncompressed size). */
  docs: number;
  bytes: number;
  /** How documents were serialised: BSON (as stored), else Extended JSON or JSON text when the host's BSON objects could not be. */
  serializer: 'bson' | 'ejson' | 'json';
  /** Bytes per block compressed, after WiredTiger's default leaf page (32 KB). */
  blockBytes: number;
  /** Compressed bytes per codec; null with the reason in `unavailable` when the codec could not load. */
  codecs: { snappy: number | null; zlib: number | null; zstd: number | null };
  unavailable?: Partial<Record<'snappy' | 'zlib' | 'zstd', string>>;
}

/** explain() of `find({_id: {$in: [a, b]}})` and of a deleteMany with that filter, verbosity queryPlanner. */
export interface ClusteredExplain {
  /** Stage names from the winning plan's root down, e.g. ["FETCH", "CLUSTERED_IXSCAN"]; null when not read. */
  find: string[] | null;
  deleteMany: string[] | null;
  /** Server version the plans came from. */
  serverVersion: string;
  /** Why a plan is missing (fewer than two documents, explain refused, unknown plan shape). */
  reason?: string;
}

/** Which replica-set members' $indexStats went into IndexSnapshot.accesses. */
export interface IndexUsageMembers {
  read: string[];
  notRead: { host: string; reason: string }[];
  /** Set when hidden members could not be listed (hello omits them), with the reason. */
  hiddenUnknown?: string;
}

/** The stored validator run over the sampled documents in-process (ajv) and counted on the server. */
export interface ValidatorDryRun {
  /** Sampled documents checked in-process against the $jsonSchema (0 when it could not run). */
  checked: number;
  /** Checked documents failing the $jsonSchema. */
  violations: number;
  /** Failing documents per field path (`a.b`, array elements `a.$[]`). */
  byPath: Record<string, number>;
  /** Schema parts the in-process check could not evaluate, as "keyword at path"; those parts were not checked. */
  unsupportedKeywords: string[];
  /** Checks decided in the document's favour because the host hides the BSON type, as "path: what". */
  undecided: string[];
  /** Why the in-process check did not run (query-operator validator, schema that does not compile). */
  skippedReason?: string;
  /** Documents failing the whole validator by a server-side count of {$nor: [validator]}; null when not counted. */
  serverViolators: number | null;
  /** Why the server-side count is missing. */
  serverReason?: string;
}

export interface DatabaseSnapshot {
  name: string;
  collections: CollectionSnapshot[];
}

export interface Note {
  level: 'info' | 'skipped' | 'error';
  target?: Target;
  message: string;
}

export interface Target {
  db: string;
  collection?: string;
  path?: string;
  index?: string;
}

/**
 * Parts of collection beyond the core (server facts, collection list, stats, indexes, the sample) that only some
 * rules need. A rule names its parts in `needs`; collect runs only the parts the enabled rules need, and the snapshot
 * records which ran (`collected`), so a rule whose data is missing says so instead of passing silently.
 */
export const COLLECT_PARTS = [
  'serverStatus', // storage engine, WiredTiger cache size and data handles
  'indexStats', // $indexStats per collection
  'members', // index use on every replica-set member
  'naturalOrder', // _ids in natural order (insertion order, on a regular collection)
  'deployment', // every database's collections and indexes counted
  'clusteredExplain', // explain() of a multi-_id $in on clustered collections
  'compressibility', // the sample compressed in process with each block compressor
  'validatorCensus', // string cardinality per path and the stored validator's dry run and server count
] as const;
export type CollectPart = (typeof COLLECT_PARTS)[number];

export const SNAPSHOT_FORMAT = 'mongo-advisor-snapshot';
export const SNAPSHOT_VERSION = 1;

export interface Snapshot {
  format: typeof SNAPSHOT_FORMAT;
  version: typeof SNAPSHOT_VERSION;
  collectedAt: string;
  /** Connection string with any password removed. */
  source: string;
  server: ServerInfo;
  databases: DatabaseSnapshot[];
  notes: Note[];
  /** Commands sent while collecting. */
  roundTrips: number;
  /** The optional parts collect ran (all of them when absent: snapshots from before the plan). */
  collected?: CollectPart[];
  /** collection-count: the deployment's databases, collections and indexes counted read-only, with per-tenant groups. */
  deployment?: DeploymentInventory;
}

/** Every database's collections and indexes (each a WiredTiger table), counted, not listed. */
export interface DeploymentInventory {
  databases: DatabaseCount[];
  totals: { databases: number; collections: number; views: number; timeseries: number; indexes: number | null };
  /** Names that share a pattern with a varying id (`tenant_{id}`), with their common index set. */
  tenantGroups: TenantGroup[];
  /** serverStatus().wiredTiger["data-handle"] figures; null with `dataHandlesReason` when the server has none. */
  dataHandles: { active: number; sweeps: number | null; closedBySweep: number | null } | null;
  dataHandlesReason?: string;
  /** Databases not inventoried, with the reason. */
  skipped: { db: string; reason: string }[];
  /** Commands the inventory sent. */
  roundTrips: number;
}

export interface DatabaseCount {
  name: string;
  /** Collections with a table of their own (system and time-series bucket collections included, views not). */
  collections: number;
  views: number;
  timeseries: number;
  /** Indexes over those collections; null when some index lists could not be read. */
  indexes: number | null;
}

export interface TenantGroup {
  db: string;
  /** The shared name with the varying part as `{id}`, e.g. `orders_{id}`. */
  pattern: string;
  members: number;
  /** Up to three member names (collection names are metadata, not document values). */
  examples: string[];
  /** 'timeseries' when the members are time-series collections. */
  kind: 'collection' | 'timeseries';
  /** Members whose indexes were read, and how many of those share the most common index set. */
  indexesRead: number;
  sameIndexes: number;
  /** The most common index set, `_id_` left out. */
  indexes: IndexDefinition[];
}

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

export interface Recommendation {
  action: string;
  reason: string;
  /** Ready-to-run commands (mongosh syntax), no document values. */
  commands?: string[];
}

export interface Measurement {
  label: string;
  unit: 'ms' | 'bytes' | 'ops/s';
  median: number;
  low: number;
  high: number;
  trials: number;
}

export interface Confirmation {
  status: 'supported' | 'refuted' | 'inconclusive' | 'not-run' | 'error';
  summary: string;
  /** Ratio alternative/current or current/alternative as the summary says, with a bootstrap 95% interval. */
  ratio?: { label: string; median: number; low: number; high: number };
  measurements: Measurement[];
  /** Where it ran: scratch database and server, never the user's collections. */
  where: string;
  /** For not-run: what the server lacked or ignored. */
  reason?: string;
  durationMs: number;
}

export interface Finding {
  ruleId: string;
  messageId: string;
  severity: Severity;
  target: Target;
  message: string;
  evidence: Record<string, string | number | boolean | null>;
  recommendation?: Recommendation;
  docsUrl: string;
  confirmation?: Confirmation;
}

export interface CheckResult {
  tool: { name: 'mongo-advisor'; version: string };
  startedAt: string;
  durationMs: number;
  source: string;
  server: Pick<ServerInfo, 'version' | 'flavor' | 'storageEngine' | 'topology'>;
  scope: { db: string; collections: string[] };
  findings: Finding[];
  notes: Note[];
  roundTrips: number;
  confirm: { enabled: boolean; where: string | null; cleanedUp: boolean | null };
}
