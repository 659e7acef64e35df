import { describe, expect, it } from 'vitest';
import { type ServerStatusData, serverStatus } from '../../src/collect/server-status';
import { dataOf } from '../../src/core/collector';
import type { CollectionSnapshot, IndexSnapshot, Snapshot } from '../../src/core/types';
import { collectionOf, ran, snapshotOf, withData, withServer } from '../../test/support/fixtures';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import { claimOf, formatKey, isKeyPrefix, prefixBlockers, specialKind, standIns } from './analyze';
import { shellCollection } from '../../src/lib/shell';
import { type IndexAccess, type IndexUsageMembers, indexUsageCollector } from './collect';
import { planIndexes, prefixFilter, scratchSpecs } from './confirm';
import rule from './index';

// collectedAt of the fixtures is 2026-11-01; counters that started 60 days earlier are well past the warm-up.
const OLD = '2026-09-02T00:00:00.000Z';
const RECENT = '2026-10-30T00:00:00.000Z';
const GB = 1024 ** 3;

/** An index as listIndexes + $collStats indexSizes give it (whatever else the core writes, from the fixture's _id
 * index). */
function spec(name: string, key: IndexSnapshot['key'], over: Partial<IndexSnapshot> = {}): IndexSnapshot {
  const base = collectionOf('x').indexes[0] as IndexSnapshot;
  return { ...base, name, key, sizeBytes: 1_048_576, ...over };
}

/** An index and its $indexStats rows (one per member read) as the index-usage collector stores them; null: no row. */
interface Ix {
  index: IndexSnapshot;
  rows: IndexAccess[] | null;
}
function ix(
  name: string,
  key: IndexSnapshot['key'],
  accesses: [string, number, string][] | null = [['m1.example.net:27017', 120, OLD]],
  over: Partial<IndexSnapshot> = {},
): Ix {
  return {
    index: spec(name, key, over),
    rows: accesses && accesses.map(([host, ops, since]) => ({ host, ops, since })),
  };
}

const idIndex = ix('_id_', { _id: 1 }, [['m1.example.net:27017', 0, OLD]]);

/**
 * The orders collection with these indexes (and _id) and, when any index has rows, the collector's data for it (no
 * data at all: the collector read nothing there).
 */
function coll(indexes: Ix[], over: Partial<CollectionSnapshot> = {}, members?: IndexUsageMembers): CollectionSnapshot {
  const all = [idIndex, ...indexes];
  const c = collectionOf('orders', {
    indexes: all.map((i) => i.index),
    stats: {
      count: 100_000,
      sizeBytes: 50_000_000,
      avgObjSize: 500,
      storageSizeBytes: 20_000_000,
      totalIndexSizeBytes: all.length * 1_048_576,
      nindexes: all.length,
      blockCompressor: 'snappy',
    },
    ...over,
  });
  if (indexes.every((i) => i.rows === null)) return c;
  const accesses = Object.fromEntries(all.filter((i) => i.rows !== null).map((i) => [i.index.name, i.rows ?? []]));
  return withData(c, indexUsageCollector, { accesses, ...(members ? { members } : {}) });
}

/** serverStatus as the server-status collector keeps it: WiredTiger with an 8 GB cache unless told otherwise. */
const status = (over: Partial<ServerStatusData> = {}): ServerStatusData => ({
  storageEngine: 'wiredTiger',
  cacheBytes: 8 * GB,
  dataHandles: { active: 120, sweeps: 4, closedBySweep: 10 },
  ...over,
});
/** A snapshot of these collections with serverStatus read. */
const snap = (colls: CollectionSnapshot[], s: ServerStatusData = status()): Snapshot =>
  withData(snapshotOf(colls), serverStatus, s);
const withCache = (s: Snapshot, cacheBytes: number | null): Snapshot =>
  withData(s, serverStatus, { ...(dataOf(serverStatus, s) ?? status()), cacheBytes });

const members = ['m1.example.net:27017', 'm2.example.net:27017', 'm3.example.net:27017'];
/** A replica set of three as the index-usage collector records it: every member read but those in notRead. */
function replicaSet(
  indexes: Ix[],
  notRead: { host: string; reason: string }[] = [],
  extra: Partial<IndexUsageMembers> = {},
): Snapshot {
  const read = members.filter((m) => !notRead.some((n) => n.host === m));
  return withServer(snap([coll(indexes, {}, { read, notRead, ...extra })]), { topology: 'replicaSet' });
}
const everywhere = (ops: [number, number, number], since = OLD): [string, number, string][] =>
  members.map((m, i) => [m, ops[i] as number, since]);

/** The collector's record of the run, with what it could not read (as its notes said). */
const couldNot = (s: Snapshot, ...lines: string[]): Snapshot => ({
  ...s,
  collectors: s.collectors.map((r) => (r.id === indexUsageCollector.id ? { ...r, couldNot: lines } : r)),
});

const orders = { db: 'app', collection: 'orders' };
/** The values every unused line of `status_1` (60 days old, 1 MB) gives its template. */
const status1 = { index: 'status_1', key: '{ status: 1 }', days: '60 days', size: '1 MiB' };
const onIndex = (index: string) => ({ ...orders, index });
const ORDERS = 'db.getSiblingDB("app").getCollection("orders")';
const hideThenDrop = (index: string) => ({
  action: 'hide it, then drop it',
  commands: [`${ORDERS}.hideIndex("${index}")`, `// to undo, if a query slows down: ${ORDERS}.unhideIndex("${index}")`],
  later: [`${ORDERS}.dropIndex("${index}")`],
});
const consolidate = {
  action: 'consolidate',
  commands: [
    `${ORDERS}.aggregate([{ $indexStats: {} }, { $project: { name: 1, "accesses.ops": 1, "accesses.since": 1 } }])`,
  ],
};

