/**
 * Selectivity measured on the sample, for the order of a candidate's equality fields (src/workload/candidates.ts):
 * per scalar field path, the distinct values among the sampled documents and the documents holding the path. Counted
 * in process over `ctx.docs`, no command. Values are hashed in memory to be counted and forgotten: the data holds
 * counts and folded paths only.
 */
import type { Doc } from '../../src/core/adapter';
import { defineCollector } from '../../src/core/collector';
import { PathFolder } from '../../src/core/fold';
import type { FromSchema } from '../../src/core/from-schema';
import type { FieldProfile } from '../../src/core/types';
import { isDate } from '../../src/lib/bson-types';
import { setOwn } from '../../src/lib/names-as-data';

/**
 * The most paths counted per collection: the census' paths present in the most documents (ties by name). Each holds a
 * set of hashes of up to one per sampled value while the walk lasts; 300 is several times the fields a query names.
 */
export const MAX_SELECTIVITY_PATHS = 300;

const count = { type: 'integer', minimum: 0 } as const;
const positive = { type: 'integer', minimum: 1 } as const;

const SELECTIVITY_SCHEMA = {
  type: 'object',
  required: ['documents', 'paths', 'leftOut'],
  additionalProperties: false,
  properties: {
    /** Sampled documents walked (those pulled whole: `ctx.docs`). */
    documents: count,
    /**
     * Per folded path (`a.b`; array elements at the array's path, as an index keys them; a map's keys as `<key>`):
     * the documents holding a scalar there and the distinct scalar values among them. Numbers of any BSON type count
     * as one value when equal, as a query's equality matches them.
     */
    paths: {
      type: 'object',
      maxProperties: MAX_SELECTIVITY_PATHS,
      additionalProperties: {
        type: 'object',
        required: ['present', 'distinct'],
        additionalProperties: false,
        properties: { present: positive, distinct: positive },
      },
    },
    /** Census paths holding scalars that were not counted, past MAX_SELECTIVITY_PATHS. */
    leftOut: count,
  },
} as const;
export type FieldSelectivity = FromSchema<typeof SELECTIVITY_SCHEMA>;

const SCALAR_TYPES_EXCLUDED = new Set(['object', 'array', 'undefined']);

function holdsScalars(f: FieldProfile | undefined): boolean {
  return f !== undefined && Object.entries(f.types).some(([t, n]) => !SCALAR_TYPES_EXCLUDED.has(t) && (n ?? 0) > 0);
}

/**
 * The census paths to count: those holding a scalar, themselves or as array elements (`a.$[]`, counted at `a`),
 * present in the most documents first, ties by name; `$[]` paths themselves (arrays of arrays) never.
 */
export function pathsToCount(
  fields: Readonly<Record<string, FieldProfile>>,
  max = MAX_SELECTIVITY_PATHS,
): { paths: string[]; leftOut: number } {
  const eligible = Object.keys(fields).filter(
    (p) => !p.split('.').includes('$[]') && (holdsScalars(fields[p]) || holdsScalars(fields[`${p}.$[]`])),
  );
  eligible.sort((a, b) => (fields[b]?.present ?? 0) - (fields[a]?.present ?? 0) || (a < b ? -1 : a > b ? 1 : 0));
  return { paths: eligible.slice(0, max), leftOut: Math.max(0, eligible.length - max) };
}

/**
 * A long string or binary is hashed by its length, its first and its last HASHED_END units: equality queries name
 * ids, codes and states, not texts, and hashing a 1 MB field of each sampled document would cost more than the rest.
 * Two long values alike at both ends count as one (the count can only fall).
 */
const HASHED_END = 256;

/** 53 bits of two 32-bit FNV-1a style passes (different offsets and primes) over UTF-16 units, then bytes. */
function hash(text: string, bytes?: Uint8Array): number {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  const mix = (c: number): void => {
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
  };
  // every unit, or the length then the first and last HASHED_END units of a longer sequence
  const feed = (length: number, at: (i: number) => number): void => {
    if (length <= 2 * HASHED_END) {
      for (let i = 0; i < length; i++) mix(at(i));
      return;
    }
    mix(length);
    for (let i = 0; i < HASHED_END; i++) mix(at(i));
    for (let i = length - HASHED_END; i < length; i++) mix(at(i));
  };
  feed(text.length, (i) => text.charCodeAt(i));
  if (bytes) feed(bytes.length, (i) => bytes[i] as number);
  return (h1 >>> 0) * 0x200000 + ((h2 >>> 0) & 0x1fffff);
}

function numberText(v: unknown): string {
  const n = Number(String(v));
  return Number.isFinite(n) ? String(n) : String(v);
}

/** The bytes of a js-bson Binary, as either host hands it back. */
function binaryBytes(v: Record<string, unknown>): Uint8Array {
  const buf = v.buffer;
  if (!(buf instanceof Uint8Array)) return new Uint8Array(0);
  return typeof v.position === 'number' ? buf.subarray(0, v.position) : buf;
}

