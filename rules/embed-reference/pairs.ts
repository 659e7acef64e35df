/**
 * Pure: one database's workload, as the shared workload collector holds it (src/collect/workload.ts: shapes per
 * collection with their calls and time, a few real commands per shape, inserts per collection), to the collection
 * pairs read together and the operations each collection receives. No value leaves here: names of collections and
 * fields, counts and times.
 *
 * Two bases for a pair, and the finding says which:
 * - `lookup`: an aggregate on the parent whose pipeline holds a `$lookup` with `localField`/`foreignField` (read from
 *   the real commands the tally keeps per shape); its calls and time are the aggregate shape's.
 * - `shapePair`: a find on the child by one equality on a field named after the parent (`orderId`, `order_id`) beside
 *   a find on the parent by `_id`, their call counts within `pairRateFactor` of each other. Neither the log nor the
 *   profiler says two operations came from one request, so the pair is inferred from the names and the rates.
 */
import { commandsOf, type ShapeData, type WorkloadData } from '../../src/collect/workload';
import type { QueryShape } from '../../src/workload/shape';

export interface PairCandidate {
  parent: string;
  localField: string;
  child: string;
  foreignField: string;
  /** The field the joined children land in (the `$lookup`'s `as`, or the child collection's name). */
  as: string;
  basis: 'lookup' | 'shapePair';
  /** Reads that join the two: the aggregate's calls, or the fewer of the two finds' calls. */
  joinCalls: number;
  /** Their time in total, ms (null: the source gave no durations). */
  joinMillis: number | null;
  /** Fields of the child the read keeps (a `$project` after the `$lookup` naming `<as>.<field>`); empty: all. */
  fields: string[];
}

export interface CollectionOps {
  name: string;
  /** Reads (find, aggregate, count, distinct) of the collection, the join's own included. */
  reads: number;
  /** Reads by one equality on a single field other than `_id` (a child read by its parent's key, typically). */
  readsByKey: number;
  /** Reads by `_id` alone. */
  readsById: number;
  inserts: number;
  updates: number;
  /** Updates (and findAndModify) selecting by `_id` alone: a child updated on its own. */
  updatesById: number;
  deletes: number;
}

export interface WorkloadPairs {
  pairs: PairCandidate[];
  collections: CollectionOps[];
}

const isDoc = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);

/** The singular of a collection name, as English plurals mostly go (orders → order, categories → category). */
export function singular(name: string): string {
  if (name.endsWith('ies')) return `${name.slice(0, -3)}y`;
  if (name.endsWith('sses')) return name.slice(0, -2);
  return name.endsWith('s') ? name.slice(0, -1) : name;
}

/** The field names a child collection uses to point at parent collection `parent`. */
export function parentKeyNames(parent: string): string[] {
  const one = singular(parent);
  return [`${one}Id`, `${one}_id`, `${one}ID`];
}

/** The one equality predicate of a shape with no other predicate, `$or`, sort-free or not; null otherwise. */
function soleEquality(s: QueryShape): string | null {
  if (s.or.length || s.unindexable.length || s.predicates.length !== 1) return null;
  const p = s.predicates[0];
  return p && p.role === 'equality' && !p.elemMatch && Object.keys(p.ops).join() === '$eq' ? p.path : null;
}

interface Lookup {
  from: string;
  localField: string;
  foreignField: string;
  as: string;
  fields: string[];
}

/** The `$lookup`s (localField/foreignField form) of an aggregate command, with the child fields projected after. */
function lookupsOf(command: Readonly<Record<string, unknown>>): Lookup[] {
  const pipeline = command.pipeline;
  if (!Array.isArray(pipeline)) return [];
  const out: Lookup[] = [];
  pipeline.forEach((stage: unknown, i) => {
    const l = isDoc(stage) && isDoc(stage.$lookup) ? stage.$lookup : null;
    if (!l || l.pipeline !== undefined) return;
    const from = str(l.from);
    const localField = str(l.localField);
    const foreignField = str(l.foreignField);
    const as = str(l.as);
    if (!from || !localField || !foreignField || !as) return;
    out.push({ from, localField, foreignField, as, fields: projectedFields(pipeline.slice(i + 1), as) });
  });
  return out;
}

