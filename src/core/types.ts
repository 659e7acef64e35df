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
  /**
   * Another product answering as MongoDB, named by a field of its buildInfo (SecantusDB: `secantusVersion`), e.g.
   * "SecantusDB 0.7.0b3"; absent for mongod. It keeps `flavor` 'mongodb': the rules judge what it answers as.
   */
  imitator?: string;
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
  /** Reusable space inside the files (storageStats.freeStorageSize, 4.4+), part of storageSizeBytes; absent when not
   * reported. */
  freeStorageSizeBytes?: number;
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

export interface FieldProfile {
  /** Documents (or array elements, for paths under arrays) in which the path is present. */
  present: number;
  types: Record<string, number>;
  /**
   * Of the string values: how many are blank ('' or whitespace only) and how many are a number's text ("12.5",
   * "-3", "1e6"), and of those how many are an integer's text ("-3"; absent in snapshots older than the count).
   * Shapes, never values; absent when there are none of either.
   */
  strings?: { blank: number; numeric: number; integer?: number };
}

/**
 * How the sample was drawn: `$sample` (random, server-side), `whole` (every document, the collection is within the
 * whole-read bound), `random-ids` (no `$sample`: documents fetched by `_id` at random positions of an `_id` scan),
 * `natural-order` (the first documents: not random), `none` (nothing read).
 */
export type SampleMethod = '$sample' | 'whole' | 'random-ids' | 'natural-order' | 'none';

export interface SampleSnapshot {
  method: SampleMethod;
  /** false when documents are not a random sample (the report says so). */
  random: boolean;
  /** true when every document of the collection was read: shares are exact counts, not estimates. */
  complete: boolean;
  requested: number;
  size: number;
  /** The sample's documents (never those of the outlier pass, src/collect/outliers.ts: shares and medians are over
   * these). */
  docs: DocProfile[];
  /** The field/type census of the sample; keys of objects used as maps are folded to `<path>.<key>` (DYNAMIC_KEY). */
  fields: Record<string, FieldProfile>;
  /** Where document creation times came from: `_id` (ObjectId timestamp) or a date field's path. */
  timeSource: string | null;
  /** Objects used as maps (keys that are data): found in the sample and folded in every path of this snapshot. */
  dynamicKeys: DynamicKeyProfile[];
}

/** The placeholder that stands for every key of an object used as a map: `itemsBySku.<key>.qty`. */
export const DYNAMIC_KEY = '<key>';

/** What a map's keys look like; the keys themselves are user data and are never kept. */
export type KeyShape = 'objectId' | 'uuid' | 'integer' | 'date' | 'code' | 'word';

export interface DynamicKeyProfile {
  /**
   * The map's own path (already folded if it sits under another map); its keys read `${path}.<key>`. '' is the
   * document itself: its keys besides `_id` are data and read `<key>`.
   */
  path: string;
  /** Objects seen at the path in the sample. */
  objects: number;
  /** Distinct keys across those objects, and keys per object (median). */
  distinctKeys: number;
  medianKeys: number;
  /**
   * Objects at the path holding no key, and the median keys per object over the others: present when some are empty
   * (a median over objects most of which are `{}` says 0, which reads as no map at all).
   */
  emptyObjects?: number;
  medianKeysNonEmpty?: number;
  /** Share of the distinct keys present in more than half the objects (a real sub-document has most keys shared). */
  sharedKeyShare: number;
  /** Keys per shape. */
  keyShapes: Partial<Record<KeyShape, number>>;
  /** Values under the keys, per BSON type. */
  valueTypes: Record<string, number>;
  /** Indexes on one key of the map each (`{"itemsBySku.SKU-1": 1}`): left out of the snapshot, counted here. */
  indexesOnKeys?: number;
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
  /** Collection-scope collectors' data, by collector id (src/core/collector.ts). */
  data?: Record<string, unknown>;
}

export interface DatabaseSnapshot {
  name: string;
  collections: CollectionSnapshot[];
  /** Database-wide collectors' data, by collector id. */
  data?: Record<string, unknown>;
}

export interface Note {
  level: 'info' | 'skipped' | 'error';
  target?: Target;
  message: string;
  /** The rule the note is about, when one is (reporters group by it; the message also starts with it). */
  ruleId?: string;
  /**
   * The collector that wrote it, for notes written while collecting: an `error` from a deployment-wide collector has
   * no target, and lint still fails closed on it.
   */
  collector?: string;
  /**
   * The server limitation behind it, when more than one place can hit the same one (src/core/gaps.ts): the human
   * reports print the notes of one gap as one line that names every place it affected; JSON keeps each note whole.
   */
  gap?: Gap;
}

/** A server gap as a note carries it: its key and cause (the same in every note of it), and this note's effect. */
export interface Gap {
  key: string;
  /** What the server does not do, in a clause that stands alone. */
  cause: string;
  /** What this place could not check because of it, in a few words (the line names the rule before it). */
  effect: string;
}

export interface Target {
  db: string;
  collection?: string;
  path?: string;
  index?: string;
}

