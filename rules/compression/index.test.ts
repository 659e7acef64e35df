import { describe, expect, it } from 'vitest';
import { ObjectId } from 'bson';
import { serverStatus } from '../../src/collect/server-status';
import type { CollectionSnapshot, Snapshot } from '../../src/core/types';
import { collectionOf, ran, snapshotOf, withData, withServer } from '../../test/support/fixtures';
import { ruleTester, runRuleWithNotes } from '../../test/support/rule-tester';
import {
  BLOCK_BYTES,
  type Compressibility,
  compressibility,
  measureCompressibility,
  serializeDocs,
  toBlocks,
} from './collect';
import { compressionStats } from './analyze';
import { compressorOf } from './confirm';
import rule from './index';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

/** $collStats storageStats as the manual shows it, trimmed; creationString is WiredTiger's, as MongoDB returns it. */
function storageStats(compressor: string, size: number, storageSize: number, indexes: number): Record<string, unknown> {
  return {
    size,
    count: Math.round(size / 1000),
    avgObjSize: 1000,
    storageSize,
    freeStorageSize: 0,
    capped: false,
    wiredTiger: {
      metadata: { formatVersion: 1 },
      creationString: [
        'access_pattern_hint=none',
        'allocation_size=4KB',
        'app_metadata=(formatVersion=1)',
        'block_allocation=best',
        `block_compressor=${compressor}`,
        'cache_resident=false',
        'checksum=on',
        'internal_page_max=4KB',
        'leaf_page_max=32KB',
        'memory_page_max=10m',
        'prefix_compression=false',
        'split_pct=90',
        'type=file',
      ].join(','),
    },
    nindexes: 2,
    totalIndexSize: indexes,
    indexSizes: { _id_: indexes / 2, userId_1: indexes / 2 },
  };
}

function collection(
  name: string,
  compressor: string,
  size: number,
  storageSize: number,
  indexes: number,
  comp?: Compressibility,
): CollectionSnapshot {
  const st = storageStats(compressor, size, storageSize, indexes);
  const c = collectionOf(name, {
    stats: {
      count: Number(st.count),
      sizeBytes: size,
      avgObjSize: 1000,
      storageSizeBytes: storageSize,
      totalIndexSizeBytes: indexes,
      nindexes: 2,
      blockCompressor: compressorOf(st),
    },
    sample: {
      method: '$sample',
      random: true,
      complete: false,
      dynamicKeys: [],
      requested: 1000,
      size: 1000,
      docs: [],
      fields: {},
      timeSource: null,
    },
  });
  return comp ? withData(c, compressibility, comp) : c;
}

/** What the collector stores for a sample of 1 MB: per codec, the compressed bytes. */
const comp = (snappy: number, zlib: number, zstd: number | null): Compressibility => ({
  docs: 1000,
  bytes: 1_000_000,
  serializer: 'bson',
  blockBytes: BLOCK_BYTES,
  codecs: { snappy, zlib, zstd },
  ...(zstd === null ? { unavailable: { zstd: 'no zstd here' } } : {}),
});

const snap = (c: CollectionSnapshot, cacheBytes: number | null = 8 * GiB) =>
  withServer(snapshotOf([c]), { cacheBytes });

const events = { db: 'app', collection: 'events' };
/** The zstd copy, with the documented configString, then the swap. */
const zstdCopy = {
  action: 'zstd block compression',
  commands: [
    'db.getSiblingDB("app").createCollection("events_zstd", { storageEngine: { wiredTiger: { configString: ' +
      '"block_compressor=zstd" } } })',
    'db.getSiblingDB("app").getCollection("events").aggregate([{ $merge: { into: "events_zstd" } }])',
    'db.getSiblingDB("app").getCollection("events").getIndexes()  // create the same indexes on events_zstd',
  ],
  later: ['db.getSiblingDB("app").getCollection("events_zstd").renameCollection("events", true)'],
};
const large = (c: Compressibility) => collection('events', 'snappy', 20 * GiB, 9 * GiB, 2 * GiB, c);