/** Child fields an inclusion `$project` after the join keeps (`items.sku: 1` → sku); empty: the whole child. */
function projectedFields(rest: unknown[], as: string): string[] {
  for (const stage of rest) {
    const p = isDoc(stage) && isDoc(stage.$project) ? stage.$project : null;
    if (!p) continue;
    const fields = Object.entries(p)
      .filter(([k, v]) => k.startsWith(`${as}.`) && (v === 1 || v === true))
      .map(([k]) => k.slice(as.length + 1));
    if (Object.keys(p).includes(as)) return [];
    return [...new Set(fields)].sort();
  }
  return [];
}

const READS = new Set(['find', 'aggregate', 'count', 'distinct']);

/** The `$lookup`s of an aggregate shape's kept commands into `lookups`, each pair counted once per shape. */
function addLookups(lookups: Map<string, PairCandidate>, t: ShapeData, calls: number, millis: number | null): void {
  const s = t.shape;
  const seen = new Set<string>();
  for (const command of commandsOf(t)) {
    for (const l of lookupsOf(command)) {
      // one candidate per pair of collections (the first join seen names the fields): one finding per pair
      const id = [s.coll, l.from].join('\u0000');
      if (seen.has(id)) continue;
      seen.add(id);
      const into = lookups.get(id);
      if (into) {
        into.joinCalls += calls;
        into.joinMillis = into.joinMillis === null && millis === null ? null : (into.joinMillis ?? 0) + (millis ?? 0);
        continue;
      }
      lookups.set(id, {
        parent: s.coll,
        localField: l.localField,
        child: l.from,
        foreignField: l.foreignField,
        as: l.as,
        basis: 'lookup',
        joinCalls: calls,
        joinMillis: millis,
        fields: l.fields,
      });
    }
  }
}

/**
 * The pairs and per-collection operations of one database's tally. `pairRateFactor`: how far apart the two finds'
 * call counts may be for the shapePair basis.
 */
export function workloadPairs(d: WorkloadData | undefined, pairRateFactor: number): WorkloadPairs {
  const ops = new Map<string, CollectionOps>();
  const opsOf = (name: string): CollectionOps => {
    let o = ops.get(name);
    if (!o) {
      o = { name, reads: 0, readsByKey: 0, readsById: 0, inserts: 0, updates: 0, updatesById: 0, deletes: 0 };
      ops.set(name, o);
    }
    return o;
  };
  const lookups = new Map<string, PairCandidate>();
  const byIdFinds = new Map<string, number>();
  const keyFinds: { coll: string; path: string; calls: number; millis: number | null }[] = [];
  const shapes = (d?.collections ?? []).flatMap((c) => c.shapes);
  for (const t of shapes) {
    const s = t.shape;
    if (s.command === 'lookup') continue; // the aggregate's own shape counts the call
    const { calls, totalMillis: millis } = t;
    const o = opsOf(s.coll);
    const key = soleEquality(s);
    if (READS.has(s.command)) {
      o.reads += calls;
      if (key === '_id') o.readsById += calls;
      else if (key !== null) o.readsByKey += calls;
      if (s.command === 'find' && key === '_id') byIdFinds.set(s.coll, (byIdFinds.get(s.coll) ?? 0) + calls);
      if (s.command === 'find' && key !== null && key !== '_id')
        keyFinds.push({ coll: s.coll, path: key, calls, millis });
    } else if (s.command === 'update' || s.command === 'findAndModify') {
      o.updates += calls;
      if (key === '_id') o.updatesById += calls;
    } else if (s.command === 'delete') o.deletes += calls;
    if (s.command === 'aggregate') addLookups(lookups, t, calls, millis);
  }
  for (const c of d?.collections ?? []) if (c.inserts) opsOf(c.name).inserts += c.inserts;
  const pairs = [...lookups.values()];
  const joined = new Set(pairs.map((p) => `${p.parent}\u0000${p.child}`));
  for (const k of keyFinds) {
    for (const [parent, parentCalls] of byIdFinds) {
      if (parent === k.coll || !parentKeyNames(parent).includes(k.path)) continue;
      if (joined.has(`${parent}\u0000${k.coll}`)) continue;
      const ratio = Math.max(parentCalls, k.calls) / Math.max(1, Math.min(parentCalls, k.calls));
      if (ratio > pairRateFactor) continue;
      joined.add(`${parent}\u0000${k.coll}`);
      pairs.push({
        parent,
        localField: '_id',
        child: k.coll,
        foreignField: k.path,
        as: k.coll,
        basis: 'shapePair',
        joinCalls: Math.min(parentCalls, k.calls),
        joinMillis: k.millis,
        fields: [],
      });
    }
  }
  return { pairs, collections: [...ops.values()] };
}
