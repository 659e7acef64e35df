import { readCursor } from '../adapters/cursor';
import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import type { ListedCollection } from '../core/collector';
import type { CollectionGroup, CollectionSnapshot } from '../core/types';
import { namePatterns } from '../lib/name-groups';

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
 * Entries asked for per cursor batch, in the opening command and every getMore, when a database is listed (the
 * listing and the catalogue): a batch is held as the server sent it while it is folded, so its size bounds that
 * memory, at one round trip per 1,000 collections (100 at 100,000, 1,000 at a million). Measured at 100,000
 * collections (bench/README.md): peak RSS 135-173 MB at 1,000 a batch, 195-202 MB at 5,000, for the same wall time.
 * MongoDB's own default is 101 entries, then 16 MiB per getMore.
 */
export const LISTING_BATCH = 1_000;

/**
 * One database's catalogue in one cursor: `$listCatalog` on admin (MongoDB 6.0+: every collection with its options and
 * index specs, `md.options` and `md.indexes[].spec`; test/fixtures/mongodb/list-catalog.ts cites the shape), filtered
 * to the database and folded into `stream` batch by batch. False when the server refuses or lacks the stage: the
 * run then keeps the listCollections fold, and does not ask again (`state`).
 */
export async function readCatalog(
  adapter: Adapter,
  db: string,
  maxTimeMS: number,
  state: CatalogState,
  stream: GroupStream,
): Promise<boolean> {
  if (state.refused !== null) return false;
  try {
    const cmd = {
      aggregate: 1,
      pipeline: [{ $listCatalog: {} }, { $match: { db } }],
      cursor: { batchSize: LISTING_BATCH },
      maxTimeMS,
    };
    await readCursor(adapter, 'admin', cmd, {
      getMoreBatchSize: LISTING_BATCH,
      each: (docs) => {
        for (const d of docs) {
          const e = catalogEntry(d);
          stream.add(e.listed, e.indexes);
        }
        stream.endBatch();
      },
    });
    return true;
  } catch (err) {
    state.refused = describeServerError(err);
    return false;
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

/** The most common count in a tally. */
function modalOf(tally: ReadonlyMap<string, number>): number {
  let best = 0;
  for (const n of tally.values()) if (n > best) best = n;
  return best;
}

/** FNV-1a over the name's UTF-16 units: a fixed pseudo-random rank, so two runs pick the same representatives. */
export function nameRank(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** A listing entry and, from the one-cursor catalogue, its index set's identity. */
interface Entry {
  row: ListedCollection;
  indexes: string | null;
}

/** A group while the listing streams: its size and summaries, never its member names. */
interface GroupTally {
  pattern: string;
  kind: CollectionGroup['kind'];
  members: number;
  /** The three smallest names (the order `Array.prototype.sort` gives). */
  examples: string[];
  /** The members of lowest rank (`nameRank`), at most `groupSample`: a uniform sample drawn without holding names. */
  reps: { rank: number; row: ListedCollection }[];
  options: Map<string, number>;
  indexes: Map<string, number>;
}

const KIND_ORDER: Record<CollectionGroup['kind'], number> = { collection: 0, timeseries: 1, view: 2 };
const keyOf = (kind: string, name: string): string => `${kind}\u0000${name}`;
const isSystemName = (name: string): boolean => name.startsWith('system.');

/**
 * A database's listing folded into groups as it streams (no I/O), so memory follows the groups and the collections
 * outside them, not the names: a name that joins a group leaves only counts behind (the group's size, its three first
 * names, its representatives, a tally of option and index sets). Every entry is held until the database proves large
 * (more than `groupAbove` collections); then names are placed as they come: into the largest group one of their
 * patterns (src/lib/name-groups.ts) already names, else held as free, under each of their patterns. At the end of each
 * cursor batch, patterns that gathered `groupMin` free names become groups, the largest first (the order
 * `groupByPattern` claims names in), so per-tenant names outrank per-type ones within a batch as they do in a whole
 * listing. Representatives are the `groupSample` members of lowest `nameRank`: a uniform sample of the whole group,
 * wherever in the listing its members come, and the same in every run.
 */
export class GroupStream {
  private held: Entry[] | null = [];
  private readonly system: ListedCollection[] = [];
  private readonly free = new Map<string, Entry>();
  private readonly pending = new Map<string, Set<string>>();
  private readonly tallies = new Map<string, GroupTally>();
  private readonly above: number;
  private readonly min: number;
  private readonly sample: number;
  /** Non-system collections seen. */
  total = 0;
  /** Entries seen, system collections included. */
  seen = 0;

  constructor(opts: GroupOptions & { whole?: boolean }) {
    this.above = opts.whole ? Infinity : (opts.groupAbove ?? GROUP_DEFAULTS.groupAbove);
    this.min = opts.groupMin ?? GROUP_DEFAULTS.groupMin;
    this.sample = opts.groupSample ?? GROUP_DEFAULTS.groupSample;
  }

  add(row: ListedCollection, indexes: string | null = null): void {
    this.seen++;
    if (isSystemName(row.name)) {
      this.system.push(row);
      return;
    }
    this.total++;
    const entry = { row, indexes };
    if (this.held) {
      this.held.push(entry);
      if (this.total <= this.above) return;
      const held = this.held;
      this.held = null;
      for (const e of held) this.place(e);
      return;
    }
    this.place(entry);
  }

  /** The end of a cursor batch: patterns that gathered enough free names become groups, the largest first. */
  endBatch(): void {
    if (!this.held) this.promote();
  }

  /** Whether the database is read by groups (more than `groupAbove` collections). */
  get grouped(): boolean {
    return this.held === null;
  }

  /** Entries held name by name: every one until the database proves large, then those outside every group. */
  get heldEntries(): number {
    return this.held ? this.held.length : this.free.size;
  }

  /** Every entry of a database read whole (system collections last); empty once grouped. */
  whole(): ListedCollection[] {
    return [...(this.held ?? []).map((e) => e.row), ...this.system];
  }

  private place(e: Entry): void {
    const kind = kindOf(e.row.type);
    let best: GroupTally | undefined;
    for (const p of namePatterns(e.row.name)) {
      const g = this.tallies.get(keyOf(kind, p));
      if (g && (!best || g.members > best.members)) best = g;
    }
    if (best) {
      this.join(best, e);
      return;
    }
    this.free.set(keyOf(kind, e.row.name), e);
    for (const p of namePatterns(e.row.name)) {
      const k = keyOf(kind, p);
      let names = this.pending.get(k);
      if (!names) this.pending.set(k, (names = new Set()));
      names.add(e.row.name);
    }
  }

  private promote(): void {
    const ready = [...this.pending].filter(([, names]) => names.size >= this.min);
    if (ready.length === 0) return;
    ready.sort((a, b) => b[1].size - a[1].size || a[0].localeCompare(b[0]));
    for (const [k, names] of ready) {
      if (names.size < this.min) continue; // a larger pattern claimed some of them in this round
      const cut = k.indexOf('\u0000');
      const kind = k.slice(0, cut) as CollectionGroup['kind'];
      const g: GroupTally = {
        pattern: k.slice(cut + 1),
        kind,
        members: 0,
        examples: [],
        reps: [],
        options: new Map(),
        indexes: new Map(),
      };
      this.tallies.set(k, g);
      for (const name of [...names]) {
        const e = this.free.get(keyOf(kind, name));
        if (!e) continue;
        this.free.delete(keyOf(kind, name));
        for (const p of namePatterns(name)) {
          const pk = keyOf(kind, p);
          const set = this.pending.get(pk);
          set?.delete(name);
          if (set?.size === 0) this.pending.delete(pk);
        }
        this.join(g, e);
      }
      this.pending.delete(k);
    }
  }

  private join(g: GroupTally, e: Entry): void {
    const { row } = e;
    g.members++;
    if (g.examples.length < 3 || row.name < (g.examples[2] as string)) {
      g.examples.push(row.name);
      g.examples.sort();
      if (g.examples.length > 3) g.examples.pop();
    }
    const rank = nameRank(row.name);
    const last = g.reps[g.reps.length - 1];
    if (
      g.reps.length < this.sample ||
      (last && (rank < last.rank || (rank === last.rank && row.name < last.row.name)))
    ) {
      g.reps.push({ rank, row });
      g.reps.sort((a, b) => a.rank - b.rank || (a.row.name < b.row.name ? -1 : 1));
      if (g.reps.length > this.sample) g.reps.pop();
    }
    const o = optionsSignature(row.options, row.type);
    g.options.set(o, (g.options.get(o) ?? 0) + 1);
    if (e.indexes !== null) g.indexes.set(e.indexes, (g.indexes.get(e.indexes) ?? 0) + 1);
  }

  /**
   * The plan of a grouped database (call `grouped` first): the collections outside every group, each group's
   * representatives, its size and what the listing said of all its members.
   */
  finish(catalog: boolean): GroupedListing {
    this.promote();
    const groups = [...this.tallies.values()].sort(
      (a, b) =>
        KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
        b.members - a.members ||
        (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0),
    );
    const planned: PlannedGroup[] = groups.map((g) => ({
      pattern: g.pattern,
      kind: g.kind,
      members: g.members,
      examples: [...g.examples],
      read: g.reps.map((r) => r.row.name).sort(),
      sameOptions: modalOf(g.options),
      sameIndexes: catalog ? modalOf(g.indexes) : null,
    }));
    const ungrouped = [...this.free.values()].map((e) => e.row).sort((a, b) => a.name.localeCompare(b.name));
    const reps = groups.flatMap((g) =>
      [...g.reps].sort((a, b) => (a.row.name < b.row.name ? -1 : 1)).map((r) => r.row),
    );
    return {
      all: [...ungrouped, ...reps, ...this.system],
      chosen: [...ungrouped, ...reps],
      groups: planned,
      total: this.total,
    };
  }
}

/**
 * A whole listing folded into groups (no I/O): the streamed fold of `GroupStream` over rows already in hand, one batch.
 * `catalogIndexes` gives each member's index set identity where the one-cursor catalogue was read.
 */
export function planGroups(
  rows: readonly ListedCollection[],
  opts: GroupOptions,
  catalogIndexes: ReadonlyMap<string, string> | null,
): GroupedListing {
  const stream = new GroupStream({ ...opts, groupAbove: -1 });
  for (const r of rows) stream.add(r, catalogIndexes?.get(r.name) ?? (catalogIndexes ? '' : null));
  return stream.finish(catalogIndexes !== null);
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
