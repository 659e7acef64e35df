/*
 * The product over response shapes taken from MongoDB's documentation, jstests and server source
 * (test/fixtures/mongodb/: each file's header cites its source). Shapes neither test server gives.
 */
import { describe, expect, it } from 'vitest';
import { SAMPLE_DUPLICATE_CODE, isSampleDuplicateError, onceMoreOn28799 } from '../src/collect/sample';
import type { Doc } from '../src/adapters/types';
import type { CollectionSnapshot, IndexSnapshot, Snapshot } from '../src/core/types';
import { indexFromListIndexes, isIdIndex } from '../src/lib/index-keys';
import { secondaryIndexPenalty, timeIndex } from '../rules/id-pattern/analyze';
import { naturalOrder } from '../rules/id-pattern/collect';
import { indexUsage } from '../rules/index-usage/analyze';
import { type IndexAccess, indexUsageCollector, mergeMemberStats } from '../rules/index-usage/collect';
import indexUsageRule from '../rules/index-usage/index';
import * as sample28799 from './fixtures/mongodb/error-sample-28799';
import * as statsMongos from './fixtures/mongodb/index-stats-mongos';
import * as statsMember from './fixtures/mongodb/index-stats-replica-member';
import * as clustered from './fixtures/mongodb/list-indexes-clustered';
import * as legacy from './fixtures/mongodb/list-indexes-legacy-numeric-options';
import { collectionOf, snapshotOf, withData, withServer } from './support/fixtures';
import { runRuleWithNotes } from './support/rule-tester';

/** listIndexes entries as the core collect keeps them (src/collect/index.ts reduces each with indexFromListIndexes). */
function indexesOf(listed: readonly Doc[]): IndexSnapshot[] {
  return listed.map((spec) => ({ ...indexFromListIndexes(spec), sizeBytes: 1_048_576 }));
}

/** $indexStats rows as the index-usage collector stores them, for the collection's indexes. */
function accessesFrom(indexes: readonly IndexSnapshot[], rows: readonly Doc[]): Record<string, IndexAccess[]> {
  const accesses: Record<string, IndexAccess[]> = {};
  mergeMemberStats(accesses, indexes, rows);
  return accesses;
}

function collectionWith(
  name: string,
  indexes: IndexSnapshot[],
  accesses: Record<string, IndexAccess[]>,
  over: Partial<CollectionSnapshot> = {},
): CollectionSnapshot {
  const stats = {
    count: 100_000,
    sizeBytes: 50_000_000,
    avgObjSize: 500,
    storageSizeBytes: 20_000_000,
    totalIndexSizeBytes: indexes.length * 1_048_576,
    nindexes: indexes.length,
    blockCompressor: 'snappy',
  };
  return withData(collectionOf(name, { indexes, stats, ...over }), indexUsageCollector, { accesses });
}

const at = (s: Snapshot, collectedAt: string): Snapshot => ({ ...s, collectedAt });
const ids = (out: { findings: { messageId: string; target: { index?: string } }[] }) =>
  out.findings.map((f) => `${f.messageId}${f.target.index ? ` ${f.target.index}` : ''}`).sort();
const noteText = (out: { notes: { message: string }[] }) => out.notes.map((n) => n.message).join('\n');

describe('listIndexes with legacy numeric options (list-indexes-legacy-numeric-options)', () => {
  const indexes = indexesOf(legacy.listIndexes);
  const byName = (n: string) => indexes.find((i) => i.name === n);

  it('reads unique: 1, sparse: 1 and sparse: 12345 as true, and nothing else from a v: 1 entry', () => {
    expect(byName('b_1')).toMatchObject({ unique: true });
    expect(byName('x_1')).toMatchObject({ sparse: true });
    expect(byName('s_1')).toMatchObject({ sparse: true });
    expect(byName('_id_')).toEqual({ name: '_id_', key: { _id: 1 }, sizeBytes: 1_048_576 });
    expect(byName('b_1_c_1')).toEqual({ name: 'b_1_c_1', key: { b: 1, c: 1 }, sizeBytes: 1_048_576 });
  });

  it('index-usage never calls the unique or the sparse prefix redundant, nor offers to drop them', () => {
    const all = Object.fromEntries(
      indexes.map((i) => [i.name, [{ host: 'm1.example.net:27017', ops: 50, since: '2026-09-02T00:00:00.000Z' }]]),
    );
    const out = runRuleWithNotes(indexUsageRule, snapshotOf([collectionWith('index_sparse1', indexes, all)]));
    expect(ids(out)).toEqual(['notRedundant b_1', 'notRedundant x_1']);
    const why = out.findings.map((f) => f.message).join('\n');
    expect(why).toContain('`b_1` is unique: it enforces a constraint the longer index does not');
    expect(why).toContain('`x_1` is sparse');
    for (const f of out.findings) expect(f.recommendation?.commands ?? []).toEqual([]);
  });

  it('a unique index with no recorded use is kept, with the reason, not reported unused', () => {
    const none = Object.fromEntries(
      indexes.map((i) => [
        i.name,
        [{ host: 'm1.example.net:27017', ops: i.name === 'b_1' ? 0 : 50, since: '2026-09-02T00:00:00.000Z' }],
      ]),
    );
    const out = runRuleWithNotes(indexUsageRule, snapshotOf([collectionWith('index_sparse1', indexes, none)]));
    expect(ids(out)).toContain('kept');
    expect(out.findings.find((f) => f.messageId === 'kept')?.message).toBe(
      'No recorded use, but not called unused: `b_1` (unique: it enforces a constraint even when no query reads it).',
    );
    expect(ids(out).filter((x) => x.startsWith('unused'))).toEqual([]);
  });
});

