import { commandCursor, readCursor } from '../adapters/cursor';
import { readOnly } from '../adapters/read-only';
import { type Adapter, type Doc, describeServerError, type ReadPreferenceMode } from '../adapters/types';
import { isRefusal, NoSuchCollection, NoSuchDatabase } from '../core/errors';
import { checkTargets } from '../core/names';
import { formatBytes, stringOr } from '../core/format';
import { mapPool } from '../core/pool';
import { type AnyCollector, dataOf, type ListedCollection, type PendingWorkload } from '../core/collector';
import { COLLSTATS_ZERO_SIZES, gapOf } from '../core/gaps';
import type { ResolvedRule } from '../core/options';
import {
  type CollectionSnapshot,
  type DatabaseSnapshot,
  type DynamicKeyProfile,
  type IndexSnapshot,
  type Note,
  type SampleSnapshot,
  type ServerInfo,
  type Snapshot,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
} from '../core/types';
import { indexFromListIndexes } from '../lib/index-keys';
import { isDate, objectIdSeconds } from '../lib/bson-size';
import { probeAggregation, probeServer, proveFromCollectionOptions } from './probe';
import { Profiler } from './profile';
import { readSample, seedOf } from './sample';
import { outlierSearch } from './outliers';
import { CollectorRunner } from './run-collectors';
import { collStatsOf } from './coll-stats';
import { checkOf, privilegeGate, privilegeNotes, probePrivileges, summaryOf } from './privilege-gate';
import { foldDocProfile, type FoldOptions, mapOfIndexKey, PathFolder } from './fold';
import { byName, keyOfEntries, ownValue } from '../lib/names-as-data';
import {
  type CatalogState,
  type GroupOptions,
  groupOf,
  GroupStream,
  LISTING_BATCH,
  type PlannedGroup,
  readCatalog,
} from './groups';

export { GROUP_DEFAULTS } from './groups';

export type { ListedCollection } from '../core/collector';

export interface CollectOptions extends GroupOptions {
  db: string;
  /** Collections to inspect; all non-system collections of the database when absent. */
  collections?: string[];
  /** Fixed sample size; default min(max(20, 4% of count), 10000), as mongosh's analyze-schema snippet. */
  sampleSize?: number;
  /** Upper bound on the bytes a sample pulls, whatever its size (default 64 MiB). */
  sampleMaxBytes?: number;
  /** Documents above this are measured on the server, not pulled (default 1 MiB). */
  largeDocBytes?: number;
  /**
   * Collections of at most this many documents (and `wholeMaxBytes`) are read whole instead of sampled (default 10,000,
   * see COLLECT_DEFAULTS). A fixed `sampleSize` lowers it to that size. 0 turns whole reads off.
   */
  wholeMaxDocs?: number;
  /** Collections of at most this many bytes of data (and `wholeMaxDocs`) are read whole (default 16 MiB). */
  wholeMaxBytes?: number;
  /** Without `$sample`: the most `_id`s read in natural order to draw the sample's random positions from (default
   * 100,000; 0: the first documents instead). */
  idScanMax?: number;
  /**
   * The collectors to run beyond the core (src/core/collector.ts): `check` passes those its enabled rules need
   * (`collectPlan`); none when absent.
   */
  collectors?: readonly AnyCollector[];
  /** The run's rules with their resolved options: each collector reads those of the rules that need it. */
  resolved?: readonly ResolvedRule[];
  /**
   * Where reads of the data go: `secondaryPreferred` (the default: a replica set's secondaries carry the sample and
   * scan reads, sparing the primary) or `primary`. Per-node statistics ($collStats, $indexStats, serverStatus) always
   * go to the primary (src/adapters/read-only.ts readPreferenceFor).
   */
  readPreference?: ReadPreferenceMode;
  /** maxTimeMS on every command (default 10 s). */
  maxTimeMS?: number;
  /**
   * The scratch database confirmation will write to on this server, so the privilege probe judges those writes too;
   * null or absent when nothing will be written here (no confirmation, or `--scratch-uri` to another server).
   */
  privilegeScratchDb?: string | null;
  /** Collections inspected at once (default 4). */
  concurrency?: number;
  /** Field holding each document's creation time; detected when absent (a created* date field, else ObjectId _id). */
  timeField?: string;
  /**
   * When an object counts as a map whose keys are data (src/collect/fold.ts, FOLD_DEFAULTS gives each default and
   * its reason): such keys are folded into `<key>` before anything else sees them. The config file's `maps`.
   */
  maps?: Partial<FoldOptions>;
  /** Above this many collections, empty ones are told by a cheap count and skipped (default 100, see
   * COLLECT_DEFAULTS). */
  countFirstAbove?: number;
  /** Called once every database is listed, with the number of ordinary collections to read (a progress bar's total). */
  onListed?: (collections: number) => void;
  /** Called after each collection is read (progress bars). */
  onCollection?: (c: CollectionSnapshot) => void;
  /**
   * Operations the run was given (`--log`, `--queries`): handed to the collectors, which read those of their db. May
   * be a promise of them still being read: the collect runs meanwhile, waits for it only before the collectors that
   * read it, returns only once it settled, and fails with its error when it rejects.
   */
  workload?: PendingWorkload;
}

