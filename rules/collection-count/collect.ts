import { SCRATCH_PREFIX } from '../../src/core/names';
import { commandCursor } from '../../src/lib/cursor';
import type { Doc } from '../../src/core/adapter';
import { describeServerError } from '../../src/lib/server-error';
import { dataHandlesFrom } from '../../src/collect/server-status';
import { type DeploymentContext, defineCollector, optionsOf } from '../../src/core/collector';
import { resolveOptions } from '../../src/core/options';
import { mapPool } from '../../src/core/pool';
import type { CollectionGroup, CollectionSnapshot, IndexSnapshot } from '../../src/core/types';
import { indexFromListIndexes } from '../../src/lib/index-keys';
import {
  type CollectionCountOptions,
  INTERNAL_DBS,
  MAX_INDEXES_PER_COLLECTION,
  MIN_GROUP_RECORDED,
  collectionCountOptionsSchema,
  groupByPattern,
  minIndexes,
  onWiredTiger,
} from './analyze';
import {
  type DatabaseCount,
  type DeploymentInventory,
  type GroupCount,
  type IndexDefinition,
  INVENTORY_SCHEMA,
  type NameList,
} from './inventory';

/** The options when the run gives the collector none (collectors run without a resolved list): the defaults. */
// resolved on first use, not at import (an ajv compile every CLI start would pay)
let defaults: CollectionCountOptions | undefined;
const DEFAULTS = (): CollectionCountOptions =>
  (defaults ??= resolveOptions<CollectionCountOptions>('collection-count', collectionCountOptionsSchema, {}));

export type { DatabaseCount, DeploymentInventory, IndexBounds, IndexDefinition, NameList } from './inventory';

/** listIndexes in flight at once: each reads only the catalog (no data handle is opened), so more lanes are cheap. */
const INDEX_LIST_CONCURRENCY = 8;
/** Databases listed at once. */
const DB_CONCURRENCY = 4;
/** Members of one name-pattern group whose index lists are read, spread over the group. */
const GROUP_SAMPLE = 50;
/** Names kept for databases the run does not check, over all of them: 50,000 names are about 1 MB of snapshot. */
export const OTHER_NAMES_MAX = 50_000;
/** System collections of a checked database whose index lists are read (system.views, a few time-series buckets). */
const SYSTEM_LISTS = 20;
/** Index lists read between two looks at whether the table count is decided. */
const EXACT_BATCH = 64;
/** Grace on top of maxTimeMS before the inventory stops waiting for a server that does not honour it. */
const DEADLINE_GRACE_MS = 2_000;

/** One index entry of listIndexes reduced to what the rule needs: key and option flags, no filter values. */
export function indexDefinitionOf(spec: Doc): IndexDefinition {
  const { name, key, unique, sparse, partial, expireAfterSeconds, textFields } = indexFromListIndexes(spec);
  const def: IndexDefinition = { name, key };
  if (unique) def.unique = true;
  if (sparse) def.sparse = true;
  if (partial) def.partial = true;
  if (expireAfterSeconds !== undefined) def.expireAfterSeconds = expireAfterSeconds;
  if (textFields) def.textFields = textFields;
  return def;
}

function fromSnapshotIndex(i: IndexSnapshot): IndexDefinition {
  const def: IndexDefinition = { name: i.name, key: i.key };
  if (i.unique) def.unique = true;
  if (i.sparse) def.sparse = true;
  if (i.partial) def.partial = true;
  if (i.expireAfterSeconds !== undefined) def.expireAfterSeconds = i.expireAfterSeconds;
  return def;
}

/** Evenly spread picks, so a sample of a group covers its whole name range. */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)] as T);
}

class Deadline extends Error {}

/** `p`, or a Deadline error after `ms`: some servers ignore maxTimeMS on listDatabases (FerretDB took minutes at 10,000
 * collections). */
