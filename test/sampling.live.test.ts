/**
 * The sampling paths that depend on the server: a whole read of a small collection; `$sample` (random) where the
 * server has it, else random positions of the `_id`s fetched by `_id` (`random-ids`), else natural order (not random);
 * documents over `largeDocBytes` measured on the server with `$bsonSize` and `$size` instead of being pulled whole; and
 * the server-side pass for the largest documents and longest arrays a sample misses. Each runs where the server proved
 * the capability (test/support/server-capabilities.ts) and is skipped with the reason elsewhere; the other branch is
 * tested where the capability is missing.
 */
import { calculateObjectSize } from 'bson';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Adapter, Doc } from '../src/adapters/types';
import { check } from '../src/index';
import { collectSnapshot } from '../src/collect';
import { OUTLIER_DEFAULTS, outlierSearch, outlierSearchWithin } from '../src/collect/outliers';
import { dataOf } from '../src/core/collector';
import { probeAggregation, probeServer } from '../src/collect/probe';
import { readSample } from '../src/collect/sample';
import { formatBytes } from '../src/core/format';
import type { CollectionSnapshot, DocProfile, ServerInfo, Snapshot } from '../src/core/types';
import documentSize from '../rules/document-size';
import { recordingAdapter } from './support/recording';
import { runRule } from './support/rule-tester';
import { useLiveDb } from './support/live-db';
import * as sample28799 from './fixtures/mongodb/error-sample-28799';
import { joinRegex } from './support/regex';

const DB = 'mongo_advisor_test_sampling';
const SECRET = 'SECRET-sampling-value';
const ROWS = 200;
/** The collection: 40 posts, the last 10 inserted with 1,500 to 2,000 comments (natural order hides them). */
const POSTS = 40;
const LONG = 10;
/** One rare document among many: a 10,001-element array (past Atlas' 10,000 line) and 2.4 MB. */
const MANY = 300;

function only(snap: Snapshot): CollectionSnapshot {
  const c = snap.databases[0]?.collections[0];
  if (!c) throw new Error('no collection in the snapshot');
  return c;
}

const longest = (docs: readonly DocProfile[], path: string): number =>
  Math.max(0, ...docs.map((d) => d.arrays.find((a) => a.path === path)?.maxLength ?? 0));

