import { describe, expect, it } from 'vitest';
import type { CollectionSnapshot, IndexSnapshot, Snapshot } from '../../src/core/types';
import { collectionOf, snapshotOf } from '../../test/support/fixtures';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import { formatKey, isKeyPrefix, prefixBlockers, shellCollection, specialKind, standIns } from './analyze';
import { planIndexes, prefixFilter, scratchSpecs } from './confirm';
import { analyze } from '../../src/core/runner';
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
  const s = snapshotOf([{ ...c, indexUsageMembers: { read, notRead } }]);
  s.server.topology = 'replicaSet';
  return s;
}
const everywhere = (ops: [number, number, number], since = OLD): [string, number, string][] => members.map((m, i) => [m, ops[i] as number, since]);

function withCache(s: Snapshot, cacheBytes: number | null): Snapshot {
  s.server.cacheBytes = cacheBytes;
  return s;
}

ruleTester(rule, {
  valid: [
    { name: 'every index used, on a standalone', snapshot: snapshotOf([coll([ix('status_1', { status: 1 }), ix('customer_1_date_-1', { customer: 1, date: -1 })])]) },
    { name: 'only the _id index', snapshot: snapshotOf([coll([])]) },
    {
      name: 'an index used only on a secondary is used (sum over members)',
      snapshot: replicaSet(coll([ix('report_1', { report: 1 }, everywhere([0, 0, 4200]))])),
    },
    { name: '{a:1} is not a prefix of {ab:1}', snapshot: snapshotOf([coll([ix('a_1', { a: 1 }), ix('ab_1', { ab: 1 })])]) },
    { name: 'different direction is not the same prefix', snapshot: snapshotOf([coll([ix('a_1', { a: 1 }), ix('a_-1_b_1', { a: -1, b: 1 })])]) },
    { name: 'ten indexes is still within the Compass line', snapshot: snapshotOf([coll(Array.from({ length: 9 }, (_, i) => ix(`f${i}_1`, { [`f${i}`]: 1 })))]) },
    { name: 'indexes well inside the cache', snapshot: withCache(snapshotOf([coll([ix('status_1', { status: 1 })])]), 8 * GB) },
    {
      name: 'hidden, unique, TTL and partial indexes without use are kept, with the reason (info only)',
      allowInfo: true,
      snapshot: snapshotOf([
        coll([
          ix('email_1', { email: 1 }, [['h:27017', 0, OLD]], { unique: true }),
          ix('expires_1', { expiresAt: 1 }, [['h:27017', 0, OLD]], { expireAfterSeconds: 3600 }),
          ix('old_1', { old: 1 }, [['h:27017', 0, OLD]], { hidden: true }),
          ix('open_1', { state: 1 }, [['h:27017', 0, OLD]], { partial: true }),
        ]),
      ]),
    },
    { name: 'counters younger than the warm-up prove nothing (info only)', allowInfo: true, snapshot: replicaSet(coll([ix('status_1', { status: 1 }, members.map((m, i) => [m, 0, i === 2 ? RECENT : OLD]))])) },
    {
      name: 'a 2dsphere index led by a field is not a false redundancy (info only)',
      allowInfo: true,
      snapshot: snapshotOf([coll([ix('city_1', { city: 1 }), ix('city_1_loc_2dsphere', { city: 1, loc: '2dsphere' })])]),
    },
    {
      name: 'different collations: not redundant (info only)',
      allowInfo: true,
      snapshot: snapshotOf([coll([ix('name_1', { name: 1 }, undefined, { collation: { locale: 'fr', strength: 2 } }), ix('name_1_age_1', { name: 1, age: 1 })])]),
    },
    {
      name: 'FerretDB: no $indexStats, no WiredTiger cache (info only)',
      allowInfo: true,
      snapshot: (() => {
        const s = withCache(snapshotOf([coll([ix('status_1', { status: 1 }, null)])]), null);
        s.server.flavor = 'ferretdb';
        s.server.capabilities.indexStats = { supported: false, evidence: 'aggregate $indexStats failed: CommandNotFound (59): $indexStats is not implemented' };
        return s;
      })(),
    },
  ],
  invalid: [
    {
      name: 'unused on a standalone',
      snapshot: snapshotOf([coll([ix('status_1', { status: 1 }, [['h:27017', 0, OLD]])])]),
      expect: [{ messageId: 'unused', severity: 'warn', messageIncludes: 'recorded no use in the last 60 days; it takes 1.0 MB and a write on every insert.' }],
    },
    {
      name: 'unused on every member of a replica set',
      snapshot: replicaSet(coll([ix('status_1', { status: 1 }, everywhere([0, 0, 0]))])),
      expect: [{ messageId: 'unused', severity: 'warn', messageIncludes: 'summed over 3 of 3 members' }],
    },
    {
      name: 'a member not read lowers the verdict to info and is named',
      snapshot: replicaSet(coll([ix('status_1', { status: 1 }, everywhere([0, 0, 0]).slice(0, 2))]), [{ host: 'm3.example.net:27017', reason: 'could not connect: Authentication failed' }]),
      expect: [{ messageId: 'unused', severity: 'info', messageIncludes: 'Not read: m3.example.net:27017 (could not connect: Authentication failed)' }],
    },
    {
      name: 'the mongosh adapter reads one member: said so',
      snapshot: replicaSet(coll([ix('status_1', { status: 1 }, everywhere([0, 0, 0]).slice(0, 1))]), [
        { host: 'm2.example.net:27017', reason: 'the mongosh adapter has one connection and cannot open another' },
        { host: 'm3.example.net:27017', reason: 'the mongosh adapter has one connection and cannot open another' },
      ]),
      expect: [{ messageId: 'unused', severity: 'info', messageIncludes: '1 of 3 members' }],
    },
    {
      name: 'at or below unusedMaxOps counts as unused',
      snapshot: snapshotOf([coll([ix('status_1', { status: 1 }, [['h:27017', 3, OLD]])])]),
      options: { unusedMaxOps: 5 },
      expect: [{ messageId: 'unused', messageIncludes: 'recorded 3 uses' }],
    },
    {
      name: 'kept indexes are listed with why',
      snapshot: snapshotOf([coll([ix('expires_1', { expiresAt: 1 }, [['h:27017', 0, OLD]], { expireAfterSeconds: 60 })])]),
      expect: [{ messageId: 'kept', severity: 'info', messageIncludes: 'TTL: the server deletes expired documents through it, and those deletes do not count as use' }],
    },
    {
      name: 'warm-up: names the member whose counters are young',
      snapshot: replicaSet(coll([ix('status_1', { status: 1 }, members.map((m, i) => [m, 0, i === 2 ? RECENT : OLD]))])),
      expect: [{ messageId: 'tooRecent', messageIncludes: 'counters on m3.example.net:27017 started 2 days ago, within the 7-day warm-up' }],
    },
    {
      name: 'redundant prefix',
      snapshot: snapshotOf([coll([ix('a_1', { a: 1 }), ix('a_1_b_1', { a: 1, b: 1 })])]),
      expect: [{ messageId: 'redundant', severity: 'warn', messageIncludes: 'Index `a_1` { a: 1 } is a prefix of `a_1_b_1` { a: 1, b: 1 }' }],
    },
    {
      name: 'redundant prefix of a longer compound index with descending fields',
      snapshot: snapshotOf([coll([ix('a_1_b_-1', { a: 1, b: -1 }), ix('a_1_b_-1_c_1', { a: 1, b: -1, c: 1 })])]),
      expect: [{ messageId: 'redundant', messageIncludes: 'queries on `a`, `b`' }],
    },
    {
      name: 'a chain of prefixes points each shorter index at the longest one',
      snapshot: snapshotOf([coll([ix('a_1', { a: 1 }), ix('a_1_b_1', { a: 1, b: 1 }), ix('a_1_b_1_c_1', { a: 1, b: 1, c: 1 })])]),
      expect: [
        { messageId: 'redundant', messageIncludes: 'Index `a_1` { a: 1 } is a prefix of `a_1_b_1_c_1`' },
        { messageId: 'redundant', messageIncludes: 'Index `a_1_b_1` { a: 1, b: 1 } is a prefix of `a_1_b_1_c_1`' },
      ],
    },
    {
      name: 'unique prefix is not redundant',
      snapshot: snapshotOf([coll([ix('sku_1', { sku: 1 }, undefined, { unique: true }), ix('sku_1_w_1', { sku: 1, w: 1 })])]),
      expect: [{ messageId: 'notRedundant', severity: 'info', messageIncludes: 'unique: it enforces a constraint' }],
    },
    {
      name: 'text index led by a field: a clear line',
      snapshot: snapshotOf([coll([ix('cat_1', { cat: 1 }), ix('cat_1_body_text', { cat: 1, _fts: 'text', _ftsx: 1 })])]),
      expect: [{ messageId: 'notRedundant', messageIncludes: 'is a text index' }],
    },
    {
      name: 'hashed index led by the same field',
      snapshot: snapshotOf([coll([ix('t_1', { t: 1 }), ix('t_1_h_hashed', { t: 1, h: 'hashed' })])]),
      expect: [{ messageId: 'notRedundant', messageIncludes: 'hashed index' }],
    },
    {
      name: 'more than 10 indexes: warn (Compass)',
      snapshot: snapshotOf([coll(Array.from({ length: 10 }, (_, i) => ix(`f${i}_1`, { [`f${i}`]: 1 })))]),
      expect: [{ messageId: 'tooMany', severity: 'warn', messageIncludes: '11 indexes on this collection, more than 10 (the Compass line)' }],
    },
    {
      name: 'more than 30 indexes: error (Atlas)',
      snapshot: snapshotOf([coll(Array.from({ length: 30 }, (_, i) => ix(`f${i}_1`, { [`f${i}`]: 1 })))]),
      expect: [{ messageId: 'tooMany', severity: 'error', messageIncludes: 'more than 30 (the Atlas line)' }],
    },
    {
      name: 'indexes over half the WiredTiger cache',
      snapshot: withCache(snapshotOf([coll([ix('status_1', { status: 1 })], { stats: { count: 1e8, sizeBytes: 5e10, avgObjSize: 500, storageSizeBytes: 2e10, totalIndexSizeBytes: 3 * GB, nindexes: 2, blockCompressor: 'snappy' } })]), 4 * GB),
      expect: [{ messageId: 'indexesVsCache', severity: 'warn', messageIncludes: '75% of the WiredTiger cache (4.0 GB)' }],
    },
    {
      name: 'sharded: shard secondaries are not read, so info',
      snapshot: (() => {
        const s = snapshotOf([coll([ix('status_1', { status: 1 }, [['shardA-1:27018', 0, OLD], ['shardB-1:27018', 0, OLD]])])]);
        s.server.topology = 'sharded';
        return s;
      })(),
      expect: [{ messageId: 'unused', severity: 'info', messageIncludes: '2 shard primaries (through mongos)' }],
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

  it('hides then drops, on 4.4+', () => {
    const s = snapshotOf([coll([ix('status_1', { status: 1 }, [['h:27017', 0, OLD]])])]);
    const [f] = runRule(rule, s).filter((x) => x.messageId === 'unused');
    expect(f?.recommendation?.commands).toEqual(['db.orders.hideIndex("status_1")', 'db.orders.dropIndex("status_1")']);
    s.server.versionArray = [4, 2, 0, 0];
    const [g] = runRule(rule, s).filter((x) => x.messageId === 'unused');
    expect(g?.recommendation?.commands).toEqual(['db.orders.dropIndex("status_1")']);
  });

  it('writes odd collection names and keys as mongosh needs them', () => {
    expect(shellCollection('order-items')).toBe('db.getCollection("order-items")');
    expect(shellCollection('stats')).toBe('db.getCollection("stats")');
    expect(formatKey({ 'a.b': 1, loc: '2dsphere' })).toBe('{ "a.b": 1, loc: "2dsphere" }');
  });

  it('evidence holds no document values, only names, counts and sizes', () => {
    const findings = runRule(rule, replicaSet(coll([ix('a_1', { a: 1 }, everywhere([0, 0, 0])), ix('a_1_b_1', { a: 1, b: 1 })])));
    expect(findings.map((f) => f.messageId).sort()).toEqual(['redundant', 'unused']);
    for (const f of findings) for (const v of Object.values(f.evidence)) expect(['number', 'string', 'boolean'].includes(typeof v) || v === null).toBe(true);
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

describe('index-usage: what it could not check goes to the notes, not the findings', () => {
  const notesOf = (s: Snapshot, options: Record<string, unknown> = {}) => {
    const out = analyze(s, { rules: { 'index-usage': { options } }, only: ['index-usage'] }, [rule]);
    return { findings: out.findings, notes: out.notes.map((n) => n.message) };
  };

  it('no cache size because serverStatus was refused: said so', () => {
    const s = withCache(snapshotOf([coll([ix('status_1', { status: 1 })])]), null);
    s.server.storageEngine = null; // the engine's name comes from serverStatus too
    const out = notesOf(s);
    expect(out.findings.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(out.notes.join('\n')).toMatch(/index-usage: indexes of the 1 collection checked take 2\.0 MB; not compared with the cache: serverStatus could not be read \(it needs the clusterMonitor role\)/);
  });

  it('a server naming wiredTiger without a wiredTiger section in serverStatus: said as such', () => {
    const out = notesOf(withCache(snapshotOf([coll([ix('status_1', { status: 1 })])]), null));
    expect(out.notes.join('\n')).toContain("not compared with the cache: the server reports storage engine wiredTiger but its serverStatus has no wiredTiger.cache['maximum bytes configured']");
    expect(out.notes.join('\n')).not.toMatch(/clusterMonitor|not WiredTiger/);
  });

  it('index sizes that could not be read are never given as 0 B', () => {
    // SecantusDB 0.7: $collStats storageStats {size: 0, storageSize: 0, totalIndexSize: 0, indexSizes: {_id_: 0, …}}
    // on a collection of 400 documents; collect keeps those index sizes unknown (null), not 0.
    const unsized = coll([ix('status_1', { status: 1 }, undefined, { sizeBytes: null })], { stats: { count: 400, sizeBytes: 0, avgObjSize: 0, storageSizeBytes: 0, totalIndexSizeBytes: 0, nindexes: 2, blockCompressor: null } });
    const ids = unsized.indexes[0];
    if (ids) unsized.indexes[0] = { ...ids, sizeBytes: null };
    const out = notesOf(withCache(snapshotOf([unsized]), null));
    expect(out.notes.join('\n')).toContain('index-usage: index sizes could not be read for 1 collection (orders; see the notes), so they were not compared with the cache.');
    expect(out.notes.join('\n')).not.toMatch(/\b0 B\b/);
    // with some sizes read, the total is a floor and says so
    const other = collectionOf('users', { indexes: [{ name: '_id_', key: { _id: 1 }, sizeBytes: 4096, accesses: null }], stats: { count: 10, sizeBytes: 1000, avgObjSize: 100, storageSizeBytes: 4096, totalIndexSizeBytes: 4096, nindexes: 1, blockCompressor: 'snappy' } });
    const mixed = snapshotOf([unsized, { ...other, db: 'app' }]);
    expect(notesOf(mixed).notes.join('\n')).toContain('index-usage: indexes of the 2 collections checked take at least 4.0 KB, 0% of the WiredTiger cache (8.0 GB); index sizes could not be read for 1 collection (orders; see the notes), so the share may be higher.');
    // the redundant finding does not claim 0 B either
    const r = notesOf(snapshotOf([coll([ix('a_1', { a: 1 }, undefined, { sizeBytes: null }), ix('a_1_b_1', { a: 1, b: 1 })])])).findings.find((f) => f.messageId === 'redundant');
    expect(r?.message).toContain('Dropping it saves its space');
  });

  it('counters without a start date are not read as use: one note, no unused, no warm-up, no kept line', () => {
    // SecantusDB 0.7 answers $indexStats with {name, key, host: "secantus", accesses: {ops: 0, since: null}} and its
    // ops stay 0 after queries; MongoDB's manual documents accesses.since as the date counting started.
    // collect stores the since it got as text ("null").
    const nullSince: [string, number, string][] = [['secantus', 0, 'null']];
    const s = snapshotOf([
      coll([
        ix('status_1', { status: 1 }, nullSince),
        ix('total_1', { total: 1 }, nullSince),
        ix('email_1', { email: 1 }, nullSince, { unique: true }),
        ix('customer_1', { customer: 1 }, [['secantus', 5, 'null']]),
      ]),
    ]);
    for (const options of [{}, { warmupDays: 0 }]) {
      const out = notesOf(s, options);
      expect(out.findings.filter((f) => ['unused', 'tooRecent', 'kept'].includes(f.messageId))).toEqual([]);
      expect(out.notes.filter((n) => n.includes('not judged'))).toEqual([
        'index-usage: index use was not judged for 3 indexes with no recorded use (orders: `status_1`, `total_1`, `email_1`): $indexStats on secantus gave accesses.since null, where MongoDB gives the date its counters started. Without it accesses.ops is not a count over any known time, so none is called unused. Redundant indexes and index counts were still checked.',
      ]);
    }
    // a member with a date and one without: still not judged (the sum would hide the dateless member's share)
    const mixed = replicaSet(coll([ix('status_1', { status: 1 }, [['m1.example.net:27017', 0, OLD], ['m2.example.net:27017', 0, 'undefined']])]));
    const out = notesOf(mixed);
    expect(out.findings.filter((f) => f.messageId === 'unused')).toEqual([]);
    expect(out.notes.join('\n')).toContain('$indexStats on m2.example.net:27017 gave no accesses.since');
  });

  it('counters with MongoDB\'s documented shape are judged as before', () => {
    // $indexStats row as the manual shows it: accesses: { ops: NumberLong(0), since: ISODate(...) }
    const out = notesOf(snapshotOf([coll([ix('status_1', { status: 1 }, [['examplehost.local:27017', 0, OLD]])])]));
    expect(out.findings.map((f) => f.messageId)).toContain('unused');
    expect(out.notes.filter((n) => n.includes('not judged'))).toEqual([]);
  });

  it('a one-member replica set reads as such in the unused line', () => {
    const s = snapshotOf([{ ...coll([ix('status_1', { status: 1 }, [['db0.example.net:27017', 0, OLD]])]), indexUsageMembers: { read: ['db0.example.net:27017'], notRead: [] } }]);
    s.server.topology = 'replicaSet';
    const [f] = notesOf(s).findings.filter((x) => x.messageId === 'unused');
    expect(f?.severity).toBe('warn');
    expect(f?.message).toContain('summed over the only member listed (db0.example.net:27017)');
  });
  it('no $indexStats: said once', () => {
    const s = snapshotOf([coll([ix('status_1', { status: 1 }, null)])]);
    s.server.capabilities.indexStats = { supported: false, evidence: 'aggregate $indexStats failed: Unauthorized (13)' };
    const notes = analyze(s, { only: ['index-usage'] }, [rule]).notes.filter((n) => n.message.includes('$indexStats'));
    expect(notes).toHaveLength(1);
    expect(notes[0]?.message).toContain('Unauthorized (13)');
  });
});