export const COLLECT_DEFAULTS = {
  sampleMaxBytes: 64 * 1024 * 1024,
  largeDocBytes: 1024 * 1024,
  maxTimeMS: 10_000,
  concurrency: 4,
  /**
   * Above this many collections in a database, ask a cheap `count` before `$collStats` and skip the rest for empty
   * collections: many-collection databases are mostly empty tenants, and on MongoDB reading storage statistics opens
   * WiredTiger data handles that then stay open about 28 h (close_idle_time). 100 is Atlas' collections-per-database
   * line.
   */
  countFirstAbove: 100,
  /**
   * Whole reads. 10,000 documents: the largest sample mongosh's analyze-schema rule ever takes (domain facts §6), so a
   * whole read never profiles more documents than the default sample of a large collection does. 16 MiB: what one
   * reply of the server carries (a batch stops at the 16 MiB BSON limit), so a whole read costs the one round trip a
   * sample costs; profiling 16 MiB in process takes tens of milliseconds (bench/README.md, analyze-throughput: 20,000
   * posts, 114 MB, about 180 ms). Where `$collStats` gives no size (SecantusDB), the read is one reply whose documents
   * `$bsonSize` measures, given up (and sampled instead) past the bound; without `$bsonSize` either, no whole read.
   */
  wholeMaxDocs: 10_000,
  wholeMaxBytes: 16 * 1024 * 1024,
  /**
   * Without `$sample`, the sample is drawn at random positions of the first 100,000 `_id`s in natural order. Our
   * choice: ten times the largest sample, in one find whose reply is about 3 MB of ObjectId `_id`s (a 22-byte document
   * each, plus its array key). A collection beyond it is sampled from its first 100,000 documents, labelled not random,
   * and a note says what the scan covered.
   */
  idScanMax: 100_000,
};

/** mongosh's analyze-schema snippet: min(max(20, 4% of count), 10000). */
export function defaultSampleSize(count: number): number {
  return Math.min(Math.max(20, Math.ceil(count * 0.04)), 10_000);
}

const TIME_FIELD_NAMES = /^(created_?at|created|created_?on|inserted_?at|date|timestamp|ts)$/i;

function detectTimeField(docs: readonly Doc[]): string | null {
  if (docs.length === 0) return null;
  const first = docs[0] as Doc;
  for (const key of Object.keys(first)) {
    if (!TIME_FIELD_NAMES.test(key)) continue;
    const dated = docs.filter((d) => d[key] !== null && typeof d[key] === 'object' && isDate(d[key])).length;
    if (dated >= docs.length * 0.9) return key;
  }
  const oids = docs.filter((d) => (d._id as { _bsontype?: string } | null)?._bsontype === 'ObjectId').length;
  return oids >= docs.length * 0.9 ? '_id' : null;
}

function num(v: unknown): number {
  return v === undefined || v === null ? 0 : Number(v);
}

function isSystem(name: string): boolean {
  return name.startsWith('system.');
}

export interface CollectDatabasesOptions extends Omit<CollectOptions, 'db'> {
  /** The databases to read, in this order (at least one). */
  dbs: readonly string[];
  /** Databases read at once (collections within each use `concurrency` too; default 2). */
  dbConcurrency?: number;
  /** listDatabases names the caller already read (every name the server gave): saves the collectors asking again. */
  databaseNames?: readonly string[];
}

/** One database's snapshot; a database of the run. */
export async function collectSnapshot(given: Adapter, opts: CollectOptions): Promise<Snapshot> {
  const { db, ...rest } = opts;
  return collectDatabases(given, { ...rest, dbs: [db] });
}

/**
 * Reads the core facts (server, collections, stats, indexes, the sample) of every database named, then runs the
 * planned collectors at their scopes: collection ones per collection, database ones once per database, deployment ones
 * once for the whole run, whatever the number of databases. Read-only by construction: everything goes through
 * `readOnly` (src/adapters/read-only.ts), which refuses any command that is not a read before it reaches the server.
 * Every command carries maxTimeMS. The server is probed once per run. Round trips: bench/README.md.
 */
export async function collectDatabases(given: Adapter, opts: CollectDatabasesOptions): Promise<Snapshot> {
  if (opts.dbs.length === 0) throw new Error('collectDatabases needs at least one database');
  // Names MongoDB refuses, and the server's own databases and collections, end here: nothing is sent.
  checkTargets(opts.dbs, opts.collections);
  const reader = readOnly(given, opts.readPreference ? { readPreference: opts.readPreference } : {});
  const maxTimeMS = opts.maxTimeMS ?? COLLECT_DEFAULTS.maxTimeMS;
  const start = reader.roundTrips;
  const plan = opts.collectors ?? [];
  // 0. what the user's roles allow (one connectionStatus): commands they do not allow are not sent, and said up front
  const verdict = await probePrivileges(reader, opts.dbs, opts.privilegeScratchDb ?? null, maxTimeMS);
  const adapter = privilegeGate(reader, verdict);
  const privileges = summaryOf(verdict);
  const serverStatusAllowed = !verdict.skipped.some((s) => checkOf({ serverStatus: 1 }) === s.check);
  const { server, status } = await probeServer(adapter, maxTimeMS, {
    serverStatus: serverStatusAllowed && plan.some((c) => c.serverStatus === true),
  });
  const notes: Note[] = [...privilegeNotes(privileges)];
  const base = {
    adapter,
    server,
    maxTimeMS,
    serverStatus: status,
    runNotes: notes,
    resolved: opts.resolved ?? [],
    ...(opts.workload ? { workload: opts.workload } : {}),
  };
  const runner = new CollectorRunner(plan, base);

  // 1. every database's collection list (and whether the database exists at all)
  const { databaseNames, listedByDb, chosenByDb, groupsByDb } = await listAll(adapter, server, opts, maxTimeMS, notes);

  opts.onListed?.(
    Object.values(chosenByDb).reduce((n, chosen) => n + chosen.filter((c) => c.type === 'collection').length, 0),
  );

  // 2. the aggregation capabilities, once per run, on the first ordinary collection of any database
  const firstReal = opts.dbs
    .map((db) => ({ db, c: chosenByDb[db]?.find((c) => c.type === 'collection') }))
    .find((x) => x.c !== undefined);
  if (firstReal?.c) await probeAggregation(adapter, server, firstReal.db, firstReal.c.name, maxTimeMS);

  // 3. collections (core, then collection collectors), then each database's collectors
  const databases = await collectAll(adapter, server, opts, maxTimeMS, runner, { chosenByDb, listedByDb, groupsByDb });

  const snapshot: Snapshot = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    collectedAt: new Date().toISOString(),
    source: adapter.source,
    server,
    databases,
    notes,
    roundTrips: 0,
    collectors: [],
    privileges,
  };
  runNotes(snapshot, notes);
  // 4. deployment collectors, once per run
  await runner.deployment(snapshot, databaseNames, listedByDb);
  snapshot.collectors = runner.record();
  snapshot.roundTrips = adapter.roundTrips - start;
  return snapshot;
}

