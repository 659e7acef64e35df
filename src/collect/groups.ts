import { readCursor } from '../adapters/cursor';
import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import type { ListedCollection } from '../core/collector';
import type { CollectionGroup, CollectionSnapshot } from '../core/types';
import { groupByPattern } from '../lib/name-groups';

/*
 * Databases of many collections, read by groups (issue 29: a million collections at Tencent, domain facts §5). Their
 * collections are listed by name in one streamed cursor, folded into groups by name pattern and kind (the folding the
 * collection-count rule uses), and each group is read through a bounded sample of representatives, spread evenly over
 * the members' names; a collection outside every group is read as before. Where the server has a one-cursor catalogue
 * (`$listCatalog`), its one cursor gives every member's options and index specs, so the evidence covers the whole
 * group, not only its representatives.
 */

export const GROUP_DEFAULTS = {
  /**
   * Databases holding more than this many collections are read by groups: 100 is the line Atlas flags per database
   * (domain facts §5); below it every collection is read, as a small database costs little.
   */
  groupAbove: 100,
  /**
   * Fewest alike-named collections that make a group: the collection-count rule's `tenantMinCollections` default (a
   * tenth of Atlas' 100 per database), so what the core reads as a group is what the rule can call tenants.
   */
  groupMin: 10,
  /**
   * Representatives read in full per group: our choice. Spread evenly over the members, 30 see a variant that a tenth
   * of the group carries with probability 1 - 0.9^30 = 96%, and keep an audit of 4 groups at about 4 × 30 × 2 round
   * trips (an empty representative costs a count and a listIndexes).
   */
  groupSample: 30,
} as const;

export interface GroupOptions {
  groupAbove?: number;
  groupMin?: number;
  groupSample?: number;
}

/** A group as planned before its representatives are read. */
export interface PlannedGroup {
  pattern: string;
  kind: CollectionGroup['kind'];
  members: number;
  examples: string[];
  read: string[];
  /** Over every member (the listing gives each one's options): how many share the most common options. */
  sameOptions: number;
  /** From the one-cursor catalogue, over every member: how many share the most common index set; null without it. */
  sameIndexes: number | null;
}

export interface GroupedListing {
  /** What collectors are handed as the listing: ungrouped collections, representatives, system collections. */
  all: ListedCollection[];
  /** What to read in full: ungrouped collections, then each group's representatives. */
  chosen: ListedCollection[];
  groups: PlannedGroup[];
  /** Every non-system collection, grouped or not. */
  total: number;
}

/** What the run learnt of the catalogue stages: tried once, then the answer stands for every database. */
export interface CatalogState {
  refused: string | null;
}

const kindOf = (type: string): CollectionGroup['kind'] =>
  type === 'view' ? 'view' : type === 'timeseries' ? 'timeseries' : 'collection';

/** Evenly spread picks, so the representatives cover the group's whole name range. */
export function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)] as T);
}

/** The options that change how a collection is read or judged, as an identity: no value of a validator. */
export function optionsSignature(options: Doc, type: string): string {
  const ts = options.timeseries as Doc | undefined;
  return JSON.stringify([
    type,
    options.capped === true,
    options.clusteredIndex !== undefined,
    options.validator !== undefined && Object.keys(options.validator as Doc).length > 0,
    ts ? [ts.timeField, ts.metaField ?? null, ts.granularity ?? null] : null,
  ]);
}

/** An index set's identity from index specs, names left out (tenants' names may differ by accident). */
export function indexSpecsSignature(specs: readonly Doc[]): string {
  return specs
    .map((s) =>
      JSON.stringify([
        s.key,
        s.unique === true,
        s.sparse === true,
        s.partialFilterExpression !== undefined,
        s.expireAfterSeconds ?? null,
      ]),
    )
    .sort()
    .join('|');
}

/** The most common value's count. */
function modal(values: readonly string[]): number {
  const counts = new Map<string, number>();
  let best = 0;
  for (const v of values) {
    const n = (counts.get(v) ?? 0) + 1;
    counts.set(v, n);
    if (n > best) best = n;
  }
  return best;
}

/**
 * One database's catalogue in one cursor: `$listCatalog` on admin (MongoDB 6.0+; every collection with its options
 * and index specs, `md.options` and `md.indexes[].spec`: jstests/core/catalog/list_catalog.js), filtered to the
 * database. Streamed and reduced row by row to a listing entry and its index set's identity. Null when the server
 * refuses or lacks the stage: the run then lists with listCollections, and does not ask again.
 */