/** A value tagged `_bsontype` → its hash, or null for a DBRef (an object). */
function taggedHash(v: Record<string, unknown>, tag: string): number | null {
  switch (tag) {
    case 'Long':
    case 'Int32':
    case 'Double':
    case 'Decimal128':
      // Equal numbers match one equality whatever their type; a decimal past a double's precision may merge.
      return hash(`n${numberText(v)}`);
    case 'Binary':
      return hash(`x${String(v.sub_type)}:`, binaryBytes(v));
    case 'BSONRegExp':
      return hash(`r${String(v.pattern)}/${String(v.options)}`);
    case 'Code':
      return hash(`j${String(v.code)}`);
    case 'BSONSymbol':
    case 'Symbol':
      return hash(`s${String(v.value)}`);
    case 'MinKey':
    case 'MaxKey':
      return hash(tag);
    case 'DBRef':
      return null;
    default:
      // ObjectId (hex), Timestamp (its 64 bits as a number), and any other tag by its own text
      return hash(`${tag}:${(v as { toString(): string }).toString()}`);
  }
}

/** The hash of a scalar value, or null for what is not one (documents, arrays, BSON undefined). */
export function valueHash(v: unknown): number | null {
  switch (typeof v) {
    case 'string':
      return hash(`s${v}`);
    case 'number':
    case 'bigint':
      return hash(`n${numberText(v)}`);
    case 'boolean':
      return hash(v ? 'b1' : 'b0');
    case 'object':
      break;
    default:
      return null;
  }
  if (v === null) return hash('z');
  if (Array.isArray(v)) return null;
  const tag = (v as { _bsontype?: unknown })._bsontype;
  if (typeof tag === 'string') return taggedHash(v as Record<string, unknown>, tag);
  if (isDate(v)) return hash(`t${v.getTime()}`);
  if (v instanceof Uint8Array) return hash('x0:', v);
  if (v instanceof RegExp) return hash(`r${v.source}/${v.flags}`);
  return null;
}

/** A sub-document to walk into: an object that is not an array, a tagged BSON value, a date, bytes or a regex. */
function isDocument(v: unknown): v is Doc {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  if (typeof (v as { _bsontype?: unknown })._bsontype === 'string') return false;
  return !isDate(v) && !(v instanceof Uint8Array) && !(v instanceof RegExp);
}

interface Tally {
  present: number;
  /** The document that last counted as holding the path. */
  lastDoc: number;
  hashes: Set<number>;
}

/** Counts, per tracked path, the documents holding a scalar there and the distinct scalars. */
class Counter {
  readonly tallies = new Map<string, Tally>();
  private doc = 0;

  constructor(
    paths: readonly string[],
    private readonly folder: PathFolder,
  ) {
    for (const p of paths) this.tallies.set(p, { present: 0, lastDoc: -1, hashes: new Set() });
  }

  document(d: Doc): void {
    this.walk(d, '');
    this.doc++;
  }

  private walk(o: Doc, parent: string): void {
    for (const [key, v] of Object.entries(o)) {
      if (v !== undefined) this.visit(this.folder.child(parent, key), v);
    }
  }

  private visit(path: string, v: unknown): void {
    if (!Array.isArray(v)) return isDocument(v) ? this.walk(v, path) : this.count(path, v);
    // Elements: documents name their fields under the array's path (`items.sku`), scalars count at it (`tags`);
    // arrays of arrays are the census' `tags.$[]` and are left out.
    for (const el of v) {
      if (Array.isArray(el)) continue;
      if (isDocument(el)) this.walk(el, path);
      else this.count(path, el);
    }
  }

  private count(path: string, v: unknown): void {
    const t = this.tallies.get(path);
    const h = t ? valueHash(v) : null;
    if (!t || h === null) return;
    t.hashes.add(h);
    if (t.lastDoc !== this.doc) {
      t.lastDoc = this.doc;
      t.present++;
    }
  }
}

/** Distinct scalar values and documents holding them per census path of sampled documents (counts only). */
export function measureSelectivity(
  docs: readonly Doc[],
  fields: Readonly<Record<string, FieldProfile>>,
  dynamicKeys: Iterable<string | { path: string }>,
): FieldSelectivity {
  const { paths, leftOut } = pathsToCount(fields);
  const counter = new Counter(paths, new PathFolder(dynamicKeys));
  for (const d of docs) counter.document(d);
  const out: FieldSelectivity['paths'] = {};
  for (const p of [...paths].sort()) {
    const t = counter.tallies.get(p);
    // by path: `__proto__` is a field here (setOwn, where `out[p] =` would set the prototype)
    if (t && t.present > 0) setOwn(out, p, { present: t.present, distinct: t.hashes.size });
  }
  return { documents: docs.length, paths: out, leftOut };
}

/** The query-indexes rule's selectivity figures: counted in process over the sampled documents, no command. */
export const fieldSelectivity = defineCollector<FieldSelectivity, 'collection'>({
  id: 'query-indexes/selectivity',
  version: 1,
  scope: 'collection',
  description: 'distinct values and documents per field path of the sampled documents (in process, no command)',
  schema: SELECTIVITY_SCHEMA,
  collect(ctx) {
    const { fields, dynamicKeys } = ctx.collection.sample;
    return Promise.resolve(measureSelectivity(ctx.docs, fields, dynamicKeys));
  },
});

/** A field's distinct values counted on the sample of its collection; undefined when not counted. */
export function distinctOf(data: FieldSelectivity | undefined, path: string): number | undefined {
  return data && Object.hasOwn(data.paths, path) ? data.paths[path]?.distinct : undefined;
}