describe('sampling (live)', () => {
  const caps = inject('capabilities');
  const live = useLiveDb(DB, async (db) => {
    await db.collection('rows').insertMany(Array.from({ length: ROWS }, (_, i) => ({ i, note: `${SECRET} ${i}` })));
    // One document of about 1.6 MB: 3,000 array elements of ~500 bytes, over the 1 MiB largeDocBytes default.
    await db.collection('big').insertMany(Array.from({ length: 5 }, (_, i) => ({ i, items: [] as unknown[] })));
    await db.collection('big').insertOne({
      i: 99,
      items: Array.from({ length: 3000 }, (_, k) => ({ k, text: `${SECRET}`.padEnd(500, 'x') })),
      tags: ['a', 'b'],
    });
    await db.collection('posts').insertMany(
      Array.from({ length: POSTS - LONG }, (_, i) => ({
        i,
        title: `${SECRET} ${i}`,
        comments: [{ by: 'u1', n: 1 }],
      })),
    );
    await db.collection('posts').insertMany(
      Array.from({ length: LONG }, (_, i) => ({
        i: 100 + i,
        title: `${SECRET} long`,
        comments: Array.from({ length: 1500 + i * 50 }, (_, k) => ({ by: `u${k % 9}`, n: k })),
      })),
    );
    const half = MANY / 2;
    await db.collection('rare').insertMany(Array.from({ length: half }, (_, i) => ({ i, note: `${SECRET} ${i}` })));
    await db
      .collection('rare')
      .insertOne({ i: -1, readings: Array.from({ length: 10_001 }, (_, k) => k), blob: SECRET.padEnd(2_300_000, 'y') });
    await db
      .collection('rare')
      .insertMany(Array.from({ length: half }, (_, i) => ({ i: half + i, note: `${SECRET} ${i}` })));
  });
  let server: ServerInfo;

  beforeAll(async () => {
    server = (await probeServer(live.adapter, 10_000)).server;
    await probeAggregation(live.adapter, server, DB, 'rows', 10_000);
  });

  it(
    'the issue: 40 posts whose last 10 hold 1,500+ comments get an array-growth finding through check (read ' +
      'whole)',
    async () => {
      const r = await check(live.adapter, { db: DB, collections: ['posts'], confirm: false });
      const growth = r.findings.filter((f) => f.ruleId === 'array-growth' && f.target.path === 'comments');
      expect(growth).toHaveLength(1);
      expect(growth[0]?.evidence.lengthMax).toBe(1500 + (LONG - 1) * 50);
      expect(growth[0]?.evidence.sampleSize).toBe(POSTS);
      const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['posts'], collectors: [outlierSearch] });
      expect(only(snap).sample).toMatchObject({ method: 'whole', random: true, complete: true, size: POSTS });
      expect(dataOf(outlierSearch, only(snap))).toEqual({ status: 'not-needed', reason: null, docs: [] });
      expect(snap.notes.map((n) => n.message).join('\n')).not.toMatch(/not random|random positions|not searched/);
      expect(JSON.stringify(r)).not.toContain(SECRET);
    },
  );

  it(
    'a whole read and an _id scan hand back the _ids in natural order (what id-pattern reads with its own ' + 'find)',
    async () => {
      const natural = (
        await live.db
          .collection('posts')
          .find({}, { projection: { _id: 1 } })
          .toArray()
      ).map((d) => String(d._id));
      // sizeBytes as $collStats gives it: 0 (unmeasured, SecantusDB: bounded by $bsonSize), else within the bound
      const sizeBytes = caps.has.bsonSize ? 0 : 500_000;
      const whole = await readSample(live.adapter, server, DB, 'posts', {
        requested: 20,
        maxTimeMS: 10_000,
        largeDocBytes: 1024 * 1024,
        whole: { count: POSTS, sizeBytes, maxDocs: 1000, maxBytes: 16 * 1024 * 1024 },
        idScanMax: 1000,
      });
      expect(whole.method).toBe('whole');
      expect(whole.naturalIds?.map(String)).toEqual(natural);
      const sampled = await readSample(live.adapter, server, DB, 'posts', {
        requested: 20,
        maxTimeMS: 10_000,
        largeDocBytes: 1024 * 1024,
        idScanMax: 1000,
        count: POSTS,
      });
      expect(sampled.naturalIds?.map(String) ?? null).toEqual(caps.has.sample ? null : natural);
    },
  );

  it('a whole read stays within its byte bound: a collection over wholeMaxBytes is sampled', async () => {
    const recording = recordingAdapter(live.adapter);
    const snap = await collectSnapshot(recording, { db: DB, collections: ['rows'], wholeMaxBytes: 1000 });
    const rows = only(snap);
    expect(rows.sample.method).not.toBe('whole');
    expect(rows.sample.complete).toBe(false);
    expect(rows.sample.size).toBeLessThan(ROWS);
    if ((rows.stats?.sizeBytes ?? 0) > 0) {
      // sizes measured: decided from $collStats, nothing read whole
      expect(rows.notes.map((n) => n.message).join('\n')).not.toMatch(/not read whole/);
    } else {
      // sizes not measured (SecantusDB): one reply read and measured with $bsonSize, then given up
      console.log('[sampling live] $collStats gave no size: the whole read was measured with $bsonSize and given up');
      expect(
        rows.notes.map((n) => n.message),
        JSON.stringify(rows.notes),
      ).toContain(
        `not read whole: $collStats gave no size and its documents came to more than ${formatBytes(1000)} ` +
          `when read; sampled instead`,
      );
    }
  });

  it('with $sample: a random sample of distinct documents, labelled random', async (ctx) => {
    if (!caps.has.sample)
      ctx.skip(`the server lacks $sample (${caps.why.sample ?? 'no'}): the random-ids test covers it`);
    expect(server.capabilities.sample.supported).toBe(true);
    const raw = await readSample(live.adapter, server, DB, 'rows', {
      requested: 40,
      maxTimeMS: 10_000,
      largeDocBytes: 1024 * 1024,
    });
    expect(raw.method).toBe('$sample');
    expect(raw.random).toBe(true);
    const picked = raw.docs.map((d) => Number(d.i));
    expect(new Set(picked).size).toBe(40);
    // 40 of 200 at random are the first 40 in natural order with probability 1 / C(200, 40): never.
    expect(picked.some((i) => i >= 40)).toBe(true);
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['rows'], sampleSize: 40 });
    const rows = snap.databases[0]?.collections[0];
    expect(rows?.sample).toMatchObject({ method: '$sample', random: true, complete: false, size: 40 });
    expect(JSON.stringify(snap)).not.toContain(SECRET);
  });

  it(
    'without $sample: random positions of the _ids, fetched by _id, labelled random (the scan covered the ' +
      'collection)',
    async (ctx) => {
      if (caps.has.sample) ctx.skip('the server has $sample: the random-sample test covers it');
      expect(server.capabilities.sample.supported).toBe(false);
      const recording = recordingAdapter(live.adapter);
      const snap = await collectSnapshot(recording, { db: DB, collections: ['rows'], sampleSize: 40 });
      const rows = only(snap);
      expect(rows.sample).toMatchObject({ method: 'random-ids', random: true, complete: false, size: 40 });
      // the _ids in natural order, then one find by _id with the 40 picks
      const sent = recording.sent.filter((c) => c.cmd.find === 'rows').map((c) => c.cmd);
      expect(sent.map((c) => c.projection ?? null)).toEqual([{ _id: 1 }, null]);
      const inIds = ((sent[1]?.filter as Doc | undefined)?._id as { $in?: unknown[] } | undefined)?.$in ?? [];
      expect(inIds).toHaveLength(40);
      const picked = (
        await live.db
          .collection('rows')
          .find({ _id: { $in: inIds as never[] } })
          .toArray()
      ).map((d) => Number(d.i));
      expect(picked.some((i) => i >= 40)).toBe(true);
      // the same collection gets the same picks run after run (seeded), so reports compare
      const again = recordingAdapter(live.adapter);
      await collectSnapshot(again, { db: DB, collections: ['rows'], sampleSize: 40 });
      expect(again.sent.filter((c) => c.cmd.find === 'rows')[1]?.cmd.filter).toEqual(sent[1]?.filter);
      const messages = snap.notes.map((n) => n.message).join('\n');
      expect(messages).toMatch(
        joinRegex(
          /^samples were drawn at random positions of the _ids in natural order and fetched by _id, not with /m,
          /\$sample \(1 collection: rows\): the server lacks \$sample/m,
        ),
      );
      expect(messages).not.toMatch(/not random/);
      expect(JSON.stringify(snap)).not.toContain(SECRET);
    },
  );

  it(
    'without $sample, an _id scan that stops early: the sample says what it covered and is not ' + 'called random',
    async (ctx) => {
      if (caps.has.sample) ctx.skip('the server has $sample: no _id scan there');
      const snap = await collectSnapshot(live.adapter, {
        db: DB,
        collections: ['rows'],
        sampleSize: 20,
        idScanMax: 50,
      });
      const rows = only(snap);
      expect(rows.sample).toMatchObject({ method: 'random-ids', random: false, size: 20 });
      expect(rows.notes.map((n) => n.message)).toContain(
        `the sample was drawn at random from the first 50 of ${ROWS} documents in natural order (the _id scan ` +
          `stops at 50, idScanMax): documents inserted later were not seen`,
      );
    },
  );

  it(
    'without $sample and with the _id scan off: the first documents in natural order, labelled not random, ' +
      'with a note',
    async (ctx) => {
      if (caps.has.sample) ctx.skip('the server has $sample: the random-sample test covers it');
      const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['rows'], sampleSize: 40, idScanMax: 0 });
      expect(only(snap).sample).toMatchObject({ method: 'natural-order', random: false, size: 40 });
      expect(snap.notes.map((n) => n.message).join('\n')).toMatch(
        joinRegex(
          /^samples are the first documents in natural order, not random /m,
          /\(1 collection: rows\): the server lacks \$sample/m,
        ),
      );
    },
  );

  it('the issue, sampled (not read whole): 20 of the 40 posts still see the long arrays', async () => {
    const snap = await collectSnapshot(live.adapter, {
      db: DB,
      collections: ['posts'],
      sampleSize: 20,
      collectors: [outlierSearch],
    });
    const posts = only(snap);
    const outliers = dataOf(outlierSearch, posts);
    expect(posts.sample.size).toBe(20);
    expect(posts.sample.method).toBe(caps.has.sample ? '$sample' : 'random-ids');
    const seen = [...posts.sample.docs, ...(outliers?.docs ?? [])];
    if (caps.has.bsonSize && caps.has.arraySize) {
      // the server-side pass finds the longest arrays whatever the sample drew
      expect(outliers?.status).toBe('done');
      expect(longest(seen, 'comments')).toBe(1500 + (LONG - 1) * 50);
    } else {
      // random-ids with this collection's seed draws some of the last 10 (natural order's first 20 has none)
      expect(outliers?.status).toBe('unsupported');
      expect(longest(posts.sample.docs, 'comments')).toBeGreaterThanOrEqual(1500);
    }
  });

  it('with $bsonSize and $size: a document over 1 MiB is measured server-side, not pulled or printed', async (ctx) => {
    if (!caps.has.bsonSize || !caps.has.arraySize) {
      const lacking = !caps.has.bsonSize
        ? `$bsonSize (${caps.why.bsonSize ?? 'no'})`
        : `$size (${caps.why.arraySize ?? 'no'})`;
      ctx.skip(`the server lacks ${lacking}: large documents are pulled and measured in process`);
    }
    const raw = await readSample(live.adapter, server, DB, 'big', {
      requested: 6,
      maxTimeMS: 10_000,
      largeDocBytes: 1024 * 1024,
    });
    expect(raw.docs).toHaveLength(5);
    expect(raw.large).toHaveLength(1);
    const big = await live.db.collection<{ i: number; items: unknown[] }>('big').findOne({ i: 99 });
    const [large] = raw.large;
    expect(large?.measuredOnServer).toBe(true);
    expect(large?.bytes).toBe(calculateObjectSize(big ?? {}));
    const items = large?.arrays.find((a) => a.path === 'items');
    expect(items?.maxLength).toBe(3000);
    // The array's bytes as BSON: the whole field of the server's reply, minus the key.
    expect(items?.bytes).toBe(calculateObjectSize({ v: big?.items }) - 8);
    expect(large?.largestFields[0]?.path).toBe('items');

    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['big'], sampleSize: 6 });
    const coll = only(snap);
    expect(coll.sample.method).toBe('whole');
    const doc = coll.sample.docs.find((d) => d.measuredOnServer);
    expect(doc?.arrays.find((a) => a.path === 'items')?.maxLength).toBe(3000);
    expect(coll.notes.map((n) => n.message).join('\n')).toMatch(/^1 document over 1 MiB was measured on the server/m);
    expect(JSON.stringify(snap)).not.toContain(SECRET);
  });

  it('without $bsonSize: the large document is pulled and measured in process', async (ctx) => {
    if (caps.has.bsonSize && caps.has.arraySize)
      ctx.skip('the server has $bsonSize and $size: the server-side test covers it');
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['big'], sampleSize: 6 });
    const docs = only(snap).sample.docs;
    expect(docs.some((d) => d.measuredOnServer)).toBe(false);
    expect(Math.max(...docs.map((d) => d.arrays.find((a) => a.path === 'items')?.maxLength ?? 0))).toBe(3000);
    expect(JSON.stringify(snap)).not.toContain(SECRET);
  });

  it(
    'the outlier pass finds the one rare 10,001-element, 2.4 MB document a sample of 20 misses; document-size ' +
      'reports it',
    async (ctx) => {
      if (!caps.has.bsonSize || !caps.has.arraySize)
        ctx.skip(
          `the server lacks $bsonSize or $size (${caps.why.bsonSize ?? caps.why.arraySize ?? 'no'}): the ` +
            `unsupported test covers it`,
        );
      const recording = recordingAdapter(live.adapter);
      const snap = await collectSnapshot(recording, {
        db: DB,
        collections: ['rare'],
        sampleSize: 20,
        collectors: [outlierSearch],
      });
      const rare = only(snap);
      const outliers = dataOf(outlierSearch, rare);
      expect(rare.sample.complete).toBe(false);
      expect(rare.sample.size).toBe(20);
      expect(outliers?.status).toBe('done');
      // one aggregate, 5 largest + 5 longest at most, none already in the sample
      expect(
        recording.sent.filter((c) => c.name === 'aggregate' && JSON.stringify(c.cmd.pipeline).includes('$facet')),
      ).toHaveLength(1);
      expect(outliers?.docs.length).toBeLessThanOrEqual(10);
      const seen = [...rare.sample.docs, ...(outliers?.docs ?? [])];
      expect(longest(seen, 'readings')).toBe(10_001);
      expect(seen.filter((d) => d.arrays.some((a) => a.path === 'readings'))).toHaveLength(1);
      const sampledIt = rare.sample.docs.some((d) => d.arrays.some((a) => a.path === 'readings'));
      const [f] = runRule(documentSize, snap);
      expect(f?.target.path).toBe('blob');
      expect(f?.evidence.largestFrom).toBe(sampledIt ? 'sample' : 'outlierPass');
      if (!sampledIt)
        expect(f?.message).toMatch(
          joinRegex(
            /^A document found by a server-side pass over the whole collection reaches 2\.\d\d MiB .*the pass found /,
            /1 more beyond the sample\. Largest fields: `blob` 2\.\d\d MiB/,
          ),
        );
      expect(JSON.stringify(snap)).not.toContain(SECRET);

      // the same read with the pass above its bound: skipped with a note, and the rare document is (most likely) unseen
      const within100 = outlierSearchWithin({ ...OUTLIER_DEFAULTS, maxDocs: 100 });
      const bounded = only(
        await collectSnapshot(live.adapter, { db: DB, collections: ['rare'], sampleSize: 20, collectors: [within100] }),
      );
      expect(dataOf(within100, bounded)).toEqual({
        status: 'skipped',
        reason: `${MANY + 1} documents is above the pass's bound of 100`,
        docs: [],
      });
      expect(bounded.notes.map((n) => n.message)).toContain(
        `the largest documents and longest arrays were not searched for beyond the sample: ${MANY + 1} ` +
          `documents is above the pass's bound of 100; the largest sampled ones are lower bounds`,
      );
    },
  );

  it('the outlier pass failing costs only itself: status failed, a note, the sample kept', async (ctx) => {
    if (!caps.has.bsonSize || !caps.has.arraySize)
      ctx.skip('the server lacks $bsonSize or $size: the pass never runs there');
    // The real server, with the pass's one aggregate refused as a server would refuse it past maxTimeMS.
    const refusing: Adapter = {
      kind: live.adapter.kind,
      source: live.adapter.source,
      bson: live.adapter.bson,
      get roundTrips() {
        return live.adapter.roundTrips;
      },
      async command(db: string, cmd: Doc): Promise<Doc> {
        if (cmd.aggregate !== undefined && JSON.stringify(cmd.pipeline).includes('$facet'))
          throw Object.assign(new Error('operation exceeded time limit'), { code: 50, codeName: 'MaxTimeMSExpired' });
        return live.adapter.command(db, cmd);
      },
      close: async () => undefined,
    };
    const rare = only(
      await collectSnapshot(refusing, { db: DB, collections: ['rare'], sampleSize: 20, collectors: [outlierSearch] }),
    );
    expect(rare.sample.size).toBe(20);
    expect(dataOf(outlierSearch, rare)).toEqual({
      status: 'failed',
      reason: 'the pass failed: MaxTimeMSExpired (50): the server stopped the command at its time limit (maxTimeMS)',
      docs: [],
    });
    expect(rare.notes.map((n) => n.message)).toContain(
      'the largest documents and longest arrays were not searched for beyond the sample: the pass failed: ' +
        'MaxTimeMSExpired (50): the server stopped the command at its time limit (maxTimeMS); the largest ' +
        'sampled ones are lower bounds',
    );
  });

  it('$sample error 28799 (a random cursor meeting duplicates) is tried once more, then stands', async (ctx) => {
    if (!caps.has.sample) ctx.skip('the server lacks $sample: the error cannot occur there');
    // The real server, with the first (or every) $sample refused as MongoDB refuses it
    // (test/fixtures/mongodb/error-sample-28799.ts).
    const refusing = (times: number): Adapter => {
      let left = times;
      return {
        kind: live.adapter.kind,
        source: live.adapter.source,
        bson: live.adapter.bson,
        get roundTrips() {
          return live.adapter.roundTrips;
        },
        async command(db: string, cmd: Doc): Promise<Doc> {
          // the sample's own $sample (size 20), not the capability probe's
          if (
            left > 0 &&
            cmd.aggregate !== undefined &&
            JSON.stringify(cmd.pipeline).includes('"$sample":{"size":20}')
          ) {
            left--;
            throw sample28799.driverError();
          }
          return live.adapter.command(db, cmd);
        },
        close: async () => undefined,
      };
    };
    const once = only(await collectSnapshot(refusing(1), { db: DB, collections: ['rare'], sampleSize: 20 }));
    expect(once.sample.method).toBe('$sample');
    expect(once.sample.size).toBe(20);
    const twice = only(await collectSnapshot(refusing(2), { db: DB, collections: ['rare'], sampleSize: 20 }));
    expect(twice.sample.size).toBe(0);
    expect(twice.notes.map((n) => n.message).join('\n')).toMatch(
      /the sample could not be read: .*28799.*non-duplicate document/,
    );
  });

  it('without $bsonSize: the outlier pass is unsupported, said once per run', async (ctx) => {
    if (caps.has.bsonSize && caps.has.arraySize) ctx.skip('the server has $bsonSize and $size: the pass runs there');
    const snap = await collectSnapshot(live.adapter, {
      db: DB,
      collections: ['rare', 'rows'],
      sampleSize: 20,
      collectors: [outlierSearch],
    });
    for (const c of snap.databases[0]?.collections ?? []) expect(dataOf(outlierSearch, c)?.status).toBe('unsupported');
    const lines = [...snap.notes, ...(snap.databases[0]?.collections.flatMap((c) => c.notes) ?? [])]
      .map((n) => n.message)
      .filter((m) => m.includes('not searched for'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      joinRegex(
        /^the largest documents and longest arrays were not searched for beyond the samples \(2 collections: /,
        /rare, rows\): the server lacks \$bsonSize \(.+\); the largest sampled ones are lower bounds$/,
      ),
    );
  });
});
