import { dataOf } from '../../src/core/collector';
import type { CollectionSnapshot, FieldProfile } from '../../src/core/types';
import { isNumericBsonType } from '../../src/lib/bson-types';
import { shellCollection } from '../../src/lib/shell';
import { validatorCollector } from './collect';
import type { ValidatorOptions } from './index';

type Doc = Record<string, unknown>;

/** mongosh code printed verbatim inside a literal (an enum read from the server with distinct()). */
export class ShellCode {
  constructor(readonly code: string) {}
}


interface Node {
  name: string;
  path: string;
  field: FieldProfile | null;
  children: Map<string, Node>;
}

export interface Proposal {
  /** The $jsonSchema; may hold ShellCode for enums. */
  schema: Doc;
  required: string[];
  /** Required paths absent from some sampled documents (or objects): the proposal's own violators in the sample. */
  gaps: { path: string; missing: number }[];
  /** Objects left open because they hold more keys than maxProperties (maps keyed by data). */
  open: string[];
  /** Paths given an enum (only when proposeEnums is on). */
  enums: string[];
  /** Documents the census covers. */
  documents: number;
  /** Field paths typed in the proposal. */
  fields: number;
}

function tree(fields: Record<string, FieldProfile>): Node {
  const root: Node = { name: '', path: '', field: null, children: new Map() };
  for (const [path, field] of Object.entries(fields)) {
    let cur = root;
    for (const part of path.split('.')) {
      let next = cur.children.get(part);
      if (!next) {
        next = { name: part, path: cur.path === '' ? part : `${cur.path}.${part}`, field: null, children: new Map() };
        cur.children.set(part, next);
      }
      cur = next;
    }
    cur.field = field;
  }
  return root;
}

/** Census types as bsonType aliases. Whole numbers cannot be told from doubles on the host, so numbers are "number". */
function typeNames(field: FieldProfile | null): string[] {
  const names = new Set<string>();
  for (const [t, n] of Object.entries(field?.types ?? {})) {
    if (n <= 0 || t === 'undefined') continue;
    names.add(isNumericBsonType(t) ? 'number' : t);
  }
  return [...names].sort();
}

const oneOrMany = (names: readonly string[]): string | string[] => (names.length === 1 ? (names[0] as string) : [...names]);

class Proposer {
  readonly gaps: { path: string; missing: number }[] = [];
  readonly open: string[] = [];
  readonly enums: string[] = [];
  fields = 0;

  constructor(private readonly c: CollectionSnapshot, private readonly o: ValidatorOptions) {}

  /** Fields of an object; `holders` is how many objects held them (null: unknown, then nothing is required). */
  object(node: Node, holders: number | null): { properties?: Doc; required?: string[] } {
    const kids = [...node.children.values()].filter((k) => k.name !== '$[]');
    if (kids.length === 0) return {};
    if (kids.length > this.o.maxProperties) {
      this.open.push(node.path || '(document)');
      return {};
    }
    const properties: Doc = {};
    const required: string[] = [];
    for (const k of kids.sort((a, b) => a.name.localeCompare(b.name))) {
      properties[k.name] = this.field(k);
      const present = k.field?.present ?? 0;
      if (holders !== null && holders > 0 && present / holders >= this.o.requiredShare) {
        required.push(k.name);
        if (present < holders) this.gaps.push({ path: k.path, missing: holders - present });
      }
    }
    return { properties, ...(required.length ? { required } : {}) };
  }

  field(node: Node): Doc {
    this.fields++;
    const names = typeNames(node.field);
    const out: Doc = {};
    if (names.length) out.bsonType = oneOrMany(names);
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
    const el = node.children.get('$[]') ?? null;
    const kids = [...node.children.values()].filter((k) => k.name !== '$[]');
    const names = new Set(typeNames(el?.field ?? null));
    if (kids.length) names.add('object');
    if (names.size === 0) return null;
    const out: Doc = { bsonType: oneOrMany([...names].sort()) };
    // how many elements were objects is not in the census, so nothing inside array elements is required
    if (kids.length) Object.assign(out, this.object(node, null));
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
    if (!this.o.proposeEnums || !names.includes('string') || names.some((n) => n !== 'string' && n !== 'null')) return null;
    const distinct = dataOf(validatorCollector, this.c)?.stringCardinality?.[node.path];
    const strings = node.field?.types.string ?? 0;
    if (distinct === undefined || distinct < 1 || distinct > this.o.enumMaxDistinct || strings < this.o.enumMinOccurrences * distinct) return null;
    const path = node.path.split('.').filter((p) => p !== '$[]').join('.');
    const p = JSON.stringify(path);
    this.enums.push(node.path);
    const read = `${shellCollection(this.c.name)}.distinct(${p}, { ${p}: { $type: "string" } })`;
    return new ShellCode(names.includes('null') ? `${read}.concat([null])` : read);
  }
}

/** Documents the census covers: those profiled in-process (every one has an _id). */
export function censusDocuments(c: CollectionSnapshot): number {
  return c.sample.fields._id?.present ?? c.sample.docs.filter((d) => !d.measuredOnServer).length;
}

/** A $jsonSchema from the sample's field census: types per path; fields in ≥ requiredShare of the documents required. */
export function proposeSchema(c: CollectionSnapshot, o: ValidatorOptions): Proposal | null {
  const documents = censusDocuments(c);
  if (documents < o.minSample || Object.keys(c.sample.fields).length === 0) return null;
  const p = new Proposer(c, o);
  const top = p.object(tree(c.sample.fields), documents);
  const schema: Doc = { bsonType: 'object', ...(top.required ? { required: top.required } : {}), ...(top.properties ? { properties: top.properties } : {}) };
  return { schema, required: top.required ?? [], gaps: p.gaps, open: p.open, enums: p.enums, documents, fields: p.fields };
}

/** A value as a mongosh literal: bare keys where allowed, ShellCode verbatim. */
export function shellLiteral(v: unknown): string {
  if (v instanceof ShellCode) return v.code;
  if (Array.isArray(v)) return `[${v.map(shellLiteral).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Doc).map(([k, x]) => `${/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(k) ? k : JSON.stringify(k)}: ${shellLiteral(x)}`);
    return entries.length ? `{ ${entries.join(', ')} }` : '{}';
  }
  return JSON.stringify(v) ?? 'null';
}

/** The schema without shell code (enums read with distinct() are left out), for the scratch experiment. */
export function plainSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(plainSchema);
  if (schema !== null && typeof schema === 'object' && !(schema instanceof ShellCode)) {
    const out: Doc = {};
    for (const [k, v] of Object.entries(schema as Doc)) if (!(v instanceof ShellCode)) out[k] = plainSchema(v);
    return out;
  }
  return schema;
}
