/**
 * MongoDB's $jsonSchema (draft 4 plus `bsonType`) checked in-process with ajv, over documents as the driver or
 * mongosh hands them back. Pure: no I/O. Used by the validator rule's dry run (collect.ts); only this rule evaluates
 * $jsonSchema, so it lives in the rule's folder.
 *
 * How: the schema is translated (MongoDB keywords ajv lacks become custom keywords, draft-4 boolean
 * `exclusiveMaximum` becomes the draft-7 number form, `type` is checked against BSON types), and every document is
 * normalised into plain JSON for ajv's number and string keywords, while the custom keywords look at the original
 * host value so BSON types (`_bsontype`, never instanceof) are told apart. Whatever cannot be evaluated is named
 * ("keyword at path"), never silently passed.
 */
import Ajv, { type ErrorObject } from 'ajv';
import type { DataValidationCxt } from 'ajv/dist/types';
import { isDate } from '../../src/lib/bson-types';
import { BSON_TYPE_ALIASES, bsonTypeOfTag, isNumericBsonType, NUMERIC_BSON_TYPES } from '../../src/lib/bson-types';
import { joinPath, pathOf } from '../../src/lib/doc-path';

type Doc = Record<string, unknown>;

const JSON_TYPES: Record<string, string[]> = {
  object: ['object'],
  array: ['array'],
  number: [...NUMERIC_BSON_TYPES],
  boolean: ['bool'],
  string: ['string'],
  null: ['null'],
};
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * The BSON types a host value may have been stored as. Hosts return int32 and double (and, by default, small
 * longs) as JavaScript numbers, so a whole number may be any of int, long or double.
 */
export function bsonTypesOf(v: unknown): string[] {
  if (v === null) return ['null'];
  switch (typeof v) {
    case 'string':
      return ['string'];
    case 'boolean':
      return ['bool'];
    case 'bigint':
      return ['long'];
    case 'number':
      if (!Number.isInteger(v) || Object.is(v, -0)) return ['double'];
      if (v >= INT32_MIN && v <= INT32_MAX) return ['int', 'long', 'double'];
      return Number.isSafeInteger(v) ? ['long', 'double'] : ['double'];
    case 'object':
      break;
    default:
      return ['undefined'];
  }
  if (Array.isArray(v)) return ['array'];
  const t = (v as { _bsontype?: unknown })._bsontype;
  if (typeof t === 'string') {
    return [bsonTypeOfTag(t, v)];
  }
  if (isDate(v)) return ['date'];
  if (v instanceof RegExp) return ['regex'];
  if (v instanceof Uint8Array) return ['binData'];
  return ['object'];
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  const o = v as { toNumber?: () => number; valueOf?: () => unknown; toString(): string };
  if (typeof o.toNumber === 'function') return o.toNumber();
  const prim = o.valueOf?.();
  return typeof prim === 'number' ? prim : Number(o.toString());
}

/** A key equal for values MongoDB's equality treats as equal (numbers across types compare by value). */
export function canonicalKey(v: unknown): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return `s${JSON.stringify(v)}`;
    case 'number':
      return `n${Object.is(v, -0) ? 0 : v}`;
    case 'bigint':
      return `n${Number(v)}`;
    case 'boolean':
      return `b${String(v)}`;
    case 'object':
      break;
    default:
      return 'u';
  }
  if (Array.isArray(v)) return `[${v.map(canonicalKey).join(',')}]`;
  const t = (v as { _bsontype?: unknown })._bsontype;
  if (typeof t === 'string') {
    if (t === 'Int32' || t === 'Double' || t === 'Long' || t === 'Decimal128') return `n${toNumber(v)}`;
    if (t === 'ObjectId' || t === 'ObjectID') return `o${(v as { toHexString(): string }).toHexString()}`;
    if (t === 'Binary') {
      const b = v as { sub_type?: number; buffer?: Uint8Array; toString(enc: string): string };
      return `x${b.sub_type ?? 0}:${b.toString('base64')}`;
    }
    return `${t}:${JSON.stringify(v)}`;
  }
  if (isDate(v)) return `d${v.getTime()}`;
  if (v instanceof RegExp) return `r${String(v)}`;
  const entries = Object.entries(v as Doc).filter(([, x]) => x !== undefined);
  return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalKey(x)}`).join(',')}}`;
}

