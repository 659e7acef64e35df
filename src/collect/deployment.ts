import { commandCursor } from '../adapters/cursor';
import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import { mapPool } from '../core/pool';
import type { DatabaseCount, DeploymentInventory, IndexDefinition, IndexSnapshot, Note, Snapshot, TenantGroup } from '../core/types';
import { indexFromListIndexes } from '../lib/index-keys';
import type { SnapshotCollectorContext } from './extras';

/** listIndexes in flight at once: each reads only the catalog (no data handle is opened), so more lanes are cheap. */
const INDEX_LIST_CONCURRENCY = 8;
/** Databases listed at once. */
const DB_CONCURRENCY = 4;
/** Past this many collections outside the checked database, only tenant-group members are listed (a sample per group). */
const MAX_INDEX_LISTS = 50_000;
const GROUP_SAMPLE = 50;
/** Groups smaller than this are not recorded: the rule's threshold (default 10) cannot be set below it. */
export const MIN_GROUP_RECORDED = 3;
const INTERNAL_DBS = new Set(['admin', 'local', 'config']);

interface Listed {
  db: string;
  name: string;
  type: 'collection' | 'view' | 'timeseries';
}

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

/** The index set's identity, names left out (tenants' auto-generated names may differ only by accident). */
export function indexSignature(defs: readonly IndexDefinition[]): string {
  return defs
    .filter((d) => d.name !== '_id_')
    .map((d) => JSON.stringify([d.key, d.unique ?? false, d.sparse ?? false, d.partial ?? false, d.expireAfterSeconds ?? null, d.textFields ?? null]))
    .sort()
    .join('|');
}

const SEPARATOR = /([_\-.:])/;

/**
 * The name patterns a collection name could belong to: each separator-delimited token in turn replaced by
 * `{id}`, and a trailing run of digits (`tenant42` -> `tenant{id}`).
 */
export function namePatterns(name: string): string[] {
  const out = new Set<string>();
  const parts = name.split(SEPARATOR);
  if (parts.length >= 3) {
    for (let i = 0; i < parts.length; i += 2) {
      if ((parts[i] ?? '') === '') continue;
      const copy = [...parts];
      copy[i] = '{id}';
      out.add(copy.join(''));
    }
  }
  const digits = /^(.*[^0-9])([0-9]+)$/.exec(name);
  if (digits?.[1] && !SEPARATOR.test(digits[1].slice(-1))) out.add(`${digits[1]}{id}`);
  return [...out];
}

/**
 * Groups names that share a pattern. Largest patterns claim their names first, so `{id}_orders` with 500
 * tenants wins over `acme_{id}` with 5 collection types. Groups under `minMembers` are dropped.
 */
export function groupByPattern(names: readonly string[], minMembers = MIN_GROUP_RECORDED): { pattern: string; members: string[] }[] {
  const byPattern = new Map<string, string[]>();
  for (const n of names) {
    for (const p of namePatterns(n)) {
      let list = byPattern.get(p);
      if (!list) byPattern.set(p, (list = []));
      list.push(n);
    }
  }
  const ranked = [...byPattern].filter(([, m]) => m.length >= minMembers).sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
  const taken = new Set<string>();
  const groups: { pattern: string; members: string[] }[] = [];
  for (const [pattern, members] of ranked) {
    const free = members.filter((m) => !taken.has(m));
    if (free.length < minMembers) continue;
    for (const m of free) taken.add(m);
    groups.push({ pattern, members: free });
  }
  return groups;
}

/** Evenly spread picks, so a sample of a group covers its whole name range. */
function spread<T>(items: readonly T[], n: number): T[] {
  if (items.length <= n) return [...items];
  return Array.from({ length: n }, (_, i) => items[Math.floor((i * items.length) / n)] as T);
}

/** Grace on top of maxTimeMS before the inventory stops waiting for a server that does not honour it. */
const DEADLINE_GRACE_MS = 2_000;

class Deadline extends Error {}

/** `p`, or a Deadline error after `ms`: some servers ignore maxTimeMS on listDatabases (FerretDB took minutes at 10,000 collections). */
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

