import type { FromSchema } from './from-schema';

/*
 * The snapshot file's JSON Schema and, derived from it, its TypeScript types: one source. What `collect` writes and
 * `analyze`/`lint`/`audit` read is what these schemas promise; the types are `FromSchema` of them
 * (src/core/from-schema.ts), so a field added to a schema is in the type and a field the schema lacks does not
 * compile. Doc comments written on a schema's properties carry over to the type's fields. The core schema checks
 * every core field strictly (required, type, enum) but leaves objects open; collectors' data under `data[<id>]` is
 * checked against each collector's schema (`snapshotJsonSchema` in src/core/snapshot-file.ts).
 */

export const SNAPSHOT_FORMAT = 'mongo-advisor-snapshot';
/**
 * 2: collector data under `data[<collector id>]`, the collectors that ran in `collectors` (1 had fixed optional
 * fields). 4: the `_id` profile left `sample.id` for id-pattern's collector (`data["id-pattern/ids"]`), and the outlier
 * pass `sample.outliers` for the shared collector `data.outliers` (src/collect/outliers.ts). 5: a database of many
 * collections holds groups (`groups`: name pattern, member count, the evidence of its representatives) and only the
 * collections read (`group` on a representative), not a row per collection (src/collect/groups.ts).
 */
export const SNAPSHOT_VERSION = 5;

const num = { type: 'number' } as const;
const nonNegInt = { type: 'integer', minimum: 0 } as const;
const nullableNum = { type: ['number', 'null'] } as const;
const str = { type: 'string' } as const;

const capability = {
  type: 'object',
  required: ['supported', 'evidence'],
  properties: {
    /** true: proven; false: proven missing; null: not probed (the reason says why). */
    supported: { type: ['boolean', 'null'] },
    /** How it was established, e.g. "aggregate $sample answered" or "error 59: no such command". */
    evidence: str,
  },
} as const;

/** Capabilities collect proves by asking the server (read-only probes), never by version alone. */
export const CORE_CAPABILITIES = [
  'sample',
  'indexStats',
  'bsonSize',
  'arraySize',
  'collStats',
  'validators',
  'clusteredCollections',
  'collMod',
] as const;

/** Each core capability, required; typed key by key so the schema's type names them. */
const capabilities = {
  type: 'object',
  required: CORE_CAPABILITIES,
  properties: Object.fromEntries(CORE_CAPABILITIES.map((c) => [c, capability])) as {
    readonly [K in (typeof CORE_CAPABILITIES)[number]]: typeof capability;
  },
  additionalProperties: capability,
} as const;

const target = {
  type: 'object',
  required: ['db'],
  properties: { db: str, collection: str, path: str, index: str },
} as const;

/** The server gap behind a note (src/core/gaps.ts). */
const gap = {
  type: 'object',
  required: ['key', 'cause', 'effect'],
  properties: {
    key: str,
    /** What the server does not do, in a clause that stands alone. */
    cause: str,
    /** What this place could not check because of it, in a few words (the line names the rule before it). */
    effect: str,
  },
} as const;

const note = {
  type: 'object',
  required: ['level', 'message'],
  properties: {
    level: { enum: ['info', 'skipped', 'error'] },
    target,
    message: str,
    /**
     * The server limitation behind it, when more than one place can hit the same one (src/core/gaps.ts): the human
     * reports print the notes of one gap as one line that names every place it affected; JSON keeps each note whole.
     */
    gap,
    /** The rule the note is about, when one is (reporters group by it; the message also starts with it). */
    ruleId: str,
    /**
     * The collector that wrote it, for notes written while collecting: an `error` from a deployment-wide collector
     * has no target, and lint still fails closed on it.
     */
    collector: str,
  },
} as const;

const index = {
  type: 'object',
  required: ['name', 'key', 'sizeBytes'],
  properties: {
    name: str,
    key: { type: 'object', additionalProperties: { type: ['number', 'string'] } },
    unique: { type: 'boolean' },
    sparse: { type: 'boolean' },
    hidden: { type: 'boolean' },
    partial: { type: 'boolean' },
    expireAfterSeconds: num,
    collation: { type: 'object' },
    sizeBytes: nullableNum,
  },
} as const;

const stats = {
  type: ['object', 'null'],
  required: [
    'count',
    'sizeBytes',
    'avgObjSize',
    'storageSizeBytes',
    'totalIndexSizeBytes',
    'nindexes',
    'blockCompressor',
  ],
  properties: {
    count: num,
    sizeBytes: num,
    avgObjSize: num,
    storageSizeBytes: num,
    totalIndexSizeBytes: num,
    nindexes: num,
    /** From the WiredTiger creationString, e.g. snappy; null when the server does not say. */
    blockCompressor: { type: ['string', 'null'] },
    /**
     * Reusable space inside the files (storageStats.freeStorageSize, 4.4+), part of storageSizeBytes; absent when
     * not reported.
     */
    freeStorageSizeBytes: num,
  },
} as const;