/** Every chosen collection (the core read, then collection collectors), then each database's collectors. */
async function collectAll(
  adapter: Adapter,
  server: ServerInfo,
  opts: CollectDatabasesOptions,
  maxTimeMS: number,
  runner: CollectorRunner,
  lists: {
    chosenByDb: Record<string, ListedCollection[]>;
    listedByDb: Record<string, ListedCollection[]>;
    groupsByDb: Record<string, Grouping>;
  },
): Promise<DatabaseSnapshot[]> {
  const { chosenByDb, listedByDb, groupsByDb } = lists;
  const collStats: { ok: string | null; failed: string | null } = { ok: null, failed: null };
  const databases = await mapPool(opts.dbs, opts.dbConcurrency ?? 2, async (db): Promise<DatabaseSnapshot> => {
    const chosen = chosenByDb[db] ?? [];
    const grouping = groupsByDb[db];
    const groupOfRep = new Map<string, string>();
    for (const g of grouping?.groups ?? []) for (const r of g.read) groupOfRep.set(r, g.pattern);
    const countFirst = (grouping?.total ?? chosen.length) > (opts.countFirstAbove ?? COLLECT_DEFAULTS.countFirstAbove);
    const collections = await mapPool(chosen, opts.concurrency ?? COLLECT_DEFAULTS.concurrency, async (c) => {
      const { snap, rawDocs, ids, naturalIds, collStatsError } = await collectCollection(
        adapter,
        server,
        { ...opts, db },
        c,
        maxTimeMS,
        countFirst,
        groupOfRep.get(c.name),
      );
      if (collStatsError === null && snap.stats !== null) collStats.ok ??= `${db}.${c.name}`;
      if (collStatsError !== null) collStats.failed ??= collStatsError;
      await runner.collection(snap, c, rawDocs, ids, naturalIds);
      opts.onCollection?.(snap);
      return snap;
    });
    const database: DatabaseSnapshot = { name: db, collections };
    if (grouping) {
      database.groups = grouping.groups.map((g) => groupOf(g, collections));
      database.listing = grouping.listing;
    }
    await runner.database(database, listedByDb[db] ?? [], runner.workloadPending ? 'before-workload' : 'all');
    return database;
  });
  if (runner.workloadPending) {
    // The database collectors from the first that reads the workload on, once it is read and every lane is done.
    await runner.workloadRead();
    await mapPool(databases, opts.dbConcurrency ?? 2, (d) =>
      runner.database(d, listedByDb[d.name] ?? [], 'from-workload'),
    );
  }
  // Decided once all lanes are done (lanes used to overwrite each other's answer).
  settleCollStats(server, collStats);
  return databases;
}

/** Every database's collection list, those chosen from it, and the deployment's database names when read. */
async function listAll(
  adapter: Adapter,
  server: ServerInfo,
  opts: CollectDatabasesOptions,
  maxTimeMS: number,
  notes: Note[],
): Promise<{
  databaseNames: string[] | null;
  listedByDb: Record<string, ListedCollection[]>;
  chosenByDb: Record<string, ListedCollection[]>;
  groupsByDb: Record<string, Grouping>;
}> {
  let databaseNames: string[] | null = opts.databaseNames ? [...opts.databaseNames] : null;
  const listedByDb: Record<string, ListedCollection[]> = {};
  const chosenByDb: Record<string, ListedCollection[]> = {};
  const groupsByDb: Record<string, Grouping> = {};
  const catalog: CatalogState = { refused: null };
  for (const db of opts.dbs) {
    const listing = await listDatabase(
      adapter,
      db,
      opts.collections,
      maxTimeMS,
      async () => (databaseNames ??= await listDatabaseNames(adapter, maxTimeMS)),
      { catalog, groups: opts },
    );
    listedByDb[db] = listing.all;
    chosenByDb[db] = listing.chosen;
    if (listing.grouping) groupsByDb[db] = listing.grouping;
    if (listing.note) notes.push(listing.note);
    for (const c of listing.all) proveFromCollectionOptions(server, c.options, `${db}.${c.name}`);
  }
  if (catalog.refused !== null && Object.keys(groupsByDb).length > 0)
    notes.push({
      level: 'info',
      message:
        `collection lists: the one-cursor catalogue ($listCatalog) was not available (${catalog.refused}), so ` +
        `many-collection databases were listed by name and each group's options and indexes were read on its ` +
        `representatives only`,
    });
  return { databaseNames, listedByDb, chosenByDb, groupsByDb };
}