function num(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * Data-handle figures from a serverStatus reply (documented field names), or the reason there are none. Decided by
 * the section the reply carries, not by the engine's name: a server may name WiredTiger and still not report it.
 */
export function dataHandlesFrom(status: Doc, server: Pick<Snapshot['server'], 'flavor' | 'storageEngine'>): Pick<DeploymentInventory, 'dataHandles' | 'dataHandlesReason'> {
  const wt = status.wiredTiger as Doc | undefined;
  if (!wt) {
    const named = (status.storageEngine as Doc | undefined)?.name ?? server.storageEngine;
    const engine = typeof named === 'string' && named !== '' ? named : null;
    let why: string;
    if (server.flavor === 'ferretdb') why = 'serverStatus has no wiredTiger section (FerretDB has no WiredTiger), so there are no data-handle figures';
    else if (engine === 'wiredTiger') why = 'the server reports storage engine wiredTiger but its serverStatus has no wiredTiger section, so the data-handle figures could not be read';
    else if (engine) why = `serverStatus has no wiredTiger section (the storage engine is ${engine}, not WiredTiger), so there are no data-handle figures`;
    else why = 'serverStatus names no storage engine and has no wiredTiger section, so there are no data-handle figures';
    return { dataHandles: null, dataHandlesReason: why };
  }
  const dh = wt['data-handle'] as Doc | undefined;
  const active = num(dh?.['connection data handles currently active']);
  if (!dh) return { dataHandles: null, dataHandlesReason: 'serverStatus().wiredTiger has no "data-handle" section, so the data-handle figures could not be read' };
  if (active === null) return { dataHandles: null, dataHandlesReason: 'serverStatus().wiredTiger["data-handle"] has no "connection data handles currently active" figure, so the data-handle figures could not be read' };
  return { dataHandles: { active, sweeps: num(dh['connection sweeps']), closedBySweep: num(dh['connection sweep dhandles closed']) } };
}

async function readDataHandles(adapter: Adapter, snapshot: Snapshot, maxTimeMS: number, known: Doc | null | undefined): Promise<Pick<DeploymentInventory, 'dataHandles' | 'dataHandlesReason'>> {
  if (known) return dataHandlesFrom(known, snapshot.server);
  try {
    const status = await adapter.command('admin', { serverStatus: 1, maxTimeMS, repl: 0, metrics: 0, locks: 0, opLatencies: 0, network: 0, asserts: 0, connections: 0 });
    return dataHandlesFrom(status, snapshot.server);
  } catch (err) {
    return { dataHandles: null, dataHandlesReason: `serverStatus was refused (${describeServerError(err)}); data-handle figures need the clusterMonitor role` };
  }
}

/**
 * Inventories the whole deployment read-only: databases, collections (names and types), index specs and
 * WiredTiger data handles. Stores counts per database and per-tenant group summaries, not one object per collection.
 * Round trips: 1 + one listCollections per database (plus getMores) + one listIndexes per collection the core
 * collect did not already read (8 in flight) + 1 serverStatus.
 */
export async function collectDeployment(ctx: SnapshotCollectorContext): Promise<void> {
  const { adapter, snapshot, maxTimeMS } = ctx;
  const start = adapter.roundTrips;
  const notes: Note[] = snapshot.notes;
  const skipped: DeploymentInventory['skipped'] = [];

  let dbNames: string[] = ctx.databaseNames ? [...ctx.databaseNames] : [];
  if (!ctx.databaseNames) {
    const listing = adapter.command('admin', { listDatabases: 1, nameOnly: true, authorizedDatabases: true, maxTimeMS });
    try {
      const r = await within(listing, maxTimeMS + DEADLINE_GRACE_MS);
      dbNames = ((r.databases as { name?: unknown }[] | undefined) ?? []).map((d) => String(d.name));
    } catch (err) {
      listing.catch(() => undefined); // it may still answer, or fail, after we stopped waiting
      const why = err instanceof Deadline ? `listDatabases gave ${err.message} although it was sent with maxTimeMS ${maxTimeMS}` : describeServerError(err);
      notes.push({ level: 'skipped', message: `collection-count: databases could not be listed (${why}); only the checked database was counted` });
    }
  }
  for (const d of snapshot.databases) if (!dbNames.includes(d.name)) dbNames.push(d.name);
  dbNames.sort();

  const listedPerDb = await mapPool(dbNames, DB_CONCURRENCY, async (db): Promise<Listed[] | null> => {
    const already = ctx.listedCollections?.[db];
    if (already) return already.map((r) => ({ db, name: r.name, type: r.type === 'view' ? 'view' : r.type === 'timeseries' ? 'timeseries' : 'collection' }));
    try {
      const rows = await commandCursor(adapter, db, { listCollections: 1, nameOnly: true, authorizedCollections: true, cursor: { batchSize: 10_000 }, maxTimeMS }, { maxTimeMS });
      return rows.map((r) => ({ db, name: String(r.name), type: r.type === 'view' ? 'view' : r.type === 'timeseries' ? 'timeseries' : 'collection' }));
    } catch (err) {
      skipped.push({ db, reason: `listCollections failed: ${describeServerError(err)}` });
      return null;
    }
  });

  // Index specs: the core collect already read the checked database's; list the rest with bounded concurrency.
  const known = new Map<string, IndexDefinition[]>();
  for (const d of snapshot.databases) {
    for (const c of d.collections) if (c.type === 'collection' && c.indexes.length > 0) known.set(`${d.name}\u0000${c.name}`, c.indexes.map(fromSnapshotIndex));
  }
  const tables: Listed[] = listedPerDb.flatMap((l) => (l ?? []).filter((c) => c.type === 'collection'));
  const groupsPerDb = new Map<string, { pattern: string; members: Listed[]; kind: TenantGroup['kind'] }[]>();
  for (const listed of listedPerDb) {
    if (!listed || listed.length === 0) continue;
    const db = (listed[0] as Listed).db;
    if (INTERNAL_DBS.has(db)) continue;
    const groups: { pattern: string; members: Listed[]; kind: TenantGroup['kind'] }[] = [];
    for (const kind of ['collection', 'timeseries'] as const) {
      const byName = new Map(listed.filter((c) => c.type === kind && !c.name.startsWith('system.')).map((c) => [c.name, c]));
      for (const g of groupByPattern([...byName.keys()])) groups.push({ pattern: g.pattern, kind, members: g.members.map((m) => byName.get(m) as Listed) });
    }
    groupsPerDb.set(db, groups);
  }
  const missing = tables.filter((c) => !known.has(`${c.db}\u0000${c.name}`));
  let toList = missing;
  let partialIndexCount = false;
  if (missing.length > MAX_INDEX_LISTS) {
    partialIndexCount = true;
    const want = new Set<string>();
    for (const gs of groupsPerDb.values()) for (const g of gs) for (const m of spread(g.members, GROUP_SAMPLE)) want.add(`${m.db}\u0000${m.type === 'timeseries' ? `system.buckets.${m.name}` : m.name}`);
    toList = missing.filter((c) => want.has(`${c.db}\u0000${c.name}`));
    notes.push({ level: 'info', message: `collection-count: ${missing.length.toLocaleString('en-US')} collections outside the checked database; index lists were read for ${toList.length.toLocaleString('en-US')} tenant-group members only (up to ${GROUP_SAMPLE} per group), so index totals are not given` });
  }
  const failedDbs = new Set<string>();
  let listFailures = 0;
  let firstFailure = '';
  await mapPool(toList, INDEX_LIST_CONCURRENCY, async (c) => {
    try {
      const rows = await commandCursor(adapter, c.db, { listIndexes: c.name, cursor: {}, maxTimeMS }, { maxTimeMS });
      known.set(`${c.db}\u0000${c.name}`, rows.map(indexDefinitionOf));
    } catch (err) {
      failedDbs.add(c.db);
      listFailures++;
      firstFailure ||= `${c.db}.${c.name}: ${describeServerError(err)}`;
    }
  });
  if (listFailures > 0) notes.push({ level: 'skipped', message: `collection-count: ${listFailures} index lists could not be read (first: ${firstFailure}); those databases' index totals are not given` });

  const databases: DatabaseCount[] = [];
  for (const listed of listedPerDb) {
    if (!listed) continue;
    const db = listed[0]?.db;
    if (db === undefined) continue;
    let indexes: number | null = partialIndexCount || failedDbs.has(db) ? null : 0;
    const real = listed.filter((c) => c.type === 'collection');
    if (indexes !== null) {
      for (const c of real) {
        const defs = known.get(`${db}\u0000${c.name}`);
        if (!defs) {
          indexes = null;
          break;
        }
        indexes += defs.length;
      }
    }
    databases.push({ name: db, collections: real.length, views: listed.filter((c) => c.type === 'view').length, timeseries: listed.filter((c) => c.type === 'timeseries').length, indexes });
  }
  // A database with no collections at all still counts (listCollections answered with nothing).
  listedPerDb.forEach((l, i) => {
    if (l && l.length === 0) databases.push({ name: dbNames[i] as string, collections: 0, views: 0, timeseries: 0, indexes: 0 });
  });
  databases.sort((a, b) => a.name.localeCompare(b.name));

  const tenantGroups: TenantGroup[] = [];
  for (const [db, groups] of groupsPerDb) {
    for (const g of groups) {
      const sigs = new Map<string, { count: number; defs: IndexDefinition[] }>();
      let read = 0;
      for (const m of g.members) {
        const defs = known.get(`${db}\u0000${g.kind === 'timeseries' ? `system.buckets.${m.name}` : m.name}`);
        if (!defs) continue;
        read++;
        const sig = indexSignature(defs);
        const entry = sigs.get(sig);
        if (entry) entry.count++;
        else sigs.set(sig, { count: 1, defs });
      }
      const modal = [...sigs.values()].sort((a, b) => b.count - a.count)[0];
      tenantGroups.push({
        db,
        pattern: g.pattern,
        members: g.members.length,
        examples: g.members.slice(0, 3).map((m) => m.name),
        kind: g.kind,
        indexesRead: read,
        sameIndexes: modal?.count ?? 0,
        indexes: (modal?.defs ?? []).filter((d) => d.name !== '_id_'),
      });
    }
  }
  tenantGroups.sort((a, b) => b.members - a.members || a.db.localeCompare(b.db) || a.pattern.localeCompare(b.pattern));

  // A text index read by the core collect lacks its fields (weights): read one member's specs again.
  for (const g of tenantGroups) {
    if (!g.indexes.some((d) => d.key._fts === 'text' && !d.textFields) || !g.examples[0]) continue;
    try {
      const rows = await commandCursor(adapter, g.db, { listIndexes: g.examples[0], cursor: {}, maxTimeMS }, { maxTimeMS });
      const byName = new Map(rows.map((r) => [String(r.name), indexDefinitionOf(r)]));
      g.indexes = g.indexes.map((d) => byName.get(d.name) ?? d);
    } catch {
      // the recommendation then names the text index without its fields
    }
  }

  const handles = await readDataHandles(adapter, snapshot, maxTimeMS, ctx.serverStatus);
  const sum = (pick: (d: DatabaseCount) => number): number => databases.reduce((s, d) => s + pick(d), 0);
  snapshot.deployment = {
    databases,
    totals: {
      databases: databases.length,
      collections: sum((d) => d.collections),
      views: sum((d) => d.views),
      timeseries: sum((d) => d.timeseries),
      indexes: databases.every((d) => d.indexes !== null) && skipped.length === 0 ? sum((d) => d.indexes ?? 0) : null,
    },
    tenantGroups,
    ...handles,
    skipped,
    roundTrips: adapter.roundTrips - start,
  };
  if (handles.dataHandlesReason) notes.push({ level: 'skipped', message: `collection-count: ${handles.dataHandlesReason}` });
  for (const s of skipped) notes.push({ level: 'skipped', target: { db: s.db }, message: `collection-count: database ${s.db} was not counted: ${s.reason}` });
}
