/**
 * Query shapes: a command as sent, reduced to what index advice needs and nothing a user typed as a value. After the
 * server's query shape (https://www.mongodb.com/docs/manual/core/query-shapes/): each literal becomes its BSON type,
 * predicate order does not matter, sort keys and directions stay, a one-element `$in` is an equality. It keeps what
 * the server's shape drops and advice needs: whether a regex is anchored or case-insensitive, and the size bucket of
 * an `$in`. docs/workload.md says what each operator counts as and why.
 *
 * USER DATA: the input command holds the application's values. Nothing here returns, prints or throws one: a value
 * is only ever looked at for its type, its length (`$in`) or its regex anchoring and flags.
 */
import { BSON_TYPE_ALIASES, bsonTypeOfTag, isNumericBsonType } from '../lib/bson-types';
import { shapeCollection, shellKey } from '../lib/shell';

/** How an index can use a predicate: point bounds (equality) or an interval (range). */
export type Role = 'equality' | 'range';

/** An `$in`'s size: 1 is an equality; past 200 values, a sort is no longer merged from point scans. */
export type InBucket = '1' | '2-10' | '11-200' | '>200';

export interface RegexFacts {
  /** `^` or `\A` first and no `|` outside groups: a prefix expression with index bounds. */
  anchored: boolean;
  /** The `i` flag: the index is scanned whole. */
  caseInsensitive: boolean;
}

/** The predicates on one path, merged: its operators with the types of their operands. */
export interface Predicate {
  path: string;
  role: Role;
  /** Operator → sorted BSON type names of its operands (`$eq` for an implicit equality). */
  ops: Record<string, string[]>;
  /** The largest `$in` on the path (several values; one value reads `$eq`). */
  in?: InBucket;
  regex?: RegexFacts;
  /** The array path of the `$elemMatch` holding this predicate. */
  elemMatch?: string;
}

/** An operator no B-tree index bounds (`$where`, `$expr`, `$text`, geo operators…): noted, never advised. */
export interface Unindexable {
  op: string;
  path?: string;
}

export interface FilterShape {
  predicates: Predicate[];
  /** Each `$or` of the filter: its branches, each a filter of its own. */
  or: FilterShape[][];
  unindexable: Unindexable[];
}

export type ShapeCommand =
  | 'find'
  | 'aggregate'
  | 'update'
  | 'delete'
  | 'count'
  | 'distinct'
  | 'findAndModify'
  | 'lookup';

export interface SortKey {
  path: string;
  direction: 1 | -1;
}

export interface QueryShape extends FilterShape {
  /** Hash of the canonical shape: equal for commands that differ only in values or predicate order. */
  id: string;
  db: string;
  coll: string;
  command: ShapeCommand;
  sort: SortKey[];
  /** A limit was given (its value is not kept). */
  limit: boolean;
  /** distinct's key. */
  distinctKey?: string;
  /** The command's collation, when not the simple one: string bounds and sorts need an index with the same. */
  collation?: Collation;
}

/** A collation's settings (configuration, not user data), as `collationOf` keeps them. */
export type Collation = Record<string, string | number | boolean>;

type Doc = Record<string, unknown>;

const RANGE = new Set(['$gt', '$gte', '$lt', '$lte', '$ne', '$nin', '$not', '$exists', '$type', '$mod']);

function isDoc(v: unknown): v is Doc {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || v instanceof Date || v instanceof RegExp) return false;
  return !('_bsontype' in v);
}

function bsonTag(v: object): string | undefined {
  const tag = (v as { _bsontype?: unknown })._bsontype;
  return typeof tag === 'string' ? tag : undefined;
}

const PLACEHOLDER = Symbol('placeholder');

/** A placeholder the server wrote in place of a value (`"?string"`, `"?array<?number>"`), read back as types. */
interface Placeholder {
  [PLACEHOLDER]: { types: string[]; array: boolean };
}

function placeholderOf(v: unknown): Placeholder[typeof PLACEHOLDER] | null {
  return v !== null && typeof v === 'object' && PLACEHOLDER in v ? (v as Placeholder)[PLACEHOLDER] : null;
}

/** A known type name from `?name`, numbers of any width as `number`; null for anything else. */
function placeholderType(text: string): string | null {
  const m = /^\?([A-Za-z]+)$/.exec(text.trim());
  const t = m?.[1];
  if (!t || !BSON_TYPE_ALIASES.has(t)) return null;
  return isNumericBsonType(t) ? 'number' : t;
}

