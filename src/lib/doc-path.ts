import type { Doc } from '../adapters/types';

/**
 * A sub-document as the driver or mongosh deserializes one: not an array, a Date, a RegExp, binary or a bson class
 * (ObjectId, Long…). Told by tag, not by prototype, so values from mongosh's realm and bson copy count too.
 */
export function isPlainObject(v: unknown): v is Doc {
  return v !== null && typeof v === 'object' && Object.prototype.toString.call(v) === '[object Object]' && (v as { _bsontype?: unknown })._bsontype === undefined;
}

/**
 * The value at a dotted path through sub-documents (`a.b.c`), or undefined where a segment is missing or not a
 * sub-document. Arrays are not traversed: experiments read only paths one update could rewrite.
 */
export function valueAt(doc: Doc, path: string | readonly string[]): unknown {
  let v: unknown = doc;
  for (const segment of typeof path === 'string' ? path.split('.') : path) v = isPlainObject(v) ? v[segment] : undefined;
  return v;
}