/* ------------------------------------------------------------------------------------------------ */
/* Translation                                                                                       */
/* ------------------------------------------------------------------------------------------------ */

const COPIED = new Set([
  'maximum',
  'minimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'maxItems',
  'minItems',
  'maxProperties',
  'minProperties',
]);
const ANNOTATIONS = new Set(['title', 'description']);
const ENCRYPTION = new Set(['encrypt', 'encryptMetadata']);

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);
const at = (path: string): string => (path === '' ? '(document)' : path);

class Translator {
  readonly unsupported: string[] = [];

  private skip(keyword: string, path: string, why?: string): void {
    this.unsupported.push(`${keyword} at ${at(path)}${why ? ` (${why})` : ''}`);
  }

  schema(s: unknown, path: string): Doc | boolean {
    if (typeof s === 'boolean') return s;
    if (s === null || typeof s !== 'object' || Array.isArray(s)) {
      this.skip('a schema that is not an object', path);
      return true;
    }
    const src = s as Doc;
    const out: Doc = {};
    for (const [k, v] of Object.entries(src)) {
      if (v === undefined) continue;
      if (!this.keyword(k, v, path, out) && !this.subschemas(k, v, path, out)) this.other(k, v, path, out);
    }
    // draft 4: exclusiveMaximum is a boolean modifying maximum; ajv (draft 7) takes the bound itself
    for (const [flag, bound] of [
      ['exclusiveMaximum', 'maximum'],
      ['exclusiveMinimum', 'minimum'],
    ] as const) {
      if (src[flag] === true && out[bound] !== undefined) {
        out[flag] = out[bound];
        delete out[bound];
      }
    }
    return out;
  }

  /** Keywords on the value itself (types, enum, bounds' flags, required, pattern); false when `k` is none of them. */
  private keyword(k: string, v: unknown, path: string, out: Doc): boolean {
    switch (k) {
      case 'bsonType': {
        const list = (Array.isArray(v) ? v : [v]).map(String);
        const bad = list.filter((t) => !BSON_TYPE_ALIASES.has(t));
        if (bad.length) this.skip(`bsonType "${bad.join('", "')}"`, path, 'not a BSON type alias');
        else out.bsonType = list;
        return true;
      }
      case 'type': {
        const list = (Array.isArray(v) ? v : [v]).map(String);
        const bad = list.filter((t) => JSON_TYPES[t] === undefined);
        const accepted = 'MongoDB accepts object, array, number, boolean, string and null';
        if (bad.length) this.skip(`type "${bad.join('", "')}"`, path, accepted);
        else out.mongoType = list;
        return true;
      }
      case 'enum':
        if (Array.isArray(v)) out.mongoEnum = v;
        else this.skip('enum', path, 'not an array');
        return true;
      case 'uniqueItems':
        if (v === true) out.mongoUniqueItems = true;
        return true;
      case 'exclusiveMaximum':
      case 'exclusiveMinimum':
        return true; // folded into maximum/minimum below
      case 'required':
        if (Array.isArray(v)) out.required = v.map(String);
        else this.skip('required', path, 'not an array');
        return true;
      case 'pattern': {
        const p = typeof v === 'string' ? v : JSON.stringify(v);
        try {
          new RegExp(p);
          out.pattern = p;
        } catch {
          this.skip('pattern', path, 'not a JavaScript regular expression (the server uses PCRE)');
        }
        return true;
      }
      default:
        return false;
    }
  }

