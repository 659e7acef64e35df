import { randomUUID } from 'node:crypto';
import { ObjectId, UUID } from 'mongodb';
import { describe, expect, inject, it } from 'vitest';
import type { Adapter, Doc } from '../../src/core/adapter';
import { check } from '../../src/check';
import { collectSnapshot } from '../../src/collect';
import { dataOf } from '../../src/core/collector';
import { spearmanWithPosition } from '../../src/core/stats';
import rule from './index';
import { naturalOrder } from './collect';
import type { CheckResult, Finding } from '../../src/core/types';
import { useLiveDb } from '../../test/support/live-db';
import { recordingAdapter, type SentCommand } from '../../test/support/recording';
import { expectScratchDropped } from '../../test/support/scratch';
import { joinRegex } from '../../test/support/regex';

const DB = 'mongo_advisor_test_id_pattern';
const BIG = 6;
const BIG_BYTES = 3 * 1024 * 1024;

describe('id-pattern confirmation (live): clustered vs regular on scratch', () => {
  const caps = inject('capabilities');
  const live = useLiveDb(DB, async (db) => {
    const now = Date.now();
    await db.collection('events').insertMany(
      Array.from({ length: 3000 }, (_, i) => ({
        _id: new ObjectId(),
        type: ['view', 'click', 'share'][i % 3],
        at: new Date(now - (3000 - i) * 1000),
        value: i,
      })),
    );
    // an index led by the time field: the evidence of time-ordered access clustering advice needs
    await db.collection('events').createIndex({ at: 1, type: 1 });
    // Documents of very different sizes: six of 3 MB among thirty of 20 KB, inserted one by one in _id order.
    for (let i = 0; i < 36; i++) {
      await db.collection('blobs').insertOne({
        _id: new ObjectId(),
        at: new Date(now + i),
        kind: i % 6 === 0 ? 'big' : 'small',
        body: 'b'.repeat(i % 6 === 0 ? BIG_BYTES : 20 * 1024),
      });
    }
    await db.collection('blobs').createIndex({ at: 1 });
    // Random UUIDs in a clustered collection (a regular one where the server ignores clusteredIndex).
    await db.createCollection('clustered_sessions', { clusteredIndex: { key: { _id: 1 }, unique: true } });
    await db
      .collection<{ _id: UUID }>('clustered_sessions')
      .insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: new UUID(), i })));
    // Random UUIDs written as strings, with one index that does not name _id
    await db
      .collection<{ _id: string }>('string_sessions')
      .insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: randomUUID(), userId: i % 17 })));
    await db.collection('string_sessions').createIndex({ userId: 1 });
  });
  // these collections are far below the 100 MB line under which the rule gives no clustering advice: lowered here
  const anySize = { only: ['id-pattern'], rules: { 'id-pattern': { options: { clusterMinBytes: 0 } } } };

  /**
   * A run's budget bounds its timed rounds (rules/id-pattern/confirm.ts: inserts up to 60% of it, then range scans
   * while their interval stays wide). The events run keeps 15 s: its copies hold only what the timed rounds inserted
   * (500 documents a round), and the range scan checked below needs three rounds or more (at 10 s, under a load of
   * 13 on two cores, one round was made and the scan read 100). The blobs run checks the batches' bytes, fixed before
   * any timing, and any verdict: 5 s.
   */
  async function confirmed(
    collection: string,
    budgetMs: number,
    adapter: Adapter = live.adapter,
  ): Promise<{ result: CheckResult; finding: Finding }> {
    const result = await check(adapter, {
      rules: [rule],
      db: DB,
      collections: [collection],
      budgetMs,
      settings: anySize,
    });
    const finding = result.findings.find((f) => f.ruleId === 'id-pattern' && f.messageId === 'recommendClustered');
    expect(finding, JSON.stringify(result.findings.map((f) => f.message))).toBeDefined();
    console.log(`[id-pattern live] ${collection}: ${finding?.confirmation?.status}: ${finding?.confirmation?.summary}`);
    expect(result.confirm.cleanedUp).toBe(true);
    await expectScratchDropped(live.client, result.confirm.where);
    return { result, finding: finding as Finding };
  }

  /**
   * The events experiment, run once for the file with every command recorded: the verdict test reads its finding, the
   * checkpoint test its commands (each run costs its whole budget on these servers).
   */
  let eventsRun: Promise<{ result: CheckResult; finding: Finding; sent: SentCommand[] }> | undefined;
  const confirmedEvents = () =>
    (eventsRun ??= (async () => {
      const rec = recordingAdapter(live.adapter);
      return { ...(await confirmed('events', 15_000, rec)), sent: rec.sent };
    })());

  it(
    'runs the experiment where clustered collections are kept, and never shows an index size the server did ' +
      'not measure',
    async () => {
      const { finding } = await confirmedEvents();
      const c = finding.confirmation;
      if (!caps.has.clustered) {
        // FerretDB accepts clusteredIndex and ignores it: read back, and nothing is measured.
        expect(c).toMatchObject({
          status: 'not-run',
          reason: 'clustered collections are not supported by this server',
          measurements: [],
        });
        return;
      }
      expect(c?.status).toMatch(/^(supported|refuted|inconclusive)$/);
      expect(c?.summary).toMatch(
        joinRegex(
          /^With new ObjectIds \(monotonic\) and batches of 500 documents \([\d.]+ KiB\) drawn in turn from the 500 /,
          /copied from events: inserts took/,
        ),
      );
      // both copies hold _ids from the same stretch (made interleaved), so the range returns as many documents from
      // each, ±1
      const scanned = /an _id range scan \((\d+) documents (?:each|clustered, (\d+) regular)\)/.exec(c?.summary ?? '');
      expect(scanned, c?.summary).not.toBeNull();
      expect(Math.abs(Number(scanned?.[1]) - Number(scanned?.[2] ?? scanned?.[1]))).toBeLessThanOrEqual(1);
      // a tenth of what each copy holds, and each holds at least one batch of 500: never a trivial range (at 100 or
      // more before, a second suite's load left two rounds, 1,000 documents, whose tenth is 100)
      expect(Number(scanned?.[1])).toBeGreaterThanOrEqual(50);
      expect(c?.measurements.slice(0, 4).map((m) => m.label)).toEqual([
        'insert 500 docs, clustered',
        'insert 500 docs, regular',
        '_id range scan, clustered',
        '_id range scan, regular',
      ]);
      const sizes = c?.measurements.filter((m) => m.unit === 'bytes') ?? [];
      if (caps.has.storageSizes) {
        expect(sizes.map((m) => m.label)).toEqual([
          'secondary index bytes, clustered',
          'secondary index bytes, regular',
        ]);
        expect(sizes.every((m) => m.median > 0)).toBe(true);
      } else {
        // SecantusDB: $collStats lists every index with 0 bytes. Said, not shown.
        expect(sizes).toEqual([]);
        expect(c?.summary).toMatch(
          joinRegex(
            / Secondary index sizes could not be read: \$collStats reported 0 bytes for every secondary index /,
            /\(`at_1_type_1`\) of both copies, which hold [\d,]+ (documents each|and [\d,]+ documents): this server /,
            /did not measure the index storage, so no size is shown\.( |$)/,
          ),
        );
      }
    },
    120_000,
  );

  it(
    'takes a checkpoint (fsync on admin, without lock) after the copies are written and before their index ' +
      'sizes are read',
    async (ctx) => {
      if (!caps.has.clustered)
        ctx.skip('this server ignores clusteredIndex, so the experiment stops before any index size is read');
      // the events run of the test above (confirmedEvents): its scratch database is checked dropped there
      const { result, sent: recorded } = await confirmedEvents();
      const scratch = /scratch database (\S+)/.exec(result.confirm.where ?? '')?.[1];
      const sent = recorded.map((s, i) => ({ i, ...s }));
      const fsync = sent.filter((s) => s.name === 'fsync');
      expect(
        fsync.map((s) => [s.db, s.cmd]),
        'one fsync, on admin, never with lock',
      ).toEqual([['admin', { fsync: 1 }]]);
      const at = fsync[0]?.i ?? -1;
      const lastInsert = Math.max(...sent.filter((s) => s.db === scratch && s.name === 'insert').map((s) => s.i));
      const sizeReads = sent.filter((s) => s.db === scratch && s.label === 'aggregate $collStats' && s.i > lastInsert);
      expect(at).toBeGreaterThan(lastInsert);
      expect(sizeReads.length, "the two copies' $collStats after the last insert").toBeGreaterThanOrEqual(2);
      expect(sizeReads.every((s) => s.i > at)).toBe(true);
    },
    120_000,
  );

  it(
    'bounds what each timed insert writes by bytes, not only by count: large documents are left out and said ' + 'so',
    async () => {
      const { finding } = await confirmed('blobs', 5_000);
      const c = finding.confirmation;
      if (!caps.has.clustered) {
        expect(c?.status).toBe('not-run');
        return;
      }
      expect(c?.status).toMatch(/^(supported|refuted|inconclusive)$/);
      // 32 MB of copies in all (the default copy limit): 1 MB per batch over 16 runs (2 warm-up rounds, 7 blocks of 2)
      // and two collections.
      const batch = joinRegex(
        /^With new ObjectIds \(monotonic\) and batches of (\d+) documents \(([\d.,]+) (KiB|MiB)\) drawn in turn /,
        /from the (\d+) copied from blobs \((\d+) over the 1 MiB batch limit left out\):/,
      ).exec(c?.summary ?? '');
      expect(batch, c?.summary).not.toBeNull();
      const [, docs, size, unit, copied, left] = batch as unknown as string[];
      expect(Number(size?.replace(/,/g, '')) * (unit === 'MiB' ? 1024 : 1)).toBeLessThanOrEqual(1024);
      expect(Number(docs)).toBeGreaterThan(1);
      expect(Number(left)).toBeLessThanOrEqual(BIG);
      expect(Number(left)).toBeGreaterThan(0);
      expect(Number(copied)).toBeGreaterThan(Number(left));
      expect(c?.measurements[0]?.label).toBe(`insert ${docs} docs, clustered`);
    },
    120_000,
  );

  it(
    'tells a random _id in a clustered collection by its leading bytes: natural order there is _id order on ' +
      'MongoDB',
    async () => {
      const natural = await live.db
        .collection<{ _id: UUID }>('clustered_sessions')
        .find({}, { projection: { _id: 1 } })
        .hint({ $natural: 1 })
        .toArray();
      const hex = natural.map((d) => d._id.toHexString());
      const sorted = hex.every((h, i) => i === 0 || (hex[i - 1] as string) <= h);
      // Every document: with 20 random _ids the order correlation of a regular collection strays past the random line
      // about one run in five; with 300 it does not.
      const result = await check(live.adapter, {
        rules: [rule],
        db: DB,
        collections: ['clustered_sessions'],
        confirm: false,
        sampleSize: 300,
        settings: anySize,
      });
      expect(result.findings.filter((x) => x.ruleId === 'id-pattern')).toHaveLength(1);
      const f = result.findings.find((x) => x.ruleId === 'id-pattern');
      if (!caps.has.clustered) {
        // The server ignored clusteredIndex: a regular collection of random _ids, and the advice is to keep it regular.
        expect(f?.messageId).toBe('adviseAgainstClustered');
        expect(f?.evidence).toMatchObject({ clustered: false, order: 'random', orderBasis: 'uuid-version' });
      } else {
        if (!sorted)
          console.log(
            '[id-pattern live] divergence: a $natural scan of a clustered collection returns insertion order ' +
              'here; MongoDB returns _id order (records are keyed by _id)',
          );
        expect(f?.messageId).toBe('clusteredOnRandom');
        // the insertion-order correlation is not read on a clustered collection, whatever this server's natural order
        expect(f?.evidence).toMatchObject({
          clustered: true,
          monotonicity: null,
          order: 'random',
          orderBasis: 'uuid-version',
          idType: 'UUID v4',
        });
      }
    },
  );

  it(
    'judges random UUID strings random on their bytes (20 sampled, every time) and gives the binary form with ' +
      'the bytes saved',
    async () => {
      // 20 sampled _ids: the sample size at which their chance correlation with insertion order used to flip the
      // verdict
      for (let run = 0; run < 3; run++) {
        const result = await check(live.adapter, {
          rules: [rule],
          db: DB,
          collections: ['string_sessions'],
          confirm: false,
          sampleSize: 20,
          settings: { only: ['id-pattern'] },
        });
        const found = result.findings.filter((x) => x.ruleId === 'id-pattern');
        // 300 documents: under the clustering line, so the binary-UUID advice is the one finding
        expect(found.map((x) => x.messageId)).toEqual(['uuidAsString']);
        const f = found[0];
        expect(f?.evidence).toMatchObject({
          uuidAsString: true,
          uuidVersion: 4,
          order: 'random',
          orderBasis: 'uuid-version',
          documents: 300,
          indexesHoldingId: 1,
          documentBytesSaved: 300 * 20,
          indexBytesSaved: 300 * 20,
        });
        expect(f?.message).toMatch(
          joinRegex(
            /^`_id` holds UUID v4 values as 36-character strings\. Stored as binary UUIDs \(subtype 4\) each value /,
            /takes 21 bytes instead of 41: about .+ less across 300 documents, and 20 less per key in 300 index /,
            /entries \(`_id_`\): about .+\.$/,
          ),
        );
        expect(f?.docsUrl).toBe('https://www.mongodb.com/docs/manual/reference/method/UUID/');
        // no _id value anywhere in what the rule reports
        expect(JSON.stringify(result.findings)).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/i);
      }
    },
  );
});