async function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Deadline(`no answer within ${(ms / 1000).toFixed(1)} s`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

type Kind = 'collection' | 'view' | 'timeseries';

interface Listed {
  name: string;
  type: Kind;
}

const kindOf = (type: unknown): Kind =>
  type === 'view' ? 'view' : type === 'timeseries' ? 'timeseries' : 'collection';
const keyOf = (db: string, name: string): string => `${db}\u0000${name}`;
/** The collection holding a time-series collection's index list. */
const listName = (kind: 'collection' | 'timeseries', name: string): string =>
  kind === 'timeseries' ? `system.buckets.${name}` : name;

/** Whether the core collect's listIndexes of this collection failed (its indexes are then unknown, not none). */
function coreListFailed(c: CollectionSnapshot): boolean {
  return c.notes.some((n) => n.message.startsWith('indexes could not be listed'));
}

/**
 * The deployment inventory of collection-count, once per run whatever the number of databases, read-only
 * (README.md, "What it reads"):
 * - `listDatabases`, none when the core already read the names;
 * - one `listCollections` (names and types) per user database the core did not list; admin, local and config (the
 *   server's own few collections) are not listed unless the run reads them;
 * - `listIndexes` only where an index list can change a verdict: a sample of each name-pattern group of the checked
 *   databases (up to 50 per group, the core's lists reused) and their few system collections; and, on a WiredTiger
 *   server whose data-handle figures cannot be read, other collections' lists while the table count (collections +
 *   indexes, 0 or 1 to 64 indexes per unread collection) could fall on either side of `dataHandlesWarn` (the user's,
 *   from the run's resolved options: `ctx.options`).
 * Never `dbStats` (on MongoDB it opens a data handle per collection and index). Stores counts per database (index
 * counts exact or as bounds), names with an index-set reference, each distinct index set once; never one object per
 * collection, never a value.
 */
export const inventory = defineCollector<DeploymentInventory, 'deployment'>({
  id: 'collection-count',
  version: 2,
  scope: 'deployment',
  description:
    'listDatabases (none when already read), listCollections of each database not already listed, and ' +
    'listIndexes of a sample of each name-pattern group in the checked databases, and of other collections ' +
    'only when their counts could change the verdict (once per run)',
  schema: INVENTORY_SCHEMA,
  collect: collectInventory,
});

async function databaseNames(ctx: DeploymentContext): Promise<string[]> {
  const { adapter, maxTimeMS } = ctx;
  const run = ctx.databases.map((d) => d.name);
  let names: string[] = [];
  if (ctx.databaseNames) names = [...ctx.databaseNames];
  else {
    const listing = adapter.command('admin', {
      listDatabases: 1,
      nameOnly: true,
      authorizedDatabases: true,
      maxTimeMS,
    });
    try {
      const r = await within(listing, maxTimeMS + DEADLINE_GRACE_MS);
      names = ((r.databases as { name?: unknown }[] | undefined) ?? []).map((d) => String(d.name));
    } catch (err) {
      listing.catch(() => undefined); // it may still answer, or fail, after we stopped waiting
      const why =
        err instanceof Deadline
          ? `listDatabases gave ${err.message} although it was sent with maxTimeMS ${maxTimeMS}`
          : describeServerError(err);
      ctx.note(
        `collection-count: databases could not be listed (${why}); only ` +
          `the ${run.length === 1 ? 'checked database was' : `${run.length} checked databases were`} counted`,
      );
    }
  }
  for (const db of run) if (!names.includes(db)) names.push(db);
  return names.sort();
}

interface Counted {
  db: string;
  listed: Listed[];
  /** The core's groups of a many-collection database: their representatives are in `listed`, the others are not. */
  groups: CollectionGroup[];
}

/** The core's groups of a database of the run (none for a database read whole or not read). */
function coreGroups(ctx: DeploymentContext, db: string): CollectionGroup[] {
  return ctx.databases.find((d) => d.name === db)?.groups ?? [];
}

/** Representatives of the core's groups: counted through their group, never grouped again. */
function representatives(groups: readonly CollectionGroup[]): Set<string> {
  return new Set(groups.flatMap((g) => g.read));
}

/**
 * 1. every database's collections: the core's listCollections where it read one, one command per other user database
 *    (admin, local and config hold the server's own few collections: not listed unless the run reads them). The
 *    advisor's own scratch databases (leftovers of an interrupted run) are not the user's: never counted.
 */
async function listEveryDatabase(ctx: DeploymentContext, skipped: DeploymentInventory['skipped']): Promise<Counted[]> {
  const { adapter, maxTimeMS } = ctx;
  const dbNames = (await databaseNames(ctx)).filter(
    (db) => (!INTERNAL_DBS.has(db) || ctx.listed[db] !== undefined) && !db.startsWith(SCRATCH_PREFIX),
  );
  const listedPerDb = await mapPool(dbNames, DB_CONCURRENCY, async (db): Promise<Listed[] | null> => {
    const already = ctx.listed[db];
    if (already) return already.map((r) => ({ name: r.name, type: kindOf(r.type) }));
    try {
      const cursor = { batchSize: 10_000 };
      const cmd = { listCollections: 1, nameOnly: true, authorizedCollections: true, cursor, maxTimeMS };
      const rows = await commandCursor(adapter, db, cmd, { maxTimeMS });
      return rows.map((r) => ({ name: String(r.name), type: kindOf(r.type) }));
    } catch (err) {
      skipped.push({ db, reason: `listCollections failed: ${describeServerError(err)}` });
      return null;
    }
  });
  return dbNames.flatMap((db, i) =>
    listedPerDb[i] ? [{ db, listed: listedPerDb[i], groups: coreGroups(ctx, db) }] : [],
  );
}

/** The index lists known so far, by collection: the core's (2.), then those this collector reads. */
class IndexLists {
  readonly known = new Map<string, IndexDefinition[]>();
  /** Collections whose list came from the core's read (a text index there lacks its fields). */
  readonly fromCore = new Set<string>();
  readonly failed = new Set<string>();
  private failures = 0;
  private firstFailure = '';

  constructor(private readonly ctx: DeploymentContext) {
    for (const d of ctx.databases) {
      for (const c of d.collections) {
        if (c.type !== 'collection' || coreListFailed(c)) continue;
        this.known.set(keyOf(d.name, c.name), c.indexes.map(fromSnapshotIndex));
        this.fromCore.add(keyOf(d.name, c.name));
      }
    }
  }

  has(db: string, name: string): boolean {
    return this.known.has(keyOf(db, name));
  }

  async readList(db: string, name: string): Promise<Doc[] | null> {
    const { adapter, maxTimeMS } = this.ctx;
    try {
      return await commandCursor(adapter, db, { listIndexes: name, cursor: {}, maxTimeMS }, { maxTimeMS });
    } catch (err) {
      this.failures++;
      this.firstFailure ||= `${db}.${name}: ${describeServerError(err)}`;
      return null;
    }
  }

  readonly read = async ({ db, name }: { db: string; name: string }): Promise<void> => {
    const rows = await this.readList(db, name);
    if (rows) this.known.set(keyOf(db, name), rows.map(indexDefinitionOf));
    else this.failed.add(keyOf(db, name));
  };

  /** Says how many lists could not be read, once. */
  noteFailures(): void {
    if (this.failures === 0) return;
    const k = this.failures;
    this.ctx.note(
      `collection-count: ${k} index list${k === 1 ? '' : 's'} could not be read (first: ${this.firstFailure}); ` +
        `${k === 1 ? 'its' : 'their'} indexes are counted within bounds (at most ${MAX_INDEXES_PER_COLLECTION} each)`,
    );
  }
}

type Member = { db: string; name: string };

/**
 * 3. a sample of each name-pattern group of the checked databases (per-tenant advice is given for those only), and
 *    their system collections (system.views, time-series buckets: a few) so their index counts stay exact; past
 *    SYSTEM_LISTS per database they are counted as bounds. Returns every group member, for the text index re-read.
 */
async function readGroupSamples(
  counted: readonly Counted[],
  checked: ReadonlySet<string>,
  lists: IndexLists,
): Promise<Member[]> {
  const sampled: Member[] = [];
  const members: Member[] = [];
  for (const { db, listed, groups } of counted) {
    if (!checked.has(db) || INTERNAL_DBS.has(db)) continue;
    const reps = representatives(groups);
    for (const kind of ['collection', 'timeseries'] as const) {
      const names = listed
        .filter((c) => c.type === kind && !c.name.startsWith('system.') && !reps.has(c.name))
        .map((c) => c.name);
      for (const g of groupByPattern(names, MIN_GROUP_RECORDED)) {
        for (const m of g.members) members.push({ db, name: listName(kind, m) });
        for (const m of spread(g.members, GROUP_SAMPLE)) {
          if (!lists.has(db, listName(kind, m))) sampled.push({ db, name: listName(kind, m) });
        }
      }
    }
  }
  for (const { db, listed } of counted) {
    if (!checked.has(db)) continue;
    const system = listed.filter(
      (c) => c.type === 'collection' && c.name.startsWith('system.') && !lists.has(db, c.name),
    );
    if (system.length <= SYSTEM_LISTS)
      for (const c of system)
        if (!sampled.some((x) => x.db === db && x.name === c.name)) sampled.push({ db, name: c.name });
  }
  await mapPool(sampled, INDEX_LIST_CONCURRENCY, lists.read);
  return members;
}

/** A text index the core read lacks its fields (weights): read one member's list again per distinct index set. */
async function completeTextIndexes(members: readonly Member[], lists: IndexLists): Promise<void> {
  const textSets = new Map<string, Member[]>();
  for (const m of members) {
    const key = keyOf(m.db, m.name);
    const defs = lists.known.get(key);
    if (!lists.fromCore.has(key) || !defs?.some((d) => d.key._fts === 'text' && !d.textFields)) continue;
    const id = JSON.stringify(defs);
    const same = textSets.get(id);
    if (same) same.push(m);
    else textSets.set(id, [m]);
  }
  for (const same of textSets.values()) {
    const first = same[0];
    const rows = first ? await lists.readList(first.db, first.name) : null;
    if (!rows) continue; // the recommendation then names the text index without its fields
    const byName = new Map(rows.map((r) => [String(r.name), indexDefinitionOf(r)]));
    for (const m of same) {
      const key = keyOf(m.db, m.name);
      lists.known.set(
        key,
        (lists.known.get(key) ?? []).map((d) => byName.get(d.name) ?? d),
      );
    }
  }
}

/**
 * 4. the other index lists only while the table count could fall on either side of `line` (the user's
 *    dataHandlesWarn), on a WiredTiger server whose data-handle figures cannot be read (elsewhere the table count
 *    decides nothing)
 */
async function readUntilDecided(
  ctx: DeploymentContext,
  counted: readonly Counted[],
  lists: IndexLists,
  line: number,
): Promise<void> {
  const handlesRead = ctx.serverStatus !== null && dataHandlesFrom(ctx.serverStatus, ctx.server).dataHandles !== null;
  if (!onWiredTiger(ctx.server) || handlesRead) return;
  const tables = counted.flatMap(({ db, listed }) =>
    listed.filter((c) => c.type === 'collection').map((c) => ({ db, name: c.name })),
  );
  const bounds = (c: Member): [number, number] => {
    const defs = lists.known.get(keyOf(c.db, c.name));
    return defs ? [defs.length, defs.length] : [minIndexes(c.db, c.name), MAX_INDEXES_PER_COLLECTION];
  };
  let min = tables.length;
  let max = tables.length;
  const add = (batch: readonly Member[], sign: 1 | -1): void => {
    for (const c of batch) {
      const [lo, hi] = bounds(c);
      min += sign * lo;
      max += sign * hi;
    }
  };
  add(tables, 1);
  for (const { db, groups } of counted) {
    const e = groupEstimate(db, groups, lists);
    min += e.collections + e.indexes;
    max += e.collections + e.indexes;
  }
  const unread = tables.filter((c) => !lists.has(c.db, c.name) && !lists.failed.has(keyOf(c.db, c.name)));
  while (min < line && max >= line && unread.length > 0) {
    const batch = unread.splice(0, EXACT_BATCH);
    add(batch, -1);
    await mapPool(batch, INDEX_LIST_CONCURRENCY, lists.read);
    add(batch, 1);
  }
}

/** Each distinct index set once, and the position of a collection's set among them (-1: its list was not read). */
class IndexSets {
  readonly sets: IndexDefinition[][] = [];
  private readonly ids = new Map<string, number>();

  constructor(private readonly lists: IndexLists) {}

  of(db: string, name: string): number {
    const defs = this.lists.known.get(keyOf(db, name));
    if (!defs) return -1;
    const id = JSON.stringify(defs);
    let at = this.ids.get(id);
    if (at === undefined) {
      this.ids.set(id, (at = this.sets.length));
      this.sets.push(defs);
    }
    return at;
  }
}

/**
 * The members of the core's groups that were not read (their representatives are counted as listed ones): how many
 * collections, views and time series, and their indexes estimated from the representatives' most common count.
 */
function groupEstimate(
  db: string,
  groups: readonly CollectionGroup[],
  lists: IndexLists,
): { collections: number; views: number; timeseries: number; indexes: number; minIndexes: number } {
  const out = { collections: 0, views: 0, timeseries: 0, indexes: 0, minIndexes: 0 };
  for (const g of groups) {
    const unread = Math.max(0, g.members - g.read.length);
    if (g.kind === 'view') {
      out.views += unread;
      continue;
    }
    if (g.kind === 'timeseries') out.timeseries += unread;
    else out.collections += unread;
    const counts = g.read.flatMap((r) => {
      const defs = lists.known.get(keyOf(db, listName(g.kind === 'timeseries' ? 'timeseries' : 'collection', r)));
      return defs ? [defs.length] : [];
    });
    const byCount = new Map<number, number>();
    for (const k of counts) byCount.set(k, (byCount.get(k) ?? 0) + 1);
    const typical = [...byCount].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0] ?? 1;
    if (g.kind === 'collection') {
      out.indexes += unread * typical;
      out.minIndexes += unread;
    }
  }
  return out;
}