  /** Keywords holding schemas (properties, items, combinators), translated in turn; false when `k` is none of them. */
  private subschemas(k: string, v: unknown, path: string, out: Doc): boolean {
    switch (k) {
      case 'properties':
        if (isMap(v)) out.properties = this.map(v, (key) => joinPath(path, key));
        else this.skip('properties', path, 'not an object');
        return true;
      case 'patternProperties': {
        if (!isMap(v)) {
          this.skip('patternProperties', path, 'not an object');
          return true;
        }
        const ok: Doc = {};
        for (const [p, sub] of Object.entries(v)) {
          try {
            new RegExp(p);
            ok[p] = this.schema(sub, join(path, `<fields matching /${p}/>`));
          } catch {
            this.skip('patternProperties', path, `/${p}/ is not a JavaScript regular expression`);
          }
        }
        out.patternProperties = ok;
        return true;
      }
      case 'additionalProperties':
        out.additionalProperties = this.schema(v, join(path, '<other fields>'));
        return true;
      case 'items':
        out.items = Array.isArray(v)
          ? v.map((sub, i) => this.schema(sub, join(path, String(i))))
          : this.schema(v, join(path, '$[]'));
        return true;
      case 'additionalItems':
        out.additionalItems = this.schema(v, join(path, '$[]'));
        return true;
      case 'dependencies': {
        if (!isMap(v)) {
          this.skip('dependencies', path, 'not an object');
          return true;
        }
        const deps: Doc = {};
        for (const [field, dep] of Object.entries(v)) {
          deps[field] = Array.isArray(dep) ? dep.map(String) : this.schema(dep, path);
        }
        out.dependencies = deps;
        return true;
      }
      case 'allOf':
      case 'anyOf':
      case 'oneOf':
        if (Array.isArray(v)) out[k] = v.map((sub) => this.schema(sub, path));
        else this.skip(k, path, 'not an array');
        return true;
      case 'not':
        out.not = this.schema(v, path);
        return true;
      default:
        return false;
    }
  }

  /** The rest: numeric bounds copied, annotations dropped, anything else named as not checked. */
  private other(k: string, v: unknown, path: string, out: Doc): void {
    if (COPIED.has(k)) {
      const numeric = v !== null && (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'object');
      const n = numeric ? toNumber(v) : NaN;
      const positive = k === 'multipleOf';
      const bad = !Number.isFinite(n) || (positive && n <= 0);
      if (bad) this.skip(k, path, positive ? 'not a positive number' : 'not a number');
      else out[k] = n;
    } else if (ENCRYPTION.has(k)) {
      this.skip(k, path, 'field-level encryption: the driver and server check it, not the advisor');
    } else if (!ANNOTATIONS.has(k)) this.skip(k, path);
  }

  private map(v: Doc, pathOf: (key: string) => string): Doc {
    const out: Doc = {};
    for (const [key, sub] of Object.entries(v)) defineKey(out, key, this.schema(sub, pathOf(key)));
    return out;
  }
}

const isMap = (v: unknown): v is Doc => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Sets a key even when it is `__proto__`. */
function defineKey(o: Doc, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
}

/* ------------------------------------------------------------------------------------------------ */
/* Normalisation and the custom keywords                                                            */
/* ------------------------------------------------------------------------------------------------ */

/** Stands for BSON values ajv has no JSON type for (ObjectId, date, binary…): no JSON keyword applies to it. */
const OPAQUE = Symbol('bson value');

interface RunState {
  root: unknown;
  /** normalised container -> the host's original container */
  origins: WeakMap<object, unknown>;
  undecided: Set<string>;
}
let state: RunState | null = null;

function normalise(v: unknown, origins: WeakMap<object, unknown>): unknown {
  switch (typeof v) {
    case 'string':
    case 'number':
    case 'boolean':
      return v;
    case 'bigint':
      return Number(v);
    case 'object':
      break;
    default:
      return OPAQUE;
  }
  if (v === null) return null;
  if (Array.isArray(v)) {
    const out = v.map((x) => normalise(x, origins));
    origins.set(out, v);
    return out;
  }
  const t = (v as { _bsontype?: unknown })._bsontype;
  if (typeof t === 'string')
    return t === 'Int32' || t === 'Double' || t === 'Long' || t === 'Decimal128' ? toNumber(v) : OPAQUE;
  if (isDate(v) || v instanceof RegExp || v instanceof Uint8Array) return OPAQUE;
  const out: Doc = {};
  for (const key in v as Doc) {
    const x = (v as Doc)[key];
    if (x === undefined) continue;
    defineKey(out, key, normalise(x, origins));
  }
  origins.set(out, v);
  return out;
}

function originalOf(cxt: DataValidationCxt | undefined): unknown {
  const s = state as RunState;
  if (!cxt || cxt.parentData === undefined || cxt.parentData === null) return s.root;
  const container = s.origins.get(cxt.parentData) as Doc | unknown[] | undefined;
  if (container === undefined) return undefined;
  return (container as Record<string | number, unknown>)[cxt.parentDataProperty];
}

