import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import * as path from 'node:path';
import { UserError } from '../core/errors';
import { formatBytes } from '../core/format';
import { MAX_NESTING, MAX_SPEC_BYTES, readTextBounded, shortPath, TooLarge, tooDeep } from '../core/input-limits';

/** One declared index, as in createIndexes (key order matters). */
export interface DeclaredIndex {
  key: Record<string, number | string>;
  name?: string;
  unique?: boolean;
  sparse?: boolean;
  hidden?: boolean;
  expireAfterSeconds?: number;
  partialFilterExpression?: Record<string, unknown>;
  collation?: Record<string, unknown>;
}

/** createCollection options the checks read; others are allowed and passed through unchecked. */
export interface DeclaredOptions {
  clusteredIndex?: { key: Record<string, unknown>; unique: boolean; name?: string };
  capped?: boolean;
  size?: number;
  max?: number;
  validator?: Record<string, unknown>;
  validationLevel?: string;
  validationAction?: string;
  [other: string]: unknown;
}

export interface DeclaredCollection {
  name: string;
  /** Database; the spec's top-level "db" when absent. */
  db?: string;
  options?: DeclaredOptions;
  indexes?: DeclaredIndex[];
  /** What the application puts in _id, for the clustered-key check: objectId, uuidv4, uuidv7, string, int, long, date,
   * other. */
  idType?: string;
}

/** A declared spec ("schema as code"): the collections, options, validators and indexes a deployment should have. */
export interface Spec {
  $schema?: string;
  db?: string;
  collections: DeclaredCollection[];
  /** Report live collections the spec does not declare (default true). */
  reportUndeclared?: boolean;
}

export const ID_TYPES = ['objectId', 'uuidv4', 'uuidv7', 'uuid', 'string', 'int', 'long', 'date', 'other'];

/** JSON Schema of a spec file. Declared objects are closed (a typo must not pass silently); options stay open. */
export const SPEC_JSON_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'mongo-advisor declared spec',
  type: 'object',
  required: ['collections'],
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    db: { type: 'string', minLength: 1 },
    reportUndeclared: { type: 'boolean' },
    collections: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: {
          name: { type: 'string', minLength: 1 },
          db: { type: 'string', minLength: 1 },
          idType: { enum: ID_TYPES },
          options: {
            type: 'object',
            properties: {
              clusteredIndex: {
                type: 'object',
                required: ['key'],
                properties: { key: { type: 'object' }, unique: {}, name: { type: 'string' } },
              },
              capped: { type: 'boolean' },
              size: { type: 'number' },
              max: { type: 'number' },
              validator: { type: 'object' },
              validationLevel: { type: 'string' },
              validationAction: { type: 'string' },
            },
          },
          indexes: {
            type: 'array',
            items: {
              type: 'object',
              required: ['key'],
              additionalProperties: false,
              properties: {
                key: { type: 'object', minProperties: 1, additionalProperties: { type: ['number', 'string'] } },
                name: { type: 'string', minLength: 1 },
                unique: { type: 'boolean' },
                sparse: { type: 'boolean' },
                hidden: { type: 'boolean' },
                expireAfterSeconds: { type: 'integer', minimum: 0 },
                partialFilterExpression: { type: 'object' },
                collation: { type: 'object' },
              },
            },
          },
        },
      },
    },
  },
} as const;

// Compiled on first use, not at import: every CLI start imports this module, few read a spec (about 60 ms).
let specValidator: ValidateFunction | undefined;
const validateSpec = (): ValidateFunction =>
  (specValidator ??= new Ajv({ allErrors: true, strict: true, allowUnionTypes: true }).compile(SPEC_JSON_SCHEMA));

function describe(e: ErrorObject): string {
  const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(top level)';
  if (e.keyword === 'additionalProperties')
    return `${at}: unknown key "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  if (e.keyword === 'required') return `${at}: missing "${(e.params as { missingProperty: string }).missingProperty}"`;
  if (e.keyword === 'enum')
    return (
      `${at} must be one ` +
      `of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
    );
  return `${at} ${e.message ?? 'is invalid'}`;
}