/**
 * A shape the server already made (a `$queryStats` key) with its placeholders read as types. Only names of BSON
 * types are read so; any other string stays a string.
 */
function readPlaceholders(v: unknown): unknown {
  if (typeof v === 'string') {
    const t = placeholderType(v);
    if (t) return { [PLACEHOLDER]: { types: [t], array: false } };
    const a = /^\?array<(.*)>$/.exec(v);
    if (!a) return v;
    const types = (a[1] ?? '')
      .split(',')
      .map(placeholderType)
      .filter((x): x is string => x !== null);
    return { [PLACEHOLDER]: { types: [...new Set(types)].sort(), array: true } };
  }
  if (Array.isArray(v)) return v.map(readPlaceholders);
  if (isDoc(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, readPlaceholders(x)]));
  return v;
}

/** The placeholder type of a value, as the server's shape writes it without `?`: numbers of any width are `number`. */
export function typeOf(v: unknown): string {
  const ph = placeholderOf(v);
  if (ph) return ph.array ? 'array' : (ph.types[0] ?? 'object');
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'number' || typeof v === 'bigint') return 'number';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v !== 'object') return 'object';
  if (v instanceof Date) return 'date';
  if (v instanceof RegExp) return 'regex';
  if (Array.isArray(v)) return 'array';
  const tag = bsonTag(v);
  if (tag === undefined) return 'object';
  const t = bsonTypeOfTag(tag, v);
  return isNumericBsonType(t) ? 'number' : t;
}

/** The `$in` bucket of a number of values. */
export function inBucket(n: number): InBucket {
  if (n <= 1) return '1';
  if (n <= 10) return '2-10';
  if (n <= 200) return '11-200';
  return '>200';
}

const BUCKET_ORDER: readonly InBucket[] = ['1', '2-10', '11-200', '>200'];

/** Whether a pattern starts with a character it must match literally: not a metacharacter, not made optional. */
function literalLead(body: string): boolean {
  const escaped = body[0] === '\\';
  const first = escaped ? (body[1] ?? '') : (body[0] ?? '');
  if (first === '' || (escaped ? /[A-Za-z0-9]/.test(first) : '.[]()*?+{}|^$'.includes(first))) return false;
  const next = body[escaped ? 2 : 1];
  return next === undefined || !'*?{'.includes(next);
}

/**
 * Whether a pattern is a prefix expression the server bounds (`simpleRegex` in mongodb/mongo's index bounds builder):
 * `^` (not under the `m` flag) or `\A`, then a literal character that is not optional, and no `|` outside a group.
 */
function anchoredPattern(pattern: string, flags: string): boolean {
  const caret = pattern.startsWith('^');
  if (!caret && !pattern.startsWith('\\A')) return false;
  if (caret && flags.includes('m')) return false;
  const body = pattern.slice(caret ? 1 : 2);
  if (!literalLead(body)) return false;
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === '|' && depth === 0) return false;
  }
  return true;
}

/** Anchoring and flags of a regex value (RegExp, BSONRegExp) or of `$regex` with `$options`; null if none. */
function regexFacts(v: unknown, options?: unknown): RegexFacts | null {
  let pattern: string;
  let flags: string;
  if (v instanceof RegExp) [pattern, flags] = [v.source, v.flags];
  else if (v !== null && typeof v === 'object' && bsonTag(v) === 'BSONRegExp') {
    const r = v as { pattern?: unknown; options?: unknown };
    const text = (x: unknown): string => (typeof x === 'string' ? x : '');
    [pattern, flags] = [text(r.pattern), text(r.options)];
  } else if (typeof v === 'string') [pattern, flags] = [v, ''];
  else return null;
  if (typeof options === 'string') flags += options;
  return { anchored: anchoredPattern(pattern, flags), caseInsensitive: flags.includes('i') };
}

/** Collects predicates by path as a filter is walked, merging what one path receives. */
class Acc {
  readonly byPath = new Map<string, Predicate>();
  readonly or: FilterShape[][] = [];
  readonly unindexable: Unindexable[] = [];