/** A many-collection database's groups, as listed (the evidence is filled once the representatives are read). */
interface Grouping {
  groups: PlannedGroup[];
  total: number;
  listing: 'catalog' | 'full' | 'names';
}

/** Whether $collStats works: answered on the first collection that answered, else failed with the first error. */
function settleCollStats(server: ServerInfo, collStats: { ok: string | null; failed: string | null }): void {
  if (collStats.ok)
    server.capabilities.collStats = { supported: true, evidence: `$collStats answered on ${collStats.ok}` };
  else if (collStats.failed)
    server.capabilities.collStats = { supported: false, evidence: `$collStats failed: ${collStats.failed}` };
}

/**
 * "2 collections: app.users, shop.orders": how many, and which (the first five; `db.collection` when the run spans
 * databases), so a run-wide note names where it applies even without a target (audit 2026-11-26, item 12).
 */
export function collectionsText(snapshot: Snapshot, list: readonly CollectionSnapshot[]): string {
  const names = list.slice(0, 5).map((c) => (snapshot.databases.length === 1 ? c.name : `${c.db}.${c.name}`));
  const more = list.length > 5 ? ', …' : '';
  return `${list.length} collection${list.length === 1 ? '' : 's'}: ${names.join(', ')}${more}`;
}

/**
 * Run-wide notes: one line each for the whole run, whatever the number of databases (the cause is the server). Each
 * names the collections it concerns; a run over one database also targets it.
 */
export function runNotes(snapshot: Snapshot, notes: Note[]): void {
  const all = snapshot.databases.flatMap((d) => d.collections);
  const which = (list: readonly CollectionSnapshot[]): string => collectionsText(snapshot, list);
  const caps = snapshot.server.capabilities;
  const notRandom = all.filter((c) => c.sample.method === 'natural-order');
  const single = snapshot.databases.length === 1 ? { target: { db: snapshot.databases[0]?.name ?? '' } } : {};
  if (notRandom.length > 0) {
    notes.push({
      level: 'info',
      ...single,
      message:
        `samples are the first documents in natural order, not random (${which(notRandom)}): the ` +
        `server lacks $sample (${caps.sample.evidence})`,
    });
  }
  const byIds = all.filter((c) => c.sample.method === 'random-ids');
  if (byIds.length > 0) {
    notes.push({
      level: 'info',
      ...single,
      message:
        `samples were drawn at random positions of the _ids in natural order and fetched by _id, not with ` +
        `$sample (${which(byIds)}): the server lacks $sample (${caps.sample.evidence})`,
    });
  }
  // The outlier collector (when planned) notes its other statuses per collection; a server lacking the operators, once.
  const unsupported = all.filter((c) => dataOf(outlierSearch, c)?.status === 'unsupported');
  if (unsupported.length > 0) {
    const reason =
      (unsupported[0] && dataOf(outlierSearch, unsupported[0])?.reason) ?? 'the server lacks $bsonSize or $size';
    notes.push({
      level: 'skipped',
      ...single,
      message:
        `the largest documents and longest arrays were not searched for beyond the samples ` +
        `(${which(unsupported)}): ${reason}; the largest sampled ones are lower bounds`,
    });
  }
  const unsized = all.filter(
    (c) => c.stats && c.stats.count > 0 && c.stats.sizeBytes === 0 && c.stats.storageSizeBytes === 0,
  );
  if (unsized.length > 0) {
    notes.push({
      level: 'skipped',
      ...single,
      message:
        `storage sizes were not read (${which(unsized)}): $collStats counted their documents but reported 0 bytes of ` +
        'data and storage, so their sizes are unknown, not 0 B',
      gap: gapOf(COLLSTATS_ZERO_SIZES, `storage sizes of ${which(unsized)}`),
    });
  }
}

/** Every database name listDatabases gives (one round trip). */
export async function listDatabaseNames(adapter: Adapter, maxTimeMS: number): Promise<string[]> {
  const dbs = (
    await adapter.command('admin', { listDatabases: 1, nameOnly: true, authorizedDatabases: true, maxTimeMS })
  ).databases as { name: string }[] | undefined;
  return (dbs ?? []).map((d) => String(d.name));
}

/** How a database's collections were listed: in full, by name only (authorizedCollections), or not at all. */
type Listing = { mode: 'full' | 'names'; stream: GroupStream } | { mode: 'refused'; stream: GroupStream; why: string };

/**
 * One listCollections cursor, streamed: each reply's entries are cut to the name, kind and options as they arrive (the
 * `info` and `idIndex` of a full listing are dropped) and folded into `stream` (src/collect/groups.ts), batch by batch
 * of LISTING_BATCH, so a database of a million collections is never held as the server sent it, nor name by name
 * once it folds into groups.
 */
async function streamListing(adapter: Adapter, db: string, cmd: Doc, stream: GroupStream): Promise<void> {
  await readCursor(adapter, db, cmd, {
    getMoreBatchSize: LISTING_BATCH,
    each: (docs) => {
      for (const c of docs)
        stream.add({ name: String(c.name), type: stringOr(c.type, 'collection'), options: (c.options as Doc) ?? {} });
      stream.endBatch();
    },
  });
}