describe('a collection clustered by _id (list-indexes-clustered)', () => {
  it('the clustered entry is the _id index whatever its name; on a regular collection a name is only a name', () => {
    const [byDefault] = indexesOf(clustered.listIndexes);
    const [named] = indexesOf(clustered.namedListIndexes);
    expect(byDefault && isIdIndex({ clustered: true }, byDefault)).toBe(true);
    expect(named && isIdIndex({ clustered: true }, named)).toBe(true);
    expect(named && isIdIndex({ clustered: false }, named)).toBe(false);
    expect(isIdIndex({ clustered: true }, { name: 'a_1', key: { a: 1 } })).toBe(false);
    expect(isIdIndex({ clustered: true }, { name: '_id_1_a_1', key: { _id: 1, a: 1 } })).toBe(false);
    // listCollections names the same index
    expect(clustered.namedListCollectionsOptions.clusteredIndex.name).toBe(named?.name);
  });

  for (const [label, listed] of [
    ['default name _id_', clustered.listIndexes],
    ['named index_on_id', clustered.namedListIndexes],
  ] as const) {
    it(`index-usage (${label}): only a_1 is judged; the clustered index is neither unread, kept nor a prefix`, () => {
      const indexes = indexesOf(listed);
      const accesses = { a_1: [{ host: 'm1.example.net:27017', ops: 0, since: '2026-09-02T00:00:00.000Z' }] };
      const c = collectionWith('coll', indexes, accesses, { clustered: true });
      expect(indexUsageCollector.appliesTo?.(c)).toBe(true);
      const out = runRuleWithNotes(indexUsageRule, snapshotOf([c]));
      expect(ids(out)).toEqual(['unused a_1']);
      expect(noteText(out)).not.toMatch(/index_on_id|not checked/);
    });
  }

  it('index-usage does not read $indexStats on a clustered collection whose only index is the clustered one', () => {
    const [only] = indexesOf(clustered.namedListIndexes);
    expect(
      indexUsageCollector.appliesTo?.(collectionOf('coll', { clustered: true, indexes: only ? [only] : [] })),
    ).toBe(false);
  });

  it(
    'id-pattern: no natural-order read (the order is the _id order), and the clustered index is not a ' +
      'secondary index',
    () => {
      const indexes = indexesOf(clustered.namedListIndexes);
      const c = collectionOf('coll', {
        clustered: true,
        indexes,
        stats: {
          count: 1000,
          sizeBytes: 1,
          avgObjSize: 1,
          storageSizeBytes: 1,
          totalIndexSizeBytes: 1,
          nindexes: 2,
          blockCompressor: null,
        },
      });
      const sampled = { ...c, sample: { ...c.sample, size: 20 } };
      expect(naturalOrder.appliesTo?.(sampled)).toBe(false);
      expect(naturalOrder.appliesTo?.({ ...sampled, clustered: false })).toBe(true);
      const p = secondaryIndexPenalty(c, 16, 8);
      expect(p.secondaryIndexes).toBe(1);
      expect(p.entries).toBe(1000);
      expect(timeIndex(c)).toBeNull();
    },
  );
});