/**
 * The collector's command: a single-batch find of `_id`s alone. (The core sample may scan `_id`s too, to pick documents
 * at random positions where `$sample` is missing: that read has no `singleBatch` and is not the collector's.)
 */
const collectorRead = (cmd: Doc): boolean => (cmd.projection as Doc | undefined)?._id === 1 && cmd.singleBatch === true;

describe('id-pattern collector (live): _ids in natural order, kept as ranks', () => {
  const caps = inject('capabilities');
  const live = useLiveDb('mongo_advisor_test_id_pattern_collect', async (db) => {
    // ObjectIds made one after another, inserted in that order: natural order is _id order
    await db.collection('ordered').insertMany(Array.from({ length: 150 }, (_, i) => ({ _id: new ObjectId(), i })));
    await db.createCollection('clustered', { clusteredIndex: { key: { _id: 1 }, unique: true } });
    await db
      .collection<{ _id: UUID }>('clustered')
      .insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: new UUID(), i })));
    await db.createCollection('empty');
  });

  it(
    'reads each sampled regular collection in one find (two where the $natural hint is refused), never a ' +
      'clustered or an empty one, and keeps ranks only',
    async () => {
      const recording = recordingAdapter(live.adapter);
      const snap = await collectSnapshot(recording, {
        db: live.db.databaseName,
        sampleSize: 100,
        collectors: [naturalOrder],
      });
      expect(snap.collectors.map((c) => c.id)).toEqual(['id-pattern']);
      const coll = (name: string) => snap.databases[0]?.collections.find((c) => c.name === name);
      // the collector's commands: finds of _ids alone (the sample reads whole documents)
      const reads = (name: string) =>
        recording.sent.filter((c) => c.name === 'find' && c.cmd.find === name && collectorRead(c.cmd));

      const ordered = coll('ordered');
      const data = dataOf(naturalOrder, ordered);
      expect(data?.source).toBe('natural-scan');
      // as many _ids as the sample holds, each rank once: a permutation of 0..n-1, never a value
      expect(data?.ranks.length).toBe(ordered?.sample.size);
      expect([...(data?.ranks ?? [])].sort((a, b) => a - b)).toEqual(
        Array.from({ length: ordered?.sample.size ?? 0 }, (_, i) => i),
      );
      expect(spearmanWithPosition(data?.ranks ?? [])).toBeGreaterThan(0.9);
      expect(JSON.stringify(ordered?.data)).not.toMatch(/[0-9a-f]{24}/);
      const sent = reads('ordered');
      if (ordered?.sample.method === 'random-ids' || ordered?.sample.method === 'whole') {
        // the core read the _ids in natural order already (no $sample here, or a whole read): the collector reuses them
        expect(sent).toEqual([]);
        console.log(
          `[id-pattern live] ${inject('serverKind')}: the core's ${ordered.sample.method} read gave the ` +
            `natural order: no read of the collector's own`,
        );
      } else {
        expect(sent[0]?.cmd).toMatchObject({
          filter: {},
          projection: { _id: 1 },
          hint: { $natural: 1 },
          limit: ordered?.sample.size,
          batchSize: ordered?.sample.size,
          singleBatch: true,
        });
        expect(typeof sent[0]?.cmd.maxTimeMS).toBe('number');
        expect(sent.length === 1 || (sent.length === 2 && sent[1]?.cmd.hint === undefined)).toBe(true);
      }
      console.log(
        `[id-pattern live] ${inject('serverKind')}: natural-order read of ordered: ${sent.length} ` +
          `command${sent.length === 1 ? '' : 's'}${sent.length === 2 ? ' (the $natural hint was refused)' : ''}`,
      );

      expect(dataOf(naturalOrder, coll('empty'))).toBeUndefined();
      expect(reads('empty')).toEqual([]);
      const clustered = coll('clustered');
      expect(clustered?.clustered).toBe(caps.has.clustered === true);
      if (caps.has.clustered) {
        // its natural order is _id order: not read
        expect(dataOf(naturalOrder, clustered)).toBeUndefined();
        expect(reads('clustered')).toEqual([]);
      } else {
        // the server ignored clusteredIndex: an ordinary collection, read like one
        expect(dataOf(naturalOrder, clustered)?.ranks.length).toBe(clustered?.sample.size);
      }
    },
  );

  it('costs nothing when id-pattern is off: no read of _ids in natural order', async () => {
    const recording = recordingAdapter(live.adapter);
    const snap = await collectSnapshot(recording, { db: live.db.databaseName, sampleSize: 100 });
    expect(snap.collectors).toEqual([]);
    expect(recording.sent.filter((c) => c.name === 'find' && collectorRead(c.cmd))).toEqual([]);
    expect(snap.databases[0]?.collections.every((c) => c.data === undefined)).toBe(true);
  });
});
