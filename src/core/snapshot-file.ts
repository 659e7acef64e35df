import Ajv, { type ErrorObject } from 'ajv';
import { writeFileSync } from 'node:fs';
import type { AnyCollector, CollectorScope } from './collector';
import { UserError } from './errors';
import { formatBytes } from './format';
import { MAX_NESTING, MAX_SNAPSHOT_BYTES, readTextBounded, shortPath, TooLarge, tooDeep } from './input-limits';
import { type CapabilityName, type Snapshot, SNAPSHOT_FORMAT, SNAPSHOT_VERSION } from './types';

/*
 * The snapshot file: what `collect` writes and `analyze`/`lint`/`audit` read. The core schema checks every core field
 * strictly (required, type, enum) but leaves objects open. Collectors' data sits under `data[<collector id>]` of the
 * snapshot, a database or a collection, and the schema of a run is composed from the core and the schema each
 * collector declares (`snapshotJsonSchema(collectors)`): a loaded snapshot is checked against the collectors of the
 * rules that will read it.
 */

const num = { type: 'number' } as const;
const nonNegInt = { type: 'integer', minimum: 0 } as const;
const nullableNum = { type: ['number', 'null'] } as const;
const str = { type: 'string' } as const;

const capability = {
  type: 'object',
  required: ['supported', 'evidence'],
  properties: { supported: { type: ['boolean', 'null'] }, evidence: str },
} as const;

const CORE_CAPABILITIES = [
  'sample',
  'indexStats',
  'bsonSize',
  'arraySize',
  'collStats',
  'validators',
  'clusteredCollections',
  'collMod',
] as const satisfies readonly CapabilityName[];

/** Each core capability, required; typed key by key so the schema's type names them (see test/snapshot-shape.ts). */
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
  properties: { key: str, cause: str, effect: str },
} as const;

const note = {
  type: 'object',
  required: ['level', 'message'],
  properties: { level: { enum: ['info', 'skipped', 'error'] }, target, message: str, gap, ruleId: str, collector: str },
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
    blockCompressor: { type: ['string', 'null'] },
    freeStorageSizeBytes: num,
  },
} as const;

const arrayProfile = {
  type: 'object',
  required: ['path', 'occurrences', 'maxLength', 'totalLength', 'bytes', 'elementBytes', 'kinds'],
  properties: {
    path: str,
    occurrences: nonNegInt,
    maxLength: nonNegInt,
    totalLength: nonNegInt,
    bytes: num,
    elementBytes: num,
    kinds: nonNegInt,
  },
} as const;

/** A sampled document's profile: also the items of the outlier collector's `docs` (src/collect/outliers.ts). */
export const DOC_PROFILE_SCHEMA = {
  type: 'object',
  required: ['bytes', 'createdAt', 'measuredOnServer', 'arrays', 'largestFields'],
  properties: {
    bytes: num,
    createdAt: nullableNum,
    measuredOnServer: { type: 'boolean' },
    arrays: { type: 'array', items: arrayProfile },
    largestFields: {
      type: 'array',
      items: { type: 'object', required: ['path', 'bytes'], properties: { path: str, bytes: num } },
    },
  },
} as const;

const sample = {
  type: 'object',
  required: ['method', 'random', 'complete', 'requested', 'size', 'docs', 'fields', 'timeSource', 'dynamicKeys'],
  properties: {
    method: { enum: ['$sample', 'whole', 'random-ids', 'natural-order', 'none'] },
    random: { type: 'boolean' },
    complete: { type: 'boolean' },
    requested: nonNegInt,
    size: nonNegInt,
    docs: { type: 'array', items: DOC_PROFILE_SCHEMA },
    fields: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        required: ['present', 'types'],
        properties: {
          present: num,
          types: { type: 'object', additionalProperties: num },
          strings: {
            type: 'object',
            required: ['blank', 'numeric'],
            properties: { blank: num, numeric: num, integer: num },
          },
        },
      },
    },
    timeSource: { type: ['string', 'null'] },
    dynamicKeys: {
      type: 'array',
      items: {
        type: 'object',
        required: ['path', 'objects', 'distinctKeys', 'medianKeys', 'sharedKeyShare', 'keyShapes', 'valueTypes'],
        properties: {
          path: str,
          objects: nonNegInt,
          distinctKeys: nonNegInt,
          medianKeys: num,
          emptyObjects: num,
          medianKeysNonEmpty: num,
          indexesOnKeys: nonNegInt,
          sharedKeyShare: num,
          keyShapes: {
            type: 'object',
            additionalProperties: num,
            propertyNames: { enum: ['objectId', 'uuid', 'integer', 'date', 'code', 'word'] },
          },
          valueTypes: { type: 'object', additionalProperties: num },
        },
      },
    },
  },
} as const;