/** Per array path, the statistics of one sampled document. Nested array paths read `comments.replies`. */
const arrayProfile = {
  type: 'object',
  required: ['path', 'occurrences', 'maxLength', 'totalLength', 'bytes', 'elementBytes', 'kinds'],
  properties: {
    path: str,
    /** How many arrays at this path the document holds (more than 1 inside arrays of objects). */
    occurrences: nonNegInt,
    maxLength: nonNegInt,
    totalLength: nonNegInt,
    /** BSON bytes of all arrays at this path, and of their elements alone. */
    bytes: num,
    elementBytes: num,
    /** Element kinds seen: bit flags of ELEMENT_KIND. */
    kinds: nonNegInt,
  },
} as const;

/** A sampled document's profile: also the items of the outlier collector's `docs` (src/collect/outliers.ts). */
export const DOC_PROFILE_SCHEMA = {
  type: 'object',
  required: ['bytes', 'createdAt', 'measuredOnServer', 'arrays', 'largestFields'],
  properties: {
    bytes: num,
    /** Where the document's creation time came from and its value (ms since epoch). */
    createdAt: nullableNum,
    /** true when the size came from the server ($bsonSize) because the document was too large to pull. */
    measuredOnServer: { type: 'boolean' },
    arrays: { type: 'array', items: arrayProfile },
    /**
     * The largest top-level fields by BSON bytes, at most 3; `type` (the server's $type name) on a document measured
     * on the server, whose fields the sample's census may never have seen.
     */
    largestFields: {
      type: 'array',
      items: { type: 'object', required: ['path', 'bytes'], properties: { path: str, bytes: num, type: str } },
    },
  },
} as const;

const fieldProfile = {
  type: 'object',
  required: ['present', 'types'],
  properties: {
    /** Documents (or array elements, for paths under arrays) in which the path is present. */
    present: num,
    types: { type: 'object', additionalProperties: num },
    /**
     * Of the string values: how many are blank ('' or whitespace only) and how many are a number's text ("12.5",
     * "-3", "1e6"), and of those how many are an integer's text ("-3"; absent in snapshots older than the count).
     * Shapes, never values; absent when there are none of either.
     */
    strings: {
      type: 'object',
      required: ['blank', 'numeric'],
      properties: { blank: num, numeric: num, integer: num },
    },
  },
} as const;

const dynamicKeyProfile = {
  type: 'object',
  required: ['path', 'objects', 'distinctKeys', 'medianKeys', 'sharedKeyShare', 'keyShapes', 'valueTypes'],
  properties: {
    /**
     * The map's own path (already folded if it sits under another map); its keys read `${path}.<key>`. '' is the
     * document itself: its keys besides `_id` are data and read `<key>`.
     */
    path: str,
    /** Objects seen at the path in the sample. */
    objects: nonNegInt,
    /** Distinct keys across those objects, and keys per object (median). */
    distinctKeys: nonNegInt,
    medianKeys: num,
    /**
     * Objects at the path holding no key, and the median keys per object over the others: present when some are
     * empty (a median over objects most of which are `{}` says 0, which reads as no map at all).
     */
    emptyObjects: num,
    medianKeysNonEmpty: num,
    /** Indexes on one key of the map each (`{"itemsBySku.SKU-1": 1}`): left out of the snapshot, counted here. */
    indexesOnKeys: nonNegInt,
    /** Share of the distinct keys present in more than half the objects (a real sub-document has most keys shared). */
    sharedKeyShare: num,
    /** Keys per shape: what a map's keys look like; the keys themselves are user data and are never kept. */
    keyShapes: {
      type: 'object',
      additionalProperties: num,
      propertyNames: { enum: ['objectId', 'uuid', 'integer', 'date', 'code', 'word'] },
    },
    /** Values under the keys, per BSON type. */
    valueTypes: { type: 'object', additionalProperties: num },
  },
} as const;