/** The census path of a JSON pointer (src/lib/doc-path.ts), with array indexes as `$[]` (as the census names them). */
function pointerToPath(root: unknown, pointer: string): string {
  if (pointer === '') return '';
  const parts: string[] = [];
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      parts.push('$[]');
      cur = cur[Number(seg)];
    } else {
      parts.push(seg);
      cur = cur !== null && typeof cur === 'object' ? (cur as Doc)[seg] : undefined;
    }
  }
  return pathOf(parts);
}

function typeCheck(allowed: readonly string[], label: string) {
  return (_data: unknown, cxt?: DataValidationCxt): boolean => {
    const candidates = bsonTypesOf(originalOf(cxt));
    const ok = candidates.filter((t) => allowed.includes(t) || (allowed.includes('number') && isNumericBsonType(t)));
    if (ok.length === 0) return false;
    if (ok.length < candidates.length && state) {
      state.undecided.add(
        `${at(pointerToPath(cxt?.rootData, cxt?.instancePath ?? ''))}: ${label} on whole numbers (the host ` +
          `returns int, long and double alike)`,
      );
    }
    return true;
  };
}

function makeAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    validateSchema: false,
    unicodeRegExp: false,
    validateFormats: false,
  });
  ajv.addKeyword({
    keyword: 'bsonType',
    schemaType: 'array',
    compile: (schema: string[]) => typeCheck(schema, `bsonType ${schema.join('/')}`),
  });
  ajv.addKeyword({
    keyword: 'mongoType',
    schemaType: 'array',
    compile: (schema: string[]) =>
      typeCheck(
        schema.flatMap((t) => JSON_TYPES[t] ?? []),
        `type ${schema.join('/')}`,
      ),
  });
  ajv.addKeyword({
    keyword: 'mongoEnum',
    schemaType: 'array',
    compile: (schema: unknown[]) => {
      const keys = new Set(schema.map(canonicalKey));
      return (_data: unknown, cxt?: DataValidationCxt) => keys.has(canonicalKey(originalOf(cxt)));
    },
  });
  ajv.addKeyword({
    keyword: 'mongoUniqueItems',
    schemaType: 'boolean',
    compile: () => (_data: unknown, cxt?: DataValidationCxt) => {
      const v = originalOf(cxt);
      if (!Array.isArray(v)) return true;
      return new Set(v.map(canonicalKey)).size === v.length;
    },
  });
  return ajv;
}

let shared: Ajv | null = null;

export interface SchemaCheck {
  /** "keyword at path" for every part of the schema that is not evaluated. */
  unsupported: string[];
  /** Checks one document: the failing paths (empty when it passes). */
  check(doc: Doc): string[];
  /** Checks decided in the document's favour because the host hides the BSON type. */
  undecided(): string[];
  dispose(): void;
}

/** Translates and compiles a $jsonSchema. Throws an Error with a one-line message when ajv cannot compile it. */
export function compileJsonSchema(jsonSchema: Doc): SchemaCheck {
  const t = new Translator();
  const translated = t.schema(jsonSchema, '');
  const ajv = (shared ??= makeAjv());
  const compiledSchema = typeof translated === 'boolean' ? {} : translated;
  const validate = ajv.compile(compiledSchema);
  const undecided = new Set<string>();
  return {
    unsupported: t.unsupported,
    check(doc) {
      const origins = new WeakMap<object, unknown>();
      const data = normalise(doc, origins);
      state = { root: doc, origins, undecided };
      try {
        if (validate(data)) return [];
        return failingPaths(validate.errors ?? [], data);
      } finally {
        state = null;
      }
    },
    undecided: () => [...undecided].sort(),
    dispose: () => {
      ajv.removeSchema(compiledSchema);
    },
  };
}

/** One path per failure; errors inside anyOf/oneOf branches are left to the combinator's own error. */
function failingPaths(errors: readonly ErrorObject[], data: unknown): string[] {
  const out = new Set<string>();
  for (const e of errors) {
    if (/\/(anyOf|oneOf)\/\d+\//.test(e.schemaPath)) continue;
    let p = pointerToPath(data, e.instancePath);
    const params = e.params as { missingProperty?: string; additionalProperty?: string };
    const { missingProperty: missing, additionalProperty: extra } = params;
    if ((e.keyword === 'required' || e.keyword === 'dependencies') && missing !== undefined) p = joinPath(p, missing);
    else if (e.keyword === 'additionalProperties' && extra !== undefined) p = joinPath(p, extra);
    out.add(at(p));
  }
  return [...out];
}