export async function readCatalog(
  adapter: Adapter,
  db: string,
  maxTimeMS: number,
  state: CatalogState,
): Promise<{ rows: ListedCollection[]; indexes: Map<string, string> } | null> {
  if (state.refused !== null) return null;
  const rows: ListedCollection[] = [];
  const indexes = new Map<string, string>();
  try {
    const cmd = { aggregate: 1, pipeline: [{ $listCatalog: {} }, { $match: { db } }], cursor: {}, maxTimeMS };
    await readCursor(adapter, 'admin', cmd, {
      each: (docs) => {
        for (const d of docs) {
          const e = catalogEntry(d);
          rows.push(e.listed);
          indexes.set(e.listed.name, e.indexes);
        }
      },
    });
    return { rows, indexes };
  } catch (err) {
    state.refused = describeServerError(err);
    return null;
  }
}

/** A `$listCatalog` entry reduced to a listing entry (name, kind, options) and its index set's identity. */
export function catalogEntry(d: Doc): { listed: ListedCollection; indexes: string } {
  const md = (d.md as Doc | undefined) ?? {};
  const type = typeof d.type === 'string' ? d.type : 'collection';
  const specs = ((md.indexes as Doc[] | undefined) ?? []).map((i) => (i.spec as Doc | undefined) ?? {});
  const options = (md.options as Doc | undefined) ?? {};
  if (typeof d.viewOn === 'string' && options.viewOn === undefined) options.viewOn = d.viewOn;
  return { listed: { name: String(d.name), type, options }, indexes: indexSpecsSignature(specs) };
}

/**
 * A many-collection database's listing folded into groups (no I/O): the listing is the streamed listCollections the
 * core always reads (its options in hand for every member, so grouping by options costs nothing more), or the
 * one-cursor catalogue where the server has it (`catalogIndexes`: each member's index set identity too).
 */
export function planGroups(
  rows: readonly ListedCollection[],
  opts: GroupOptions,
  catalogIndexes: ReadonlyMap<string, string> | null,
): GroupedListing {
  const min = opts.groupMin ?? GROUP_DEFAULTS.groupMin;
  const sample = opts.groupSample ?? GROUP_DEFAULTS.groupSample;
  const byName = new Map(rows.map((r) => [r.name, r]));
  const groups: PlannedGroup[] = [];
  const grouped = new Set<string>();
  let total = 0;
  for (const kind of ['collection', 'timeseries', 'view'] as const) {
    const names = rows
      .filter((r) => kindOf(r.type) === kind && !r.name.startsWith('system.'))
      .map((r) => r.name)
      .sort();
    total += names.length;
    for (const g of groupByPattern(names, min)) {
      for (const m of g.members) grouped.add(m);
      const members = g.members.map((m) => byName.get(m) as ListedCollection);
      groups.push({
        pattern: g.pattern,
        kind,
        members: g.members.length,
        examples: g.members.slice(0, 3),
        read: spread(g.members, sample),
        sameOptions: modal(members.map((m) => optionsSignature(m.options, m.type))),
        sameIndexes: catalogIndexes ? modal(g.members.map((m) => catalogIndexes.get(m) ?? '')) : null,
      });
    }
  }
  const ungrouped = rows.filter((r) => !r.name.startsWith('system.') && !grouped.has(r.name));
  ungrouped.sort((a, b) => a.name.localeCompare(b.name));
  const reps = groups.flatMap((g) => g.read.map((r) => byName.get(r) as ListedCollection));
  const all = [...ungrouped, ...reps, ...rows.filter((r) => r.name.startsWith('system.'))];
  return { all, chosen: [...ungrouped, ...reps], groups, total };
}

/** The group's evidence once its representatives are read: how many agreed on options and indexes, how many empty. */
export function groupOf(g: PlannedGroup, reps: readonly CollectionSnapshot[]): CollectionGroup {
  const read = reps.filter((c) => c.group === g.pattern);
  const withIndexes = read.filter(
    (c) => c.type !== 'view' && !c.notes.some((n) => n.message.startsWith('indexes could not be listed')),
  );
  const indexSets = withIndexes.map((c) =>
    indexSpecsSignature(
      c.indexes.map((i) => ({
        key: i.key,
        unique: i.unique,
        sparse: i.sparse,
        ...(i.partial ? { partialFilterExpression: {} } : {}),
        expireAfterSeconds: i.expireAfterSeconds,
      })),
    ),
  );
  const evidence: CollectionGroup['evidence'] = {
    optionsRead: g.members,
    sameOptions: g.sameOptions,
    indexesRead: g.sameIndexes === null ? withIndexes.length : g.members,
    sameIndexes: g.sameIndexes ?? modal(indexSets),
    empty: 0,
    documents: 0,
  };
  for (const c of read) {
    const n = c.stats?.count ?? null;
    if (n === 0) evidence.empty++;
    if (n !== null) evidence.documents += n;
  }
  return {
    pattern: g.pattern,
    kind: g.kind,
    members: g.members,
    examples: g.examples,
    read: read.map((c) => c.name),
    evidence,
  };
}
