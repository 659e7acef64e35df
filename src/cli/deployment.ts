import { commandCursor } from '../adapters/cursor';
import { readOnly } from '../adapters/read-only';
import type { Adapter } from '../adapters/types';
import { collectSnapshot, type CollectOptions } from '../collect';
import { UserError } from '../core/errors';
import { mapPool } from '../core/pool';
import { type Capability, type CapabilityName, COLLECT_PARTS, type Snapshot } from '../core/types';
import type { Progress } from './progress';

/** Databases the server keeps for itself, and the advisor's own scratch databases. */
export function isInternalDb(name: string): boolean {
  return ['admin', 'local', 'config'].includes(name) || name.startsWith('mongo_advisor_scratch_');
}

/** The user databases on the server (one round trip), sorted. */
export async function listUserDatabases(adapter: Adapter, maxTimeMS: number): Promise<string[]> {
  const reply = await adapter.command('admin', { listDatabases: 1, nameOnly: true, authorizedDatabases: true, maxTimeMS });
  const dbs = (reply.databases as { name: string }[] | undefined) ?? [];
  return dbs.map((d) => d.name).filter((n) => !isInternalDb(n)).sort();
}

export interface DeploymentCollectOptions extends Omit<CollectOptions, 'db'> {
  /** Databases to read; every user database when empty. */
  dbs: string[];
  /** Databases read at once (collections within each use `concurrency` too). */
  dbConcurrency?: number;
  progress?: Progress;
}

/** A capability proven in one database's probes holds for the server: prefer a proven answer over "not probed". */
function mergeCapabilities(into: Record<CapabilityName, Capability>, from: Record<CapabilityName, Capability>): void {
  for (const [name, cap] of Object.entries(from) as [CapabilityName, Capability][]) {
    if (into[name] === undefined || (into[name].supported === null && cap.supported !== null)) into[name] = cap;
  }
}

/** Merges per-database snapshots of one server into one. */
export function mergeSnapshots(parts: readonly Snapshot[]): Snapshot {
  const [first, ...rest] = parts;
  if (!first) throw new Error('mergeSnapshots needs at least one snapshot');
  const merged: Snapshot = { ...first, server: { ...first.server, capabilities: { ...first.server.capabilities } }, databases: [...first.databases], notes: [...first.notes] };
  for (const p of rest) {
    mergeCapabilities(merged.server.capabilities, p.server.capabilities);
    merged.server.cacheBytes ??= p.server.cacheBytes;
    merged.server.storageEngine ??= p.server.storageEngine;
    merged.databases.push(...p.databases);
    merged.notes.push(...p.notes);
    merged.roundTrips += p.roundTrips;
  }
  return merged;
}

/**
 * Collects several databases (all user databases when none are named) into one snapshot, with at most
 * `dbConcurrency` databases and `concurrency` collections in flight. The progress bar advances per collection.
 */
export async function collectDeployment(source: Adapter, opts: DeploymentCollectOptions): Promise<Snapshot> {
  // Inspection only reads: the same gate collectSnapshot puts in front of every collector.
  const adapter = readOnly(source);
  const maxTimeMS = opts.maxTimeMS ?? 10_000;
  const start = adapter.roundTrips;
  const dbs = opts.dbs.length > 0 ? opts.dbs : await listUserDatabases(adapter, maxTimeMS);
  if (dbs.length === 0) throw new UserError(`${adapter.source} holds no user databases to inspect (admin, local and config are the server's own).`);
  const progress = opts.progress;
  const perDb: CollectOptions[] = dbs.map((db, i) => {
    const { dbs: _dbs, dbConcurrency: _c, progress: _p, ...rest } = opts;
    // The deployment-wide inventory is read once, with the first database (mergeSnapshots keeps the first's).
    if (i > 0) return { ...rest, db, parts: (rest.parts ?? COLLECT_PARTS).filter((p) => p !== 'deployment') };
    return { ...rest, db };
  });
  if (progress) {
    // One listCollections per database gives the bar its total; the sizes come with the collection itself.
    let total = 0;
    for (const [i, db] of dbs.entries()) {
      const named = perDb[i]?.collections;
      if (named?.length) total += named.length;
      else {
        const listed = await commandCursor(adapter, db, { listCollections: 1, filter: { type: 'collection' }, nameOnly: true, cursor: {}, maxTimeMS, authorizedCollections: true }, { maxTimeMS });
        total += listed.filter((c) => !String(c.name).startsWith('system.')).length;
      }
    }
    progress.stage('collecting', total);
    for (const o of perDb) {
      o.onCollection = (c) => {
        if (c.type === 'collection') progress.tick(`${c.db}.${c.name}`);
      };
    }
  }
  try {
    // The first database alone: it probes the server, proves the capabilities and reads the deployment inventory;
    // the others reuse its server facts (a copy each) instead of asking again.
    const [firstOpts, ...restOpts] = perDb;
    const first = await collectSnapshot(adapter, firstOpts as CollectOptions);
    const rest = await mapPool(restOpts, opts.dbConcurrency ?? 2, (o) => collectSnapshot(adapter, { ...o, probed: { server: first.server, status: null } }));
    const merged = mergeSnapshots([first, ...rest]);
    merged.roundTrips = adapter.roundTrips - start;
    return merged;
  } finally {
    progress?.stop();
  }
}
