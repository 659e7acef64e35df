import Ajv, { type ErrorObject } from 'ajv';
import { writeFileSync } from 'node:fs';
import type { AnyCollector, CollectorScope } from './collector';
import { UserError } from './errors';
import { formatBytes } from './format';
import { MAX_NESTING, MAX_SNAPSHOT_BYTES, readTextBounded, shortPath, TooLarge, tooDeep } from './input-limits';
import { type Snapshot, SNAPSHOT_FORMAT, SNAPSHOT_JSON_SCHEMA, SNAPSHOT_VERSION } from './snapshot-schema';

/*
 * The snapshot file: what `collect` writes and `analyze`/`lint`/`audit` read. Its core schema and the types derived
 * from it are in src/core/snapshot-schema.ts. Collectors' data sits under `data[<collector id>]` of the snapshot, a
 * database or a collection, and the schema of a run is composed from the core and the schema each collector declares
 * (`snapshotJsonSchema(collectors)`): a loaded snapshot is checked against the collectors of the rules that will read
 * it.
 */

export { DOC_PROFILE_SCHEMA, SNAPSHOT_JSON_SCHEMA } from './snapshot-schema';

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
