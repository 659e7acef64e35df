import { rules } from '../../rules';
import { type AnyCollector, type Collector, type CollectorScope, collectorsOf } from '../../src/core/collector';
import type {
  Capability,
  CapabilityName,
  CheckResult,
  CollectionSnapshot,
  DatabaseSnapshot,
  DocProfile,
  Finding,
  SampleSnapshot,
  ServerInfo,
  Snapshot,
} from '../../src/core/types';
import { SNAPSHOT_VERSION } from '../../src/core/types';

/*
 * Snapshot fixtures for rule tests. Each builds what `collect` would write: the rule tester checks every case's
 * snapshot against the snapshot file's schema (src/core/snapshot-file.ts), so a fixture cannot drift from it.
 */

const yes: Capability = { supported: true, evidence: 'fixture' };

/** A snapshot as collect would write it for a MongoDB 7.0 standalone, with every capability proven. */
export function snapshotOf(collections: CollectionSnapshot[], over: Partial<Snapshot> = {}): Snapshot {
  const caps = Object.fromEntries(
    (
      [
        'sample',
        'indexStats',
        'bsonSize',
        'arraySize',
        'collStats',
        'validators',
        'clusteredCollections',
        'collMod',
      ] as CapabilityName[]
    ).map((c) => [c, yes]),
  ) as Record<CapabilityName, Capability>;
  return {
    format: 'mongo-advisor-snapshot',
    version: SNAPSHOT_VERSION,
    collectedAt: '2026-11-01T00:00:00.000Z',
    source: 'mongodb://fixture/',
    server: {
      version: '7.0.12',
      versionArray: [7, 0, 12, 0],
      flavor: 'mongodb',
      storageEngine: 'wiredTiger',
      topology: 'standalone',
      capabilities: caps,
      cacheBytes: 8 * 1024 ** 3,
    },
    databases: [{ name: collections[0]?.db ?? 'app', collections }],
    notes: [],
    roundTrips: 0,
    // Taken with every built-in rule on, so every built-in collector ran; `ran()` says otherwise.
    collectors: collectorsOf(rules).map(runOf),
    ...over,
  };
}

/**
 * A copy of the holder (a collection, a database or the snapshot) with a collector's data under its id, as collect
 * stores it. The rule tester records the rule's collectors as run unless a case says otherwise (`ran`).
 */
export function withData<H extends CollectionSnapshot | DatabaseSnapshot | Snapshot, D>(
  holder: H,
  collector: Collector<D, CollectorScope>,
  data: D,
): H {
  return { ...holder, data: { ...holder.data, [collector.id]: data } };
}

/** A copy of the snapshot saying exactly these collectors ran (none: a snapshot taken with the rule off). */
export function ran(snapshot: Snapshot, ...collectors: AnyCollector[]): Snapshot {
  return { ...snapshot, collectors: collectors.map(runOf) };
}

function runOf(c: AnyCollector): Snapshot['collectors'][number] {
  return { id: c.id, version: c.version, scope: c.scope, couldNot: [] };
}

export type ServerOverrides = Partial<Omit<ServerInfo, 'capabilities'>> & {
  capabilities?: Partial<Record<CapabilityName, Capability>>;
};

/**
 * A copy of the snapshot with server fields replaced; capabilities are merged. A `version` without a `versionArray`
 * sets both, so the two never disagree.
 */
export function withServer(snapshot: Snapshot, over: ServerOverrides): Snapshot {
  const { capabilities, ...rest } = over;
  const versionArray =
    rest.versionArray ?? (rest.version !== undefined ? versionArrayOf(rest.version) : snapshot.server.versionArray);
  return {
    ...snapshot,
    server: {
      ...snapshot.server,
      ...rest,
      versionArray,
      capabilities: { ...snapshot.server.capabilities, ...capabilities },
    },
  };
}

/** buildInfo's versionArray for a version string: '6.0.5' → [6, 0, 5, 0]. */
export function versionArrayOf(version: string): number[] {
  const parts = version
    .split(/[.-]/)
    .slice(0, 3)
    .map((p) => Number.parseInt(p, 10) || 0);
  while (parts.length < 3) parts.push(0);
  return [...parts, 0];
}

/** A capability proven missing, with the server's answer as evidence. */
export function unsupported(evidence: string): Capability {
  return { supported: false, evidence };
}

/** A random `$sample` of these document profiles, as collect writes it; override the rest. */
export function sampleOf(docs: DocProfile[], over: Partial<SampleSnapshot> = {}): SampleSnapshot {
  return {
    method: '$sample',
    random: true,
    complete: false,
    requested: docs.length,
    size: docs.length,
    docs,
    fields: {},
    timeSource: null,
    dynamicKeys: [],
    ...over,
  };
}

/** A regular collection with an _id index and no documents sampled; override what the case needs. */
export function collectionOf(name: string, over: Partial<CollectionSnapshot> = {}): CollectionSnapshot {
  return {
    db: 'app',
    name,
    type: 'collection',
    capped: false,
    clustered: false,
    validator: { present: false },
    stats: {
      count: 1000,
      sizeBytes: 1_000_000,
      avgObjSize: 1000,
      storageSizeBytes: 400_000,
      totalIndexSizeBytes: 40_000,
      nindexes: 1,
      blockCompressor: 'snappy',
    },
    indexes: [{ name: '_id_', key: { _id: 1 }, sizeBytes: 40_000 }],
    sample: {
      method: '$sample',
      random: true,
      complete: false,
      requested: 40,
      size: 0,
      docs: [],
      fields: {},
      timeSource: null,
      dynamicKeys: [],
    },
    notes: [],
    ...over,
  };
}

/** A document profile with one array at `path` of `length` elements of `elementBytes` each. */
export function docWithArray(
  path: string,
  length: number,
  elementBytes: number,
  createdAt: number | null,
  kinds = 1,
): DocProfile {
  const arrayBytes = 5 + length * (elementBytes + 6);
  return {
    bytes: arrayBytes + 200,
    createdAt,
    measuredOnServer: false,
    arrays: [
      {
        path,
        occurrences: 1,
        maxLength: length,
        totalLength: length,
        bytes: arrayBytes,
        elementBytes: length * elementBytes,
        kinds,
      },
    ],
    largestFields: [{ path, bytes: arrayBytes + path.length + 2 }],
  };
}

/** A check result as the CLI would print it as JSON, for reporter and gate tests: these findings, no notes,
 * confirmed. */
export function checkResultOf(findings: Finding[], over: Partial<CheckResult> = {}): CheckResult {
  return {
    tool: { name: 'mongo-advisor', version: '0.1.0' },
    startedAt: '2026-11-01T00:00:00.000Z',
    durationMs: 1000,
    source: 'mongodb://db.example:27017/',
    server: { version: '8.0.4', flavor: 'mongodb', storageEngine: 'wiredTiger', topology: 'standalone' },
    scope: {
      db: 'app',
      collections: [...new Set(findings.map((f) => f.target.collection).filter((c): c is string => c !== undefined))],
    },
    findings,
    notes: [],
    roundTrips: 12,
    confirm: { enabled: true, where: 'mongo_advisor_scratch_ab12', cleanedUp: true },
    ...over,
  };
}