/** FerretDB: no WiredTiger, so no block compressor and no cache figure. */
function ferret(): Snapshot {
  const c = collection('events', 'snappy', 10 * GiB, 5 * GiB, GiB, comp(500_000, 250_000, 200_000));
  return withServer(snapshotOf([{ ...c, stats: c.stats && { ...c.stats, blockCompressor: null } }]), {
    flavor: 'ferretdb',
    storageEngine: null,
    cacheBytes: null,
  });
}

/**
 * SecantusDB 0.7 (reports MongoDB 8.2.11, serverStatus storageEngine.name "wiredTiger") answers $collStats with
 * storageStats {size: 0, count, avgObjSize: 0, storageSize: 0, indexSizes, totalIndexSize: 0, nindexes} and no
 * wiredTiger section, where the manual's $collStats output carries storageStats.wiredTiger.creationString.
 */
const noCreationString = () =>
  snap(
    withData(
      collectionOf('logs', {
        stats: {
          count: 600,
          sizeBytes: 0,
          avgObjSize: 0,
          storageSizeBytes: 0,
          totalIndexSizeBytes: 0,
          nindexes: 1,
          blockCompressor: null,
        },
      }),
      compressibility,
      comp(400_000, 280_000, 250_000),
    ),
    null,
  );

/** What the rule says it could not check, as the runner prints it (with its "compression: " prefix). */
const notesOf = (s: Snapshot): string[] => runRuleWithNotes(rule, s).notes.map((n) => n.message);