/** SecantusDB 0.7: $collStats sizes of 0 on a collection of 400 documents, which collect keeps unknown (null), not
 * 0. */
function unsized(): CollectionSnapshot {
  const c = coll([ix('status_1', { status: 1 }, undefined, { sizeBytes: null })], {
    stats: {
      count: 400,
      sizeBytes: 0,
      avgObjSize: 0,
      storageSizeBytes: 0,
      totalIndexSizeBytes: 0,
      nindexes: 2,
      blockCompressor: null,
    },
  });
  return { ...c, indexes: c.indexes.map((i) => ({ ...i, sizeBytes: null })) };
}

/**
 * SecantusDB 0.7 answers $indexStats with {name, key, host: "secantus", accesses: {ops: 0, since: null}} and its ops
 * stay 0 after queries; MongoDB's manual documents accesses.since as the date counting started. The collector stores
 * the type it got instead of a date ("null").
 */
const nullSince: [string, number, string][] = [['secantus', 0, 'null']];
const noStartDate = snap([
  coll([
    ix('status_1', { status: 1 }, nullSince),
    ix('total_1', { total: 1 }, nullSince),
    ix('email_1', { email: 1 }, nullSince, { unique: true }),
    ix('customer_1', { customer: 1 }, [['secantus', 5, 'null']]),
  ]),
]);
const notJudgedNoStartDate =
  'index-usage: index use was not judged for 3 indexes with no recorded use (orders: `status_1`, `total_1`, ' +
  '`email_1`): $indexStats on secantus gave accesses.since null, where MongoDB gives the date its counters ' +
  'started. Without it accesses.ops is not a count over any known time, so the counters call none of them ' +
  'unused. Redundant indexes and index counts were still checked.';
const ferretRefusal =
  'index use could not be read ($indexStats): CommandNotFound (59): $indexStats is not implemented; this ' +
  'server does not have $indexStats, so index use is not checked on it. The same answer on other collections ' +
  'of this run is not repeated; index-usage names them.';

