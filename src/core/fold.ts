import { type ArrayProfile, type DocProfile, DYNAMIC_KEY, type DynamicKeyProfile, type KeyShape } from './types';
import { joinPath, pathSegments } from '../lib/doc-path';
import type { FromSchema } from './from-schema';

/**
 * Objects used as maps (keys that are data: `{"SKU-00042": 2, …}`, customer ids as field names) and the one placeholder
 * path that stands for all their keys: `itemsBySku.<key>`, `itemsBySku.<key>.qty` (DYNAMIC_KEY). The profiler decides
 * which objects are maps (Profiler.finish, with these thresholds) and folds their keys before anything else sees a
 * path; this file is the pure part every other reader of raw documents shares, so a collector that walks the sampled
 * documents names the same paths the census does and never keeps a key.
 */

/**
 * When an object is a map. Our choices, made on the evidence (objects used as maps turned into validators of
 * 18 to 456 `properties`) and MongoDB's attribute pattern ("many similar fields": one `{k, v}` array with one index
 * instead of one index per field,
 * https://www.mongodb.com/docs/manual/data-modeling/design-patterns/group-data/attribute-pattern/):
 */
export type FoldOptions = Required<FromSchema<typeof MAPS_JSON_SCHEMA>>;

export const FOLD_DEFAULTS = Object.freeze({
  minDistinctKeys: 10,
  minShapedShare: 0.9,
  minWordKeys: 16,
  minKeySpread: 8,
  maxKeysPerPath: 1000,
});

/** The `maps` settings as JSON Schema (the configuration file's `maps` key, mongosh's `maps` option), defaults from
 * FOLD_DEFAULTS. */
export const MAPS_JSON_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  description:
    'When an object counts as a map whose keys are data (ids, SKUs, dates): its keys are folded into one ' +
    '<key> path before any rule, report or snapshot sees them.',
  properties: {
    /**
     * Keys shaped like data (ObjectIds, UUIDs, integers, dates, codes such as `SKU-00042`): an object is a map from
     * this many distinct keys across the sample, when at least `minShapedShare` of them are so shaped. 10: below the
     * smallest map the issue met (18 keys), and above the handful of numbered fields (`line1`, `line2`) a real schema
     * has.
     */
    minDistinctKeys: {
      type: 'integer',
      minimum: 2,
      description:
        `Distinct keys under one path, nearly all data-shaped (ids, UUIDs, numbers, dates, codes), from which ` +
        `it is a map (default ${FOLD_DEFAULTS.minDistinctKeys}).`,
    },
    /** Share of the distinct keys that must be data-shaped for `minDistinctKeys` to apply. 0.9: a few fixed fields
     * (`total`) beside the keys still fold. */
    minShapedShare: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: `Share of those keys that must be data-shaped (default ${FOLD_DEFAULTS.minShapedShare}).`,
    },
    /**
     * Keys shaped like words (user names, e-mail addresses, product attributes): a map from this many distinct keys
     * when each object holds few of them (`minKeySpread`). 16: a real sub-document of 16 optional word fields mostly
     * lists several of them in each document, so the spread keeps it.
     */
    minWordKeys: {
      type: 'integer',
      minimum: 2,
      description:
        `Word-shaped keys (names, e-mail addresses): distinct keys from which it is a map when each object ` +
        `holds few of them (default ${FOLD_DEFAULTS.minWordKeys}).`,
    },
    /**
     * Distinct keys ÷ the median keys per object, for word-shaped keys: 8 means each object holds at most an eighth of
     * the keys seen at the path. A sub-document lists most of its fields in most documents (a spread near 1); a map
     * holds a few keys of many.
     */
    minKeySpread: {
      type: 'number',
      minimum: 1,
      description:
        `For word-shaped keys: distinct keys / the median keys per object from which it is a map ` +
        `(default ${FOLD_DEFAULTS.minKeySpread}).`,
    },
    /**
     * Memory bound while profiling: past this many distinct keys under one path, further keys are not kept (their
     * values are counted under `<key>` at once) and the path is a map whatever the keys look like. 1,000: no schema
     * written by hand has that many fields at one level, and each kept key costs the profiler a tree node and a census
     * entry.
     */
    maxKeysPerPath: {
      type: 'integer',
      minimum: 10,
      description:
        `Memory bound: past this many distinct keys under one path it is a map whatever the keys look like ` +
        `(default ${FOLD_DEFAULTS.maxKeysPerPath}).`,
    },
  },
} as const;

