import type { Doc } from '../core/adapter';

/**
 * Paths as the census spells them. Since MongoDB 5.0 a key may hold a dot or start with `$` ("Field Names with
 * Periods and Dollar Signs", https://www.mongodb.com/docs/manual/core/dot-dollar-considerations/), so `{"a.b": 1}`
 * and `{a: {b: 1}}` must not both read `a.b`. A path is its keys joined by dots, where a key that would read as
 * something else is written as a JSON string: `"a.b"` is the one key, `a.b` the nested one, `a.""` an empty key
 * under `a`. The same text is stored, compared and printed, so the two never print alike. `$[]` (array elements)
 * and `<key>` (a map's keys, DYNAMIC_KEY) are markers, written bare; `$`-prefixed keys read unambiguously and stay
 * bare too (`$in`), but no query may name them by a dotted path (see `dottedPath`).
 */

/** Whether a key is written bare in a path: not empty, no dot, not starting with a quote. */
function bare(key: string): boolean {
  return key !== '' && !key.includes('.') && key.charCodeAt(0) !== 34;
}

/** A key as a path spells it: bare, or quoted (`"a.b"`, `""`). */
export function pathKey(key: string): string {
  return bare(key) ? key : JSON.stringify(key);
}

/** The path of `key` under `parent` ('' for the document). */
export function joinPath(parent: string, key: string): string {
  const k = bare(key) ? key : JSON.stringify(key);
  return parent === '' ? k : `${parent}.${k}`;
}

/** The path of a list of keys (the document's own path, '', for none). */
export function pathOf(keys: readonly string[]): string {
  let out = '';
  for (const k of keys) out = joinPath(out, k);
  return out;
}

/** The keys of a path, quotes read. Throws on a path no `joinPath` wrote (an unclosed quote). */
export function pathSegments(path: string): string[] {
  if (path === '') return [];
  if (!path.includes('"')) return path.split('.');
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (path.charCodeAt(i) === 34) {
      let j = i + 1;
      while (j < path.length && path.charCodeAt(j) !== 34) j += path.charCodeAt(j) === 92 ? 2 : 1;
      if (j >= path.length) throw new Error(`unclosed quote in the path ${path}`);
      out.push(JSON.parse(path.slice(i, j + 1)) as string);
      i = j + 1;
    } else {
      const dot = path.indexOf('.', i);
      out.push(path.slice(i, dot < 0 ? path.length : dot));
      i = dot < 0 ? path.length : dot;
    }
    if (i >= path.length) return out;
    if (path.charCodeAt(i) !== 46) throw new Error(`a quoted key must be followed by a dot in the path ${path}`);
    i++;
  }
}

/**
 * The path as a query or update names it with dots (`a.b`), or null when a key cannot be named so: one holding a
 * dot, starting with `$`, or empty. Such a field is reached with `$getField` (fieldExpr).
 */
export function dottedPath(path: string): string | null {
  const keys = pathSegments(path);
  return keys.every((k) => k !== '' && !k.includes('.') && !k.startsWith('$')) ? keys.join('.') : null;
}

/**
 * An aggregation expression for the value at the path, key by key with `$getField` (MongoDB 5.0) and `$literal`, so
 * no key is read as a path or an operator. Sub-documents only: unlike a dotted path, it does not reach into arrays.
 */
export function fieldExpr(path: string, root = '$$CURRENT'): Doc | string {
  let e: Doc | string = root;
  for (const k of pathSegments(path)) e = { $getField: { field: { $literal: k }, input: e } };
  return e;
}

/**
 * An aggregation expression for the document `root` with the value at the path set to `value` (`$$REMOVE` removes
 * the field), key by key with `$setField` (MongoDB 5.0): for an update pipeline's `$replaceWith`.
 */
export function setFieldExpr(path: string, value: unknown, root = '$$ROOT'): Doc {
  const keys = pathSegments(path);
  const set = (i: number, input: Doc | string): Doc => {
    const field = { $literal: keys[i] };
    const inner = i + 1 < keys.length ? set(i + 1, { $getField: { field, input } }) : value;
    return { $setField: { field, input, value: inner } };
  };
  if (keys.length === 0) throw new Error('setFieldExpr needs a field, not the document');
  return set(0, root);
}

/** What a filter asks of one field: its BSON type (`number`: any width), a value among some, present, blank. */
export type FieldTest = { type: string } | { in: readonly unknown[] } | { exists: true } | { blank: true };

/** `^\s*$` as a regex's source: a blank string ('' or whitespace). */
const BLANK_SOURCE = '^\\s*$';

/**
 * A find filter asking `test` of the field at the path: by its dotted path where one names it, else in `$expr` with
 * `$getField` (a field whose key holds a dot or starts with `$`). The two differ on arrays (a dotted path matches an
 * array by its elements, `$getField` does not): callers use it on paths with no array on the way.
 */
export function fieldFilter(path: string, test: FieldTest): Doc {
  const dotted = dottedPath(path);
  if (dotted !== null) {
    if ('type' in test) return { [dotted]: { $type: test.type } };
    if ('in' in test) return { [dotted]: { $in: test.in } };
    if ('exists' in test) return { [dotted]: { $exists: true } };
    return { [dotted]: { $regex: BLANK_SOURCE } };
  }
  const e = fieldExpr(path);
  if ('type' in test) return { $expr: test.type === 'number' ? { $isNumber: e } : { $eq: [{ $type: e }, test.type] } };
  if ('in' in test) return { $expr: { $in: [e, { $literal: test.in }] } };
  if ('exists' in test) return { $expr: { $ne: [{ $type: e }, 'missing'] } };
  // $regexMatch refuses a value that is not a string; $and stops at the first false
  return { $expr: { $and: [{ $eq: [{ $type: e }, 'string'] }, { $regexMatch: { input: e, regex: BLANK_SOURCE } }] } };
}

/**
 * A sub-document as the driver or mongosh deserializes one: not an array, a Date, a RegExp, binary or a bson class
 * (ObjectId, Long…). Told by tag, not by prototype, so values from mongosh's realm and bson copy count too.
 */
export function isPlainObject(v: unknown): v is Doc {
  return (
    v !== null &&
    typeof v === 'object' &&
    Object.prototype.toString.call(v) === '[object Object]' &&
    (v as { _bsontype?: unknown })._bsontype === undefined
  );
}

/**
 * The value at a census path (`a.b.c`, `"a.b".c`), or its keys, through sub-documents; undefined where a key is
 * missing or not a sub-document. Arrays are not traversed: experiments read only paths one update could rewrite.
 */
export function valueAt(doc: Doc, path: string | readonly string[]): unknown {
  let v: unknown = doc;
  for (const segment of typeof path === 'string' ? pathSegments(path) : path) {
    v = isPlainObject(v) ? v[segment] : undefined;
  }
  return v;
}