  add(path: string, op: string, types: string[], elemMatch: string | undefined, extra?: Partial<Predicate>): void {
    const key = `${elemMatch ?? ''}\u0000${path}`;
    const p = this.byPath.get(key) ?? { path, role: 'range', ops: {}, ...(elemMatch ? { elemMatch } : {}) };
    p.ops[op] = [...new Set([...(p.ops[op] ?? []), ...types])].sort();
    if (extra?.in && BUCKET_ORDER.indexOf(extra.in) > BUCKET_ORDER.indexOf(p.in ?? '1')) p.in = extra.in;
    if (extra?.regex) {
      const r = p.regex;
      const x = extra.regex;
      p.regex = r ? { anchored: r.anchored && x.anchored, caseInsensitive: r.caseInsensitive || x.caseInsensitive } : x;
    }
    this.byPath.set(key, p);
  }

  shape(): FilterShape {
    const predicates = [...this.byPath.values()].map((p) => ({ ...p, role: roleOf(p) }));
    predicates.sort((a, b) => cmp(a.elemMatch ?? '', b.elemMatch ?? '') || cmp(a.path, b.path));
    const unindexable = [...this.unindexable].sort((a, b) => cmp(a.op, b.op) || cmp(a.path ?? '', b.path ?? ''));
    const or = byCanonical(this.or.map((g) => byCanonical(g)));
    return { predicates, or, unindexable };
  }
}

/** Equality when a point operator is there and no regex: the index bounds are points. */
function roleOf(p: Predicate): Role {
  const point = ['$eq', '$in', '$all'].some((op) => p.ops[op] !== undefined);
  return point && !p.regex ? 'equality' : 'range';
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** JSON with object keys sorted: the text the shape id hashes (hand-rolled: it runs once per command). */
export function canonical(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v === null || typeof v !== 'object') return 'null';
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i ? ',' : '') + canonical(v[i]);
    return `${out}]`;
  }
  const o = v as Doc;
  let out = '{';
  for (const k of Object.keys(o).sort()) {
    if (o[k] === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${canonical(o[k])}`;
  }
  return `${out}}`;
}

/** Items in the order of their canonical text, each text computed once. */
function byCanonical<T>(items: readonly T[]): T[] {
  return items
    .map((x) => [canonical(x), x] as const)
    .sort((a, b) => cmp(a[0], b[0]))
    .map(([, x]) => x);
}

/** Whether a document is an operator document (`{$gt: …}`) rather than a value to match exactly. */
function isOperatorDoc(v: unknown): v is Doc {
  if (!isDoc(v)) return false;
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => k.startsWith('$'));
}

interface Walk {
  prefix: string;
  elemMatch?: string;
}

function joinPrefix(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}.${key}`;
}

/** Walks a match expression into `acc`: `$and` flattens, each `$or` keeps its branches. */
function walkFilter(filter: unknown, w: Walk, acc: Acc): void {
  if (!isDoc(filter)) return;
  for (const [key, v] of Object.entries(filter)) {
    if (key === '$and' && Array.isArray(v)) for (const c of v) walkFilter(c, w, acc);
    else if (key === '$or' && Array.isArray(v)) walkOr(v, w, acc);
    else if (key === '$comment') continue;
    else if (key.startsWith('$')) acc.unindexable.push({ op: key });
    else walkField(joinPrefix(w.prefix, key), v, w, acc);
  }
}

/** An `$or` of one branch is that branch (the server simplifies it so); otherwise each branch is its own filter. */
function walkOr(branches: unknown[], w: Walk, acc: Acc): void {
  if (branches.length === 1) return walkFilter(branches[0], w, acc);
  acc.or.push(
    branches.map((b) => {
      const sub = new Acc();
      walkFilter(b, w, sub);
      return sub.shape();
    }),
  );
}

function walkField(path: string, v: unknown, w: Walk, acc: Acc): void {
  if (isRegexValue(v)) acc.add(path, '$regex', ['regex'], w.elemMatch, { regex: regexFacts(v) ?? undefined });
  else if (isOperatorDoc(v)) walkOperators(path, v, w, acc);
  else acc.add(path, '$eq', [typeOf(v)], w.elemMatch);
}