const collection = {
  type: 'object',
  required: ['db', 'name', 'type', 'capped', 'clustered', 'validator', 'stats', 'indexes', 'sample', 'notes'],
  properties: {
    db: str,
    name: str,
    type: { enum: ['collection', 'view', 'timeseries', 'system', 'unknown'] },
    capped: { type: 'boolean' },
    clustered: { type: 'boolean' },
    validator: {
      type: 'object',
      required: ['present'],
      properties: {
        present: { type: 'boolean' },
        jsonSchema: { type: 'object' },
        queryOperators: { type: 'array', items: str },
        validationLevel: str,
        validationAction: str,
      },
    },
    stats,
    indexes: { type: 'array', items: index },
    sample,
    notes: { type: 'array', items: note },
    data: { type: 'object' },
  },
} as const;

const collectorRun = {
  type: 'object',
  required: ['id', 'version', 'scope', 'couldNot'],
  properties: {
    id: str,
    version: nonNegInt,
    scope: { enum: ['deployment', 'database', 'collection'] },
    couldNot: { type: 'array', items: str },
    // The resolved options it read, by rule id: the user's configuration values, never document data.
    options: { type: 'object', additionalProperties: { type: 'object' } },
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
    source: str,
    server: {
      type: 'object',
      required: ['version', 'versionArray', 'flavor', 'storageEngine', 'topology', 'capabilities', 'cacheBytes'],
      properties: {
        version: str,
        versionArray: { type: 'array', items: num },
        flavor: { enum: ['mongodb', 'ferretdb'] },
        imitator: str,
        storageEngine: { type: ['string', 'null'] },
        topology: { enum: ['standalone', 'replicaSet', 'sharded', 'unknown'] },
        capabilities,
        cacheBytes: nullableNum,
      },
    },
    databases: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'collections'],
        properties: { name: str, collections: { type: 'array', items: collection }, data: { type: 'object' } },
      },
    },
    notes: { type: 'array', items: note },
    privileges: {
      type: 'object',
      required: ['basis', 'users', 'summary', 'skipped'],
      properties: {
        basis: { enum: ['roles', 'no-auth', 'unknown'] },
        users: { type: 'array', items: str },
        summary: str,
        skipped: {
          type: 'array',
          items: {
            type: 'object',
            required: ['check', 'needs', 'reason'],
            properties: { check: str, needs: str, reason: str },
          },
        },
      },
    },
    roundTrips: nonNegInt,
    collectors: { type: 'array', items: collectorRun },
    data: { type: 'object' },
  },
} as const;

type Json = Record<string, unknown>;

/** The `data` object of one scope: each collector's schema under its id (ids of other collectors pass unchecked). */
function dataSchema(collectors: readonly AnyCollector[], scope: CollectorScope): Json {
  const own = collectors.filter((c) => c.scope === scope);
  return { type: 'object', properties: Object.fromEntries(own.map((c) => [c.id, c.schema])) };
}

/**
 * The snapshot's JSON Schema with each collector's data schema in place: the core ({@link SNAPSHOT_JSON_SCHEMA}) plus
 * `data.<id>` of the snapshot (deployment collectors), of each database and of each collection.
 */
export function snapshotJsonSchema(collectors: readonly AnyCollector[]): Json {
  const schema = structuredClone(SNAPSHOT_JSON_SCHEMA) as unknown as Json & {
    properties: Json & { databases: Json; data: Json };
  };
  if (collectors.length === 0) return schema;
  schema.properties.data = dataSchema(collectors, 'deployment');
  const database = (
    schema.properties.databases as { items: { properties: Json & { collections: { items: { properties: Json } } } } }
  ).items;
  database.properties.data = dataSchema(collectors, 'database');
  database.properties.collections.items.properties.data = dataSchema(collectors, 'collection');
  return schema;
}