ruleTester(rule, {
  valid: [
    {
      name: 'every index used, on a standalone',
      snapshot: snap([coll([ix('status_1', { status: 1 }), ix('customer_1_date_-1', { customer: 1, date: -1 })])]),
      notes: [],
    },
    {
      name: 'only the _id index (the collector does not run there): nothing to say',
      snapshot: snap([collectionOf('orders')]),
      notes: [],
    },
    {
      name: 'an index used only on a secondary is used (sum over members)',
      snapshot: replicaSet([ix('report_1', { report: 1 }, everywhere([0, 0, 4200]))]),
      notes: [],
    },
    { name: '{a:1} is not a prefix of {ab:1}', snapshot: snap([coll([ix('a_1', { a: 1 }), ix('ab_1', { ab: 1 })])]) },
    {
      name: 'different direction is not the same prefix',
      snapshot: snap([coll([ix('a_1', { a: 1 }), ix('a_-1_b_1', { a: -1, b: 1 })])]),
    },
    {
      name: 'ten indexes is still within the Compass line',
      snapshot: snap([coll(Array.from({ length: 9 }, (_, i) => ix(`f${i}_1`, { [`f${i}`]: 1 })))]),
    },
    {
      name: 'indexes well inside the cache',
      snapshot: withCache(snap([coll([ix('status_1', { status: 1 })])]), 8 * GB),
      notes: [],
    },
    {
      name: 'FerretDB: $indexStats refused (the collector said why), no WiredTiger cache: both said in the notes',
      snapshot: couldNot(
        withServer(
          snap([coll([ix('status_1', { status: 1 }, null)])], status({ storageEngine: null, cacheBytes: null })),
          { flavor: 'ferretdb' },
        ),
        ferretRefusal,
      ),
      notes: [
        'index-usage: index use was not checked on 1 collection (orders): $indexStats could not be read ' +
          'there (its own line under "Could not check" says why). Redundant indexes, index counts and sizes ' +
          'were still checked.',
        { includes: 'not compared with the cache: this FerretDB server has no WiredTiger cache to compare with' },
      ],
    },
    {
      // never a silent pass, even when the snapshot does not say why
      name: 'no index use stored for a collection with indexes: not checked, and said so',
      snapshot: snap([coll([ix('status_1', { status: 1 }, null)]), collectionOf('users')]),
      notes: [
        'index-usage: index use was not checked on 1 collection (orders): no $indexStats was recorded ' +
          'there. Redundant indexes, index counts and sizes were still checked.',
      ],
    },
    {
      name: 'an index $indexStats gave no row for: not checked, and named',
      snapshot: snap([coll([ix('status_1', { status: 1 }), ix('late_1', { late: 1 }, null)])]),
      notes: [
        'index-usage: index use was not checked for 1 index that $indexStats gave no row for (orders: ' +
          '`late_1`). Redundant indexes, index counts and sizes were still checked.',
      ],
    },
    {
      name: 'a snapshot taken with the rule off: not checked, and said so (never a silent pass)',
      snapshot: ran(snap([coll([ix('status_1', { status: 1 }, [['h:27017', 0, OLD]])])])),
      notes: [{ includes: ['index-usage: not checked', 'collector server-status, index-usage', 'was not collected'] }],
    },
    {
      name: 'no cache size because serverStatus was refused: said so',
      snapshot: snapshotOf([coll([ix('status_1', { status: 1 })])]),
      notes: [
        {
          includes:
            'index-usage: indexes of the 1 collection checked take 2 MiB; not compared with the cache: ' +
            'serverStatus could not be read (it needs the clusterMonitor role)',
        },
      ],
    },
    {
      name: 'a server naming wiredTiger without a wiredTiger section in serverStatus: said as such',
      snapshot: withCache(snap([coll([ix('status_1', { status: 1 })])]), null),
      notes: [
        'index-usage: indexes of the 1 collection checked take 2 MiB; not compared with the cache: the ' +
          "server reports storage engine wiredTiger but its serverStatus has no wiredTiger.cache['maximum " +
          "bytes configured'].",
      ],
    },
    {
      name: 'another storage engine: said as such',
      snapshot: snap([coll([ix('status_1', { status: 1 })])], status({ storageEngine: 'inMemory', cacheBytes: null })),
      notes: [{ includes: 'not compared with the cache: the storage engine is inMemory, not WiredTiger' }],
    },
    {
      name: 'index sizes that could not be read are never given as 0 B',
      snapshot: withCache(snap([unsized()]), null),
      notes: [
        'index-usage: index sizes could not be read for 1 collection (orders: $collStats gave no index ' +
          'sizes for them), so they were not compared with the cache.',
      ],
    },
    {
      name: 'with some index sizes read, the total is a floor and says so',
      snapshot: snap([
        unsized(),
        collectionOf('users', {
          indexes: [spec('_id_', { _id: 1 }, { sizeBytes: 4096 })],
          stats: {
            count: 10,
            sizeBytes: 1000,
            avgObjSize: 100,
            storageSizeBytes: 4096,
            totalIndexSizeBytes: 4096,
            nindexes: 1,
            blockCompressor: 'snappy',
          },
        }),
      ]),
      notes: [
        'index-usage: indexes of the 2 collections checked take at least 4 KiB, 0% of the WiredTiger cache ' +
          '(8 GiB); index sizes could not be read for 1 collection (orders: $collStats gave no index sizes for ' +
          'them), so the share may be higher.',
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
      snapshot: replicaSet(
        [
          ix('status_1', { status: 1 }, [
            ['m1.example.net:27017', 0, OLD],
            ['m2.example.net:27017', 0, 'undefined'],
          ]),
        ],
        [{ host: 'm3.example.net:27017', reason: 'could not connect: Authentication failed' }],
      ),
      notes: [{ includes: '$indexStats on m2.example.net:27017 gave no accesses.since' }],
    },
    {
      name: 'a member giving a since that is not a date: the type is named, never a value',
      snapshot: snap([coll([ix('status_1', { status: 1 }, [['h:27017', 0, 'string']])])]),
      notes: [{ includes: '$indexStats on h:27017 gave an accesses.since of BSON type string' }],
    },
  ],
  invalid: [
    {
      name: 'unused on a standalone',
      snapshot: snap([coll([ix('status_1', { status: 1 }, [['h:27017', 0, OLD]])])]),
      notes: [],
      findings: [
        {
          messageId: 'unused',
          severity: 'warn',
          target: onIndex('status_1'),
          data: status1,
          message:
            'Index `status_1` { status: 1 } recorded no use in the last 60 days; it takes space (index ' +
            'size: 1 MiB) and a write on every insert.',
          evidence: {
            ops: 0,
            windowDays: 60,
            membersRead: 1,
            allMembersRead: true,
            sizeBytes: 1_048_576,
            key: '{ status: 1 }',
          },
          // hides then drops, on 4.4+
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'an unused index of unknown size says so, never 0 B',
      snapshot: withCache(
        snap([coll([ix('status_1', { status: 1 }, [['h:27017', 0, OLD]], { sizeBytes: null })])]),
        null,
      ),
      notes: [{ includes: 'not compared with the cache' }],
      findings: [
        {
          messageId: 'unused',
          severity: 'warn',
          target: onIndex('status_1'),
          data: { ...status1, size: 'unknown' },
          messageIncludes: '(index size: unknown)',
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'before 4.4 there is no hideIndex: drop only',
      snapshot: withServer(snap([coll([ix('status_1', { status: 1 }, [['h:27017', 0, OLD]])])]), { version: '4.2.0' }),
      findings: [
        {
          messageId: 'unused',
          severity: 'warn',
          target: onIndex('status_1'),
          messageIncludes: 'recorded no use in the last 60 days',
          recommendation: {
            action: 'drop it',
            reasonIncludes: 'This server has no `hideIndex` (MongoDB 4.4+ has it',
            commands: [`${ORDERS}.dropIndex("status_1")`],
            later: null,
          },
        },
      ],
    },
    {
      name: 'unused on every member of a replica set',
      snapshot: replicaSet([ix('status_1', { status: 1 }, everywhere([0, 0, 0]))]),
      findings: [
        {
          messageId: 'unusedOnMembers',
          severity: 'warn',
          target: onIndex('status_1'),
          data: { ...status1, read: 3, members: 3 },
          message:
            'Index `status_1` { status: 1 } recorded no use in the last 60 days, summed over 3 of 3 ' +
            'members; it takes space (index size: 1 MiB) and a write on every insert.',
          evidence: { membersRead: 3, allMembersRead: true },
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'a member not read lowers the verdict to info and is named',
      snapshot: replicaSet(
        [ix('status_1', { status: 1 }, everywhere([0, 0, 0]).slice(0, 2))],
        [{ host: 'm3.example.net:27017', reason: 'could not connect: Authentication failed' }],
      ),
      findings: [
        {
          messageId: 'unusedMembersNotRead',
          severity: 'info',
          target: onIndex('status_1'),
          data: {
            ...status1,
            read: 2,
            members: 3,
            notRead: 'm3.example.net:27017 (could not connect: Authentication failed)',
          },
          message:
            'Index `status_1` { status: 1 } recorded no use in the last 60 days, summed over 2 of 3 ' +
            'members; it takes space (index size: 1 MiB) and a write on every insert. Not read: ' +
            'm3.example.net:27017 (could not connect: Authentication failed); an index used only there would ' +
            'look unused here.',
          evidence: { allMembersRead: false },
          recommendation: {
            ...hideThenDrop('status_1'),
            reasonIncludes: 'and only after checking the members not read',
          },
        },
      ],
    },
    {
      name: 'the mongosh adapter reads one member: said so',
      snapshot: replicaSet(
        [ix('status_1', { status: 1 }, everywhere([0, 0, 0]).slice(0, 1))],
        [
          { host: 'm2.example.net:27017', reason: 'the mongosh adapter has one connection and cannot open another' },
          { host: 'm3.example.net:27017', reason: 'the mongosh adapter has one connection and cannot open another' },
        ],
      ),
      findings: [
        {
          messageId: 'unusedMembersNotRead',
          severity: 'info',
          target: onIndex('status_1'),
          messageIncludes: [
            'summed over 1 of 3 members',
            'Not read: m2.example.net:27017 (the mongosh adapter has one connection and cannot open ' +
              'another); m3.example.net:27017',
          ],
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'a one-member replica set reads as such in the unused line',
      snapshot: withServer(
        snap([
          coll(
            [ix('status_1', { status: 1 }, [['db0.example.net:27017', 0, OLD]])],
            {},
            { read: ['db0.example.net:27017'], notRead: [] },
          ),
        ]),
        { topology: 'replicaSet' },
      ),
      findings: [
        {
          messageId: 'unusedOnOnlyMember',
          severity: 'warn',
          target: onIndex('status_1'),
          data: { ...status1, host: 'db0.example.net:27017' },
          messageIncludes: 'summed over the only member listed (db0.example.net:27017)',
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'the member list could not be read: the connected member only, said why',
      snapshot: withServer(
        snap([
          coll(
            [ix('status_1', { status: 1 }, [['db0.example.net:27017', 0, OLD]])],
            {},
            { read: [], notRead: [], listError: 'hello failed: HostUnreachable (6): connection reset' },
          ),
        ]),
        { topology: 'replicaSet' },
      ),
      findings: [
        {
          messageId: 'unusedConnectedOnly',
          severity: 'info',
          target: onIndex('status_1'),
          message:
            'Index `status_1` { status: 1 } recorded no use in the last 60 days, read on the connected ' +
            'member only; it takes space (index size: 1 MiB) and a write on every insert. The other members ' +
            'were not read (hello failed: HostUnreachable (6): connection reset); an index used only there ' +
            'would look unused here.',
          evidence: { allMembersRead: false },
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'hidden members that could not be listed: one note, the verdict stands',
      snapshot: replicaSet([ix('status_1', { status: 1 }, everywhere([0, 0, 0]))], [], {
        hiddenUnknown:
          'hello does not list them and replSetGetConfig was not answered (Unauthorized (13): not ' +
          'authorized on admin to execute command { replSetGetConfig: 1 })',
      }),
      notes: [
        'index-usage: hidden replica-set members, if any, were not read: hello does not list them and ' +
          'replSetGetConfig was not answered (Unauthorized (13): not authorized on admin to execute command { ' +
          'replSetGetConfig: 1 }). They take no reads through read preferences, so the unused verdicts stand.',
      ],
      findings: [
        {
          messageId: 'unusedOnMembers',
          severity: 'warn',
          target: onIndex('status_1'),
          evidence: { allMembersRead: true },
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: "counters with MongoDB's documented shape are judged as before",
      // $indexStats row as the manual shows it: accesses: { ops: NumberLong(0), since: ISODate(...) }
      snapshot: snap([coll([ix('status_1', { status: 1 }, [['examplehost.local:27017', 0, OLD]])])]),
      notes: [],
      findings: [
        {
          messageId: 'unused',
          severity: 'warn',
          target: onIndex('status_1'),
          messageIncludes: 'recorded no use in the last 60 days',
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'at or below unusedMaxOps counts as unused, and the line says by how much',
      snapshot: snap([coll([ix('status_1', { status: 1 }, [['h:27017', 1, OLD]])])]),
      options: { unusedMaxOps: 5 },
      findings: [
        {
          messageId: 'rarelyUsed',
          severity: 'warn',
          target: onIndex('status_1'),
          data: { ...status1, ops: 1, maxOps: 5 },
          message:
            'Index `status_1` { status: 1 } recorded no more use than unusedMaxOps allows (1, at most 5) in ' +
            'the last 60 days; it takes space (index size: 1 MiB) and a write on every insert.',
          evidence: { ops: 1 },
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'rarely used on a replica set with a member not read',
      snapshot: replicaSet(
        [ix('status_1', { status: 1 }, everywhere([1, 2, 0]).slice(0, 2))],
        [{ host: 'm3.example.net:27017', reason: 'could not connect: Authentication failed' }],
      ),
      options: { unusedMaxOps: 5 },
      findings: [
        {
          messageId: 'rarelyUsedMembersNotRead',
          severity: 'info',
          target: onIndex('status_1'),
          data: {
            ...status1,
            ops: 3,
            maxOps: 5,
            read: 2,
            members: 3,
            notRead: 'm3.example.net:27017 (could not connect: Authentication failed)',
          },
          messageIncludes: '(3, at most 5) in the last 60 days, summed over 2 of 3 members',
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
    {
      name: 'kept indexes are listed with why',
      snapshot: snap([coll([ix('expires_1', { expiresAt: 1 }, [['h:27017', 0, OLD]], { expireAfterSeconds: 60 })])]),
      findings: [
        {
          messageId: 'kept',
          severity: 'info',
          target: orders,
          message:
            'No recorded use, but not called unused: `expires_1` (TTL: the server deletes expired documents ' +
            'through it, and those deletes do not count as use).',
          evidence: { indexes: 1 },
          recommendation: null,
        },
      ],
    },
    {
      name: 'hidden, unique, TTL and partial indexes without use are kept, with the reason (one info line)',
      snapshot: snap([
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
            'No recorded use, but not called unused: `email_1` (unique: it enforces a constraint even when ' +
            'no query reads it); `expires_1` (TTL: the server deletes expired documents through it, and ' +
            'those deletes do not count as use); `old_1` (hidden: the planner cannot use it, so no use is ' +
            'expected; drop it once nothing has slowed down since it was hidden); `open_1` (partial: it ' +
            'serves only queries that match its filter, which may run rarely (month-end jobs); check before ' +
            'dropping).',
          evidence: { indexes: 4 },
        },
      ],
    },
    {
      // counters younger than the warm-up prove nothing: an info line, never unused
      name: 'warm-up: names the member whose counters are young',
      snapshot: replicaSet([
        ix(
          'status_1',
          { status: 1 },
          members.map((m, i) => [m, 0, i === 2 ? RECENT : OLD]),
        ),
      ]),
      findings: [
        {
          messageId: 'tooRecent',
          severity: 'info',
          target: orders,
          data: { list: '`status_1`', host: 'm3.example.net:27017', age: '2 days', warmup: 7 },
          message:
            'Too early to call `status_1` unused: no use recorded, but the counters on m3.example.net:27017 ' +
            'started 2 days ago, within the 7-day warm-up ($indexStats restarts with the server and when an ' +
            'index is built).',
          evidence: { indexes: 1, youngestDays: 2, warmupDays: 7 },
        },
      ],
    },
    {
      name: 'warm-up on a server whose rows name no host; one hour is singular',
      snapshot: snap([coll([ix('status_1', { status: 1 }, [['', 0, '2026-10-31T23:00:00.000Z']])])]),
      findings: [
        {
          messageId: 'tooRecentUnnamed',
          severity: 'info',
          target: orders,
          message:
            'Too early to call `status_1` unused: no use recorded, but the youngest counters started 1 hour ' +
            'ago, within the 7-day warm-up ($indexStats restarts with the server and when an index is ' +
            'built).',
        },
      ],
    },
    {
      name: 'redundant prefix',
      snapshot: snap([coll([ix('a_1', { a: 1 }), ix('a_1_b_1', { a: 1, b: 1 })])]),
      findings: [
        {
          messageId: 'redundant',
          severity: 'warn',
          target: onIndex('a_1'),
          message:
            'Index `a_1` { a: 1 } is a prefix of `a_1_b_1` { a: 1, b: 1 } with the same options: queries on ' +
            '`a` can use `a_1_b_1`. Dropping it saves 1 MiB and one index write per insert.',
          evidence: { longer: 'a_1_b_1', longerKey: '{ a: 1, b: 1 }', ops: 120, longerOps: 120 },
          recommendation: {
            ...hideThenDrop('a_1'),
            reasonIncludes: [
              `Hide it first: \`${ORDERS}.hideIndex("a_1")\` keeps it maintained but invisible to the planner`,
              '`unhideIndex` brings it back',
            ],
          },
        },
      ],
    },
    {
      name: 'redundant without index use read: found all the same, use unknown in the evidence',
      snapshot: snap([coll([ix('a_1', { a: 1 }, null), ix('a_1_b_1', { a: 1, b: 1 }, null)])]),
      notes: [{ includes: 'index use was not checked on 1 collection (orders)' }],
      findings: [
        {
          messageId: 'redundant',
          severity: 'warn',
          target: onIndex('a_1'),
          evidence: { ops: null, longerOps: null },
          recommendation: hideThenDrop('a_1'),
        },
      ],
    },
    {
      name: 'redundant prefix of a longer compound index with descending fields',
      snapshot: snap([coll([ix('a_1_b_-1', { a: 1, b: -1 }), ix('a_1_b_-1_c_1', { a: 1, b: -1, c: 1 })])]),
      findings: [
        {
          messageId: 'redundant',
          severity: 'warn',
          target: onIndex('a_1_b_-1'),
          messageIncludes: 'queries on `a`, `b` can use `a_1_b_-1_c_1`',
          recommendation: hideThenDrop('a_1_b_-1'),
        },
      ],
    },
    {
      name: 'a chain of prefixes points each shorter index at the longest one',
      snapshot: snap([
        coll([ix('a_1', { a: 1 }), ix('a_1_b_1', { a: 1, b: 1 }), ix('a_1_b_1_c_1', { a: 1, b: 1, c: 1 })]),
      ]),
      findings: [
        {
          messageId: 'redundant',
          severity: 'warn',
          target: onIndex('a_1'),
          messageIncludes: 'Index `a_1` { a: 1 } is a prefix of `a_1_b_1_c_1`',
          recommendation: hideThenDrop('a_1'),
        },
        {
          messageId: 'redundant',
          severity: 'warn',
          target: onIndex('a_1_b_1'),
          messageIncludes: 'Index `a_1_b_1` { a: 1, b: 1 } is a prefix of `a_1_b_1_c_1`',
          recommendation: hideThenDrop('a_1_b_1'),
        },
      ],
    },
    {
      name: 'an index with the very key of another reads "duplicates", not "is a prefix of"',
      snapshot: snap([coll([ix('status_1', { status: 1 }), ix('status_dup', { status: 1 })])]),
      findings: [
        {
          messageId: 'duplicate',
          severity: 'warn',
          target: onIndex('status_dup'),
          messageIncludes: 'Index `status_dup` { status: 1 } duplicates `status_1` { status: 1 } with the same options',
          recommendation: hideThenDrop('status_dup'),
        },
      ],
    },
    {
      name: 'a redundant index of unknown size does not claim 0 B',
      snapshot: snap([coll([ix('a_1', { a: 1 }, undefined, { sizeBytes: null }), ix('a_1_b_1', { a: 1, b: 1 })])]),
      findings: [
        {
          messageId: 'redundantUnsized',
          severity: 'warn',
          target: onIndex('a_1'),
          messageIncludes: 'Dropping it saves its space and one index write per insert.',
          evidence: { sizeBytes: null },
          recommendation: hideThenDrop('a_1'),
        },
      ],
    },
    {
      name: 'unused and redundant on a replica set: evidence holds names, counts and sizes only',
      snapshot: replicaSet([ix('a_1', { a: 1 }, everywhere([0, 0, 0])), ix('a_1_b_1', { a: 1, b: 1 })]),
      findings: [
        {
          messageId: 'unusedOnMembers',
          severity: 'warn',
          target: onIndex('a_1'),
          messageIncludes: 'summed over 3 of 3 members',
          evidence: { ops: 0, membersRead: 3, key: '{ a: 1 }' },
          recommendation: hideThenDrop('a_1'),
        },
        {
          messageId: 'redundant',
          severity: 'warn',
          target: onIndex('a_1'),
          messageIncludes: 'is a prefix of `a_1_b_1`',
          evidence: { ops: 0, longerOps: 120 },
          recommendation: hideThenDrop('a_1'),
        },
      ],
    },
    {
      name: 'unique prefix is not redundant',
      snapshot: snap([coll([ix('sku_1', { sku: 1 }, undefined, { unique: true }), ix('sku_1_w_1', { sku: 1, w: 1 })])]),
      findings: [
        {
          messageId: 'notRedundant',
          severity: 'info',
          target: onIndex('sku_1'),
          message:
            'Index `sku_1` { sku: 1 } is a prefix of `sku_1_w_1` { sku: 1, w: 1 } but not redundant: ' +
            '`sku_1` is unique: it enforces a constraint the longer index does not.',
          evidence: { longer: 'sku_1_w_1', reasons: 1 },
          recommendation: null,
        },
      ],
    },
    {
      name: 'text index led by a field: a clear line',
      snapshot: snap([coll([ix('cat_1', { cat: 1 }), ix('cat_1_body_text', { cat: 1, _fts: 'text', _ftsx: 1 })])]),
      findings: [
        {
          messageId: 'notRedundant',
          severity: 'info',
          target: onIndex('cat_1'),
          messageIncludes:
            'but not redundant: `cat_1_body_text` is a text index, which stores other keys than a B-tree index.',
        },
      ],
    },
    {
      name: 'hashed index led by the same field',
      snapshot: snap([coll([ix('t_1', { t: 1 }), ix('t_1_h_hashed', { t: 1, h: 'hashed' })])]),
      findings: [
        {
          messageId: 'notRedundant',
          severity: 'info',
          target: onIndex('t_1'),
          messageIncludes: '`t_1_h_hashed` is a hashed index',
        },
      ],
    },
    {
      name: 'a 2dsphere index led by a field is not a false redundancy (info only)',
      snapshot: snap([coll([ix('city_1', { city: 1 }), ix('city_1_loc_2dsphere', { city: 1, loc: '2dsphere' })])]),
      findings: [
        {
          messageId: 'notRedundant',
          severity: 'info',
          target: onIndex('city_1'),
          messageIncludes:
            'but not redundant: `city_1_loc_2dsphere` is a 2dsphere index, which stores other keys than a ' +
            'B-tree index and skips documents without the geo field.',
        },
      ],
    },
    {
      name: 'different collations: not redundant (info only)',
      snapshot: snap([
        coll([
          ix('name_1', { name: 1 }, undefined, { collation: { locale: 'fr', strength: 2 } }),
          ix('name_1_age_1', { name: 1, age: 1 }),
        ]),
      ]),
      findings: [
        {
          messageId: 'notRedundant',
          severity: 'info',
          target: onIndex('name_1'),
          messageIncludes:
            'but not redundant: their collations differ, and a query uses an index only with a matching collation.',
        },
      ],
    },
    {
      name: 'more than 10 indexes: warn (Compass)',
      snapshot: snap([coll(Array.from({ length: 10 }, (_, i) => ix(`f${i}_1`, { [`f${i}`]: 1 })))]),
      findings: [
        {
          messageId: 'tooMany',
          severity: 'warn',
          target: orders,
          data: { count: 11, limit: 10, source: 'Compass' },
          message:
            '11 indexes on this collection, more than 10 (the Compass line): every insert writes an entry ' +
            'in each, and each is its own WiredTiger table (a file and a data handle).',
          evidence: { indexes: 11, limit: 10 },
          recommendation: consolidate,
        },
      ],
    },
    {
      name: 'more than 30 indexes: error (Atlas)',
      snapshot: snap([coll(Array.from({ length: 30 }, (_, i) => ix(`f${i}_1`, { [`f${i}`]: 1 })))]),
      findings: [
        {
          messageId: 'tooMany',
          severity: 'error',
          target: orders,
          messageIncludes: '31 indexes on this collection, more than 30 (the Atlas line)',
          evidence: { indexes: 31, limit: 30 },
          recommendation: consolidate,
        },
      ],
    },
    {
      name: 'indexes over half the WiredTiger cache',
      snapshot: withCache(
        snap([
          coll([ix('status_1', { status: 1 })], {
            stats: {
              count: 1e8,
              sizeBytes: 5e10,
              avgObjSize: 500,
              storageSizeBytes: 2e10,
              totalIndexSizeBytes: 3 * GB,
              nindexes: 2,
              blockCompressor: 'snappy',
            },
          }),
        ]),
        4 * GB,
      ),
      findings: [
        {
          messageId: 'indexesVsCache',
          severity: 'warn',
          target: { db: 'app' },
          data: { size: '3 GiB', share: '75%', cache: '4 GiB', limit: '50%' },
          message:
            'Indexes of the collections checked in this database take 3 GiB, 75% of the WiredTiger cache (4 ' +
            'GiB); past 50%, documents compete with indexes for the cache and reads start going to disk.',
          evidence: {
            totalIndexBytes: 3 * GB,
            cacheBytes: 4 * GB,
            share: 0.75,
            collections: 1,
            collectionsWithUnknownIndexSizes: 0,
          },
          recommendation: { action: 'shrink the index set, or grow the cache' },
        },
      ],
    },
    {
      name:
        "two databases each under the cache share but over it together (the cache is the server's): one " +
        'finding, on the database holding more',
      snapshot: (() => {
        const stats = (bytes: number) => ({
          stats: {
            count: 1e7,
            sizeBytes: 5e9,
            avgObjSize: 500,
            storageSizeBytes: 2e9,
            totalIndexSizeBytes: bytes,
            nindexes: 2,
            blockCompressor: 'snappy',
          },
        });
        const a = coll([ix('status_1', { status: 1 })], stats(1.25 * GB));
        const b = { ...coll([ix('status_1', { status: 1 })], stats(1.75 * GB)), db: 'billing' };
        const s = withCache(snap([a]), 4 * GB);
        return {
          ...s,
          databases: [
            { name: 'app', collections: [a] },
            { name: 'billing', collections: [b] },
          ],
        };
      })(),
      findings: [
        {
          messageId: 'indexesVsCacheDatabases',
          severity: 'warn',
          target: { db: 'billing' },
          message:
            'Indexes of the collections checked in 2 databases take 3 GiB together, 75% of the WiredTiger ' +
            'cache (4 GiB) they share, the most in `billing` (1.75 GiB); past 50%, documents compete with ' +
            'indexes for the cache and reads start going to disk.',
          evidence: { totalIndexBytes: 3 * GB, share: 0.75, databases: 2, largestDatabaseIndexBytes: 1.75 * GB },
          recommendation: { action: 'shrink the index set, or grow the cache' },
        },
      ],
    },
    {
      name: 'indexes over the cache share with some sizes unknown: a floor, said so',
      snapshot: withCache(
        snap(
          [
            coll([ix('status_1', { status: 1 })], {
              stats: {
                count: 1e8,
                sizeBytes: 5e10,
                avgObjSize: 500,
                storageSizeBytes: 2e10,
                totalIndexSizeBytes: 3 * GB,
                nindexes: 2,
                blockCompressor: 'snappy',
              },
            }),
            unsized(),
          ].map((c, i) => ({ ...c, name: i === 0 ? 'orders' : 'carts' })),
        ),
        4 * GB,
      ),
      findings: [
        {
          messageId: 'indexesVsCacheAtLeast',
          severity: 'warn',
          target: { db: 'app' },
          message:
            'Indexes of the collections checked in this database take at least 3 GiB, at least 75% of the ' +
            'WiredTiger cache (4 GiB), with the index sizes of 1 of them unknown; past 50%, documents ' +
            'compete with indexes for the cache and reads start going to disk.',
          evidence: { collections: 2, collectionsWithUnknownIndexSizes: 1 },
          recommendation: { action: 'shrink the index set, or grow the cache' },
        },
      ],
    },
    {
      name: 'sharded: shard secondaries are not read, so info',
      snapshot: withServer(
        snap([
          coll([
            ix('status_1', { status: 1 }, [
              ['shardA-1:27018', 0, OLD],
              ['shardB-1:27018', 0, OLD],
            ]),
          ]),
        ]),
        { topology: 'sharded' },
      ),
      findings: [
        {
          messageId: 'unusedSharded',
          severity: 'info',
          target: onIndex('status_1'),
          data: { ...status1, primaries: 2 },
          messageIncludes: [
            'summed over the shard primaries mongos reached (2)',
            'Shard secondaries are not read through mongos',
          ],
          recommendation: hideThenDrop('status_1'),
        },
      ],
    },
  ],
});

describe('index-usage helpers', () => {
  it('prefix compares whole field names, types and directions', () => {
    expect(isKeyPrefix(spec('a', { a: 1 }), spec('b', { a: 1, b: 1 }))).toBe(true);
    expect(isKeyPrefix(spec('a', { a: 1 }), spec('b', { ab: 1 }))).toBe(false);
    expect(isKeyPrefix(spec('a', { a: 1 }), spec('b', { b: 1, a: 1 }))).toBe(false);
    expect(isKeyPrefix(spec('a', { a: 1 }), spec('b', { a: 2, b: 1 }))).toBe(true);
    expect(isKeyPrefix(spec('a', { a: 1 }), spec('b', { a: 'hashed' }))).toBe(false);
  });

  it('stand-ins are the compatible indexes led by the same fields', () => {
    const c = collectionOf('orders', {
      indexes: [
        spec('_id_', { _id: 1 }),
        spec('a_1', { a: 1 }),
        spec('a_1_b_1', { a: 1, b: 1 }),
        spec('a_1_c_1', { a: 1, c: 1 }, { collation: { locale: 'fr' } }),
      ],
    });
    expect(standIns(c, c.indexes[1] as IndexSnapshot)).toEqual(['a_1_b_1']);
  });

  it('names special kinds, wildcard included', () => {
    expect(specialKind(spec('w', { '$**': 1 }))).toBe('wildcard');
    expect(specialKind(spec('w', { 'attrs.$**': 1 }))).toBe('wildcard');
    expect(specialKind(spec('t', { _fts: 'text', _ftsx: 1 }))).toBe('text');
    expect(specialKind(spec('g', { loc: '2dsphere' }))).toBe('2dsphere');
    expect(specialKind(spec('b', { a: 1, b: -1 }))).toBeNull();
  });

  it('lists every reason two prefix-related indexes are not interchangeable', () => {
    const why = prefixBlockers(
      spec('a', { a: 1 }, { sparse: true, expireAfterSeconds: 1 }),
      spec('b', { a: 1, b: 1 }, { hidden: true }),
    );
    expect(why.join(' | ')).toMatch(/sparse.*TTL.*hidden/);
  });

  it('writes odd collection names and keys as mongosh needs them', () => {
    expect(shellCollection('app', 'order-items')).toBe('db.getSiblingDB("app").getCollection("order-items")');
    expect(shellCollection('app', 'stats')).toBe('db.getSiblingDB("app").getCollection("stats")');
    expect(formatKey({ 'a.b': 1, loc: '2dsphere' })).toBe('{ "a.b": 1, loc: "2dsphere" }');
  });

  it('every message id names the claim its confirmation tests, or none', () => {
    const claims = Object.fromEntries(Object.keys(rule.meta.messages).map((id) => [id, claimOf(id)]));
    expect(claims).toEqual({
      unused: 'unused',
      unusedOnMembers: 'unused',
      unusedOnOnlyMember: 'unused',
      unusedMembersNotRead: 'unused',
      unusedConnectedOnly: 'unused',
      unusedSharded: 'unused',
      rarelyUsed: 'unused',
      rarelyUsedOnMembers: 'unused',
      rarelyUsedOnOnlyMember: 'unused',
      rarelyUsedMembersNotRead: 'unused',
      rarelyUsedConnectedOnly: 'unused',
      rarelyUsedSharded: 'unused',
      unusedByWorkload: 'unused',
      unusedByWorkloadOne: 'unused',
      kept: null,
      keptByWorkload: null,
      tooRecent: null,
      tooRecentUnnamed: null,
      redundant: 'redundant',
      redundantUnsized: 'redundant',
      duplicate: 'redundant',
      duplicateUnsized: 'redundant',
      notRedundant: null,
      notRedundantSameKey: null,
      tooMany: 'tooMany',
      indexesVsCache: 'indexesVsCache',
      indexesVsCacheAtLeast: 'indexesVsCache',
      indexesVsCacheDatabases: 'indexesVsCache',
      indexesVsCacheDatabasesAtLeast: 'indexesVsCache',
    });
  });
});

describe('index-usage confirmation helpers', () => {
  it('rebuilds index specs for scratch: no unique, no TTL, no _id', () => {
    // listIndexes output as documented (v, key, name, options)
    const { specs, changes } = scratchSpecs([
      { v: 2, key: { _id: 1 }, name: '_id_' },
      { v: 2, key: { email: 1 }, name: 'email_1', unique: true },
      { v: 2, key: { at: 1 }, name: 'at_1', expireAfterSeconds: 3600 },
      {
        v: 2,
        key: { s: 1 },
        name: 's_1',
        partialFilterExpression: { s: { $exists: true } },
        collation: { locale: 'en', strength: 2 },
      },
    ]);
    expect(specs).toEqual([
      { key: { email: 1 }, name: 'email_1' },
      { key: { at: 1 }, name: 'at_1' },
      {
        key: { s: 1 },
        name: 's_1',
        partialFilterExpression: { s: { $exists: true } },
        collation: { locale: 'en', strength: 2 },
      },
    ]);
    expect(changes).toHaveLength(2);
  });

  it('finds the index in classic, slot-based and sharded explain output', () => {
    // queryPlanner.winningPlan shapes from the explain results page
    const classic = {
      stage: 'FETCH',
      inputStage: { stage: 'IXSCAN', keyPattern: { a: 1, b: 1 }, indexName: 'a_1_b_1' },
    };
    const sbe = {
      queryPlan: {
        stage: 'FETCH',
        planNodeId: 2,
        inputStage: { stage: 'IXSCAN', planNodeId: 1, indexName: 'a_1_b_1' },
      },
      slotBasedPlan: { slots: '', stages: '' },
    };
    const sharded = { stage: 'SINGLE_SHARD', shards: [{ shardName: 's0', winningPlan: classic }] };
    for (const p of [classic, sbe, sharded]) expect(planIndexes(p)).toEqual({ indexes: ['a_1_b_1'], collscan: false });
    expect(planIndexes({ stage: 'COLLSCAN', direction: 'forward' })).toEqual({ indexes: [], collscan: true });
  });

  it('builds an equality filter on the prefix from a document with single values', () => {
    expect(
      prefixFilter(
        [
          { a: [1, 2], b: 1 },
          { a: 3, b: { c: 4 } },
        ],
        ['a', 'b.c'],
      ),
    ).toEqual({ a: 3, 'b.c': 4 });
    expect(prefixFilter([{ b: 1 }], ['a'])).toBeNull();
  });
});

describe('each finding links to the page that explains it', () => {
  it(
    'a redundant index links to compound index prefixes, an unused one to removing unnecessary indexes, the ' +
      'cache share to indexes in RAM',
    () => {
      const redundant = runRule(rule, snap([coll([ix('a_1', { a: 1 }), ix('a_1_b_1', { a: 1, b: 1 })])]));
      expect(redundant.map((f) => [f.messageId, f.docsUrl])).toEqual([
        ['redundant', 'https://www.mongodb.com/docs/manual/core/indexes/index-types/index-compound/'],
      ]);
      const unused = runRule(rule, snap([coll([ix('status_1', { status: 1 }, [['h:27017', 0, OLD]])])]));
      expect(unused.map((f) => [f.messageId, f.docsUrl])).toEqual([
        ['unused', 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/unnecessary-indexes/'],
      ]);
      const cache = runRule(
        rule,
        withCache(
          snap([
            coll([ix('status_1', { status: 1 })], {
              stats: {
                count: 1e8,
                sizeBytes: 5e10,
                avgObjSize: 500,
                storageSizeBytes: 2e10,
                totalIndexSizeBytes: 3 * GB,
                nindexes: 2,
                blockCompressor: 'snappy',
              },
            }),
          ]),
          4 * GB,
        ),
      );
      expect(cache.find((f) => f.messageId === 'indexesVsCache')?.docsUrl).toBe(
        'https://www.mongodb.com/docs/manual/tutorial/ensure-indexes-fit-ram/',
      );
      // the counters' own findings keep the rule's page, $indexStats
      expect(rule.meta.docsUrl).toBe('https://www.mongodb.com/docs/manual/reference/operator/aggregation/indexStats/');
    },
  );
});