const sample = {
  type: 'object',
  required: ['method', 'random', 'complete', 'requested', 'size', 'docs', 'fields', 'timeSource', 'dynamicKeys'],
  properties: {
    /**
     * How the sample was drawn: `$sample` (random, server-side), `whole` (every document, the collection is within
     * the whole-read bound), `random-ids` (no `$sample`: documents fetched by `_id` at random positions of an `_id`
     * scan), `natural-order` (the first documents: not random), `none` (nothing read).
     */
    method: { enum: ['$sample', 'whole', 'random-ids', 'natural-order', 'none'] },
    /** false when documents are not a random sample (the report says so). */
    random: { type: 'boolean' },
    /** true when every document of the collection was read: shares are exact counts, not estimates. */
    complete: { type: 'boolean' },
    requested: nonNegInt,
    size: nonNegInt,
    /**
     * The sample's documents (never those of the outlier pass, src/collect/outliers.ts: shares and medians are over
     * these).
     */
    docs: { type: 'array', items: DOC_PROFILE_SCHEMA },
    /** The field/type census of the sample; keys of objects used as maps are folded to `<path>.<key>` (DYNAMIC_KEY). */
    fields: { type: 'object', additionalProperties: fieldProfile },
    /** Where document creation times came from: `_id` (ObjectId timestamp) or a date field's path. */
    timeSource: { type: ['string', 'null'] },
    /** Objects used as maps (keys that are data): found in the sample and folded in every path of this snapshot. */
    dynamicKeys: { type: 'array', items: dynamicKeyProfile },
  },
} as const;

const collection = {
  type: 'object',
  required: ['db', 'name', 'type', 'capped', 'clustered', 'validator', 'stats', 'indexes', 'sample', 'notes'],
  properties: {
    db: str,
    name: str,
    type: { enum: ['collection', 'view', 'timeseries', 'system', 'unknown'] },
    /** A view's source (listCollections `options.viewOn`): the collection whose indexes serve the view's queries. */
    viewOn: str,
    /** The pattern of the group this collection was read for, as one of its representatives (src/collect/groups.ts). */
    group: str,
    capped: { type: 'boolean' },
    clustered: { type: 'boolean' },
    validator: {
      type: 'object',
      required: ['present'],
      properties: {
        present: { type: 'boolean' },
        /** The $jsonSchema part (a schema, not data) when there is one. */
        jsonSchema: { type: 'object' },
        /** Operator names used outside $jsonSchema (query-operator validators). */
        queryOperators: { type: 'array', items: str },
        validationLevel: str,
        validationAction: str,
      },
    },
    stats,
    indexes: { type: 'array', items: index },
    sample,
    /** What could not be read for this collection, with the reason. */
    notes: { type: 'array', items: note },
    /** Collection-scope collectors' data, by collector id (src/core/collector.ts). */
    data: { type: 'object' },
  },
} as const;

/**
 * Collections folded into one group by name pattern and kind (src/collect/groups.ts): counted, never listed, and read
 * through a bounded sample of representatives (`read`), which the database's `collections` hold in full.
 */
const collectionGroup = {
  type: 'object',
  required: ['pattern', 'kind', 'members', 'examples', 'read', 'evidence'],
  properties: {
    /** The shared name with the varying part as `{id}`, e.g. `tenant_{id}`. */
    pattern: str,
    kind: { enum: ['collection', 'view', 'timeseries'] },
    members: nonNegInt,
    /** Up to three member names (collection names are metadata, not document values). */
    examples: { type: 'array', items: str },
    /**
     * The representatives read in full: the members of lowest name rank (FNV-1a of the name), a uniform sample of the
     * group whatever order the server lists it in, and the same in every run.
     */
    read: { type: 'array', items: str },
    /**
     * What the listing and the representatives showed: options are read for every member (the listing gives them);
     * indexes for every member where the one-cursor catalogue answered, else for the representatives.
     */
    evidence: {
      type: 'object',
      required: ['optionsRead', 'sameOptions', 'indexesRead', 'sameIndexes', 'empty', 'documents'],
      properties: {
        optionsRead: nonNegInt,
        /** Members with the most common options (capped, clustered, validator, time series). */
        sameOptions: nonNegInt,
        indexesRead: nonNegInt,
        /** Of those whose indexes were read, how many have the most common index set (names aside). */
        sameIndexes: nonNegInt,
        /** Representatives holding no document. */
        empty: nonNegInt,
        /** Documents in the representatives, summed. */
        documents: nonNegInt,
      },
    },
  },
} as const;

const database = {
  type: 'object',
  required: ['name', 'collections'],
  properties: {
    name: str,
    collections: { type: 'array', items: collection },
    /** Many-collection databases: the groups their collections fold into (absent when the database was read whole). */
    groups: { type: 'array', items: collectionGroup },
    /** How the collections were listed: `catalog` ($listCatalog, options and indexes in one cursor) or `names`. */
    listing: { enum: ['catalog', 'names', 'full'] },
    /** Database-wide collectors' data, by collector id. */
    data: { type: 'object' },
  },
} as const;

/** One collector of the run: which ran, at which version, and what it could not read. */
const collectorRun = {
  type: 'object',
  required: ['id', 'version', 'scope', 'couldNot'],
  properties: {
    id: str,
    version: nonNegInt,
    scope: { enum: ['deployment', 'database', 'collection'] },
    /** What it could not read, with the reason (at most 20 distinct lines; its notes say where). */
    couldNot: { type: 'array', items: str },
    /**
     * The resolved options it was collected with, by the id of each rule that needs it; absent when none was given.
     * The user's configuration values, never document data.
     */
    options: { type: 'object', additionalProperties: { type: 'object' } },
  },
} as const;

