import type { CollectionSnapshot, FieldProfile } from '../../src/core/types';
import { DYNAMIC_KEY } from '../../src/core/types';
import { blanksStandingForNone } from '../../src/lib/blank-strings';
import { isNumericBsonType } from '../../src/lib/bson-types';
import { dottedPath, joinPath, pathOf, pathSegments } from '../../src/lib/doc-path';
import { ShellCode, shellCall, shellValue } from '../../src/lib/shell';
import type { ValidatorOptions } from './options';

type Doc = Record<string, unknown>;

/** mongosh code printed verbatim inside a literal (an enum read from the server with distinct()): the builder's. */
export { ShellCode } from '../../src/lib/shell';

interface Node {
  name: string;
  path: string;
  depth: number;
  field: FieldProfile | null;
  children: Map<string, Node>;
}

/**
 * How the census was read, which decides what it may claim: `complete` (every document profiled: shares are counts),
 * `random` (a random sample: shares are estimates), `ordered` (the first documents in natural order, or a random pick
 * over part of the collection only: no share says anything about the rest).
 */
export type Basis = 'complete' | 'random' | 'ordered';

export interface Proposal {
  /** The $jsonSchema; may hold ShellCode for enums. */
  schema: Doc;
  /** Required top-level fields. */
  required: string[];
  basis: Basis;
  /** Required paths absent from some censused documents (or objects): the proposal's own violators in the census. */
  gaps: { path: string; missing: number }[];
  /** Objects left open because they hold more keys than maxProperties (maps the profiler did not fold). */
  open: string[];
  /** Maps the profiler folded (`<path>.<key>`): one schema for every value, as additionalProperties. */
  maps: string[];
  /** Paths seen only as null: left untyped (any type), since null alone says nothing of the type. */
  nullOnly: string[];
  /** Paths typed with more than one BSON type (every type seen is accepted; the mixed-types rule reports them). */
  mixed: string[];
  /**
   * Paths left optional only because their blank strings stand for "no value" (the mixed-types rule recommends
   * removing them): required, the field would reject the documents that cleanup leaves without it.
   */
  blanksOptional: string[];
  /** Paths whose contents were left out below maxDepth, with how many census paths lay below each. */
  belowDepth: { path: string; paths: number }[];
  /** Census paths left out because the proposal already typed maxFields paths (shallow and common ones first). */
  overCap: string[];
  /** Paths given an enum (only with proposeEnums, on a complete read). */
  enums: string[];
  /** Why no enum was proposed although proposeEnums is on (the read was not complete); null otherwise. */
  enumsSkipped: string | null;
  /** Documents the census covers. */
  documents: number;
  /** Field paths typed in the proposal. */
  fields: number;
}

/** What a proposal is made from: the census and how it was read; no document values. */
export interface CensusInput {
  db: string;
  collection: string;
  fields: Record<string, FieldProfile>;
  documents: number;
  basis: Basis;
  /** Distinct strings per path (the collector's count, capped), for enums. */
  stringCardinality?: Record<string, number> | undefined;
}

const segments = pathSegments;

function tree(fields: Record<string, FieldProfile>): Node {
  const root: Node = { name: '', path: '', depth: 0, field: null, children: new Map() };
  for (const [path, field] of Object.entries(fields)) {
    let cur = root;
    for (const part of segments(path)) {
      let next = cur.children.get(part);
      if (!next) {
        next = { name: part, path: joinPath(cur.path, part), depth: cur.depth + 1, field: null, children: new Map() };
        cur.children.set(part, next);
      }
      cur = next;
    }
    cur.field = field;
  }
  return root;
}

/**
 * Census types as bsonType aliases: every type seen, so no value the census saw is rejected. Whole numbers cannot be
 * told from doubles on the host, so numbers are "number". Null alone says nothing of the type: a path seen only as
 * null gets no type at all.
 */
function typeNames(field: FieldProfile | null): string[] {
  const names = new Set<string>();
  for (const [t, n] of Object.entries(field?.types ?? {})) {
    if (n <= 0) continue;
    names.add(isNumericBsonType(t) ? 'number' : t);
  }
  if (names.size === 1 && names.has('null')) return [];
  return [...names].sort();
}