function walkOperators(path: string, ops: Doc, w: Walk, acc: Acc): void {
  for (const [op, operand] of Object.entries(ops)) {
    if (op === '$options') continue;
    if (op === '$in') walkIn(path, operand, w, acc);
    else if (op === '$eq') acc.add(path, '$eq', [typeOf(operand)], w.elemMatch);
    else if (op === '$all') walkAll(path, operand, w, acc);
    else if (op === '$elemMatch') walkElemMatch(path, operand, w, acc);
    else if (op === '$regex') {
      acc.add(path, '$regex', ['regex'], w.elemMatch, { regex: regexFacts(operand, ops.$options) ?? undefined });
    } else if (op === '$not' && isDoc(operand)) {
      acc.add(path, '$not', Object.keys(operand).sort(), w.elemMatch);
    } else if (RANGE.has(op)) {
      acc.add(path, op, op === '$nin' ? elementTypes(operand) : [typeOf(operand)], w.elemMatch);
    } else acc.unindexable.push({ op, path });
  }
}

function elementTypes(v: unknown): string[] {
  const ph = placeholderOf(v);
  if (ph?.array) return ph.types;
  return Array.isArray(v) ? [...new Set(v.map(typeOf))].sort() : [typeOf(v)];
}

/** `$in` of one value is an equality; of several, an equality on each (its size bucket kept); a regex makes a range. */
function walkIn(path: string, values: unknown, w: Walk, acc: Acc): void {
  // A server shape's `$in` list reads `?array<…>`: its types are known, its size is not.
  if (placeholderOf(values)?.array) return acc.add(path, '$in', elementTypes(values), w.elemMatch);
  const list = Array.isArray(values) ? values : [values];
  const regexes = list.map((x) => (isRegexValue(x) ? regexFacts(x) : null));
  const found = regexes.filter((r): r is RegexFacts => r !== null);
  const regex = found.length
    ? { anchored: found.every((r) => r.anchored), caseInsensitive: found.some((r) => r.caseInsensitive) }
    : undefined;
  const op = list.length === 1 ? '$eq' : '$in';
  acc.add(path, op, elementTypes(list), w.elemMatch, { in: inBucket(list.length), ...(regex ? { regex } : {}) });
}

function isRegexValue(v: unknown): boolean {
  return v instanceof RegExp || (v !== null && typeof v === 'object' && bsonTag(v) === 'BSONRegExp');
}

/** `$all`: an equality on each element (the index bounds one of them); `$all` of `$elemMatch`es walks those. */
function walkAll(path: string, values: unknown, w: Walk, acc: Acc): void {
  const list = Array.isArray(values) ? values : [values];
  const plain = list.filter((x) => !(isDoc(x) && '$elemMatch' in x));
  for (const x of list) if (isDoc(x) && '$elemMatch' in x) walkElemMatch(path, x.$elemMatch, w, acc);
  if (plain.length) acc.add(path, '$all', elementTypes(plain), w.elemMatch);
}

/** `$elemMatch` on documents walks its fields under the array path; on values, its operators apply to the path. */
function walkElemMatch(path: string, operand: unknown, w: Walk, acc: Acc): void {
  if (!isDoc(operand)) return;
  const inner = { prefix: path, elemMatch: path };
  if (isOperatorDoc(operand) && !('$and' in operand || '$or' in operand || '$nor' in operand)) {
    walkOperators(path, operand, inner, acc);
  } else walkFilter(operand, inner, acc);
}

/** A sort document's keys in order with their directions; `$meta` and `$natural` sorts are noted as unindexable. */
function sortOf(sort: unknown, acc: Acc): SortKey[] {
  if (!isDoc(sort)) return [];
  const keys: SortKey[] = [];
  for (const [path, v] of Object.entries(sort)) {
    if (path.startsWith('$')) acc.unindexable.push({ op: path });
    else if (isDoc(v)) acc.unindexable.push({ op: '$meta', path });
    else keys.push({ path, direction: Number(v) < 0 ? -1 : 1 });
  }
  return keys;
}

interface Parts {
  command: ShapeCommand;
  coll: string;
  filter: unknown;
  sort?: unknown;
  limit?: boolean;
  distinctKey?: string;
  collation?: unknown;
  /** Stages that answer the query from another kind of index (`$geoNear`, Atlas `$search`…). */
  stages?: string[];
}

