/**
 * The sampling paths that depend on the server: `$sample` (random) or natural order (not random), and documents
 * over `largeDocBytes` measured on the server with `$bsonSize` and `$size` instead of being pulled whole. Each runs
 * where the server proved the capability (test/support/server-capabilities.ts) and is skipped with the reason
 * elsewhere; the other branch is tested where the capability is missing.
 */
import { calculateObjectSize } from 'bson';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { collectSnapshot } from '../src/collect';
import { probeAggregation, probeServer } from '../src/collect/probe';
import { readSample } from '../src/collect/sample';
import type { ServerInfo } from '../src/core/types';
import { useLiveDb } from './support/live-db';

const DB = 'mongo_advisor_test_sampling';
const SECRET = 'SECRET-sampling-value';
const ROWS = 200;

describe('sampling (live)', () => {
  const caps = inject('capabilities');
  const live = useLiveDb(DB, async (db) => {
    await db.collection('rows').insertMany(Array.from({ length: ROWS }, (_, i) => ({ i, note: `${SECRET} ${i}` })));
    // One document of about 1.6 MB: 3,000 array elements of ~500 bytes, over the 1 MiB largeDocBytes default.
    await db.collection('big').insertMany(Array.from({ length: 5 }, (_, i) => ({ i, items: [] as unknown[] })));
    await db.collection('big').insertOne({ i: 99, items: Array.from({ length: 3000 }, (_, k) => ({ k, text: `${SECRET}`.padEnd(500, 'x') })), tags: ['a', 'b'] });
  });
  let server: ServerInfo;

  beforeAll(async () => {
    server = (await probeServer(live.adapter, 10_000)).server;
    await probeAggregation(live.adapter, server, DB, 'rows', 10_000);
  });

  it('with $sample: a random sample of distinct documents, labelled random', async (ctx) => {
    if (!caps.has.sample) ctx.skip(`the server lacks $sample (${caps.why.sample ?? 'no'}): the natural-order test covers it`);
    expect(server.capabilities.sample.supported).toBe(true);
    const raw = await readSample(live.adapter, server, DB, 'rows', { requested: 40, maxTimeMS: 10_000, largeDocBytes: 1024 * 1024 });
    expect(raw.method).toBe('$sample');
    expect(raw.random).toBe(true);
    const picked = raw.docs.map((d) => Number(d.i));
    expect(new Set(picked).size).toBe(40);
    // 40 of 200 at random are the first 40 in natural order with probability 1 / C(200, 40): never.
    expect(picked.some((i) => i >= 40)).toBe(true);
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['rows'], sampleSize: 40 });
    const rows = snap.databases[0]?.collections[0];
    expect(rows?.sample).toMatchObject({ method: '$sample', random: true, size: 40 });
    expect(JSON.stringify(snap)).not.toContain(SECRET);
  });

  it('without $sample: the first documents in natural order, labelled not random, with a note', async (ctx) => {
    if (caps.has.sample) ctx.skip('the server has $sample: the random-sample test covers it');
    expect(server.capabilities.sample.supported).toBe(false);
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['rows'], sampleSize: 40 });
    expect(snap.databases[0]?.collections[0]?.sample).toMatchObject({ method: 'natural-order', random: false, size: 40 });
    expect(snap.notes.map((n) => n.message).join('\n')).toMatch(/not random/);
  });

  it('with $bsonSize and $size: a document over 1 MiB is measured on the server, never pulled, never printed', async (ctx) => {
    if (!caps.has.bsonSize || !caps.has.arraySize) ctx.skip(`the server lacks ${!caps.has.bsonSize ? `$bsonSize (${caps.why.bsonSize ?? 'no'})` : `$size (${caps.why.arraySize ?? 'no'})`}: large documents are pulled and measured in process`);
    const raw = await readSample(live.adapter, server, DB, 'big', { requested: 6, maxTimeMS: 10_000, largeDocBytes: 1024 * 1024 });
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
    const coll = snap.databases[0]?.collections[0];
    const doc = coll?.sample.docs.find((d) => d.measuredOnServer);
    expect(doc?.arrays.find((a) => a.path === 'items')?.maxLength).toBe(3000);
    expect(coll?.notes.map((n) => n.message).join('\n')).toMatch(/^1 sampled document over 1024 KB was measured on the server/m);
    expect(JSON.stringify(snap)).not.toContain(SECRET);
  });

  it('without $bsonSize: the large document is pulled and measured in process', async (ctx) => {
    if (caps.has.bsonSize && caps.has.arraySize) ctx.skip('the server has $bsonSize and $size: the server-side test covers it');
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['big'], sampleSize: 6 });
    const docs = snap.databases[0]?.collections[0]?.sample.docs ?? [];
    expect(docs.some((d) => d.measuredOnServer)).toBe(false);
    expect(Math.max(...docs.map((d) => d.arrays.find((a) => a.path === 'items')?.maxLength ?? 0))).toBe(3000);
    expect(JSON.stringify(snap)).not.toContain(SECRET);
  });
});
