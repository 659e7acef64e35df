import type { FindingInput } from '../core/rule';
import { BSON_TYPE_ALIASES } from '../lib/bson-types';
import { type IndexShape, isKeyPrefix, prefixBlockers } from '../lib/index-keys';
import { type DeclaredCollection, type DeclaredIndex, dbOf, defaultIndexName, type Spec } from './format';

/** A spec finding before the runner-like wrapper turns it into a Finding (rule id, docs, severity). */
export type SpecFindingInput = Omit<FindingInput, 'data'> & {
  data?: Record<string, string | number>;
  ruleId: string;
  message: string;
};

// MongoDB's $jsonSchema: draft 4 keywords less its omissions ($ref, $schema, default, definitions, format, id),
// plus bsonType. Source: the MongoDB manual, $jsonSchema, "Available Keywords" and "Omissions".
const JSON_SCHEMA_KEYWORDS = new Set([
  'additionalItems',
  'additionalProperties',
  'allOf',
  'anyOf',
  'bsonType',
  'dependencies',
  'description',
  'enum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'items',
  'maximum',
  'maxItems',
  'maxLength',
  'maxProperties',
  'minimum',
  'minItems',
  'minLength',
  'minProperties',
  'multipleOf',
  'not',
  'oneOf',
  'pattern',
  'patternProperties',
  'properties',
  'required',
  'title',
  'type',
  'uniqueItems',
]);
const OMITTED = new Set(['$ref', '$schema', 'default', 'definitions', 'format', 'id']);
// JSON Schema "type" in MongoDB: draft 4 types less "integer" (the manual: use bsonType int or long).
const JSON_TYPES = new Set(['object', 'array', 'number', 'boolean', 'string', 'null']);
// Query operators a validator may not use (MongoDB manual, "Schema Validation", restrictions).
const FORBIDDEN_IN_VALIDATOR = new Set(['$near', '$nearSphere', '$text', '$where', '$function']);
const VALIDATION_LEVELS = ['off', 'strict', 'moderate'];
const VALIDATION_ACTIONS = ['error', 'warn', 'errorAndLog'];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Problems MongoDB would raise on this $jsonSchema, as "at path: what". */
export function jsonSchemaProblems(schema: unknown, at = '$jsonSchema'): string[] {
  if (!isObject(schema)) return [`${at} must be an object`];
  const out: string[] = [];
  for (const [k, v] of Object.entries(schema)) {
    if (OMITTED.has(k)) out.push(`${at}: "${k}" is not supported by MongoDB's $jsonSchema`);
    else if (!JSON_SCHEMA_KEYWORDS.has(k)) out.push(`${at}: unknown keyword "${k}"`);
    else {
      const sub = `${at}.${k}`;
      out.push(...typeKeywordProblems(schema, k, v, at), ...subschemaProblems(k, v, sub), ...valueProblems(k, v, sub));
    }
  }
  return out;
}

/** `bsonType` and `type`: known names only, never both. */
function typeKeywordProblems(schema: Record<string, unknown>, k: string, v: unknown, at: string): string[] {
  const sub = `${at}.${k}`;
  const types: unknown[] = Array.isArray(v) ? v : [v];
  const out: string[] = [];
  if (k === 'bsonType') {
    for (const t of types) {
      if (typeof t !== 'string' || !BSON_TYPE_ALIASES.has(t))
        out.push(`${sub}: ${JSON.stringify(t)} is not a BSON type alias`);
    }
    if (schema.type !== undefined) out.push(`${at}: "type" and "bsonType" cannot both be set`);
  } else if (k === 'type') {
    for (const t of types) {
      if (t === 'integer') out.push(`${sub}: "integer" is not supported; use bsonType "int" or "long"`);
      else if (typeof t !== 'string' || !JSON_TYPES.has(t)) out.push(`${sub}: ${JSON.stringify(t)} is not a JSON type`);
    }
  }
  return out;
}

/** Keywords that hold schemas (`properties`, `allOf`, `not`, `items`…): checked in turn, at their own paths. */
function subschemaProblems(k: string, v: unknown, sub: string): string[] {
  const each = (schemas: readonly unknown[]): string[] =>
    schemas.flatMap((s, i) => jsonSchemaProblems(s, `${sub}[${i}]`));
  switch (k) {
    case 'properties':
    case 'patternProperties': {
      if (!isObject(v)) return [`${sub} must be an object`];
      const out = Object.entries(v).flatMap(([name, s]) => jsonSchemaProblems(s, `${sub}.${name}`));
      if (k === 'patternProperties') for (const p of Object.keys(v)) out.push(...regexProblems(p, sub));
      return out;
    }
    case 'allOf':
    case 'anyOf':
    case 'oneOf':
      return !Array.isArray(v) || v.length === 0 ? [`${sub} must be a non-empty array of schemas`] : each(v);
    case 'not':
      return jsonSchemaProblems(v, sub);
    case 'items':
      return Array.isArray(v) ? each(v) : jsonSchemaProblems(v, sub);
    case 'additionalProperties':
    case 'additionalItems':
      return typeof v === 'boolean' ? [] : jsonSchemaProblems(v, sub);
    default:
      return [];
  }
}