/**
 * A database's listCollections. A refusal (code 13 and kin, from the server or the privilege gate) is not the end:
 * MongoDB lists, by name only, the collections a user's roles name (`authorizedCollections` with `nameOnly`), which
 * needs no listCollections action; when that is refused too, the database's collections are not listed. Each attempt
 * folds into a fresh stream from `fresh`.
 */
async function readListing(
  adapter: Adapter,
  db: string,
  maxTimeMS: number,
  fresh: () => GroupStream,
): Promise<Listing> {
  const cursor = { batchSize: LISTING_BATCH };
  try {
    const stream = fresh();
    await streamListing(adapter, db, { listCollections: 1, cursor, maxTimeMS, authorizedCollections: true }, stream);
    return { mode: 'full', stream };
  } catch (err) {
    if (!isRefusal(err)) throw err;
  }
  try {
    const stream = fresh();
    const names = { listCollections: 1, nameOnly: true, authorizedCollections: true, cursor, maxTimeMS };
    await streamListing(adapter, db, names, stream);
    return { mode: 'names', stream };
  } catch (err) {
    if (!isRefusal(err)) throw err;
    return { mode: 'refused', stream: fresh(), why: describeServerError(err) };
  }
}

/**
 * What a listing that was not complete leaves out, said once per database. A refusal with no collection named is an
 * error: nothing of the database was read (lint fails closed on it).
 */
function listingNote(db: string, listing: Listing, named: readonly string[] | undefined): Note | null {
  const target = { db };
  if (listing.mode === 'names') {
    const message =
      'collection list: your roles lack listCollections there, so only the names of the collections ' +
      'your roles name were listed (authorizedCollections): ' +
      'their options (validator, clustered index, capped, views) were not read';
    return { level: 'skipped', target, message };
  }
  if (listing.mode !== 'refused') return null;
  if (named?.length) {
    const message =
      `collection list: the server refused listCollections (${listing.why}), so the collections ` +
      'named were read without their options (validator, clustered index, capped, views)';
    return { level: 'skipped', target, message };
  }
  const message =
    `collection list: the server refused listCollections (${listing.why}), so no collection of ` +
    `${db} was checked; name the collections to check (--collection), or grant listCollections on ${db}`;
  return { level: 'error', target, message };
}

/** A database's listCollections, and the collections to read (the named ones, else every non-system one). */
async function listDatabase(
  adapter: Adapter,
  db: string,
  named: readonly string[] | undefined,
  maxTimeMS: number,
  databaseNames: () => Promise<string[]>,
  grouping: { catalog: CatalogState; groups: GroupOptions },
): Promise<{ all: ListedCollection[]; chosen: ListedCollection[]; note: Note | null; grouping?: Grouping }> {
  const whole = named !== undefined && named.length > 0;
  const listing = await readListing(adapter, db, maxTimeMS, () => new GroupStream({ ...grouping.groups, whole }));
  const note = listingNote(db, listing, named);
  if (listing.stream.seen === 0 && listing.mode !== 'refused') {
    // Only an empty answer needs listDatabases: to tell "no such database" from "a database with no collections".
    const names = await databaseNames().catch(() => null);
    if (names && !names.includes(db)) {
      const others = names.filter((n) => !['admin', 'local', 'config'].includes(n));
      const there = others.length
        ? `Databases there: ${others.slice(0, 20).join(', ')}.`
        : 'The server holds no user databases.';
      const what = `Database "${db}" does not exist on ${adapter.source}. ${there}`;
      throw new NoSuchDatabase(`${what} Check the name (it is case-sensitive) or pass another with --db.`, what, names);
    }
  }
  if (listing.stream.grouped && listing.mode !== 'refused') {
    // Many collections: read by groups; the one-cursor catalogue, where the server has it, adds every member's index
    // set (tried once per run; refused, the listing's fold stands).
    const cat = new GroupStream({ ...grouping.groups });
    const fromCatalog = await readCatalog(adapter, db, maxTimeMS, grouping.catalog, cat);
    const plan = fromCatalog && cat.grouped ? cat.finish(true) : listing.stream.finish(false);
    const how = fromCatalog && cat.grouped ? 'catalog' : listing.mode;
    return {
      all: plan.all,
      chosen: plan.chosen,
      note,
      grouping: { groups: plan.groups, total: plan.total, listing: how },
    };
  }
  const all = listing.stream.whole();
  if (!whole) {
    return { all, chosen: all.filter((c) => !isSystem(c.name)).sort((a, b) => a.name.localeCompare(b.name)), note };
  }
  // Not listed at all: the named collections are read as ordinary ones (the server says otherwise if they are not).
  if (listing.mode === 'refused') {
    return { all, chosen: (named ?? []).map((name) => ({ name, type: 'collection', options: {} })), note };
  }
  const chosen: ListedCollection[] = [];
  for (const name of named ?? []) {
    const found = all.find((c) => c.name === name);
    if (!found) {
      const names = all.filter((c) => !isSystem(c.name)).map((c) => c.name);
      const more = names.length > 20 ? ', …' : '';
      const listed = `Collections there: ${names.slice(0, 20).join(', ')}${more}.`;
      const there = names.length ? listed : 'The database has no collections.';
      if (listing.mode === 'names') {
        throw new NoSuchCollection(
          `Collection "${name}" is not among the collections of database "${db}" your roles let you list (by ` +
            `name, without listCollections). ${there} Check the name, or grant the user an action on it.`,
        );
      }
      throw new NoSuchCollection(
        `Collection "${name}" does not exist in database "${db}". ${there} ` +
          'Check the name or leave out the collection to check them all.',
      );
    }
    chosen.push(found);
  }
  return { all, chosen, note };
}

