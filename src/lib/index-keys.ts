/**
 * Index keys as MongoDB compares them: special kinds, prefixes, and when a shorter index cannot give way to a longer
 * one. One place for the index-usage rule and `lint --spec`, so the two never disagree.
 */
import type { IndexSnapshot } from '../core/types';
import { shellValue } from './shell';

/** What the prefix checks read of an index, live (listIndexes) or declared (a spec). */
export type IndexShape = Pick<
  IndexSnapshot,
  'name' | 'key' | 'unique' | 'sparse' | 'hidden' | 'partial' | 'expireAfterSeconds' | 'collation'
>;

/** `{ a: 1, "b.c": -1, loc: "2dsphere" }` as mongosh prints a key pattern. */
export function formatKey(key: IndexShape['key']): string {
  // the command builder's literal: the key printed is the key a pasted command creates
  return shellValue(key);
}

/** The special index kind (text, 2dsphere, 2d, hashed, wildcard, columnstore…) or null for a B-tree index. */
export function specialKind(ix: IndexShape): string | null {
  for (const [field, v] of Object.entries(ix.key)) {
    if (field === '$**' || field.endsWith('.$**')) return typeof v === 'string' ? v : 'wildcard';
    if (typeof v === 'string') return v;
  }
  return null;
}

function sameDirection(a: number | string, b: number | string): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return Math.sign(a) === Math.sign(b);
}

/** Whether `a`'s key is a leading part of `b`'s: same fields in the same order with the same types and directions. */
export function isKeyPrefix(a: IndexShape, b: IndexShape): boolean {
  const ka = Object.entries(a.key);
  const kb = Object.entries(b.key);
  if (ka.length === 0 || ka.length > kb.length) return false;
  return ka.every(([field, v], i) => {
    const other = kb[i];
    return other !== undefined && other[0] === field && sameDirection(v, other[1]);
  });
}

function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'undefined';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  return `{${Object.keys(v as Record<string, unknown>)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
    .join(',')}}`;
}

/**
 * Why the shorter index `a` cannot simply give way to `b`, although its key is a prefix of `b`'s; empty when it
 * can. Special kinds store other keys than a B-tree; collation, uniqueness, sparseness and partial filters change
 * which documents and which queries an index serves.
 */
export function prefixBlockers(a: IndexShape, b: IndexShape): string[] {
  const why: string[] = [];
  const ka = specialKind(a);
  const kb = specialKind(b);
  if (ka) why.push(`\`${a.name}\` is a ${ka} index, which stores other keys than a B-tree index`);
  if (kb)
    why.push(
      `\`${b.name}\` is a ${kb} index, which stores other keys than a B-tree ` +
        `index${kb === '2dsphere' ? ' and skips documents without the geo field' : ''}`,
    );
  if (canonical(a.collation ?? null) !== canonical(b.collation ?? null))
    why.push('their collations differ, and a query uses an index only with a matching collation');
  if (a.unique) why.push(`\`${a.name}\` is unique: it enforces a constraint the longer index does not`);
  if (a.sparse || b.sparse)
    why.push(
      `${a.sparse ? `\`${a.name}\`` : `\`${b.name}\``} is sparse: it skips documents without its fields, so ` +
        `the two answer different queries`,
    );
  if (a.partial || b.partial)
    why.push(
      `${a.partial ? `\`${a.name}\`` : `\`${b.name}\``} is partial: it holds only documents matching its filter`,
    );
  if (a.expireAfterSeconds !== undefined) why.push(`\`${a.name}\` is a TTL index: the server's deletes need it`);
  if (b.hidden) why.push(`\`${b.name}\` is hidden, so the planner cannot use it in \`${a.name}\`'s place`);
  return why;
}

/**
 * An index option MongoDB reads as a boolean. Like any boolean in a command, a number counts (non-zero is true):
 * `unique: 1` from old deployments and older drivers is a unique index.
 */
export function indexFlag(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  if (typeof v === 'bigint') return v !== 0n;
  if (v !== null && typeof v === 'object') {
    const o = v as { toNumber?: () => number; valueOf?: () => unknown };
    const n = typeof o.toNumber === 'function' ? o.toNumber() : o.valueOf?.();
    if (typeof n === 'number') return n !== 0 && !Number.isNaN(n);
  }
  return false;
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v !== null && typeof v === 'object') {
    const o = v as { toNumber?: () => number; valueOf?: () => unknown };
    const n = typeof o.toNumber === 'function' ? o.toNumber() : o.valueOf?.();
    if (typeof n === 'number') return n;
  }
  return Number(v);
}

/** One listIndexes entry reduced to its key and option flags (no filter values); text indexes keep their fields. */
export type ListedIndex = IndexShape & {
  /** Fields of a text index (from its weights): listIndexes shows its key as {_fts: "text", _ftsx: 1}. */
  textFields?: string[];
};

/**
 * The one reducer of listIndexes replies: the core collect (indexes of the checked collections), the deployment
 * inventory (collection-count) and the rules read index options through it, so `unique: 1` is unique everywhere.
 */
export function indexFromListIndexes(spec: Readonly<Record<string, unknown>>): ListedIndex {
  // fromEntries keeps a field named `__proto__` as a key (`key[k] = v` would set the prototype instead)
  const key = Object.fromEntries(
    Object.entries((spec.key as Record<string, unknown> | undefined) ?? {}).map(([k, v]) => [
      k,
      typeof v === 'string' ? v : toNumber(v),
    ]),
  ) as Record<string, number | string>;
  const ix: ListedIndex = { name: String(spec.name), key };
  if (indexFlag(spec.unique)) ix.unique = true;
  if (indexFlag(spec.sparse)) ix.sparse = true;
  if (indexFlag(spec.hidden)) ix.hidden = true;
  if (spec.partialFilterExpression !== undefined) ix.partial = true;
  if (spec.expireAfterSeconds !== undefined) ix.expireAfterSeconds = toNumber(spec.expireAfterSeconds);
  if (spec.collation !== undefined) ix.collation = spec.collation as Record<string, unknown>;
  if (key._fts === 'text' && spec.weights && typeof spec.weights === 'object')
    ix.textFields = Object.keys(spec.weights).sort();
  return ix;
}

/**
 * Whether a listed index is the collection's `_id` index: `_id_`, or, on a collection clustered by `_id`, the clustered
 * index, whatever its name. MongoDB lists the clustered index first with `clustered: true` under the name given at
 * creation (`clusteredIndex.name`, `_id_` by default), and a plain `createIndex({_id: 1})` there is a no-op, so the one
 * index keyed exactly `{_id: 1}` of a clustered collection is it. It is the collection itself (the records are keyed by
 * `_id`), not a secondary index: never unused, redundant or dropped.
 */
export function isIdIndex(c: { clustered: boolean }, ix: Pick<IndexShape, 'name' | 'key'>): boolean {
  if (ix.name === '_id_') return true;
  if (!c.clustered) return false;
  const entries = Object.entries(ix.key);
  return entries.length === 1 && entries[0]?.[0] === '_id' && entries[0][1] === 1;
}