ruleTester(rule, {
  valid: [
    {
      name: 'already zstd',
      snapshot: snap(collection('events', 'zstd', 10 * GiB, 2 * GiB, GiB, comp(400_000, 250_000, 200_000)), 1 * GiB),
    },
    {
      name: 'zstd barely better (1.1x) and the data fits the cache',
      snapshot: snap(collection('events', 'snappy', 500 * MiB, 200 * MiB, 50 * MiB, comp(400_000, 380_000, 364_000))),
    },
    {
      name: 'zstd much better but the collection is tiny',
      snapshot: snap(collection('events', 'snappy', 2 * MiB, 1 * MiB, MiB, comp(500_000, 250_000, 200_000))),
    },
    {
      name: 'empty collection',
      snapshot: snap(
        collectionOf('e', {
          stats: {
            count: 0,
            sizeBytes: 0,
            avgObjSize: 0,
            storageSizeBytes: 4096,
            totalIndexSizeBytes: 4096,
            nindexes: 1,
            blockCompressor: 'snappy',
          },
        }),
      ),
    },
    {
      name: 'FerretDB: no WiredTiger, no block compressor; said once',
      snapshot: ferret(),
      notes: [
        'compression: block compressors (snappy, zlib, zstd) are WiredTiger settings and this server runs ' +
          "FerretDB, which has no WiredTiger; no compression advice (the sample's compressibility was still " +
          'measured and is in the snapshot)',
      ],
    },
    {
      name: 'MongoDB 4.0 has no zstd',
      snapshot: withServer(
        snap(collection('events', 'snappy', 10 * GiB, 5 * GiB, GiB, comp(500_000, 250_000, 200_000)), GiB),
        { version: '4.0.28' },
      ),
    },
    {
      name: 'a server naming wiredTiger whose $collStats carries no creationString: no advice, and why',
      snapshot: noCreationString(),
      notes: [
        {
          includes: [
            'no wiredTiger.creationString for the one collection with documents (app.logs)',
            'no compression advice for it',
          ],
        },
      ],
    },
    {
      name: 'a snapshot taken with the rule off: not checked, and said so (never a silent pass)',
      snapshot: ran(
        snap(collection('events', 'snappy', 600 * MiB, 300 * MiB, 60 * MiB, comp(400_000, 280_000, 250_000))),
        serverStatus,
      ),
      notes: [
        'compression: not checked: its data (collector compression) was not collected (the rule was off ' +
          'when this snapshot was taken); collect again with it on',
      ],
    },
  ],
  invalid: [
    {
      name: 'zstd 1.6x smaller than snappy on a large collection that fits the cache',
      snapshot: snap(collection('events', 'snappy', 600 * MiB, 300 * MiB, 60 * MiB, comp(400_000, 280_000, 250_000))),
      findings: [
        {
          messageId: 'zstdSmaller',
          severity: 'info',
          target: events,
          message:
            '`events` uses snappy (2.0:1 on disk; reusable space not reported); its sample compresses 4.0:1 ' +
            'with zstd against 2.5:1 with snappy: 1.60x smaller.',
          evidence: {
            blockCompressor: 'snappy',
            sampleRatioZstd: 4,
            sampleRatioSnappy: 2.5,
            gain: 1.6,
            outgrowsCache: false,
          },
          // a zstd copy with the documented configString
          recommendation: zstdCopy,
        },
      ],
    },
    {
      name: 'data outgrows the cache and zstd is much smaller: warn',
      snapshot: snap(large(comp(450_000, 300_000, 250_000)), 8 * GiB),
      findings: [
        {
          messageId: 'zstdSmallerOutgrowsCache',
          severity: 'warn',
          target: events,
          message:
            '`events` uses snappy (2.2:1 on disk; reusable space not reported); its sample compresses 4.0:1 ' +
            'with zstd against 2.2:1 with snappy: 1.80x smaller, and its data and indexes (22 GiB) outgrow ' +
            'the cache (8 GiB).',
          evidence: { outgrowsCache: true, cacheBytes: 8 * GiB },
          recommendation: { ...zstdCopy, reasonIncludes: 'Data outgrowing the cache is read from disk' },
        },
      ],
    },
    {
      name: 'data outgrows the cache, zstd only a little smaller',
      snapshot: snap(large(comp(450_000, 420_000, 400_000)), 8 * GiB),
      findings: [
        {
          messageId: 'outgrowsCache',
          severity: 'warn',
          target: events,
          message:
            'Data and indexes of `events` (22 GiB uncompressed) outgrow the WiredTiger cache (8 GiB): reads ' +
            'past the cache come from disk, where smaller blocks help. It uses snappy (2.2:1 on disk; ' +
            'reusable space not reported); its sample compresses 2.5:1 with zstd, 1.13x smaller than with ' +
            'snappy.',
          recommendation: zstdCopy,
        },
      ],
    },
    {
      name: 'data outgrows the cache and zstd could not be measured here',
      snapshot: snap(large(comp(450_000, 300_000, null)), 8 * GiB),
      findings: [
        {
          messageId: 'outgrowsCacheGainUnknown',
          severity: 'warn',
          target: events,
          data: {
            collection: 'events',
            dataBytes: '22 GiB',
            cacheBytes: '8 GiB',
            current: 'snappy',
            serverRatio: '2.2:1 on disk; reusable space not reported',
            reason: 'no zstd here',
          },
          messageIncludes:
            "It uses snappy (2.2:1 on disk; reusable space not reported); zstd's gain could not be measured " +
            'here (no zstd here).',
          evidence: { sampleRatioZstd: null, gain: null },
          recommendation: zstdCopy,
        },
      ],
    },
    {
      name: 'no compression at all (block_compressor=none)',
      snapshot: snap(collection('events', 'none', 600 * MiB, 600 * MiB, 60 * MiB, comp(400_000, 280_000, 250_000))),
      findings: [
        {
          messageId: 'zstdSmaller',
          severity: 'info',
          target: events,
          message:
            '`events` uses none (1.0:1 on disk; reusable space not reported); its sample compresses 4.0:1 ' +
            'with zstd against 1.0:1 with none: 4.00x smaller.',
          recommendation: zstdCopy,
        },
      ],
    },
  ],
});

describe('compression recommendation', () => {
  it('reads the block compressor back from a creationString', () => {
    expect(compressorOf(storageStats('zstd', 1, 1, 1))).toBe('zstd');
    expect(compressorOf(storageStats('', 1, 1, 1))).toBe('none');
    expect(compressorOf({ size: 1 })).toBeNull();
  });
});