const server = {
  type: 'object',
  required: ['version', 'versionArray', 'flavor', 'storageEngine', 'topology', 'capabilities', 'cacheBytes'],
  properties: {
    version: str,
    versionArray: { type: 'array', items: num },
    /** `ferretdb` when buildInfo carries ferretdbVersion; such a server answers MongoDB's wire protocol. */
    flavor: { enum: ['mongodb', 'ferretdb'] },
    /**
     * Another product answering as MongoDB, named by a field of its buildInfo (SecantusDB: `secantusVersion`), e.g.
     * "SecantusDB 0.7.0b3"; absent for mongod. It keeps `flavor` 'mongodb': the rules judge what it answers as.
     */
    imitator: str,
    storageEngine: { type: ['string', 'null'] },
    topology: { enum: ['standalone', 'replicaSet', 'sharded', 'unknown'] },
    capabilities,
    /** WiredTiger `cache["maximum bytes configured"]`, when serverStatus has it. */
    cacheBytes: nullableNum,
  },
} as const;

/** The privilege probe's verdict as a snapshot and a report keep it. */
const privileges = {
  type: 'object',
  required: ['basis', 'users', 'summary', 'skipped'],
  properties: {
    /** `roles`: privileges read and judged; `no-auth`: no authenticated user; `unknown`: not readable. */
    basis: { enum: ['roles', 'no-auth', 'unknown'] },
    /** The authenticated users as `user@db`. */
    users: { type: 'array', items: str },
    /** One line, for the top of a report. */
    summary: str,
    /** The checks not attempted, each with the action and resource a role must grant and what is lost. */
    skipped: {
      type: 'array',
      items: {
        type: 'object',
        required: ['check', 'needs', 'reason'],
        properties: { check: str, needs: str, reason: str },
      },
    },
  },
} as const;

/** JSON Schema (draft-07) of the snapshot file, format version {@link SNAPSHOT_VERSION}. */
export const SNAPSHOT_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: `https://mongo-advisor.dev/schemas/snapshot-v${SNAPSHOT_VERSION}.json`,
  title: 'mongo-advisor snapshot',
  description:
    'What `mongo-advisor collect` read from a deployment: paths, types, sizes, counts and shapes, never ' +
    'document values.',
  type: 'object',
  required: ['format', 'version', 'collectedAt', 'source', 'server', 'databases', 'notes', 'roundTrips', 'collectors'],
  properties: {
    format: { const: SNAPSHOT_FORMAT },
    version: { const: SNAPSHOT_VERSION },
    collectedAt: { type: 'string', format: 'date-time' },
    /** Connection string with any password removed. */
    source: str,
    server,
    databases: { type: 'array', items: database },
    notes: { type: 'array', items: note },
    /** What the user's roles allow, from one connectionStatus (src/collect/privileges.ts); absent in older files. */
    privileges,
    /** Commands sent while collecting. */
    roundTrips: nonNegInt,
    /** The collectors that ran (the plan made from the enabled rules), with their versions. */
    collectors: { type: 'array', items: collectorRun },
    /** Deployment-wide collectors' data, by collector id. */
    data: { type: 'object' },
  },
} as const;

/* The snapshot's types, each the one its schema describes. */

export type Snapshot = FromSchema<typeof SNAPSHOT_JSON_SCHEMA>;
export type ServerInfo = FromSchema<typeof server>;
export type CapabilityName = (typeof CORE_CAPABILITIES)[number];
export type Capability = FromSchema<typeof capability>;
export type DatabaseSnapshot = FromSchema<typeof database>;
export type CollectionGroup = FromSchema<typeof collectionGroup>;
export type CollectionSnapshot = FromSchema<typeof collection>;
export type CollectionStats = NonNullable<FromSchema<typeof stats>>;
export type IndexSnapshot = FromSchema<typeof index>;
export type SampleSnapshot = FromSchema<typeof sample>;
export type SampleMethod = SampleSnapshot['method'];
export type DocProfile = FromSchema<typeof DOC_PROFILE_SCHEMA>;
export type ArrayProfile = FromSchema<typeof arrayProfile>;
export type FieldProfile = FromSchema<typeof fieldProfile>;
export type DynamicKeyProfile = FromSchema<typeof dynamicKeyProfile>;
/** What a map's keys look like; the keys themselves are user data and are never kept. */
export type KeyShape = keyof DynamicKeyProfile['keyShapes'];
export type Note = FromSchema<typeof note>;
export type Gap = FromSchema<typeof gap>;
export type Target = FromSchema<typeof target>;
export type CollectorRun = FromSchema<typeof collectorRun>;
export type PrivilegeSummary = FromSchema<typeof privileges>;
