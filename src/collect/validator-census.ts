import type { Doc } from '../adapters/types';
import { isDate } from './bson-size';
import type { CollectionCollectorContext } from './extras';

/** Distinct string values are counted up to this many; one more means "more than that". */
export const CARDINALITY_CAP = 64;

function isPlainObject(v: object): boolean {
  return (v as { _bsontype?: unknown })._bsontype === undefined && !isDate(v) && !(v instanceof RegExp) && !(v instanceof Uint8Array);
}

/**
 * Distinct string values per path over the documents, counted up to CARDINALITY_CAP (CARDINALITY_CAP + 1 means
 * more). Paths follow the census (src/collect/profile.ts): `a.b` for subdocuments and for fields of objects in
 * arrays, `a.$[]` for scalar array elements. Returns counts only; the values are dropped when it returns.
 */
export function stringCardinality(docs: readonly Doc[]): Record<string, number> {
  const sets = new Map<string, Set<string>>();
  const note = (path: string, s: string): void => {
    let set = sets.get(path);
    if (!set) sets.set(path, (set = new Set()));
    if (set.size <= CARDINALITY_CAP) set.add(s);
  };
  const visit = (v: unknown, path: string): void => {
    if (typeof v === 'string') note(path, v);
    else if (Array.isArray(v)) {
      for (const el of v as unknown[]) {
        if (el !== null && typeof el === 'object' && !Array.isArray(el) && isPlainObject(el)) object(el as Doc, path);
        else visit(el, `${path}.$[]`);
      }
    } else if (v !== null && typeof v === 'object' && isPlainObject(v)) object(v as Doc, path);
  };
  const object = (o: Doc, path: string): void => {
    for (const key in o) visit(o[key], path === '' ? key : `${path}.${key}`);
  };
  for (const d of docs) object(d, '');
  const out: Record<string, number> = {};
  for (const [path, set] of sets) out[path] = Math.min(set.size, CARDINALITY_CAP + 1);
  return out;
}

/** validator: low-cardinality string paths for enum proposals, counted on the sample in memory (no round trip). */
export async function collectStringCardinality(ctx: CollectionCollectorContext): Promise<void> {
  if (ctx.collection.validator.present || ctx.rawDocs.length === 0) return;
  ctx.collection.stringCardinality = stringCardinality(ctx.rawDocs);
}