const oneOrMany = (names: readonly string[]): string | string[] =>
  names.length === 1 ? (names[0] as string) : [...names];
const isElement = (k: Node): boolean => k.name === '$[]';
const isMapKey = (k: Node): boolean => k.name === DYNAMIC_KEY;
/**
 * A key holding a dot or starting with `$` "cannot be validated using $jsonSchema" (MongoDB's manual, Field Names
 * with Periods and Dollar Signs, https://www.mongodb.com/docs/manual/core/dot-dollar-considerations/): left out, so
 * the proposal accepts whatever it holds.
 */
const validatable = (k: Node): boolean =>
  isElement(k) || isMapKey(k) || (!k.name.includes('.') && !k.name.startsWith('$'));
const named = (node: Node): Node[] =>
  [...node.children.values()].filter((k) => !isElement(k) && !isMapKey(k) && validatable(k));

class Proposer {
  readonly gaps: { path: string; missing: number }[] = [];
  readonly open: string[] = [];
  readonly maps: string[] = [];
  readonly nullOnly: string[] = [];
  readonly mixed: string[] = [];
  readonly blanksOptional: string[] = [];
  readonly belowDepth: { path: string; paths: number }[] = [];
  readonly overCap: string[] = [];
  readonly enums: string[] = [];
  fields = 0;
  /** Paths within the field budget (maxFields), chosen before the walk: shallow and common first. */
  private readonly allowed = new Set<string>();

  constructor(
    private readonly input: CensusInput,
    private readonly o: ValidatorOptions,
    root: Node,
  ) {
    const candidates: Node[] = [];
    const visit = (n: Node): void => {
      for (const k of n.children.values()) {
        if (!validatable(k)) continue;
        candidates.push(k);
        // contents of objects left open, and below the depth cap, are never typed: they take no budget
        if (k.depth < this.o.maxDepth && named(k).length <= this.o.maxProperties) visit(k);
      }
    };
    visit(root);
    candidates.sort(
      (a, b) => a.depth - b.depth || (b.field?.present ?? 0) - (a.field?.present ?? 0) || a.path.localeCompare(b.path),
    );
    for (const n of candidates.slice(0, this.o.maxFields)) this.allowed.add(n.path);
    for (const n of candidates.slice(this.o.maxFields)) if (!isElement(n) && !isMapKey(n)) this.overCap.push(n.path);
  }

  /**
   * Fields of an object; `holders` is how many objects held them (null: unknown, then nothing is required). A folded
   * map (`<key>` child) gets its values' schema as additionalProperties.
   */
  object(node: Node, holders: number | null): Doc {
    const out: Doc = {};
    if (node.depth >= this.o.maxDepth && node.children.size > 0) {
      this.cut(node);
      return out;
    }
    const kids = named(node);
    if (kids.length > this.o.maxProperties) {
      this.open.push(node.path || '(document)');
      return out;
    }
    const properties: Doc = {};
    const required: string[] = [];
    for (const k of kids.sort((a, b) => a.name.localeCompare(b.name))) {
      if (!this.allowed.has(k.path)) continue;
      properties[k.name] = this.field(k);
      if (this.isRequired(k, holders)) {
        required.push(k.name);
        const present = k.field?.present ?? 0;
        if (holders !== null && present < holders) this.gaps.push({ path: k.path, missing: holders - present });
      }
    }
    if (required.length) out.required = required;
    if (Object.keys(properties).length) out.properties = properties;
    const values = node.children.get(DYNAMIC_KEY);
    if (values && this.allowed.has(values.path)) {
      this.maps.push(node.path || '(document)');
      out.additionalProperties = this.field(values, false);
    }
    return out;
  }

  /** Contents below maxDepth: left out (they accept anything), and listed once. */
  private cut(node: Node): void {
    if (!this.belowDepth.some((b) => b.path === node.path))
      this.belowDepth.push({ path: node.path, paths: countBelow(node) });
  }