function regexProblems(source: string, sub: string): string[] {
  try {
    new RegExp(source);
    return [];
  } catch {
    return [`${sub}: ${JSON.stringify(source)} is not a valid regular expression`];
  }
}

/** Keywords that hold values: lists, patterns, numbers, counts. */
function valueProblems(k: string, v: unknown, sub: string): string[] {
  switch (k) {
    case 'required': {
      const names =
        Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') && new Set(v).size === v.length;
      return names ? [] : [`${sub} must be a non-empty array of distinct field names`];
    }
    case 'enum':
      return !Array.isArray(v) || v.length === 0 ? [`${sub} must be a non-empty array`] : [];
    case 'pattern':
      return typeof v !== 'string' ? [`${sub} must be a string`] : regexProblems(v, sub);
    case 'maximum':
    case 'minimum':
    case 'multipleOf':
      return typeof v !== 'number' ? [`${sub} must be a number`] : [];
    case 'exclusiveMaximum':
    case 'exclusiveMinimum':
      return typeof v !== 'boolean' ? [`${sub} must be true or false (draft 4)`] : [];
    case 'maxItems':
    case 'minItems':
    case 'maxLength':
    case 'minLength':
    case 'maxProperties':
    case 'minProperties':
      return typeof v !== 'number' || !Number.isInteger(v) || v < 0 ? [`${sub} must be a whole number, 0 or more`] : [];
    default:
      return [];
  }
}

function forbiddenOperators(v: unknown, at: string, out: string[]): void {
  if (Array.isArray(v)) v.forEach((x, i) => forbiddenOperators(x, `${at}[${i}]`, out));
  else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (FORBIDDEN_IN_VALIDATOR.has(k)) out.push(`${at}: ${k} cannot be used in a validator`);
      if (k !== '$jsonSchema') forbiddenOperators(x, `${at}.${k}`, out);
    }
  }
}

/** Problems with a declared validator and its level and action. */
export function validatorProblems(c: DeclaredCollection): string[] {
  const o = c.options ?? {};
  const out: string[] = [];
  if (o.validator !== undefined) {
    if (!isObject(o.validator)) out.push('validator must be an object');
    else {
      if (o.validator.$jsonSchema !== undefined) out.push(...jsonSchemaProblems(o.validator.$jsonSchema));
      forbiddenOperators(o.validator, 'validator', out);
    }
  }
  if (o.validationLevel !== undefined && !VALIDATION_LEVELS.includes(o.validationLevel))
    out.push(`validationLevel ${JSON.stringify(o.validationLevel)} is not one of ${VALIDATION_LEVELS.join(', ')}`);
  if (o.validationAction !== undefined && !VALIDATION_ACTIONS.includes(o.validationAction))
    out.push(`validationAction ${JSON.stringify(o.validationAction)} is not one of ${VALIDATION_ACTIONS.join(', ')}`);
  return out;
}

const sameKey = (a: Record<string, number | string>, b: Record<string, number | string>): boolean =>
  JSON.stringify(Object.entries(a)) === JSON.stringify(Object.entries(b));

/** A declared index in the shape the shared prefix checks read (src/lib/index-keys.ts), as listIndexes would give
 * it. */
export const shapeOf = (i: DeclaredIndex): IndexShape => ({
  name: i.name ?? defaultIndexName(i.key),
  key: i.key,
  ...(i.unique === true ? { unique: true } : {}),
  ...(i.sparse === true ? { sparse: true } : {}),
  ...(i.hidden === true ? { hidden: true } : {}),
  ...(i.partialFilterExpression !== undefined ? { partial: true } : {}),
  ...(i.expireAfterSeconds !== undefined ? { expireAfterSeconds: i.expireAfterSeconds } : {}),
  ...(i.collation !== undefined ? { collation: i.collation } : {}),
});

const optionsText = (i: DeclaredIndex): string =>
  JSON.stringify({
    u: i.unique ?? false,
    s: i.sparse ?? false,
    p: i.partialFilterExpression ?? null,
    c: i.collation ?? null,
    t: i.expireAfterSeconds ?? null,
  });