const COLLATION_WORDS: Record<string, RegExp> = {
  locale: /^[a-z]{2,3}(_[A-Za-z0-9]{2,8}){0,2}(@[a-z]+=[a-z0-9]+)?$/,
  caseFirst: /^(upper|lower|off)$/,
  alternate: /^(non-ignorable|shifted)$/,
  maxVariable: /^(punct|space)$/,
};
const COLLATION_FLAGS = new Set(['caseLevel', 'numericOrdering', 'normalization', 'backwards']);

/**
 * A command's collation reduced to its known settings with well-formed values; undefined for none or `simple`.
 * Anything else is dropped, so an odd string in a collation document never reaches a shape.
 */
export function collationOf(v: unknown): Collation | undefined {
  if (!isDoc(v) || typeof v.locale !== 'string' || v.locale === 'simple') return undefined;
  const out: Collation = {};
  for (const [k, x] of Object.entries(v)) {
    const word = COLLATION_WORDS[k];
    if (word && typeof x === 'string' && word.test(x)) out[k] = x;
    else if (COLLATION_FLAGS.has(k) && typeof x === 'boolean') out[k] = x;
    else if (k === 'strength' && typeof x === 'number' && [1, 2, 3, 4, 5].includes(x)) out[k] = x;
  }
  return out.locale === undefined ? undefined : out;
}

function withCollation(v: unknown): { collation?: Collation } {
  const collation = collationOf(v);
  return collation ? { collation } : {};
}

function build(db: string, p: Parts): QueryShape {
  const acc = new Acc();
  walkFilter(p.filter, { prefix: '' }, acc);
  for (const op of p.stages ?? []) acc.unindexable.push({ op });
  const sort = sortOf(p.sort, acc);
  const body = {
    db,
    coll: p.coll,
    command: p.command,
    ...acc.shape(),
    sort,
    limit: p.limit === true,
    ...(p.distinctKey !== undefined ? { distinctKey: p.distinctKey } : {}),
    ...withCollation(p.collation),
  };
  return { id: shapeIdOf(body), ...body };
}

/**
 * 64 bits of the canonical text as 16 hex digits, in two 32-bit lanes (FNV-1a, and a multiply-xorshift lane with
 * another seed and prime): a stable id across runs and hosts, with no dependency (src/workload is bundled into the
 * mongosh plugin too), and fast in Math.imul where a BigInt FNV-64 cost a third of shapesOf's time.
 */
export function shapeHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  const hex = (x: number): string => (x >>> 0).toString(16).padStart(8, '0');
  return hex(a) + hex(b);
}

/**
 * A text for a shape's body that differs whenever the body does, cheaper than its JSON text: each part is a JSON text
 * (self-delimiting) or a one-letter mark outside JSON's first characters, in a fixed order, so the text reads back to
 * one body. A body or predicate with a field this does not name gets its whole JSON text instead (marked `J`).
 */
function bodyKey(b: Omit<QueryShape, 'id'>): string {
  const j = JSON.stringify;
  let k = j(b.db) + j(b.coll) + j(b.command) + (b.limit ? 'L' : 'l') + j(b.sort) + j(b.or) + j(b.unindexable);
  let fields = 8;
  if (b.distinctKey !== undefined) {
    fields++;
    k += `d${j(b.distinctKey)}`;
  }
  if (b.collation !== undefined) {
    fields++;
    k += `c${j(b.collation)}`;
  }
  for (const p of b.predicates) {
    let own = 3;
    k += `(${j(p.path)}${p.role === 'equality' ? 'E' : p.role === 'range' ? 'R' : j(p.role)}`;
    if (p.elemMatch !== undefined) {
      own++;
      k += `e${j(p.elemMatch)}`;
    }
    if (p.in !== undefined) {
      own++;
      k += `i${j(p.in)}`;
    }
    if (p.regex !== undefined) {
      own++;
      k += `r${j(p.regex)}`;
    }
    for (const op in p.ops) k += j(op) + j(p.ops[op]);
    k += ')';
    if (countKeys(p) !== own) return `J${j(b)}`;
  }
  return countKeys(b) === fields ? k : `J${j(b)}`;
}

function countKeys(o: object): number {
  let n = 0;
  for (const key in o) if (Object.hasOwn(o, key)) n++;
  return n;
}

/** Ids already computed, by their body's key (bounded: cleared past this many; a log holds a few hundred). */
const idsByText = new Map<string, string>();
const MAX_KNOWN_IDS = 10_000;