/** One database's counts: collections, views, time series, and its indexes, exact or as bounds. */
function countOf({ db, listed, groups }: Counted, lists: IndexLists): DatabaseCount {
  const real = listed.filter((c) => c.type === 'collection');
  let sum = 0;
  let min = 0;
  let unread = 0;
  for (const c of real) {
    const defs = lists.known.get(keyOf(db, c.name));
    if (defs) sum += defs.length;
    else {
      unread++;
      min += minIndexes(db, c.name);
    }
  }
  const e = groupEstimate(db, groups, lists);
  const estimated = e.collections > 0;
  const bounds = {
    min: sum + min + e.minIndexes,
    max: sum + unread * MAX_INDEXES_PER_COLLECTION + e.collections * MAX_INDEXES_PER_COLLECTION,
    unread: unread + e.collections,
    ...(estimated ? { estimate: sum + min + e.indexes } : {}),
  };
  return {
    name: db,
    collections: real.length + e.collections,
    views: listed.filter((c) => c.type === 'view').length + e.views,
    timeseries: listed.filter((c) => c.type === 'timeseries').length + e.timeseries,
    indexes: unread === 0 && !estimated ? sum : bounds,
  };
}

/**
 * 5. what was read: counts per database, names with their index sets (those of databases the run does not check
 *    within OTHER_NAMES_MAX names), each distinct index set once
 */