/** Every key shape, in the order reports list them. */
export const KEY_SHAPES: readonly KeyShape[] = ['objectId', 'uuid', 'integer', 'date', 'code', 'word'];

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const INTEGER = /^[-+]?\d+$/;
/** 2024-01, 2024-01-31, 2024/01/31, with an optional time of day and zone (ISO 8601 and the common slash form). */
const DATE = /^\d{4}([-/])\d{1,2}(\1\d{1,2}([T _]\d{1,2}(:\d{2}(:\d{2}([.,]\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?)?)?$/;
const SEPARATOR = /[-_:#/|@]/;

/**
 * What a key looks like, without keeping it. `code`: a key with two digits or more (`SKU-00042`, `cust8841`), or a
 * digit and a separator (`A-7`); `word`: anything else (`line1`, `email`, `alice@example`).
 */
export function keyShape(key: string): KeyShape {
  if (key.length === 24 && OBJECT_ID.test(key)) return 'objectId';
  if ((key.length === 36 || key.length === 32) && UUID.test(key)) return 'uuid';
  if (INTEGER.test(key)) return 'integer';
  if (DATE.test(key)) return 'date';
  let digits = 0;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
  }
  if (digits >= 2 || (digits === 1 && SEPARATOR.test(key))) return 'code';
  return 'word';
}

/** The figures the decision reads: a DynamicKeyProfile has them, and so does the profiler before it builds one. */
export type MapEvidence = Pick<DynamicKeyProfile, 'distinctKeys' | 'medianKeys' | 'keyShapes'>;

/** Why the keys at a path are data, or null when they read as a schema's fields. */
export type MapReason = 'many-keys' | 'data-shaped' | 'spread';

export function mapReason(e: MapEvidence, o: Readonly<FoldOptions> = FOLD_DEFAULTS): MapReason | null {
  const d = e.distinctKeys;
  if (d > o.maxKeysPerPath) return 'many-keys';
  if (d === 0) return null;
  const shaped = d - (e.keyShapes.word ?? 0);
  if (d >= o.minDistinctKeys && shaped / d >= o.minShapedShare) return 'data-shaped';
  if (d >= o.minWordKeys && d >= o.minKeySpread * Math.max(1, e.medianKeys)) return 'spread';
  return null;
}

/**
 * Folds paths of raw documents to the census' paths: each key directly under a map becomes `<key>`. Build it from the
 * snapshot's `sample.dynamicKeys` (or their paths). `fold('itemsBySku.SKU-1.qty')` is `itemsBySku.<key>.qty`; a map
 * at '' is the document itself, whose keys besides `_id` fold to `<key>`;
 * `child(parent, key)` names a child of an already folded path, for walkers that build paths a key at a time.
 * A path no map contains comes back unchanged, as the same string. `$[]` (array elements) is never folded.
 */
export class PathFolder {
  private readonly maps: ReadonlySet<string>;

  constructor(dynamicKeys: Iterable<string | Pick<DynamicKeyProfile, 'path'>>) {
    const maps = new Set<string>();
    for (const m of dynamicKeys) maps.add(typeof m === 'string' ? m : m.path);
    this.maps = maps;
  }

  /** No map: every path stays as it is. */
  get empty(): boolean {
    return this.maps.size === 0;
  }

  /** Whether the (folded) path is a map: its keys are data. */
  isMap(folded: string): boolean {
    return this.maps.has(folded);
  }

  /**
   * The folded path of `key` under the folded path `parent` ('' for the document). The map at '' is the document
   * itself (its keys besides `_id` are data); `_id` never folds, nor do array elements (`$[]`).
   */
  child(parent: string, key: string): string {
    const folds =
      key !== DYNAMIC_KEY &&
      (parent === '' ? key !== '_id' && this.maps.has('') : key !== '$[]' && this.maps.has(parent));
    return joinPath(parent, folds ? DYNAMIC_KEY : key);
  }

  /** The folded form of a raw path (src/lib/doc-path.ts: `"a.b"` is one key): `child` a key at a time. */
  fold(path: string): string {
    if (this.maps.size === 0 || (!this.maps.has('') && !path.includes('.'))) return path;
    let out = '';
    for (const key of pathSegments(path)) out = this.child(out, key);
    return out;
  }
}

/** `fold` of one path, for a single use; build a PathFolder to fold many. */
export function foldPath(path: string, dynamicKeys: Iterable<string | Pick<DynamicKeyProfile, 'path'>>): string {
  return new PathFolder(dynamicKeys).fold(path);
}

/**
 * A document profile with its array paths folded; arrays that fold to one path are summed (kept at the first one's
 * place). Largest fields are top-level, which fold only when the document itself is a map.
 */
export function foldDocProfile(d: DocProfile, folder: PathFolder): DocProfile {
  let arrays = d.arrays;
  if (arrays.some((a) => folder.fold(a.path) !== a.path)) {
    const byPath = new Map<string, ArrayProfile>();
    for (const a of d.arrays) {
      const path = folder.fold(a.path);
      const prev = byPath.get(path);
      if (prev === undefined) byPath.set(path, { ...a, path });
      else {
        prev.occurrences += a.occurrences;
        prev.maxLength = Math.max(prev.maxLength, a.maxLength);
        prev.totalLength += a.totalLength;
        prev.bytes += a.bytes;
        prev.elementBytes += a.elementBytes;
        prev.kinds |= a.kinds;
      }
    }
    arrays = [...byPath.values()];
  }
  const largestFields = d.largestFields.some((f) => folder.fold(f.path) !== f.path)
    ? d.largestFields.map((f) => ({ ...f, path: folder.fold(f.path) }))
    : d.largestFields;
  return arrays === d.arrays && largestFields === d.largestFields ? d : { ...d, arrays, largestFields };
}

/**
 * The map an index's key reaches into, or null: an index on `itemsBySku.SKU-1` names a key of the map `itemsBySku`
 * (its name, by default built from the key, holds it too). A wildcard's `$**` is not a key: `itemsBySku.$**` is an
 * index on the whole map, kept like any other. Returns the map's path ('' for documents that are maps themselves).
 */
export function mapOfIndexKey(key: Readonly<Record<string, unknown>>, folder: PathFolder): string | null {
  if (folder.empty) return null;
  for (const raw of Object.keys(key)) {
    const path = raw === '$**' ? '' : raw.endsWith('.$**') ? raw.slice(0, -4) : raw;
    if (path === '') continue;
    // the first segment that folds is a key of the map at the path walked so far; an index key's dots always nest
    // (MongoDB cannot index a key holding a dot), so it is split on every dot
    let parent = '';
    for (const segment of path.split('.')) {
      const next = folder.child(parent, segment);
      if (segment !== DYNAMIC_KEY && (next === DYNAMIC_KEY || next.endsWith(`.${DYNAMIC_KEY}`))) return parent;
      parent = next;
    }
  }
  return null;
}