/** Redundant declared indexes: same key twice, or a plain index that is a prefix of a compound one. */
export function redundantIndexes(c: DeclaredCollection, spec: Spec): SpecFindingInput[] {
  const db = dbOf(c, spec);
  const clustered = c.options?.clusteredIndex !== undefined;
  const all: DeclaredIndex[] = [
    ...(clustered ? [] : [{ key: { _id: 1 }, name: '_id_', unique: true }]),
    ...(c.indexes ?? []),
  ];
  const out: SpecFindingInput[] = [];
  for (const ix of c.indexes ?? []) {
    const name = ix.name ?? defaultIndexName(ix.key);
    for (const other of all) {
      if (other === ix) continue;
      const otherName = other.name ?? defaultIndexName(other.key);
      if (
        sameKey(ix.key, other.key) &&
        optionsText(ix) === optionsText(other) &&
        all.indexOf(other) < all.indexOf(ix)
      ) {
        out.push({
          ruleId: 'spec-redundant-index',
          messageId: 'duplicate',
          target: { db, collection: c.name, index: name },
          message:
            `Index ${name} has the same key and options as ${otherName}: MongoDB refuses the second one ` +
            `("index already exists with a different name"), and one would be pure write cost.`,
          evidence: { index: name, duplicateOf: otherName },
          recommendation: {
            action: 'remove the duplicate',
            reason: `${otherName} already serves every query ${name} would.`,
          },
        });
        break;
      }
      // The same test as the live index-usage rule: a strict prefix, and nothing (kind, collation, uniqueness,
      // sparseness, partial filter, TTL, a hidden longer index) that stops the longer index serving its queries.
      if (
        Object.keys(ix.key).length < Object.keys(other.key).length &&
        isKeyPrefix(shapeOf(ix), shapeOf(other)) &&
        prefixBlockers(shapeOf(ix), shapeOf(other)).length === 0
      ) {
        out.push({
          ruleId: 'spec-redundant-index',
          messageId: 'prefix',
          target: { db, collection: c.name, index: name },
          message:
            `Index ${name} is a prefix of ${otherName}: queries on ${Object.keys(ix.key).join(', ')} can ` +
            `use ${otherName}, so ${name} adds write and cache cost for nothing (Atlas flags the same: ` +
            `redundant = prefix of another).`,
          evidence: { index: name, prefixOf: otherName },
          recommendation: {
            action: 'drop the prefix index',
            reason:
              `${otherName} serves the same queries; keep ${name} only if its smaller size matters for a hot, ` +
              `covered query.`,
          },
        });
        break;
      }
    }
  }
  return out;
}

const RANDOM_IDS = new Set(['uuidv4', 'uuid']);

/** A declared clustered collection: the key MongoDB requires, no capping, and an _id that arrives in order. */
export function clusteredProblems(c: DeclaredCollection, spec: Spec): SpecFindingInput[] {
  const ci = c.options?.clusteredIndex;
  if (!ci) return [];
  const db = dbOf(c, spec);
  const target = { db, collection: c.name };
  const out: SpecFindingInput[] = [];
  const keyOk = Object.keys(ci.key).length === 1 && ci.key._id === 1;
  if (!keyOk) {
    out.push({
      ruleId: 'spec-clustered-key',
      messageId: 'key',
      target,
      message:
        `The clustered key of ${c.name} is ${JSON.stringify(ci.key)}; MongoDB clusters only on { _id: 1 } and ` +
        `refuses anything else.`,
      evidence: { key: JSON.stringify(ci.key) },
      recommendation: {
        action: 'cluster on _id',
        reason: 'Put the value you want rows ordered by into _id (it must be unique and never change).',
      },
    });
  }
  if (ci.unique !== true) {
    out.push({
      ruleId: 'spec-clustered-key',
      messageId: 'unique',
      target,
      message: `The clustered index of ${c.name} must declare unique: true; MongoDB refuses it otherwise.`,
      evidence: { unique: String(ci.unique) },
    });
  }
  if (c.options?.capped === true) {
    out.push({
      ruleId: 'spec-clustered-key',
      messageId: 'capped',
      target,
      message:
        `${c.name} is declared both clustered and capped; a clustered collection cannot be capped (use ` +
        `expireAfterSeconds to age documents out).`,
      evidence: { capped: true },
    });
  }
  const id = c.idType ?? idTypeFromValidator(c);
  if (id && RANDOM_IDS.has(id)) {
    out.push({
      ruleId: 'spec-clustered-key',
      messageId: 'randomId',
      severity: 'warn',
      target,
      message:
        `${c.name} is clustered on a random _id (${id}): inserts land all over the tree. Measured on 6.0.5 ` +
        `with 20M documents, clustered with UUID keys was much slower than a regular collection (domain facts ` +
        `§1).`,
      evidence: { idType: id },
      recommendation: {
        action: 'use a time-ordered _id, or a regular collection',
        reason:
          'ObjectId or UUID v7 keys keep inserts at the right edge of the tree; with random keys keep the ' +
          'collection regular.',
      },
    });
  }
  return out;
}

function idTypeFromValidator(c: DeclaredCollection): string | null {
  const schema = c.options?.validator?.$jsonSchema;
  const idSchema = isObject(schema) && isObject(schema.properties) ? schema.properties._id : undefined;
  if (!isObject(idSchema)) return null;
  if (idSchema.bsonType === 'objectId') return 'objectId';
  // binData may hold a UUID v4 or v7: only an explicit idType says which.
  return null;
}