function emptySample(requested: number): SampleSnapshot {
  return {
    method: 'none',
    random: false,
    complete: false,
    requested,
    size: 0,
    docs: [],
    fields: {},
    timeSource: null,
    dynamicKeys: [],
  };
}

export function collectionType(c: ListedCollection): CollectionSnapshot['type'] {
  if (c.type === 'view') return 'view';
  if (c.type === 'timeseries' || c.options.timeseries !== undefined) return 'timeseries';
  if (c.type === 'collection') return 'collection';
  return 'unknown';
}

export function validatorOf(options: Doc): CollectionSnapshot['validator'] {
  const v = options.validator as Doc | undefined;
  const out: CollectionSnapshot['validator'] = { present: v !== undefined && Object.keys(v).length > 0 };
  if (v && typeof v.$jsonSchema === 'object') out.jsonSchema = v.$jsonSchema as Record<string, unknown>;
  if (v) {
    const ops = Object.keys(v).filter((k) => k !== '$jsonSchema');
    if (ops.length) out.queryOperators = ops.map((k) => (k.startsWith('$') ? k : 'field match'));
  }
  if (typeof options.validationLevel === 'string') out.validationLevel = options.validationLevel;
  if (typeof options.validationAction === 'string') out.validationAction = options.validationAction;
  return out;
}

/** What the core read of one collection hands on: the snapshot, and what its collectors read in process. */
interface CollectionRead {
  snap: CollectionSnapshot;
  rawDocs: Doc[];
  ids: unknown[];
  naturalIds: unknown[] | null;
  collStatsError: string | null;
}

/** Where one collection's reads go, and what they may cost. */
interface CollectionScope {
  adapter: Adapter;
  server: ServerInfo;
  opts: CollectOptions;
  maxTimeMS: number;
  target: { db: string; collection: string };
  notes: Note[];
}

function skippedType(snap: CollectionSnapshot, c: ListedCollection): string | null {
  if (snap.type === 'view') {
    return (
      `${c.name} is a view: it stores no documents of its own; check its source collection ` +
      `(${stringOr(c.options.viewOn, 'unknown')}) instead`
    );
  }
  if (snap.type === 'timeseries') {
    return (
      `${c.name} is a time-series collection: the server stores it in buckets it manages, so array, _id and ` +
      `index checks do not apply`
    );
  }
  return null;
}

async function collectCollection(
  adapter: Adapter,
  server: ServerInfo,
  opts: CollectOptions,
  c: ListedCollection,
  maxTimeMS: number,
  countFirst = false,
  group?: string,
): Promise<CollectionRead> {
  const db = opts.db;
  const notes: Note[] = [];
  const target = { db, collection: c.name };
  const snap: CollectionSnapshot = {
    db,
    name: c.name,
    type: collectionType(c),
    ...(group !== undefined ? { group } : {}),
    capped: c.options.capped === true,
    clustered: c.options.clusteredIndex !== undefined,
    validator: validatorOf(c.options),
    stats: null,
    indexes: [],
    sample: emptySample(0),
    notes,
  };
  if (snap.type === 'view' && typeof c.options.viewOn === 'string') snap.viewOn = c.options.viewOn;
  const read: CollectionRead = { snap, rawDocs: [], ids: [], naturalIds: null, collStatsError: null };
  const skipped = skippedType(snap, c);
  if (skipped !== null) {
    notes.push({ level: 'skipped', target, message: skipped });
    return read;
  }
  const scope: CollectionScope = { adapter, server, opts, maxTimeMS, target, notes };
  // 0. in many-collection databases, a cheap count first: an empty collection needs only its index list
  if (countFirst && (await readIfEmpty(scope, snap))) return read;
  // 1. storage stats and count; 2. indexes (their use is the index-usage rule's collector)
  const stats = await readStats(scope);
  snap.stats = stats.stats;
  read.collStatsError = stats.error;
  snap.indexes = await readIndexes(scope, stats.indexSizes);
  // 3. the sample
  if (snap.stats?.count === 0) {
    notes.push({
      level: 'info',
      target,
      message: `${c.name} is empty: nothing to sample, so the document checks did not run`,
    });
    return read;
  }
  await readProfiledSample(scope, read);
  return read;
}

/** The cheap count of many-collection databases: true (and the snapshot filled) when the collection is empty. */
async function readIfEmpty(scope: CollectionScope, snap: CollectionSnapshot): Promise<boolean> {
  const { adapter, target, maxTimeMS } = scope;
  const empty = await adapter
    .command(target.db, { count: target.collection, maxTimeMS })
    .then((r) => num(r.n) === 0)
    .catch(() => false);
  if (!empty) return false;
  const zero = { count: 0, sizeBytes: 0, avgObjSize: 0, storageSizeBytes: 0, totalIndexSizeBytes: 0, nindexes: 0 };
  snap.stats = { ...zero, blockCompressor: null };
  snap.indexes = await readIndexes(scope, {});
  snap.stats.nindexes = snap.indexes.length;
  const above = scope.opts.countFirstAbove ?? COLLECT_DEFAULTS.countFirstAbove;
  scope.notes.push({
    level: 'info',
    target,
    message:
      `${target.collection} is empty: nothing to sample; its storage statistics were not read (the database ` +
      `holds more than ${above} collections)`,
  });
  return true;
}