  /**
   * Required: present and not null in at least requiredShare of the objects holding it, in a census that may say so
   * (complete or random). `_id` is in every document MongoDB stores.
   */
  private isRequired(k: Node, holders: number | null): boolean {
    if (k.depth === 1 && k.name === '_id') return true;
    if (this.input.basis === 'ordered' || holders === null || holders <= 0 || !k.field) return false;
    const nonNull = k.field.present - (k.field.types.null ?? 0);
    if (nonNull / holders < this.o.requiredShare) return false;
    // blank strings standing for "no value" count as none: the cleanup mixed-types recommends removes them
    const blanks = blanksStandingForNone(k.field);
    if (blanks === 0 || (nonNull - blanks) / holders >= this.o.requiredShare) return true;
    this.blanksOptional.push(k.path);
    return false;
  }

  field(node: Node, counted = true): Doc {
    if (counted) this.fields++;
    const names = typeNames(node.field);
    const out: Doc = {};
    if (names.length) out.bsonType = oneOrMany(names);
    else if ((node.field?.types.null ?? 0) > 0) this.nullOnly.push(node.path);
    if (names.filter((n) => n !== 'null').length > 1) this.mixed.push(node.path);
    const isObject = names.includes('object');
    const isArray = names.includes('array');
    if (isObject) Object.assign(out, this.object(node, isArray ? null : (node.field?.types.object ?? null)));
    if (isArray) {
      const items = this.items(node);
      if (items) out.items = items;
    }
    const e = this.enumFor(node, names);
    if (e) out.enum = e;
    return out;
  }

  /** Array elements: scalars and arrays are censused at `path.$[]`, fields of object elements at `path.field`. */
  private items(node: Node): Doc | null {
    if (node.depth >= this.o.maxDepth && node.children.size > 0) {
      this.cut(node);
      return null;
    }
    const el = node.children.get('$[]') ?? null;
    const kids = named(node);
    const elTyped = el !== null && this.allowed.has(el.path);
    const names = new Set(elTyped ? typeNames(el.field) : []);
    if (kids.length || node.children.has(DYNAMIC_KEY)) names.add('object');
    // elements seen only as null (null alone says nothing of the type, as for fields), or over the field budget:
    // untyped
    if (names.size === 0 || (el !== null && !elTyped)) {
      if (elTyped && (el.field?.types.null ?? 0) > 0) this.nullOnly.push(el.path);
      return null;
    }
    if ((el?.field?.types.null ?? 0) > 0) names.add('null');
    const out: Doc = { bsonType: oneOrMany([...names].sort()) };
    // how many elements were objects is not in the census, so nothing inside array elements is required
    if (names.has('object')) Object.assign(out, this.object(node, null));
    if (names.has('array') && el) {
      const inner = this.items(el);
      if (inner) out.items = inner;
    }
    if (el) {
      const e = this.enumFor(el, [...names]);
      if (e) out.enum = e;
    }
    return out;
  }

  private enumFor(node: Node, names: readonly string[]): ShellCode | null {
    if (!this.o.proposeEnums || this.input.basis !== 'complete') return null;
    if (!names.includes('string') || names.some((n) => n !== 'string' && n !== 'null')) return null;
    // distinct() cannot read the values under a map's keys
    if (segments(node.path).includes(DYNAMIC_KEY)) return null;
    const distinct = this.input.stringCardinality?.[node.path];
    const strings = node.field?.types.string ?? 0;
    if (
      distinct === undefined ||
      distinct < 1 ||
      distinct > this.o.enumMaxDistinct ||
      strings < this.o.enumMinOccurrences * distinct
    )
      return null;
    const path = dottedPath(pathOf(segments(node.path).filter((p) => p !== '$[]')));
    if (path === null) return null;
    this.enums.push(node.path);
    const read = shellCall(this.input.db, this.input.collection, 'distinct', path, { [path]: { $type: 'string' } });
    return new ShellCode(names.includes('null') ? `${read}.concat([null])` : read);
  }
}

function countBelow(node: Node): number {
  let n = 0;
  for (const k of node.children.values()) n += 1 + countBelow(k);
  return n;
}

