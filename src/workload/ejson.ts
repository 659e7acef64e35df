/**
 * Extended JSON type wrappers (`{"$oid": …}`, `{"$date": …}`, …) in a freshly parsed JSON tree to their BSON
 * values, in place, instead of bson's `EJSON.deserialize`, which stringifies and re-parses the whole tree: here only
 * the wrappers go through bson, the plain rest is walked once and not copied. Query operators (`$gte`, `$in`, and
 * `$regex` with `$options`, which the server reads as an operator) are left as they are.
 */
import { EJSON, ObjectId } from 'bson';

/** The keys that make an object an Extended JSON v2 value (MongoDB's Extended JSON specification). */
const TYPE_KEYS = new Set([
  '$oid',
  '$date',
  '$numberInt',
  '$numberLong',
  '$numberDouble',
  '$numberDecimal',
  '$binary',
  '$uuid',
  '$regularExpression',
  '$timestamp',
  '$minKey',
  '$maxKey',
  '$symbol',
  '$code',
  '$dbPointer',
  '$undefined',
]);

function isWrapper(o: Record<string, unknown>): boolean {
  for (const k in o) return TYPE_KEYS.has(k);
  return false;
}

const HEX24 = /^[0-9a-fA-F]{24}$/;

/**
 * The two wrappers a slow-query line is full of, made here as bson makes them (`{"$oid": hex}`: an ObjectId of the
 * hex; `{"$date": "ISO-8601"}`: a Date set to Date.parse of it, bson's EJSON `deserializeValue`), without its
 * stringify and re-parse; undefined for any other wrapper or form, which bson decodes.
 */
function commonWrapper(o: Record<string, unknown>): unknown {
  let keys = 0;
  for (const _ in o) if (++keys > 1) return undefined;
  const date = o.$date;
  if (typeof date === 'string') return new Date(Date.parse(date));
  const oid = o.$oid;
  if (typeof oid === 'string' && HEX24.test(oid)) return new ObjectId(oid);
  return undefined;
}

/**
 * Turns the wrappers of a tree JSON.parse just made into BSON values, changing the tree in place (give it no tree
 * anyone else holds); returns the tree, or the value when the root itself is a wrapper.
 */
export function reviveExtendedJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = reviveExtendedJson(value[i]);
    return value;
  }
  const o = value as Record<string, unknown>;
  if (isWrapper(o)) return commonWrapper(o) ?? (EJSON.deserialize(o, { relaxed: true }) as unknown);
  for (const k in o) {
    const v = o[k];
    if (v !== null && typeof v === 'object') o[k] = reviveExtendedJson(v);
  }
  return o;
}
