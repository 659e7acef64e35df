import { describe, expect, it } from 'vitest';
import type { CollectionSnapshot, IndexSnapshot, Snapshot } from '../../src/core/types';
import { collectionOf, snapshotOf, unsupported, withServer } from '../../test/support/fixtures';
import { ruleTester } from '../../test/support/rule-tester';
import { formatKey, isKeyPrefix, prefixBlockers, shellCollection, specialKind, standIns } from './analyze';
import { planIndexes, prefixFilter, scratchSpecs } from './confirm';
import rule from './index';

// collectedAt of the fixtures is 2026-11-01; counters that started 60 days earlier are well past the warm-up.
const OLD = '2026-09-02T00:00:00.000Z';
const RECENT = '2026-10-30T00:00:00.000Z';
const GB = 1024 ** 3;

/** An index as collect writes it from listIndexes + $collStats indexSizes + $indexStats (one row per member). */
function ix(name: string, key: IndexSnapshot['key'], accesses: [string, number, string][] | null = [['m1.example.net:27017', 120, OLD]], over: Partial<IndexSnapshot> = {}): IndexSnapshot {
  return { name, key, sizeBytes: 1_048_576, accesses: accesses && accesses.map(([host, ops, since]) => ({ host, ops, since })), ...over };
}

const idIndex = ix('_id_', { _id: 1 }, [['m1.example.net:27017', 0, OLD]]);

function coll(indexes: IndexSnapshot[], over: Partial<CollectionSnapshot> = {}): CollectionSnapshot {
  return collectionOf('orders', { indexes: [idIndex, ...indexes], stats: { count: 100_000, sizeBytes: 50_000_000, avgObjSize: 500, storageSizeBytes: 20_000_000, totalIndexSizeBytes: (indexes.length + 1) * 1_048_576, nindexes: indexes.length + 1, blockCompressor: 'snappy' }, ...over });
}

const members = ['m1.example.net:27017', 'm2.example.net:27017', 'm3.example.net:27017'];
/** A replica set of three, every member read, as the index-usage-members collector records it. */
function replicaSet(c: CollectionSnapshot, notRead: { host: string; reason: string }[] = []): Snapshot {
  const read = members.filter((m) => !notRead.some((n) => n.host === m));
  return withServer(snapshotOf([{ ...c, indexUsageMembers: { read, notRead } }]), { topology: 'replicaSet' });
}
const everywhere = (ops: [number, number, number], since = OLD): [string, number, string][] => members.map((m, i) => [m, ops[i] as number, since]);

const withCache = (s: Snapshot, cacheBytes: number | null): Snapshot => withServer(s, { cacheBytes });

const orders = { db: 'app', collection: 'orders' };
const onIndex = (index: string) => ({ ...orders, index });
const hideThenDrop = (index: string) => ({ action: 'hide it, then drop it', commands: [`db.orders.hideIndex("${index}")`, `db.orders.dropIndex("${index}")`] });
const consolidate = { action: 'consolidate', commands: ['db.orders.aggregate([{ $indexStats: {} }, { $project: { name: 1, "accesses.ops": 1, "accesses.since": 1 } }])'] };

/** SecantusDB 0.7: $collStats sizes of 0 on a collection of 400 documents, which collect keeps unknown (null), not 0. */
function unsized(): CollectionSnapshot {
  const c = coll([ix('status_1', { status: 1 }, undefined, { sizeBytes: null })], { stats: { count: 400, sizeBytes: 0, avgObjSize: 0, storageSizeBytes: 0, totalIndexSizeBytes: 0, nindexes: 2, blockCompressor: null } });
  return { ...c, indexes: c.indexes.map((i) => ({ ...i, sizeBytes: null })) };
}

/**
 * SecantusDB 0.7 answers $indexStats with {name, key, host: "secantus", accesses: {ops: 0, since: null}} and its ops
 * stay 0 after queries; MongoDB's manual documents accesses.since as the date counting started. collect stores the
 * since it got as text ("null").
 */