/** `$collStats`: the collection's statistics and its indexes' sizes; the error's description when it failed. */
interface StatsRead {
  stats: CollectionSnapshot['stats'];
  indexSizes: Record<string, number>;
  error: string | null;
}

async function readStats(scope: CollectionScope): Promise<StatsRead> {
  const { adapter, target, maxTimeMS } = scope;
  try {
    const cmd = {
      aggregate: target.collection,
      pipeline: [{ $collStats: { storageStats: {}, count: {} } }],
      cursor: {},
      maxTimeMS,
    };
    const rows = await commandCursor(adapter, target.db, cmd, { maxTimeMS });
    const stats = collStatsOf(rows);
    // keyed by index names: `toString` or `__proto__` is an index's name here, never Object.prototype's member
    let indexSizes = byName<number>();
    for (const r of rows) {
      const sizes = ((r.storageStats as Doc | undefined)?.indexSizes as Record<string, unknown> | undefined) ?? {};
      for (const [k, v] of Object.entries(sizes)) indexSizes[k] = (ownValue(indexSizes, k) ?? 0) + num(v);
    }
    // An index of a collection with documents never takes 0 bytes: such a figure was not measured, so it stays unknown.
    if (stats.count > 0) indexSizes = keyOfEntries(Object.entries(indexSizes).filter(([, v]) => v > 0));
    return { stats, indexSizes, error: null };
  } catch (err) {
    scope.notes.push({
      level: 'skipped',
      target,
      message: `storage statistics could not be read: ${describeServerError(err)}`,
    });
    return { stats: null, indexSizes: {}, error: describeServerError(err) };
  }
}

async function readIndexes(scope: CollectionScope, indexSizes: Record<string, number>): Promise<IndexSnapshot[]> {
  const { adapter, target, maxTimeMS } = scope;
  try {
    const cmd = { listIndexes: target.collection, cursor: {}, maxTimeMS };
    const idx = await commandCursor(adapter, target.db, cmd, { maxTimeMS });
    return idx.map((i) => indexOf(i, indexSizes));
  } catch (err) {
    scope.notes.push({ level: 'skipped', target, message: `indexes could not be listed: ${describeServerError(err)}` });
    return [];
  }
}

/** How much to sample: the size wanted and the size the byte bound allows, and when to read the collection whole. */
function samplePlan(opts: CollectOptions, stats: CollectionSnapshot['stats']) {
  const count = stats?.count ?? null;
  const avg = stats?.avgObjSize ?? 0;
  const maxBytes = opts.sampleMaxBytes ?? COLLECT_DEFAULTS.sampleMaxBytes;
  const wanted = opts.sampleSize ?? defaultSampleSize(count ?? 1000);
  const byBytes = avg > 0 ? Math.max(1, Math.floor(maxBytes / avg)) : wanted;
  // A whole read never exceeds the sample's byte bound, nor a fixed sample size the caller chose.
  const whole = {
    count,
    sizeBytes: stats?.sizeBytes ?? 0,
    maxDocs: Math.min(opts.wholeMaxDocs ?? COLLECT_DEFAULTS.wholeMaxDocs, opts.sampleSize ?? Infinity),
    maxBytes: Math.min(opts.wholeMaxBytes ?? COLLECT_DEFAULTS.wholeMaxBytes, maxBytes),
  };
  return {
    count,
    wanted,
    requested: Math.min(wanted, byBytes),
    maxBytes,
    largeDocBytes: opts.largeDocBytes ?? COLLECT_DEFAULTS.largeDocBytes,
    whole,
    idScanMax: opts.idScanMax ?? COLLECT_DEFAULTS.idScanMax,
  };
}

type SamplePlan = ReturnType<typeof samplePlan>;
type RawSample = Awaited<ReturnType<typeof readSample>>;

/** What the sample's read had to settle for: a fallback, a cut, a partial `_id` scan. */
function sampleNotes(raw: RawSample, plan: SamplePlan, scope: CollectionScope): void {
  const { notes, target } = scope;
  if (raw.fallback) {
    const message =
      raw.method === 'natural-order'
        ? `samples are the first documents in natural order: ${raw.fallback}`
        : `not read whole: ${raw.fallback}; sampled instead`;
    notes.push({ level: 'info', target, message });
  }
  if (!raw.complete && plan.requested < plan.wanted) {
    notes.push({
      level: 'info',
      target,
      message:
        `sample cut from ${plan.wanted} to ${plan.requested} documents to stay ` +
        `within ${Math.round(plan.maxBytes / 1048576)} MiB`,
    });
  }
  if (raw.idScan && !raw.idScan.whole) {
    notes.push({
      level: 'info',
      target,
      message:
        `the sample was drawn at random from the first ${raw.idScan.read} of ${plan.count ?? 'the'} documents ` +
        `in natural order (the _id scan stops at ${plan.idScanMax}, idScanMax): documents inserted later were ` +
        `not seen`,
    });
  }
}

/** Documents too large to pull, measured on the server instead. */
function largeNote(raw: RawSample, plan: SamplePlan, scope: CollectionScope): void {
  const large = raw.large.length;
  if (large === 0) return;
  const noun = `${raw.complete ? 'document' : 'sampled document'}${large === 1 ? '' : 's'}`;
  const what = `${large === 1 ? '1' : large} ${noun}`;
  const message =
    `${what} over ${formatBytes(plan.largeDocBytes)} ${large === 1 ? 'was' : 'were'} measured on the server ` +
    `(top-level fields only)`;
  scope.notes.push({ level: 'info', target: scope.target, message });
}