describe('compressibility of a sample', () => {
  const docs = Array.from({ length: 400 }, (_, i) => ({
    _id: new ObjectId(),
    i,
    status: i % 3 ? 'open' : 'closed',
    note: `customer ${i % 17} asked about order ${i % 5}`,
    tags: ['a', 'b', 'c'],
  }));

  it('serialises BSON as stored and compresses WiredTiger-sized blocks with all three codecs', async () => {
    const c = await measureCompressibility(docs);
    expect(c?.serializer).toBe('bson');
    expect(c?.docs).toBe(400);
    expect(c?.unavailable).toBeUndefined();
    const { snappy, zlib, zstd } = c!.codecs;
    for (const b of [snappy, zlib, zstd]) expect(b).toBeGreaterThan(0);
    expect(snappy!).toBeLessThan(c!.bytes);
    expect(zstd!).toBeLessThan(snappy!);
    expect(zlib!).toBeLessThan(snappy!);
  });

  it("rebuilds values from another bson copy (mongosh's) with ours, so the bytes are still BSON", () => {
    // What mongosh's own bson objects look like to a different major version of the library.
    const real = new ObjectId();
    const foreign = {
      _id: {
        _bsontype: 'ObjectId',
        [Symbol.for('@@mdb.bson.version')]: 5,
        toExtendedJSON: () => ({ $oid: real.toHexString() }),
      },
      n: 1,
      at: new Date(0),
      tags: ['a'],
    };
    const out = serializeDocs([foreign]);
    expect(out.serializer).toBe('bson');
    expect(out.buffers[0]).toEqual(serializeDocs([{ _id: real, n: 1, at: new Date(0), tags: ['a'] }]).buffers[0]);
  });

  it('falls back to text, and says so, when a foreign value cannot be rebuilt', () => {
    const opaque = {
      _id: { _bsontype: 'ObjectId', [Symbol.for('@@mdb.bson.version')]: 5, id: new Uint8Array(12) },
      n: 1,
    };
    const out = serializeDocs([opaque]);
    expect(['ejson', 'json']).toContain(out.serializer);
    expect(out.buffers[0]?.length).toBeGreaterThan(0);
  });

  it('cuts blocks at the leaf page size and stops at the byte cap', () => {
    const buffers = Array.from({ length: 10 }, () => Buffer.alloc(10_000));
    const { blocks, docs: used, bytes } = toBlocks(buffers, 32 * 1024, 75_000);
    expect(used).toBe(7);
    expect(bytes).toBe(70_000);
    expect(blocks.map((b) => b.length)).toEqual([40_000, 30_000]);
  });

  it('measures nothing without documents', async () => {
    expect(await measureCompressibility([])).toBeNull();
  });
});