function inventoryOf(counted: readonly Counted[], checked: ReadonlySet<string>, lists: IndexLists) {
  const sets = new IndexSets(lists);
  let namesLeft = OTHER_NAMES_MAX;
  const omitted = { databases: 0, collections: 0 };
  const databases = counted.map((entry): DatabaseCount => {
    const { db, listed, groups } = entry;
    const out = countOf(entry, lists);
    if (INTERNAL_DBS.has(db)) return out;
    const reps = representatives(groups);
    const ordinary = listed
      .filter((c) => c.type === 'collection' && !c.name.startsWith('system.') && !reps.has(c.name))
      .map((c) => c.name)
      .sort();
    const series = listed
      .filter((c) => c.type === 'timeseries' && !reps.has(c.name))
      .map((c) => c.name)
      .sort();
    if (!checked.has(db)) {
      if (ordinary.length + series.length > namesLeft) {
        omitted.databases++;
        omitted.collections += ordinary.length + series.length;
        return out;
      }
      namesLeft -= ordinary.length + series.length;
    }
    const listOf = (names: string[], at: number[]): NameList =>
      at.some((x) => x >= 0) ? { names, sets: at } : { names };
    out.collectionNames = listOf(
      ordinary,
      ordinary.map((n) => sets.of(db, n)),
    );
    const seriesSets = series.map((n) => sets.of(db, listName('timeseries', n)));
    if (series.length > 0) out.timeseriesNames = listOf(series, seriesSets);
    const counts = groups.flatMap((g): GroupCount[] =>
      g.kind === 'view'
        ? []
        : [
            {
              pattern: g.pattern,
              kind: g.kind,
              members: g.members,
              examples: g.examples,
              sets: g.read.map((r) => sets.of(db, listName(g.kind === 'timeseries' ? 'timeseries' : 'collection', r))),
            },
          ],
    );
    if (counts.length > 0) out.groups = counts;
    return out;
  });
  return { databases, indexSets: sets.sets, omitted };
}

/** The inventory, in the five steps above; `dataHandlesWarn` is the user's (the run's resolved options). */
async function collectInventory(ctx: DeploymentContext): Promise<DeploymentInventory> {
  const start = ctx.adapter.roundTrips;
  const skipped: DeploymentInventory['skipped'] = [];
  const checked = new Set(ctx.databases.map((d) => d.name));
  const counted = await listEveryDatabase(ctx, skipped);
  const lists = new IndexLists(ctx); // 2. index lists already read: the core's, for the collections of the run
  const members = await readGroupSamples(counted, checked, lists);
  await completeTextIndexes(members, lists);
  await readUntilDecided(ctx, counted, lists, optionsOf(ctx, 'collection-count', DEFAULTS()).dataHandlesWarn);
  lists.noteFailures();
  const { databases, indexSets, omitted } = inventoryOf(counted, checked, lists);
  for (const s of skipped)
    ctx.note(`collection-count: database ${s.db} was not counted: ${s.reason}`, { target: { db: s.db } });
  return {
    databases,
    indexSets,
    ...(omitted.databases > 0 ? { namesOmitted: omitted } : {}),
    skipped,
    roundTrips: ctx.adapter.roundTrips - start,
  };
}
