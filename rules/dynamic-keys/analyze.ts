import type { CollectionSnapshot, DynamicKeyProfile, KeyShape, LaterStep } from '../../src/core/types';
import { DYNAMIC_KEY } from '../../src/core/types';
import { formatNumber } from '../../src/core/format';
import { dottedPath, pathOf, pathSegments } from '../../src/lib/doc-path';
import { shellCall } from '../../src/lib/shell';
import { ownValue } from '../../src/lib/names-as-data';

const SHAPE_LABEL: Record<KeyShape, [string, string]> = {
  objectId: ['ObjectId', 'ObjectIds'],
  uuid: ['UUID', 'UUIDs'],
  integer: ['number', 'numbers'],
  date: ['date', 'dates'],
  // Described, never exemplified: an example key could be one of the user's own.
  code: ['code (digits with letters or separators)', 'codes (digits with letters or separators)'],
  word: ['word', 'words'],
};
const ORDER: readonly KeyShape[] = ['objectId', 'uuid', 'integer', 'date', 'code', 'word'];

/** "120 codes (digits with letters or separators), 3 words": what the keys look like, most common first; never a
 * key. */
export function describeShapes(shapes: DynamicKeyProfile['keyShapes']): string {
  const rows = ORDER.map((s) => [s, shapes[s] ?? 0] as const).filter(([, n]) => n > 0);
  rows.sort((a, b) => b[1] - a[1]);
  return rows.map(([s, n]) => `${formatNumber(n)} ${SHAPE_LABEL[s][n === 1 ? 0 : 1]}`).join(', ') || 'no keys';
}

/** "int 97%, string 3%": the values under the keys, by type, most common first. */
export function describeValueTypes(types: Record<string, number>): string {
  const total = Object.values(types).reduce((s, n) => s + n, 0);
  if (total === 0) return 'none';
  return Object.entries(types)
    .sort((a, b) => b[1] - a[1])
    .map(([t, n]) => `${t} ${Math.max(1, Math.round((n / total) * 100))}%`)
    .join(', ');
}

/**
 * Whether the map can be rewritten in place by one update: a top-level path or a path through sub-documents only (no
 * array on the way, no other map above it), whose keys a dotted path can name (namedByDots).
 */
export function rewritableInPlace(c: Readonly<CollectionSnapshot>, path: string): boolean {
  const segments = pathSegments(path);
  if (!namedByDots(path) || segments.some((s) => s === DYNAMIC_KEY)) return false;
  for (let i = 1; i <= segments.length; i++) {
    if ((ownValue(c.sample.fields, pathOf(segments.slice(0, i)))?.types.array ?? 0) > 0) return false;
  }
  return true;
}

/**
 * Whether a dotted path names the map: none of its keys holds a dot, starts with `$` or is empty. The attribute
 * pattern's index names `path.k` and `path.v`, and an index key's dots always nest (MongoDB's manual, Field Names
 * with Periods and Dollar Signs: such fields cannot be indexed).
 */
export function namedByDots(path: string): boolean {
  return path !== '' && dottedPath(path) !== null;
}

/**
 * Whether the values under the map's keys are documents (most of them): the attribute pattern of MongoDB's manual
 * pairs a key with a scalar and indexes both; an index on `v` holding documents would compare whole documents, and
 * an equality on an embedded document matches only the exact document, field order included (the manual, "Query on
 * Embedded/Nested Documents"). For such values the pattern's index is on `k` alone.
 */
export function valuesAreDocuments(m: Pick<DynamicKeyProfile, 'valueTypes'>): boolean {
  const total = Object.values(m.valueTypes).reduce((s, n) => s + n, 0);
  return total > 0 && (m.valueTypes.object ?? 0) * 2 > total;
}

/**
 * The fields of the values under the map's keys, as the census names them (`tier`, never a key): those a query
 * could filter on beside the key. Nested maps and array elements are left out; at most `max`, most common first.
 */
export function valueFields(c: Readonly<CollectionSnapshot>, path: string, max = 6): string[] {
  const values = pathSegments(path === '' ? DYNAMIC_KEY : `${path}.${DYNAMIC_KEY}`);
  const found: [string, number][] = [];
  for (const [p, f] of Object.entries(c.sample.fields)) {
    const segments = pathSegments(p);
    if (segments.length !== values.length + 1 || !values.every((s, i) => segments[i] === s)) continue;
    const name = segments[values.length] as string;
    if (name !== DYNAMIC_KEY && name !== '$[]') found.push([name, f.present]);
  }
  found.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return found.slice(0, max).map(([name]) => name);
}

/** The attribute pattern's one index: `{k: 1, v: 1}`, or `{k: 1}` when the values are documents. */
export function attributeIndexKey(path: string, documents: boolean): Record<string, 1> {
  return documents ? { [`${path}.k`]: 1 } : { [`${path}.k`]: 1, [`${path}.v`]: 1 };
}

/** When the rewrite may run: it changes the documents the application reads, so the application changes first. */
export const REWRITE_WHEN =
  'once the application reads and writes this field as an array of {k, v} (deploy that first), after trying the ' +
  'rewrite on a copy';

/**
 * mongosh steps for the attribute pattern: the one index now (it changes no document), and the rewrite
 * ($objectToArray gives `[{k, v}]`) as a later step, since running it before the application reads the new shape
 * breaks the application.
 */
export function attributeSteps(
  db: string,
  collection: string,
  path: string,
  documents = false,
): { commands: string[]; later: LaterStep } {
  return {
    commands: [shellCall(db, collection, 'createIndex', attributeIndexKey(path, documents))],
    later: {
      when: REWRITE_WHEN,
      commands: [
        `${shellCall(db, collection, 'updateMany', { [path]: { $type: 'object' } }, [
          { $set: { [path]: { $objectToArray: `$${path}` } } },
        ])}  // on a copy first: {key: value} becomes [{k: key, v: value}]`,
      ],
    },
  };
}