describe('compression: what could not be read goes to the notes, once per run', () => {
  it(
    'a server naming wiredTiger whose $collStats carries no creationString: said, with the collection, and no ' +
      'advice',
    () => {
      // the rule's side (no advice) is the valid case "a server naming wiredTiger whose $collStats carries no
      // creationString"
      expect(notesOf(noCreationString())).toEqual([
        'compression: the server reports storage engine wiredTiger but $collStats returned no ' +
          'wiredTiger.creationString for the one collection with documents (app.logs), so the block compressor ' +
          "could not be read; no compression advice for it (the sample's compressibility was still measured and " +
          'is in the snapshot)',
      ]);
    },
  );

  it('names the collections whose compressor could not be read when others could', () => {
    const s = snap(collection('events', 'snappy', 600 * MiB, 300 * MiB, 60 * MiB, comp(400_000, 280_000, 250_000)));
    s.databases[0]?.collections.push(
      collectionOf('logs', {
        stats: {
          count: 10,
          sizeBytes: 1000,
          avgObjSize: 100,
          storageSizeBytes: 4096,
          totalIndexSizeBytes: 4096,
          nindexes: 1,
          blockCompressor: null,
        },
      }),
    );
    expect(notesOf(s)).toEqual([
      'compression: the server reports storage engine wiredTiger but $collStats returned no ' +
        'wiredTiger.creationString for 1 of 2 collections with documents (app.logs), so the block compressor ' +
        'could not be read; no compression advice for it',
    ]);
  });

  it('one line for every database of the run, not one per database or collection', () => {
    const logs = (db: string) => ({
      ...collectionOf('logs', {
        stats: {
          count: 10,
          sizeBytes: 1000,
          avgObjSize: 100,
          storageSizeBytes: 4096,
          totalIndexSizeBytes: 4096,
          nindexes: 1,
          blockCompressor: null,
        },
      }),
      db,
    });
    const s = withServer(
      snapshotOf([], {
        databases: [
          { name: 'a', collections: [logs('a')] },
          { name: 'b', collections: [logs('b')] },
        ],
      }),
      { cacheBytes: null },
    );
    expect(notesOf(s)).toEqual([
      'compression: the server reports storage engine wiredTiger but $collStats returned no ' +
        'wiredTiger.creationString for any of the 2 collections with documents (a.logs, b.logs), so the block ' +
        'compressor could not be read; no compression advice for them',
    ]);
  });

  it('compressor read but no cache figure in serverStatus: ratios alone, and why', () => {
    expect(notesOf(snap(collection('events', 'snappy', 600 * MiB, 300 * MiB, 60 * MiB), null))).toEqual([
      'compression: serverStatus has no wiredTiger.cache["maximum bytes configured"], so the WiredTiger ' +
        'cache size is unknown; compression is judged on ratios alone',
    ]);
    const refused = withServer(snap(collection('events', 'snappy', 600 * MiB, 300 * MiB, 60 * MiB), null), {
      storageEngine: null,
    });
    expect(notesOf(refused)[0]).toContain('serverStatus could not be read (it needs the clusterMonitor role)');
  });

  it('another engine or FerretDB: block compressors do not apply', () => {
    const s = withServer(
      snap(
        collectionOf('logs', {
          stats: {
            count: 10,
            sizeBytes: 1000,
            avgObjSize: 100,
            storageSizeBytes: 4096,
            totalIndexSizeBytes: 4096,
            nindexes: 1,
            blockCompressor: null,
          },
        }),
        null,
      ),
      { flavor: 'ferretdb', storageEngine: null },
    );
    expect(notesOf(s)).toEqual([
      'compression: block compressors (snappy, zlib, zstd) are WiredTiger settings and this server runs ' +
        'FerretDB, which has no WiredTiger; no compression advice',
    ]);
    expect(notesOf(withServer(s, { flavor: 'mongodb', storageEngine: 'inMemory' }))[0]).toContain(
      'this server runs storage engine inMemory; no compression advice',
    );
  });

  it('every compressor read and a cache known: nothing to say', () => {
    expect(notesOf(snap(collection('events', 'snappy', 600 * MiB, 300 * MiB, 60 * MiB)))).toEqual([]);
  });
});

describe('the compression collector', () => {
  it('keeps byte counts only: its schema refuses any other field', () => {
    const schema = compressibility.schema as {
      additionalProperties: boolean;
      properties: Record<string, { additionalProperties?: boolean }>;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.codecs?.additionalProperties).toBe(false);
    expect(schema.properties.unavailable?.additionalProperties).toBe(false);
  });

  it('measures nothing, and sends nothing, for a collection without sampled documents', async () => {
    const ctx = { docs: [], note: () => undefined } as unknown as Parameters<typeof compressibility.collect>[0];
    expect(await compressibility.collect(ctx)).toBeNull();
  });
});

describe('compression: the on-disk ratio leaves out reusable space (freeStorageSize)', () => {
  it('is size / (storageSize - freeStorageSize), and says what was left out', () => {
    const c = collection('events', 'snappy', 40 * GiB, 20 * GiB, 2 * GiB, comp(500_000, 400_000, 250_000));
    const withFree = {
      ...c,
      stats: { ...(c.stats as NonNullable<CollectionSnapshot['stats']>), freeStorageSizeBytes: 10 * GiB },
    };
    const s = compressionStats(withFree, snap(withFree).server, { cacheShare: 0.8, minGain: 1.3, minDataBytes: 0 });
    // 20 GiB on disk of which 10 GiB reusable: the data takes 10 GiB, 4.0:1, not 2.0:1
    expect(s?.serverRatio).toBe(4);
    expect(s?.freeBytes).toBe(10 * GiB);
    const { findings } = runRuleWithNotes(rule, snap(withFree));
    expect(findings[0]?.message).toContain('(4.0:1 on disk, net of 10 GiB reusable)');
  });
});