/**
 * The census of the sample, folded: the profiler walks every pulled document once, finds the maps, and folds their keys
 * in every path; documents measured on the server are dated and folded as the pulled ones are.
 */
function profileSample(
  raw: RawSample,
  plan: SamplePlan,
  scope: CollectionScope,
  snap: CollectionSnapshot,
): SampleSnapshot {
  const timeField = scope.opts.timeField ?? detectTimeField(raw.docs);
  const profiler = new Profiler(timeField, scope.opts.maps);
  const folded = profiler.finish(raw.docs.map((d) => profiler.profile(d)));
  const docs = folded.docs;
  // Documents measured on the server name their top-level fields: a document that is a map itself has data for field
  // names, folded here as the profiler folded the sample's.
  const folder = new PathFolder(folded.dynamicKeys);
  // dated as the pulled ones are: the ObjectId's time, or the time field when it is one of the document's dates
  raw.large.forEach((p, i) => {
    const id = raw.largeIds[i] as { _bsontype?: string } | undefined;
    if (timeField === '_id' && id?._bsontype === 'ObjectId') p.createdAt = objectIdSeconds(id) * 1000;
    else if (timeField !== null && timeField !== '_id') p.createdAt = raw.largeDates[i]?.[timeField] ?? null;
  });
  docs.push(...raw.large.map((d) => foldDocProfile(d, folder)));
  return {
    method: raw.method,
    random: raw.random,
    complete: raw.complete,
    dynamicKeys: withoutMapIndexes(snap, folded.dynamicKeys, folder, scope.notes, scope.target),
    requested: raw.complete ? docs.length : plan.requested,
    size: docs.length,
    docs,
    fields: Object.fromEntries(folded.fields),
    timeSource: timeField,
  };
}

/** The sample (or the whole collection), profiled and folded; what the collectors read in process kept in `read`. */
async function readProfiledSample(scope: CollectionScope, read: CollectionRead): Promise<void> {
  const { adapter, server, maxTimeMS, target } = scope;
  const plan = samplePlan(scope.opts, read.snap.stats);
  const { requested, largeDocBytes, whole, idScanMax, count } = plan;
  const seed = seedOf(`${target.db}.${target.collection}`);
  try {
    const how = { requested, maxTimeMS, largeDocBytes, whole, idScanMax, seed, count };
    const raw = await readSample(adapter, server, target.db, target.collection, how);
    sampleNotes(raw, plan, scope);
    read.rawDocs = raw.docs;
    read.naturalIds = raw.naturalIds;
    read.ids = [...raw.docs.map((d) => d._id), ...raw.largeIds];
    read.snap.sample = profileSample(raw, plan, scope, read.snap);
    largeNote(raw, plan, scope);
  } catch (err) {
    scope.notes.push({ level: 'error', target, message: `the sample could not be read: ${describeServerError(err)}` });
    read.snap.sample = emptySample(requested);
  }
}

/**
 * Indexes on a key of a map (`{"itemsBySku.SKU-1": 1}`, named `itemsBySku.SKU-1_1` by default) hold user data in their
 * key and name: they leave the snapshot, each map counts them (`indexesOnKeys`, the attribute pattern's case: one index
 * per key), and one note says index-usage could not judge them. Folding their keys instead would make the indexes on
 * two keys look alike, and index-usage would call one a duplicate of the other.
 */
function withoutMapIndexes(
  snap: CollectionSnapshot,
  maps: DynamicKeyProfile[],
  folder: PathFolder,
  notes: Note[],
  target: Note['target'],
): DynamicKeyProfile[] {
  if (folder.empty || snap.indexes.length === 0) return maps;
  const count = new Map<string, number>();
  const kept = snap.indexes.filter((ix) => {
    const map = mapOfIndexKey(ix.key, folder);
    if (map !== null) count.set(map, (count.get(map) ?? 0) + 1);
    return map === null;
  });
  if (count.size === 0) return maps;
  const n = snap.indexes.length - kept.length;
  snap.indexes = kept;
  const where = [...count.keys()].map((m) => (m === '' ? "the documents' own keys" : `\`${m}\``)).join(', ');
  notes.push({
    level: 'skipped',
    target,
    message:
      `index-usage: ${n === 1 ? '1 index is' : `${n} indexes are`} on keys of a map (${where}): their key ` +
      `paths and names hold the map's keys (user data), so they are left out of the snapshot and their use and ` +
      `size are not judged`,
  });
  return maps.map((m) => (count.has(m.path) ? { ...m, indexesOnKeys: count.get(m.path) } : m));
}

function indexOf(i: Doc, sizes: Record<string, number>): IndexSnapshot {
  const { name, key, unique, sparse, hidden, partial, expireAfterSeconds, collation } = indexFromListIndexes(i);
  const ix: IndexSnapshot = { name, key, sizeBytes: ownValue(sizes, name) ?? null };
  if (unique) ix.unique = true;
  if (sparse) ix.sparse = true;
  if (hidden) ix.hidden = true;
  if (partial) ix.partial = true;
  if (expireAfterSeconds !== undefined) ix.expireAfterSeconds = expireAfterSeconds;
  if (collation !== undefined) ix.collation = collation;
  return ix;
}