const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true });
// draft-07 "format" is an annotation unless a format plugin is loaded; checked by hand below.
ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

/** A compiled validator per set of collectors (by id and version), compiled once. */
function validatorFor(collectors: readonly AnyCollector[]): ReturnType<typeof ajv.compile> {
  const key = collectors
    .map((c) => `${c.id}@${c.version}`)
    .sort()
    .join(',');
  let v = validators.get(key);
  if (!v) {
    // One $id names the file format; each composition is compiled without it (ajv keeps schemas by $id).
    const { $id: _id, ...schema } = snapshotJsonSchema(collectors);
    validators.set(key, (v = ajv.compile(schema)));
  }
  return v;
}

function where(e: ErrorObject): string {
  return e.instancePath ? e.instancePath.replace(/^\//, '').replace(/\//g, '.') : '(top level)';
}

function describe(e: ErrorObject): string {
  if (e.keyword === 'required')
    return `${where(e)}: missing "${(e.params as { missingProperty: string }).missingProperty}"`;
  if (e.keyword === 'enum')
    return (
      `${where(e)} must be one ` +
      `of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
    );
  return `${where(e)} ${e.message ?? 'is invalid'}`;
}

/** Says what a parsed JSON value is when it is not a snapshot, or null when it claims to be one. */
function recognise(data: unknown, file: string): string | null {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return (
      `${file} is not a mongo-advisor snapshot: it ` +
      `holds ${Array.isArray(data) ? 'an array' : `a ${data === null ? 'null' : typeof data}`}, not an object. ` +
      `Create one with: mongo-advisor collect <uri> --db <name> --output <new snapshot file>`
    );
  }
  const d = data as Record<string, unknown>;
  if (d.format === SNAPSHOT_FORMAT) return null;
  if (d.format === 'mongo-advisor-baseline')
    return (
      `${file} is a mongo-advisor baseline, not a snapshot: pass it with --baseline. Create a snapshot with: ` +
      `mongo-advisor collect <uri> --output <new snapshot file>`
    );
  if (
    typeof d.tool === 'object' &&
    d.tool !== null &&
    (d.tool as { name?: unknown }).name === 'mongo-advisor' &&
    Array.isArray(d.findings)
  ) {
    return (
      `${file} is a mongo-advisor report (check --format json), not a snapshot: it holds findings, not what ` +
      `was collected. Create a snapshot with: mongo-advisor collect <uri> --db <name> --output <new snapshot ` +
      `file>`
    );
  }
  if (typeof d.version === 'string' && d.$schema !== undefined && Array.isArray(d.runs))
    return (
      `${file} is a SARIF log, not a mongo-advisor snapshot. Create a snapshot with: mongo-advisor collect ` +
      `<uri> --output <new snapshot file>`
    );
  if (typeof d.format === 'string')
    return `${file} is not a mongo-advisor snapshot: its format is "${d.format}", expected "${SNAPSHOT_FORMAT}".`;
  if (Array.isArray(d.collections) || Array.isArray(d.databases)) {
    return (
      `${file} looks like a declared spec or another tool's output, not a mongo-advisor snapshot (no ` +
      `"format": "${SNAPSHOT_FORMAT}"). For a spec, pass it with --spec. Create a snapshot with: mongo-advisor ` +
      `collect <uri> --output <new snapshot file>`
    );
  }
  return (
    `${file} is not a mongo-advisor snapshot (no "format": "${SNAPSHOT_FORMAT}" field). Create one with: ` +
    `mongo-advisor collect <uri> --db <name> --output <new snapshot file>`
  );
}

/**
 * Checks a parsed value and returns it as a Snapshot, or throws a UserError saying what it is and what to do. The data
 * of the given collectors (those of the rules that will read it) is checked against their schemas.
 */