export interface LoadedSpec {
  spec: Spec;
  file: string;
  /** The file's text (for line numbers); empty for JS specs that build their collections in code. */
  text: string;
}

/** Reads a JSON spec, or a JS one (CommonJS `module.exports = {…}`, or an ES module's default export). */
export function loadSpec(file: string): LoadedSpec {
  const abs = path.resolve(file);
  let text = '';
  try {
    text = readTextBounded(abs, MAX_SPEC_BYTES);
  } catch (err) {
    if (err instanceof TooLarge) {
      throw new UserError(
        `The spec ${file} is ${formatBytes(err.bytes)}: mongo-advisor reads specs up to ` +
          `${formatBytes(MAX_SPEC_BYTES)} ` +
          '(a spec declares collections, options, validators and indexes by hand), and nothing was read or run. ' +
          'Check the path given to --spec (or "spec" in the configuration).',
      );
    }
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new UserError(
        `Spec file ${file} does not exist. Check the path given to --spec (or "spec" in the configuration).`,
      );
    throw new UserError(`Could not read the spec ${file}: ${(err as Error).message}`);
  }
  let data: unknown;
  if (/\.(c|m)?js$/.test(abs)) {
    try {
      const mod = require(abs) as { default?: unknown };
      data = mod && typeof mod === 'object' && 'default' in mod ? mod.default : mod;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ERR_REQUIRE_ESM' || e.code === 'ERR_REQUIRE_ASYNC_MODULE')
        throw new UserError(
          `${file} is an ES module this Node (${process.version}) cannot load synchronously; use Node ` +
            `20.19+ / 22.12+, or a CommonJS or JSON spec.`,
        );
      throw new UserError(`The spec ${file} failed to load: ${e.message.split('\n')[0] ?? ''}`);
    }
  } else {
    try {
      data = JSON.parse(text);
    } catch (err) {
      throw new UserError(`The spec ${file} is not valid JSON: ${(err as Error).message}`);
    }
  }
  const deep = tooDeep(data);
  if (deep !== null) {
    throw new UserError(
      `The spec ${file} nests objects deeper than ${MAX_NESTING} levels (at ${shortPath(deep)}): MongoDB refuses ` +
        'documents nested deeper than 100, so no server would accept it. Check the validator or options there.',
    );
  }
  if (data && typeof data === 'object' && (data as { format?: unknown }).format === 'mongo-advisor-snapshot') {
    throw new UserError(
      `${file} is a snapshot, not a spec: pass it as the target (mongo-advisor lint ${file} --spec <spec file>).`,
    );
  }
  if (!validateSpec()(data)) {
    const errors = validateSpec().errors ?? [];
    const more = errors.length > 5 ? ` (and ${errors.length - 5} more)` : '';
    throw new UserError(
      `The spec ${file} is not valid: ${errors.slice(0, 5).map(describe).join('; ')}${more}. ` +
        `Expected { "db": "app", "collections": [{ "name": "posts", "options": {…}, "indexes": [{ "key": { ` +
        `"author": 1 } }] }] }.`,
    );
  }
  const spec = data as Spec;
  const missingDb = spec.collections.filter((c) => !c.db && !spec.db).map((c) => c.name);
  if (missingDb.length)
    throw new UserError(
      `The spec ${file} does not say which database ${missingDb.map((n) => `"${n}"`).join(', ')} ` +
        `belong${missingDb.length === 1 ? 's' : ''} to: add a top-level "db" or a "db" on each collection.`,
    );
  const seen = new Set<string>();
  for (const c of spec.collections) {
    const id = `${c.db ?? spec.db}.${c.name}`;
    if (seen.has(id)) throw new UserError(`The spec ${file} declares ${id} twice.`);
    seen.add(id);
  }
  return { spec, file: abs, text };
}

export function dbOf(c: DeclaredCollection, spec: Spec): string {
  return c.db ?? spec.db ?? '';
}

/** The name MongoDB gives an index when none is set: key_dir joined by underscores. */
export function defaultIndexName(key: Record<string, number | string>): string {
  return Object.entries(key)
    .map(([k, v]) => `${k}_${v}`)
    .join('_');
}
