/**
 * Extended JSON type wrappers (`{"$oid": …}`, `{"$date": …}`, …) in a freshly parsed JSON tree to their BSON
 * values, in place, instead of bson's `EJSON.deserialize`, which stringifies and re-parses the whole tree: here only
 * the wrappers go through bson, the plain rest is walked once and not copied. Query operators (`$gte`, `$in`, and
 * `$regex` with `$options`, which the server reads as an operator) are left as they are.
 */
import { EJSON } from 'bson';

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
  if (isWrapper(o)) return EJSON.deserialize(o, { relaxed: true }) as unknown;
  for (const k in o) {
    const v = o[k];
    if (v !== null && typeof v === 'object') o[k] = reviveExtendedJson(v);
  }
  return o;
}