export function parseSnapshot(
  data: unknown,
  file = 'the snapshot',
  collectors: readonly AnyCollector[] = [],
): Snapshot {
  const deep = tooDeep(data);
  if (deep !== null) {
    throw new UserError(
      `${file} nests objects deeper than ${MAX_NESTING} levels (at ${shortPath(deep)}): no snapshot does, since ` +
        'MongoDB refuses documents nested deeper than 100. It was edited or written by another tool; collect a new ' +
        'one with: ' +
        'mongo-advisor collect <uri> --output <new snapshot file>',
    );
  }
  const foreign = recognise(data, file);
  if (foreign) throw new UserError(foreign);
  const version = (data as { version?: unknown }).version;
  if (typeof version !== 'number' || !Number.isInteger(version)) {
    throw new UserError(
      `${file} is a mongo-advisor snapshot without a valid format version (${JSON.stringify(version)}): it ` +
        `was edited or truncated. Collect a new one with: mongo-advisor collect <uri> --output <new snapshot ` +
        `file>`,
    );
  }
  if (version > SNAPSHOT_VERSION) {
    throw new UserError(
      `${file} is a snapshot of format version ${version}, written by a newer mongo-advisor; this one reads ` +
        `version ${SNAPSHOT_VERSION}. Upgrade mongo-advisor (npm install -g mongo-advisor@latest) or collect ` +
        `it again with this version.`,
    );
  }
  if (version < SNAPSHOT_VERSION) {
    throw new UserError(
      `${file} is a snapshot of format version ${version}, written by an older mongo-advisor; this one ` +
        `reads version ${SNAPSHOT_VERSION}. Collect a new one with: mongo-advisor collect <uri> --output <new ` +
        `snapshot file> (keep the old one: an older mongo-advisor still reads it)`,
    );
  }
  const validateSnapshot = validatorFor(collectors);
  if (!validateSnapshot(data)) {
    const errors = validateSnapshot.errors ?? [];
    const shown = errors.slice(0, 5).map(describe).join('; ');
    throw new UserError(
      `${file} is not a valid snapshot of format ` +
        `version ${SNAPSHOT_VERSION}: ${shown}${errors.length > 5 ? ` (and ${errors.length - 5} more)` : ''}. ` +
        `It was edited or written by a broken tool; collect a new one with: mongo-advisor collect <uri> ` +
        `--output <new snapshot file>`,
    );
  }
  return data as Snapshot;
}

/** Reads and checks a snapshot file; every failure is a UserError with the file name and what to do. */
export function loadSnapshot(file: string, collectors: readonly AnyCollector[] = []): Snapshot {
  let text: string;
  try {
    text = readTextBounded(file, MAX_SNAPSHOT_BYTES);
  } catch (err) {
    if (err instanceof TooLarge) {
      throw new UserError(
        `${file} is ${formatBytes(err.bytes)}: mongo-advisor reads snapshots up to ` +
          `${formatBytes(MAX_SNAPSHOT_BYTES)} (parsing takes several times the file in memory); nothing was read. ` +
          'Check that it is a snapshot; collect a smaller one with fewer databases or a smaller sample: ' +
          'mongo-advisor collect <uri> --db <name> ' +
          '--sample-size <n> --output <new snapshot file>',
      );
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw new UserError(
        `Snapshot file ${file} does not exist. Create it with: mongo-advisor collect <uri> --db <name> ` +
          `--output ${file}`,
      );
    if (code === 'EISDIR') throw new UserError(`${file} is a directory, not a snapshot file.`);
    throw new UserError(`Could not read ${file}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UserError(
      `${file} is not JSON (${(err as Error).message}), so not a mongo-advisor snapshot. Create one with: ` +
        `mongo-advisor collect <uri> --db <name> --output <new snapshot file>`,
    );
  }
  return parseSnapshot(data, file, collectors);
}

/** The snapshot as written to disk: checked against the schema first, so a file we write is one we can read. */
export function serializeSnapshot(snapshot: Snapshot, collectors: readonly AnyCollector[] = []): string {
  const validateSnapshot = validatorFor(collectors);
  if (!validateSnapshot(JSON.parse(JSON.stringify(snapshot)))) {
    // Not the user's doing: collect produced something its own schema refuses.
    throw new Error(
      `the collected snapshot does not match its schema ` +
        `(${(validateSnapshot.errors ?? []).slice(0, 3).map(describe).join('; ')})`,
    );
  }
  return `${JSON.stringify(snapshot, null, 1)}\n`;
}

export function saveSnapshot(file: string, snapshot: Snapshot, collectors: readonly AnyCollector[] = []): void {
  const text = serializeSnapshot(snapshot, collectors);
  try {
    writeFileSync(file, text);
  } catch (err) {
    throw new UserError(`Could not write the snapshot to ${file}: ${(err as Error).message}`);
  }
}
