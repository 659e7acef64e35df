import type { Capability, CapabilityName, CollectionSnapshot, DocProfile, Snapshot } from '../../src/core/types';

const yes: Capability = { supported: true, evidence: 'fixture' };

/** A snapshot as collect would write it for a MongoDB 7.0 standalone, with every capability proven. */
export function snapshotOf(collections: CollectionSnapshot[], over: Partial<Snapshot> = {}): Snapshot {
  const caps = Object.fromEntries(
    (['sample', 'indexStats', 'bsonSize', 'arraySize', 'collStats', 'validators', 'clusteredCollections', 'collMod'] as CapabilityName[]).map((c) => [c, yes]),
  ) as Record<CapabilityName, Capability>;
  return {
    format: 'mongo-advisor-snapshot',
    version: 1,
    collectedAt: '2026-11-01T00:00:00.000Z',
    source: 'mongodb://fixture/',
    server: { version: '7.0.12', versionArray: [7, 0, 12, 0], flavor: 'mongodb', storageEngine: 'wiredTiger', topology: 'standalone', capabilities: caps, cacheBytes: 8 * 1024 ** 3 },
    databases: [{ name: collections[0]?.db ?? 'app', collections }],
    notes: [],
    roundTrips: 0,
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
    stats: { count: 1000, sizeBytes: 1_000_000, avgObjSize: 1000, storageSizeBytes: 400_000, totalIndexSizeBytes: 40_000, nindexes: 1, blockCompressor: 'snappy' },
    indexes: [{ name: '_id_', key: { _id: 1 }, sizeBytes: 40_000, accesses: null }],
    sample: { method: '$sample', random: true, requested: 40, size: 0, docs: [], id: null, fields: {}, timeSource: null },
    notes: [],
    ...over,
  };
}

/** A document profile with one array at `path` of `length` elements of `elementBytes` each. */
export function docWithArray(path: string, length: number, elementBytes: number, createdAt: number | null, kinds = 1): DocProfile {
  const arrayBytes = 5 + length * (elementBytes + 6);
  return {
    bytes: arrayBytes + 200,
    createdAt,
    measuredOnServer: false,
    arrays: [{ path, occurrences: 1, maxLength: length, totalLength: length, bytes: arrayBytes, elementBytes: length * elementBytes, kinds }],
    largestFields: [{ path, bytes: arrayBytes + path.length + 2 }],
  };
}