describe('$indexStats of one member (index-stats-replica-member)', () => {
  const indexes = indexesOf(statsMember.rows.map((r) => r.spec));
  const accesses = accessesFrom(indexes, statsMember.rows);

  it('reads host, ops (a Long) and since (a Date) per index', () => {
    expect(accesses).toEqual({
      type_1_item_1: [{ host: 'examplehost.local:27018', ops: 1, since: '2024-05-02T15:07:21.420Z' }],
      item_1_quantity_1: [{ host: 'examplehost.local:27018', ops: 1, since: '2024-05-02T15:07:21.254Z' }],
      _id_: [{ host: 'examplehost.local:27018', ops: 0, since: '2024-05-02T15:07:13.274Z' }],
      price_1: [{ host: 'examplehost.local:27018', ops: 0, since: '2024-05-02T15:07:54.847Z' }],
    });
    expect(indexes.find((i) => i.name === 'price_1')?.partial).toBe(true);
  });

  // collectedAt one day after the newest counter started: within the 7-day warm-up
  const dayAfter = new Date(Date.parse(statsMember.newestSince) + 86_400_000).toISOString();

  it('ops 0 with a recent since: a partial index is kept with its reason (kept is judged before the warm-up)', () => {
    const out = runRuleWithNotes(
      indexUsageRule,
      at(snapshotOf([collectionWith('orders', indexes, accesses)]), dayAfter),
    );
    expect(ids(out)).toEqual(['kept']);
    expect(out.findings[0]?.message).toContain('`price_1` (partial:');
  });

  it('ops 0 with a recent since on a plain index: too early to call it unused, naming the member and the age', () => {
    const plain = indexes.map((i) => (i.name === 'price_1' ? { name: i.name, key: i.key, sizeBytes: i.sizeBytes } : i));
    const out = runRuleWithNotes(indexUsageRule, at(snapshotOf([collectionWith('orders', plain, accesses)]), dayAfter));
    expect(ids(out)).toEqual(['tooRecent']);
    expect(out.findings[0]?.message).toBe(
      'Too early to call `price_1` unused: no use recorded, but the counters on examplehost.local:27018 ' +
        'started 1 day ago, within the 7-day warm-up ($indexStats restarts with the server and when an index ' +
        'is built).',
    );
    // past the warm-up the same counters call it unused
    const later = runRuleWithNotes(
      indexUsageRule,
      at(snapshotOf([collectionWith('orders', plain, accesses)]), '2024-06-15T00:00:00.000Z'),
    );
    expect(ids(later)).toEqual(['unused price_1']);
  });
});

describe('$indexStats through mongos (index-stats-mongos): one row per index per shard', () => {
  const indexes = indexesOf(statsMember.rows.map((r) => r.spec));
  const accesses = accessesFrom(indexes, statsMongos.rows);

  it('keeps every shard primary’s row, none added twice', () => {
    expect(
      Object.fromEntries(Object.entries(accesses).map(([k, v]) => [k, v.map((a) => `${a.host} ${a.ops}`)])),
    ).toEqual({
      type_1_item_1: ['examplehost.local:27018 1', 'examplehost.local:27019 4'],
      item_1_quantity_1: ['examplehost.local:27018 1', 'examplehost.local:27019 0'],
      _id_: ['examplehost.local:27018 0', 'examplehost.local:27019 0'],
      price_1: ['examplehost.local:27018 0', 'examplehost.local:27019 0'],
    });
  });

  it('sums ops over the shards and dates the window by the youngest shard counter', () => {
    const ix = indexes.find((i) => i.name === 'item_1_quantity_1') as IndexSnapshot;
    const u = indexUsage(ix, accesses.item_1_quantity_1 ?? null, Date.parse('2024-06-15T00:00:00.000Z'), {
      warmupDays: 7,
      unusedMaxOps: 0,
    });
    expect(u.status).toBe('used');
    expect(u.ops).toBe(1);
    expect(u.youngestHost).toBe('examplehost.local:27018');
  });

  it(
    'an index with no use on any shard is an info naming the shard primaries read; shard secondaries are said ' +
      'unread',
    () => {
      const plain = indexes.map((i) =>
        i.name === 'price_1' ? { name: i.name, key: i.key, sizeBytes: i.sizeBytes } : i,
      );
      const s = withServer(at(snapshotOf([collectionWith('orders', plain, accesses)]), '2024-06-15T00:00:00.000Z'), {
        topology: 'sharded',
      });
      const out = runRuleWithNotes(indexUsageRule, s);
      expect(ids(out)).toEqual(['unusedSharded price_1']);
      const f = out.findings[0];
      expect(f?.severity).toBe('info');
      expect(f?.message).toContain('summed over the shard primaries mongos reached (2)');
      expect(f?.message).toContain('Shard secondaries are not read through mongos');
    },
  );
});

describe('$sample error 28799 (error-sample-28799)', () => {
  it('the product recognises the server’s code, not its text', () => {
    expect(SAMPLE_DUPLICATE_CODE).toBe(sample28799.code);
    expect(isSampleDuplicateError(sample28799.driverError())).toBe(true);
    expect(isSampleDuplicateError({ ...sample28799.reply, code: { valueOf: () => 28799 } })).toBe(true);
    expect(isSampleDuplicateError(Object.assign(new Error(sample28799.errmsg), { code: 28793 }))).toBe(false);
    expect(isSampleDuplicateError(new Error(sample28799.errmsg))).toBe(false);
  });

  it('one more try on 28799, then the error stands; other errors are not retried', async () => {
    let calls = 0;
    await expect(
      onceMoreOn28799(() => (++calls === 1 ? Promise.reject(sample28799.driverError()) : Promise.resolve('read'))),
    ).resolves.toBe('read');
    expect(calls).toBe(2);
    calls = 0;
    await expect(onceMoreOn28799(() => (++calls, Promise.reject(sample28799.driverError())))).rejects.toThrow(
      sample28799.errmsg,
    );
    expect(calls).toBe(2);
    calls = 0;
    await expect(
      onceMoreOn28799(() => (++calls, Promise.reject(Object.assign(new Error('other'), { code: 13 })))),
    ).rejects.toThrow('other');
    expect(calls).toBe(1);
  });
});