const nullSince: [string, number, string][] = [['secantus', 0, 'null']];
const noStartDate = snapshotOf([
  coll([
    ix('status_1', { status: 1 }, nullSince),
    ix('total_1', { total: 1 }, nullSince),
    ix('email_1', { email: 1 }, nullSince, { unique: true }),
    ix('customer_1', { customer: 1 }, [['secantus', 5, 'null']]),
  ]),
]);
const notJudgedNoStartDate =
  'index-usage: index use was not judged for 3 indexes with no recorded use (orders: `status_1`, `total_1`, `email_1`): $indexStats on secantus gave accesses.since null, where MongoDB gives the date its counters started. Without it accesses.ops is not a count over any known time, so none is called unused. Redundant indexes and index counts were still checked.';

ruleTester(rule, {
  valid: [
    { name: 'every index used, on a standalone', snapshot: snapshotOf([coll([ix('status_1', { status: 1 }), ix('customer_1_date_-1', { customer: 1, date: -1 })])]), notes: [] },
    { name: 'only the _id index', snapshot: snapshotOf([coll([])]) },
    {
      name: 'an index used only on a secondary is used (sum over members)',
      snapshot: replicaSet(coll([ix('report_1', { report: 1 }, everywhere([0, 0, 4200]))])),
    },
    { name: '{a:1} is not a prefix of {ab:1}', snapshot: snapshotOf([coll([ix('a_1', { a: 1 }), ix('ab_1', { ab: 1 })])]) },
    { name: 'different direction is not the same prefix', snapshot: snapshotOf([coll([ix('a_1', { a: 1 }), ix('a_-1_b_1', { a: -1, b: 1 })])]) },
    { name: 'ten indexes is still within the Compass line', snapshot: snapshotOf([coll(Array.from({ length: 9 }, (_, i) => ix(`f${i}_1`, { [`f${i}`]: 1 })))]) },
    { name: 'indexes well inside the cache', snapshot: withCache(snapshotOf([coll([ix('status_1', { status: 1 })])]), 8 * GB), notes: [] },
    {
      name: 'FerretDB: no $indexStats, no WiredTiger cache: said in the notes',
      snapshot: withServer(snapshotOf([coll([ix('status_1', { status: 1 }, null)])]), {
        flavor: 'ferretdb',
        cacheBytes: null,
        capabilities: { indexStats: unsupported('aggregate $indexStats failed: CommandNotFound (59): $indexStats is not implemented') },
      }),
      notes: [
        'index-usage: index use was not checked: the server lacks $indexStats (aggregate $indexStats failed: CommandNotFound (59): $indexStats is not implemented). Redundant indexes, index counts and sizes were still checked.',
        { includes: 'not compared with the cache: this FerretDB server has no WiredTiger cache to compare with' },
      ],
    },
    {
      name: 'no $indexStats (refused): said once, with the reason',
      snapshot: withServer(snapshotOf([coll([ix('status_1', { status: 1 }, null)])]), { capabilities: { indexStats: unsupported('aggregate $indexStats failed: Unauthorized (13)') } }),
      notes: [{ includes: ['index-usage: index use was not checked: the server lacks $indexStats', 'Unauthorized (13)'] }],
    },
    {
      name: 'no cache size because serverStatus was refused: said so',
      // the engine's name comes from serverStatus too
      snapshot: withServer(snapshotOf([coll([ix('status_1', { status: 1 })])]), { cacheBytes: null, storageEngine: null }),
      notes: [{ includes: 'index-usage: indexes of the 1 collection checked take 2.0 MB; not compared with the cache: serverStatus could not be read (it needs the clusterMonitor role)' }],
    },
    {
      name: 'a server naming wiredTiger without a wiredTiger section in serverStatus: said as such',
      snapshot: withCache(snapshotOf([coll([ix('status_1', { status: 1 })])]), null),
      notes: [
        "index-usage: indexes of the 1 collection checked take 2.0 MB; not compared with the cache: the server reports storage engine wiredTiger but its serverStatus has no wiredTiger.cache['maximum bytes configured'].",
      ],
    },
    {
      name: 'index sizes that could not be read are never given as 0 B',
      snapshot: withCache(snapshotOf([unsized()]), null),
      notes: ['index-usage: index sizes could not be read for 1 collection (orders; see the notes), so they were not compared with the cache.'],
    },
    {
      name: 'with some index sizes read, the total is a floor and says so',
      snapshot: snapshotOf([
        unsized(),
        collectionOf('users', { indexes: [{ name: '_id_', key: { _id: 1 }, sizeBytes: 4096, accesses: null }], stats: { count: 10, sizeBytes: 1000, avgObjSize: 100, storageSizeBytes: 4096, totalIndexSizeBytes: 4096, nindexes: 1, blockCompressor: 'snappy' } }),
      ]),
      notes: [
        'index-usage: indexes of the 2 collections checked take at least 4.0 KB, 0% of the WiredTiger cache (8.0 GB); index sizes could not be read for 1 collection (orders; see the notes), so the share may be higher.',
      ],
    },
    {
      name: 'counters without a start date are not read as use: one note, no unused, no warm-up, no kept line',
      snapshot: noStartDate,
      notes: [notJudgedNoStartDate],
    },
    {
      name: 'counters without a start date, with no warm-up: still not judged',
      snapshot: noStartDate,
      options: { warmupDays: 0 },
      notes: [notJudgedNoStartDate],
    },
    {
      // the sum would hide the dateless member's share
      name: 'a member with a date and one without: not judged',
      snapshot: replicaSet(coll([ix('status_1', { status: 1 }, [['m1.example.net:27017', 0, OLD], ['m2.example.net:27017', 0, 'undefined']])])),
      notes: [{ includes: '$indexStats on m2.example.net:27017 gave no accesses.since' }],
    },
  ],
  invalid: [
    {
      name: 'unused on a standalone',
      snapshot: snapshotOf([coll([ix('status_1', { status: 1 }, [['h:27017', 0, OLD]])])]),
      findings: [
        {
          messageId: 'unused',
          severity: 'warn',
          target: onIndex('status_1'),
          message: 'Index `status_1` { status: 1 } recorded no use in the last 60 days; it takes 1.0 MB and a write on every insert.',
          evidence: { ops: 0, windowDays: 60, membersRead: 1, allMembersRead: true, sizeBytes: 1_048_576, key: '{ status: 1 }' },
          // hides then drops, on 4.4+
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'before 4.4 there is no hideIndex: drop only',
      snapshot: withServer(snapshotOf([coll([ix('status_1', { status: 1 }, [['h:27017', 0, OLD]])])]), { version: '4.2.0' }),
      findings: [{ messageId: 'unused', severity: 'warn', target: onIndex('status_1'), messageIncludes: 'recorded no use in the last 60 days', recommendation: { action: 'hide it, then drop it', commands: ['db.orders.dropIndex("status_1")'] } }],
    },
    {
      name: 'unused on every member of a replica set',
      snapshot: replicaSet(coll([ix('status_1', { status: 1 }, everywhere([0, 0, 0]))])),
      findings: [{ messageId: 'unused', severity: 'warn', target: onIndex('status_1'), messageIncludes: 'summed over 3 of 3 members', evidence: { membersRead: 3, allMembersRead: true }, recommendation: hideThenDrop('status_1') }],
    },
    {
      name: 'a member not read lowers the verdict to info and is named',
      snapshot: replicaSet(coll([ix('status_1', { status: 1 }, everywhere([0, 0, 0]).slice(0, 2))]), [{ host: 'm3.example.net:27017', reason: 'could not connect: Authentication failed' }]),
      findings: [
        {
          messageId: 'unused',
          severity: 'info',
          target: onIndex('status_1'),
          message:
            'Index `status_1` { status: 1 } recorded no use in the last 60 days, summed over 2 of 3 members; it takes 1.0 MB and a write on every insert. Not read: m3.example.net:27017 (could not connect: Authentication failed); an index used only there would look unused here.',
          evidence: { allMembersRead: false },
          recommendation: { ...hideThenDrop('status_1'), reasonIncludes: 'and only after checking the members not read' },
        },
      ],
    },
    {
      name: 'the mongosh adapter reads one member: said so',
      snapshot: replicaSet(coll([ix('status_1', { status: 1 }, everywhere([0, 0, 0]).slice(0, 1))]), [
        { host: 'm2.example.net:27017', reason: 'the mongosh adapter has one connection and cannot open another' },
        { host: 'm3.example.net:27017', reason: 'the mongosh adapter has one connection and cannot open another' },
      ]),
      findings: [
        {
          messageId: 'unused',
          severity: 'info',
          target: onIndex('status_1'),
          messageIncludes: ['summed over 1 of 3 members', 'Not read: m2.example.net:27017 (the mongosh adapter has one connection and cannot open another); m3.example.net:27017'],
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'a one-member replica set reads as such in the unused line',
      snapshot: withServer(snapshotOf([{ ...coll([ix('status_1', { status: 1 }, [['db0.example.net:27017', 0, OLD]])]), indexUsageMembers: { read: ['db0.example.net:27017'], notRead: [] } }]), { topology: 'replicaSet' }),
      findings: [{ messageId: 'unused', severity: 'warn', target: onIndex('status_1'), messageIncludes: 'summed over the only member listed (db0.example.net:27017)', recommendation: hideThenDrop('status_1') }],
    },
    {
      name: "counters with MongoDB's documented shape are judged as before",
      // $indexStats row as the manual shows it: accesses: { ops: NumberLong(0), since: ISODate(...) }
      snapshot: snapshotOf([coll([ix('status_1', { status: 1 }, [['examplehost.local:27017', 0, OLD]])])]),
      notes: [],
      findings: [{ messageId: 'unused', severity: 'warn', target: onIndex('status_1'), messageIncludes: 'recorded no use in the last 60 days', recommendation: hideThenDrop('status_1') }],
    },
    {
      name: 'at or below unusedMaxOps counts as unused',
      snapshot: snapshotOf([coll([ix('status_1', { status: 1 }, [['h:27017', 3, OLD]])])]),
      options: { unusedMaxOps: 5 },
      findings: [{ messageId: 'unused', severity: 'warn', target: onIndex('status_1'), messageIncludes: 'recorded 3 uses in the last 60 days', evidence: { ops: 3 }, recommendation: hideThenDrop('status_1') }],
    },
    {
      name: 'kept indexes are listed with why',
      snapshot: snapshotOf([coll([ix('expires_1', { expiresAt: 1 }, [['h:27017', 0, OLD]], { expireAfterSeconds: 60 })])]),
      findings: [
        {
          messageId: 'kept',
          severity: 'info',
          target: orders,
          message: 'No recorded use, but not called unused: `expires_1` (TTL: the server deletes expired documents through it, and those deletes do not count as use).',
          evidence: { indexes: 1 },
          recommendation: null,
        },
      ],
    },
    {
      name: 'hidden, unique, TTL and partial indexes without use are kept, with the reason (one info line)',
      snapshot: snapshotOf([
        coll([
          ix('email_1', { email: 1 }, [['h:27017', 0, OLD]], { unique: true }),
          ix('expires_1', { expiresAt: 1 }, [['h:27017', 0, OLD]], { expireAfterSeconds: 3600 }),
          ix('old_1', { old: 1 }, [['h:27017', 0, OLD]], { hidden: true }),
          ix('open_1', { state: 1 }, [['h:27017', 0, OLD]], { partial: true }),
        ]),
      ]),
      findings: [
        {
          messageId: 'kept',
          severity: 'info',
          target: orders,
          message:
            'No recorded use, but not called unused: `email_1` (unique: it enforces a constraint even when no query reads it); `expires_1` (TTL: the server deletes expired documents through it, and those deletes do not count as use); `old_1` (hidden: the planner cannot use it, so no use is expected; drop it once nothing has slowed down since it was hidden); `open_1` (partial: it serves only queries that match its filter, which may run rarely (month-end jobs); check before dropping).',
          evidence: { indexes: 4 },
        },
      ],
    },
    {
      // counters younger than the warm-up prove nothing: an info line, never unused
      name: 'warm-up: names the member whose counters are young',
      snapshot: replicaSet(coll([ix('status_1', { status: 1 }, members.map((m, i) => [m, 0, i === 2 ? RECENT : OLD]))])),
      findings: [
        {
          messageId: 'tooRecent',
          severity: 'info',
          target: orders,
          message:
            'Too early to call `status_1` unused: no use recorded, but the counters on m3.example.net:27017 started 2 days ago, within the 7-day warm-up ($indexStats restarts with the server and when an index is built).',
          evidence: { indexes: 1, youngestDays: 2, warmupDays: 7 },
        },
      ],
    },
    {
      name: 'redundant prefix',
      snapshot: snapshotOf([coll([ix('a_1', { a: 1 }), ix('a_1_b_1', { a: 1, b: 1 })])]),
      findings: [
        {
          messageId: 'redundant',
          severity: 'warn',
          target: onIndex('a_1'),
          message: 'Index `a_1` { a: 1 } is a prefix of `a_1_b_1` { a: 1, b: 1 } with the same options: queries on `a` can use `a_1_b_1`. Dropping it saves 1.0 MB and one index write per insert.',
          evidence: { longer: 'a_1_b_1', longerKey: '{ a: 1, b: 1 }', ops: 120, longerOps: 120 },
          recommendation: hideThenDrop('a_1'),
        },
      ],
    },
    {
      name: 'redundant prefix of a longer compound index with descending fields',
      snapshot: snapshotOf([coll([ix('a_1_b_-1', { a: 1, b: -1 }), ix('a_1_b_-1_c_1', { a: 1, b: -1, c: 1 })])]),
      findings: [{ messageId: 'redundant', severity: 'warn', target: onIndex('a_1_b_-1'), messageIncludes: 'queries on `a`, `b` can use `a_1_b_-1_c_1`', recommendation: hideThenDrop('a_1_b_-1') }],
    },
    {
      name: 'a chain of prefixes points each shorter index at the longest one',
      snapshot: snapshotOf([coll([ix('a_1', { a: 1 }), ix('a_1_b_1', { a: 1, b: 1 }), ix('a_1_b_1_c_1', { a: 1, b: 1, c: 1 })])]),
      findings: [
        { messageId: 'redundant', severity: 'warn', target: onIndex('a_1'), messageIncludes: 'Index `a_1` { a: 1 } is a prefix of `a_1_b_1_c_1`', recommendation: hideThenDrop('a_1') },
        { messageId: 'redundant', severity: 'warn', target: onIndex('a_1_b_1'), messageIncludes: 'Index `a_1_b_1` { a: 1, b: 1 } is a prefix of `a_1_b_1_c_1`', recommendation: hideThenDrop('a_1_b_1') },
      ],
    },
    {
      name: 'a redundant index of unknown size does not claim 0 B',
      snapshot: snapshotOf([coll([ix('a_1', { a: 1 }, undefined, { sizeBytes: null }), ix('a_1_b_1', { a: 1, b: 1 })])]),
      findings: [{ messageId: 'redundant', severity: 'warn', target: onIndex('a_1'), messageIncludes: 'Dropping it saves its space and one index write per insert.', evidence: { sizeBytes: null }, recommendation: hideThenDrop('a_1') }],
    },
    {
      name: 'unused and redundant on a replica set: evidence holds names, counts and sizes only',
      snapshot: replicaSet(coll([ix('a_1', { a: 1 }, everywhere([0, 0, 0])), ix('a_1_b_1', { a: 1, b: 1 })])),
      findings: [
        { messageId: 'unused', severity: 'warn', target: onIndex('a_1'), messageIncludes: 'summed over 3 of 3 members', evidence: { ops: 0, membersRead: 3, key: '{ a: 1 }' }, recommendation: hideThenDrop('a_1') },
        { messageId: 'redundant', severity: 'warn', target: onIndex('a_1'), messageIncludes: 'is a prefix of `a_1_b_1`', evidence: { ops: 0, longerOps: 120 }, recommendation: hideThenDrop('a_1') },
      ],
    },
    {
      name: 'unique prefix is not redundant',
      snapshot: snapshotOf([coll([ix('sku_1', { sku: 1 }, undefined, { unique: true }), ix('sku_1_w_1', { sku: 1, w: 1 })])]),
      findings: [
        {
          messageId: 'notRedundant',
          severity: 'info',
          target: onIndex('sku_1'),
          message: 'Index `sku_1` { sku: 1 } is a prefix of `sku_1_w_1` { sku: 1, w: 1 } but not redundant: `sku_1` is unique: it enforces a constraint the longer index does not.',
          evidence: { longer: 'sku_1_w_1', reasons: 1 },
          recommendation: null,
        },
      ],
    },
    {
      name: 'text index led by a field: a clear line',
      snapshot: snapshotOf([coll([ix('cat_1', { cat: 1 }), ix('cat_1_body_text', { cat: 1, _fts: 'text', _ftsx: 1 })])]),
      findings: [{ messageId: 'notRedundant', severity: 'info', target: onIndex('cat_1'), messageIncludes: 'but not redundant: `cat_1_body_text` is a text index, which stores other keys than a B-tree index.' }],
    },
    {
      name: 'hashed index led by the same field',
      snapshot: snapshotOf([coll([ix('t_1', { t: 1 }), ix('t_1_h_hashed', { t: 1, h: 'hashed' })])]),
      findings: [{ messageId: 'notRedundant', severity: 'info', target: onIndex('t_1'), messageIncludes: '`t_1_h_hashed` is a hashed index' }],
    },
    {
      name: 'a 2dsphere index led by a field is not a false redundancy (info only)',
      snapshot: snapshotOf([coll([ix('city_1', { city: 1 }), ix('city_1_loc_2dsphere', { city: 1, loc: '2dsphere' })])]),
      findings: [
        {
          messageId: 'notRedundant',
          severity: 'info',
          target: onIndex('city_1'),
          messageIncludes: 'but not redundant: `city_1_loc_2dsphere` is a 2dsphere index, which stores other keys than a B-tree index and skips documents without the geo field.',
        },
      ],
    },
    {
      name: 'different collations: not redundant (info only)',
      snapshot: snapshotOf([coll([ix('name_1', { name: 1 }, undefined, { collation: { locale: 'fr', strength: 2 } }), ix('name_1_age_1', { name: 1, age: 1 })])]),
      findings: [{ messageId: 'notRedundant', severity: 'info', target: onIndex('name_1'), messageIncludes: 'but not redundant: their collations differ, and a query uses an index only with a matching collation.' }],
    },
    {
      name: 'more than 10 indexes: warn (Compass)',
      snapshot: snapshotOf([coll(Array.from({ length: 10 }, (_, i) => ix(`f${i}_1`, { [`f${i}`]: 1 })))]),
      findings: [
        {
          messageId: 'tooMany',
          severity: 'warn',
          target: orders,
          message: '11 indexes on this collection, more than 10 (the Compass line): every insert writes an entry in each, and each is its own WiredTiger table (a file and a data handle).',
          evidence: { indexes: 11, limit: 10 },
          recommendation: consolidate,
        },
      ],
    },
    {
      name: 'more than 30 indexes: error (Atlas)',
      snapshot: snapshotOf([coll(Array.from({ length: 30 }, (_, i) => ix(`f${i}_1`, { [`f${i}`]: 1 })))]),
      findings: [{ messageId: 'tooMany', severity: 'error', target: orders, messageIncludes: '31 indexes on this collection, more than 30 (the Atlas line)', evidence: { indexes: 31, limit: 30 }, recommendation: consolidate }],
    },
    {
      name: 'indexes over half the WiredTiger cache',
      snapshot: withCache(snapshotOf([coll([ix('status_1', { status: 1 })], { stats: { count: 1e8, sizeBytes: 5e10, avgObjSize: 500, storageSizeBytes: 2e10, totalIndexSizeBytes: 3 * GB, nindexes: 2, blockCompressor: 'snappy' } })]), 4 * GB),
      findings: [
        {
          messageId: 'indexesVsCache',
          severity: 'warn',
          target: { db: 'app' },
          message: 'Indexes of the 1 collection checked take 3.0 GB, 75% of the WiredTiger cache (4.0 GB); past 50%, documents compete with indexes for the cache and reads start going to disk.',
          evidence: { totalIndexBytes: 3 * GB, cacheBytes: 4 * GB, share: 0.75, collectionsWithUnknownIndexSizes: 0 },
          recommendation: { action: 'shrink the index set, or grow the cache' },
        },
      ],
    },
    {
      name: 'sharded: shard secondaries are not read, so info',
      snapshot: withServer(snapshotOf([coll([ix('status_1', { status: 1 }, [['shardA-1:27018', 0, OLD], ['shardB-1:27018', 0, OLD]])])]), { topology: 'sharded' }),
      findings: [
        {
          messageId: 'unused',
          severity: 'info',
          target: onIndex('status_1'),
          messageIncludes: ['summed over 2 shard primaries (through mongos)', 'Shard secondaries are not read through mongos'],
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
  ],
});

describe('index-usage helpers', () => {
  it('prefix compares whole field names, types and directions', () => {
    expect(isKeyPrefix(ix('a', { a: 1 }), ix('b', { a: 1, b: 1 }))).toBe(true);
    expect(isKeyPrefix(ix('a', { a: 1 }), ix('b', { ab: 1 }))).toBe(false);
    expect(isKeyPrefix(ix('a', { a: 1 }), ix('b', { b: 1, a: 1 }))).toBe(false);
    expect(isKeyPrefix(ix('a', { a: 1 }), ix('b', { a: 2, b: 1 }))).toBe(true);
    expect(isKeyPrefix(ix('a', { a: 1 }), ix('b', { a: 'hashed' }))).toBe(false);
  });

  it('stand-ins are the compatible indexes led by the same fields', () => {
    const c = coll([ix('a_1', { a: 1 }), ix('a_1_b_1', { a: 1, b: 1 }), ix('a_1_c_1', { a: 1, c: 1 }, null, { collation: { locale: 'fr' } })]);
    expect(standIns(c, c.indexes[1] as IndexSnapshot)).toEqual(['a_1_b_1']);
  });

  it('names special kinds, wildcard included', () => {
    expect(specialKind(ix('w', { '$**': 1 }))).toBe('wildcard');
    expect(specialKind(ix('w', { 'attrs.$**': 1 }))).toBe('wildcard');
    expect(specialKind(ix('t', { _fts: 'text', _ftsx: 1 }))).toBe('text');
    expect(specialKind(ix('g', { loc: '2dsphere' }))).toBe('2dsphere');
    expect(specialKind(ix('b', { a: 1, b: -1 }))).toBeNull();
  });

  it('lists every reason two prefix-related indexes are not interchangeable', () => {
    const why = prefixBlockers(ix('a', { a: 1 }, null, { sparse: true, expireAfterSeconds: 1 }), ix('b', { a: 1, b: 1 }, null, { hidden: true }));
    expect(why.join(' | ')).toMatch(/sparse.*TTL.*hidden/);
  });

  it('writes odd collection names and keys as mongosh needs them', () => {
    expect(shellCollection('order-items')).toBe('db.getCollection("order-items")');
    expect(shellCollection('stats')).toBe('db.getCollection("stats")');
    expect(formatKey({ 'a.b': 1, loc: '2dsphere' })).toBe('{ "a.b": 1, loc: "2dsphere" }');
  });

});

describe('index-usage confirmation helpers', () => {
  it('rebuilds index specs for scratch: no unique, no TTL, no _id', () => {
    // listIndexes output as documented (v, key, name, options)
    const { specs, changes } = scratchSpecs([
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { email: 1 }, name: 'email_1', unique: true },
      { v: 2, key: { at: 1 }, name: 'at_1', expireAfterSeconds: 3600 },
      { v: 2, key: { s: 1 }, name: 's_1', partialFilterExpression: { s: { $exists: true } }, collation: { locale: 'en', strength: 2 } },
    ]);
    expect(specs).toEqual([
      { key: { email: 1 }, name: 'email_1' },
      { key: { at: 1 }, name: 'at_1' },
      { key: { s: 1 }, name: 's_1', partialFilterExpression: { s: { $exists: true } }, collation: { locale: 'en', strength: 2 } },
    ]);
    expect(changes).toHaveLength(2);
  });

  it('finds the index in classic, slot-based and sharded explain output', () => {
    // queryPlanner.winningPlan shapes from the explain results page
    const classic = { stage: 'FETCH', inputStage: { stage: 'IXSCAN', keyPattern: { a: 1, b: 1 }, indexName: 'a_1_b_1' } };
    const sbe = { queryPlan: { stage: 'FETCH', planNodeId: 2, inputStage: { stage: 'IXSCAN', planNodeId: 1, indexName: 'a_1_b_1' } }, slotBasedPlan: { slots: '', stages: '' } };
    const sharded = { stage: 'SINGLE_SHARD', shards: [{ shardName: 's0', winningPlan: classic }] };
    for (const p of [classic, sbe, sharded]) expect(planIndexes(p)).toEqual({ indexes: ['a_1_b_1'], collscan: false });
    expect(planIndexes({ stage: 'COLLSCAN', direction: 'forward' })).toEqual({ indexes: [], collscan: true });
  });

  it('builds an equality filter on the prefix from a document with single values', () => {
    expect(prefixFilter([{ a: [1, 2], b: 1 }, { a: 3, b: { c: 4 } }], ['a', 'b.c'])).toEqual({ a: 3, 'b.c': 4 });
    expect(prefixFilter([{ b: 1 }], ['a'])).toBeNull();
  });
});