export const SNAPSHOT_FORMAT = 'mongo-advisor-snapshot';
/**
 * 2: collector data under `data[<collector id>]`, the collectors that ran in `collectors` (1 had fixed optional
 * fields). 4: the `_id` profile left `sample.id` for id-pattern's collector (`data["id-pattern/ids"]`), and the outlier
 * pass
 * `sample.outliers` for the shared collector `data.outliers` (src/collect/outliers.ts).
 */
export const SNAPSHOT_VERSION = 4;

/** One collector of the run: which ran, at which version, and what it could not read. */
export interface CollectorRun {
  id: string;
  version: number;
  scope: 'deployment' | 'database' | 'collection';
  /** What it could not read, with the reason (at most 20 distinct lines; its notes say where). */
  couldNot: string[];
  /** The resolved options it was collected with, by the id of each rule that needs it; absent when none was given. */
  options?: Record<string, Record<string, unknown>>;
}

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
  /** The collectors that ran (the plan made from the enabled rules), with their versions. */
  collectors: CollectorRun[];
  /** Deployment-wide collectors' data, by collector id. */
  data?: Record<string, unknown>;
  /** What the user's roles allow, from one connectionStatus (src/collect/privileges.ts); absent in older files. */
  privileges?: PrivilegeSummary;
}

/** The privilege probe's verdict as a snapshot and a report keep it. */
export interface PrivilegeSummary {
  /** `roles`: privileges read and judged; `no-auth`: no authenticated user; `unknown`: not readable. */
  basis: 'roles' | 'no-auth' | 'unknown';
  /** The authenticated users as `user@db`. */
  users: string[];
  /** One line, for the top of a report. */
  summary: string;
  /** The checks not attempted, each with the action and resource a role must grant and what is lost. */
  skipped: { check: string; needs: string; reason: string }[];
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
  /** Probability that low..high holds the true median (order statistics of the trials: exact, distribution-free);
   * absent for a single reading. */
  coverage?: number;
}

/** A ratio of two timed arms: the median of the paired ratios and an interval of them (src/confirm/harness.ts
 * ratioOf). */
export interface RatioInterval {
  median: number;
  low: number;
  high: number;
  /**
   * The interval's real coverage (at least 0.95 when it was reached: labelled "95% interval"; below, "range of what was
   * timed"); absent for an exact figure (a size).
   */
  coverage?: number;
  /** Pairs (rounds) timed; the interval is over `blocks` block-level ratios of them. */
  pairs?: number;
  /** Blocks of alternated rounds the interval was computed over (src/confirm/harness.ts `blockRatios`). */
  blocks?: number;
  /** true when the arms were timed in alternation, round by round (each ratio shares that moment's load). */
  paired?: boolean;
}

/**
 * What an experiment tests, stated as a direction and a size before it runs: "the ratio with / without the validator
 * lies below 2" (`direction: 'below', size: 2`). The verdict is the interval against it (src/confirm/harness.ts
 * `judge`): supported when the whole interval lies on the claim's side of `size`, refuted when the whole interval lies
 * on the other side, inconclusive otherwise.
 */
export interface RatioClaim {
  kind: 'ratio';
  direction: 'above' | 'below';
  size: number;
  /** The claim in words, e.g. "the validator adds less than 100% to insert time". */
  text: string;
}

/**
 * A yes/no check that is not a cost (the planner still picks the longer index; a query by one type misses the other):
 * reported as a check that passed (`supported`) or failed (`refuted`), never as a confirmed cost.
 */
export interface CheckClaim {
  kind: 'check';
  text: string;
}

export type Claim = RatioClaim | CheckClaim;

/** The three verdicts of an experiment that ran; `not-run` and `error` say it did not. */
export type Verdict = 'supported' | 'refuted' | 'inconclusive';

export interface Confirmation {
  /** Machine names, stable in JSON, SARIF and JUnit; a `check` claim reads them as "check passed" / "check failed". */
  status: Verdict | 'not-run' | 'error';
  /** What was tested (absent for not-run and error): the verdict is this claim's, and the words follow it. */
  claim?: Claim;
  summary: string;
  /** Ratio alternative/current or current/alternative as the summary says, with its interval and that interval's real
   * `coverage`. */
  ratio?: RatioInterval & { label: string };
  measurements: Measurement[];
  /** Where it ran: scratch database and server, never the user's collections. */
  where: string;
  /** For not-run: what the server lacked or ignored. */
  reason?: string;
  /**
   * What the experiment showed, in a few words, for a collapsed report line ("every copy passes; inserts 1.42x
   * (95% interval 1.36–1.54)"); the ratio's label and figure stand in when absent.
   */
  brief?: string;
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
  server: Pick<ServerInfo, 'version' | 'flavor' | 'storageEngine' | 'topology' | 'imitator'>;
  scope: { db: string; collections: string[] };
  findings: Finding[];
  notes: Note[];
  roundTrips: number;
  confirm: { enabled: boolean; where: string | null; cleanedUp: boolean | null };
  /** What the user's roles allowed (absent when the snapshot did not record it). */
  privileges?: PrivilegeSummary;
}