/**
 * The id of a shape's body: `shapeHash(canonical(body))`, looked up by the body's key (`bodyKey`: its parts' JSON
 * texts, no sorting), so each distinct body (and each key order a filter gives it) is made canonical once, not once
 * per logged query (issue 27: canonical and the hash were a third of the fold's time). Exact: a body holds names,
 * type names, numbers and booleans, never a value (a Date, a BSON type) whose JSON text could equal another's, so
 * bodies with the same key have the same canonical text.
 */
function shapeIdOf(body: Omit<QueryShape, 'id'>): string {
  const text = bodyKey(body);
  let id = idsByText.get(text);
  if (id === undefined) {
    id = shapeHash(canonical(body));
    if (idsByText.size >= MAX_KNOWN_IDS) idsByText.clear();
    idsByText.set(text, id);
  }
  return id;
}

function name(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

/** The shapes of a find, count, distinct, findAndModify, update or delete command; [] for other commands. */
function crudShapes(cmd: Doc, db: string): QueryShape[] | null {
  const { collation } = cmd;
  const find = name(cmd.find);
  if (find) {
    const limit = cmd.limit !== undefined;
    return [build(db, { command: 'find', coll: find, filter: cmd.filter, sort: cmd.sort, limit, collation })];
  }
  const count = name(cmd.count);
  if (count) {
    const limit = cmd.limit !== undefined;
    return [build(db, { command: 'count', coll: count, filter: cmd.query, limit, collation })];
  }
  const distinct = name(cmd.distinct);
  if (distinct) {
    const key = typeof cmd.key === 'string' ? cmd.key : undefined;
    const keyPart = key ? { distinctKey: key } : {};
    return [build(db, { command: 'distinct', coll: distinct, filter: cmd.query, ...keyPart, collation })];
  }
  const fam = name(cmd.findAndModify) ?? name(cmd.findandmodify);
  if (fam) {
    const parts = { command: 'findAndModify' as const, coll: fam, filter: cmd.query, sort: cmd.sort, collation };
    return [build(db, { ...parts, limit: true })];
  }
  const update = name(cmd.update);
  if (update && Array.isArray(cmd.updates)) return statements(db, 'update', update, cmd.updates);
  const del = name(cmd.delete);
  if (del && Array.isArray(cmd.deletes)) return statements(db, 'delete', del, cmd.deletes);
  return null;
}

/** One shape per update or delete statement (its `q`, and an update's `sort` of 8.0), repeats removed. */
function statements(db: string, command: 'update' | 'delete', coll: string, list: unknown[]): QueryShape[] {
  const out = new Map<string, QueryShape>();
  for (const st of list) {
    if (!isDoc(st)) continue;
    const limit = command === 'delete' ? Number(st.limit) === 1 : st.multi !== true;
    const s = build(db, { command, coll, filter: st.q, sort: st.sort, limit, collation: st.collation });
    out.set(s.id, s);
  }
  return [...out.values()];
}

/** First stages answered by a geo or search index, not a B-tree: noted as unindexable. */
const SEARCH_STAGES = new Set(['$geoNear', '$search', '$searchMeta', '$vectorSearch']);

/**
 * The shapes of an aggregate: its leading `$match`, `$sort` and `$limit` stages (the part the server pushes into the
 * query), and, for each `$lookup` with localField/foreignField, an equality on the foreign field of `from`.
 */
function aggregateShapes(cmd: Doc, db: string): QueryShape[] {
  const coll = name(cmd.aggregate);
  if (!coll || !Array.isArray(cmd.pipeline)) return [];
  const filters: unknown[] = [];
  let sort: unknown;
  let limit = false;
  const first = (cmd.pipeline as unknown[])[0];
  const stages = isDoc(first) ? Object.keys(first).filter((k) => SEARCH_STAGES.has(k)) : [];
  for (const stage of cmd.pipeline as unknown[]) {
    if (!isDoc(stage)) break;
    if (stage.$match !== undefined && !limit) filters.push(stage.$match);
    else if (stage.$sort !== undefined && sort === undefined && !limit) sort = stage.$sort;
    else if (stage.$limit !== undefined) limit = true;
    else break;
  }
  const { collation } = cmd;
  const main = build(db, { command: 'aggregate', coll, filter: { $and: filters }, sort, limit, collation, stages });
  return [main, ...lookupShapes(cmd.pipeline as unknown[], db, collation)];
}

/** A `$lookup` runs under the pipeline's collation. */
function lookupShapes(pipeline: unknown[], db: string, collation: unknown): QueryShape[] {
  const out: QueryShape[] = [];
  for (const stage of pipeline) {
    const l = isDoc(stage) && isDoc(stage.$lookup) ? stage.$lookup : null;
    const from = l ? name(l.from) : null;
    const foreign = l ? name(l.foreignField) : null;
    if (!from || !foreign || name(l?.localField) === null) continue;
    const acc = new Acc();
    acc.add(foreign, '$eq', [], undefined);
    const body: Omit<QueryShape, 'id'> = {
      db,
      coll: from,
      command: 'lookup',
      ...acc.shape(),
      sort: [],
      limit: false,
      ...withCollation(collation),
    };
    out.push({ id: shapeIdOf(body), ...body });
  }
  return out;
}

/**
 * The query shapes of one command as sent to database `db`: a find, aggregate, update, delete, count, distinct or
 * findAndModify. Other commands (insert, getMore…) have none: give a getMore's originating command instead. With
 * `placeholders`, the command is a shape the server made (a `$queryStats` key, a record marked `shapeOnly`): its
 * `"?string"`-style placeholders are read as types, and an `$in` list has no size bucket.
 */
export function shapesOf(
  command: Readonly<Record<string, unknown>>,
  db: string,
  options: { placeholders?: boolean } = {},
): QueryShape[] {
  const cmd = (options.placeholders ? readPlaceholders(command) : command) as Doc;
  return crudShapes(cmd, db) ?? aggregateShapes(cmd, db);
}

function placeholder(types: readonly string[]): string {
  return types.length ? types.map((t) => `?${t}`).join('|') : '?';
}

function regexText(r: RegexFacts | undefined): string {
  if (!r) return '/?/';
  return `/${r.anchored ? '^…' : '…'}/${r.caseInsensitive ? 'i' : ''}`;
}

/** One predicate as mongosh would read it, every value a placeholder. */
function formatPredicate(p: Predicate): string {
  const ops = Object.keys(p.ops).sort();
  const operand = (op: string): string => {
    if (op === '$regex') return regexText(p.regex);
    if (op === '$in') return `[${placeholder(p.ops[op] ?? [])} ×${p.in ?? '?'}]`;
    if (op === '$nin') return `[${placeholder(p.ops[op] ?? [])}]`;
    if (op === '$not') return `{ ${(p.ops[op] ?? []).join(', ')} }`;
    return placeholder(p.ops[op] ?? []);
  };
  const key = shellKey(p.path);
  if (ops.length === 1 && ops[0] === '$eq') return `${key}: ${operand('$eq')}`;
  if (ops.length === 1 && ops[0] === '$regex') return `${key}: ${regexText(p.regex)}`;
  return `${key}: { ${ops.map((op) => `${op}: ${operand(op)}`).join(', ')} }`;
}

function formatFilter(f: FilterShape): string {
  const parts = f.predicates.map((p) => (p.elemMatch ? `[${p.elemMatch} $elemMatch] ` : '') + formatPredicate(p));
  for (const group of f.or) parts.push(`$or: [${group.map(formatFilter).join(', ')}]`);
  for (const u of f.unindexable) parts.push(u.path ? `${shellKey(u.path)}: { ${u.op}: ? }` : `${u.op}: ?`);
  return parts.length ? `{ ${parts.join(', ')} }` : '{}';
}

/**
 * The shape as one line of mongosh-like text: `db.orders.find({ status: ?string }).sort({ createdAt: -1 })`. It holds
 * field names, types, operators and regex anchoring, never a value.
 */
export function formatShape(s: QueryShape): string {
  const coll = shapeCollection(s.coll);
  const verb = s.command === 'lookup' ? '$lookup.foreignField' : s.command;
  let out = `${coll}.${verb}(${formatFilter(s)}`;
  if (s.distinctKey !== undefined) out = `${coll}.distinct(${JSON.stringify(s.distinctKey)}, ${formatFilter(s)}`;
  out += ')';
  if (s.sort.length) out += `.sort({ ${s.sort.map((k) => `${shellKey(k.path)}: ${k.direction}`).join(', ')} })`;
  if (s.limit) out += '.limit(?)';
  return out;
}
