/**
 * Extended JSON type wrappers (`{"$oid": …}`, `{"$date": …}`, …) in a parsed JSON tree to their BSON values, in
 * place of bson's `EJSON.deserialize`, which stringifies and re-parses the whole tree: here only the wrappers go
 * through bson, the plain rest is walked once. Query operators (`$gte`, `$in`, and `$regex` with `$options`, which
 * the server reads as an operator) are left as they are.
 */
import { EJSON } from 'bson';

/** The keys that make an object an Extended JSON v2 value (MongoDB's Extended JSON specification). */
const TYPE_KEYS = new Set([
  '$oid', '$date', '$numberInt', '$numberLong', '$numberDouble', '$numberDecimal', '$binary', '$uuid',
  '$regularExpression', '$timestamp', '$minKey', '$maxKey', '$symbol', '$code', '$dbPointer', '$undefined',
]);

function isWrapper(o: Record<string, unknown>): boolean {
  for (const k in o) return TYPE_KEYS.has(k);
  return false;
}

/** The tree with its wrappers turned into BSON values (a new tree; the input is left as it was). */
export function reviveExtendedJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(reviveExtendedJson);
  const o = value as Record<string, unknown>;
  if (isWrapper(o)) return EJSON.deserialize(o, { relaxed: true }) as unknown;
  const out: Record<string, unknown> = {};
  for (const k in o) out[k] = reviveExtendedJson(o[k]);
  return out;
}