/** Documents the census covers: those profiled in-process (every one has an _id). */
export function censusDocuments(c: CollectionSnapshot): number {
  return c.sample.fields._id?.present ?? c.sample.docs.filter((d) => !d.measuredOnServer).length;
}

/**
 * What the census may claim: `complete` only when every document was read and every one of them profiled in-process
 * (a document too large to pull is measured on the server and is not in the census).
 */
export function basisOf(c: CollectionSnapshot): Basis {
  const profiled = censusDocuments(c);
  if (c.sample.complete && profiled === c.sample.size && c.sample.docs.every((d) => !d.measuredOnServer))
    return 'complete';
  return c.sample.random ? 'random' : 'ordered';
}

/** The proposal's input from a collection of the snapshot and the collector's distinct-string counts. */
export function censusOf(c: CollectionSnapshot, stringCardinality?: Record<string, number>): CensusInput {
  return {
    db: c.db,
    collection: c.name,
    fields: c.sample.fields,
    documents: censusDocuments(c),
    basis: basisOf(c),
    stringCardinality,
  };
}

/**
 * A $jsonSchema from the sample's field census, built to reject nothing the census saw: every type seen accepted
 * (null too), fields required only when present and not null (nor a blank string standing for no value) in
 * requiredShare of a complete or random census, maps
 * as additionalProperties, objects with too many keys left open, and a cap on depth and field paths (what it left out
 * is listed). Null when there are too few documents to propose from.
 */
export function proposeFrom(input: CensusInput, o: ValidatorOptions): Proposal | null {
  if (input.documents < o.minSample || Object.keys(input.fields).length === 0) return null;
  const root = tree(input.fields);
  const p = new Proposer(input, o, root);
  const top = p.object(root, input.documents);
  const schema: Doc = { bsonType: 'object', ...top };
  return {
    schema,
    required: (top.required as string[] | undefined) ?? [],
    basis: input.basis,
    gaps: p.gaps,
    open: p.open,
    maps: p.maps,
    nullOnly: p.nullOnly,
    mixed: p.mixed,
    blanksOptional: p.blanksOptional,
    belowDepth: p.belowDepth,
    overCap: p.overCap,
    enums: p.enums,
    enumsSkipped:
      o.proposeEnums && input.basis !== 'complete'
        ? 'enums are proposed only when every document was read, and this was a sample'
        : null,
    documents: input.documents,
    fields: p.fields,
  };
}

/** The proposal for a collection of the snapshot (distinct-string counts from the collector, for enums). */
export function proposeSchema(
  c: CollectionSnapshot,
  o: ValidatorOptions,
  stringCardinality?: Record<string, number>,
): Proposal | null {
  return proposeFrom(censusOf(c, stringCardinality), o);
}

/** A value as a mongosh literal: bare keys where allowed, ShellCode verbatim. */
export function shellLiteral(v: unknown): string {
  return shellValue(v);
}

/** The schema without shell code (enums read with distinct() are left out), for the server count and the scratch
 * experiment. */
export function plainSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plainSchema);
  if (schema !== null && typeof schema === 'object' && !(schema instanceof ShellCode)) {
    const out: Doc = {};
    for (const [k, v] of Object.entries(schema as Doc)) if (!(v instanceof ShellCode)) out[k] = plainSchema(v);
    return out;
  }
  return schema;
}

/**
 * A short fingerprint of a schema (its canonical JSON, keys sorted), so the rule can tell whether the collector
 * counted the very schema it proposes (the collector proposes with the options of the run that collected the
 * snapshot; a later configuration may differ).
 * cyrb53 (public domain): 53 bits, ample to tell two proposals for one collection apart.
 */
export function schemaFingerprint(schema: unknown): string {
  const canonical = (v: unknown): string => {
    if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
    if (v !== null && typeof v === 'object') {
      return `{${Object.keys(v as Doc)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${canonical((v as Doc)[k])}`)
        .join(',')}}`;
    }
    return JSON.stringify(v) ?? 'null';
  };
  const s = canonical(plainSchema(schema));
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}
