import { describe, expect, it } from 'vitest';
import { whyNotReading } from '../../src/adapters/read-only';
import type { Adapter, CursorOptions, Doc } from '../../src/core/adapter';
import {
  collectionScansCommand,
  collectionScansOf,
  readCollectionScans,
  readDatabaseScans,
} from '../../src/workload/collection-scans';
import { long, perShard, promoted, withoutCounters } from '../fixtures/workload/collection-scans';

/** An adapter whose cursor answers per collection: rows, or a refusal. */
function stub(answers: Record<string, Doc[] | Error>) {
  const sent: { db: string; cmd: Doc; opts: CursorOptions | undefined }[] = [];
  const adapter = {
    kind: 'driver',
    source: 'stub',
    bson: {} as Adapter['bson'],
    roundTrips: 0,
    command: () => Promise.reject(new Error('the reader uses the cursor')),
    close: () => Promise.resolve(),
    cursor(db: string, cmd: Doc, opts?: CursorOptions) {
      sent.push({ db, cmd, opts });
      const answer = answers[String(cmd.aggregate)] ?? [];
      if (answer instanceof Error) return Promise.reject(answer);
      return Promise.resolve({ docs: answer, exhausted: true });
    },
  } satisfies Adapter;
  return { adapter, sent };
}

const serverError = (code: number, codeName: string, message: string) =>
  Object.assign(new Error(message), { code, codeName });

describe('collectionScansOf', () => {
  it('reads total and nonTailable, as numbers or as 64-bit integers', () => {
    expect(collectionScansOf([promoted])).toEqual({ total: 65, nonTailable: 33 });
    expect(collectionScansOf([long])).toEqual({ total: 65, nonTailable: 33 });
  });

  it('sums the rows of a sharded collection, one per shard', () => {
    expect(collectionScansOf(perShard)).toEqual({ total: 65, nonTailable: 33 });
  });

  it('gives null when no row has the counters, and skips rows whose counts are not counts', () => {
    expect(collectionScansOf([withoutCounters])).toBeNull();
    expect(collectionScansOf([])).toBeNull();
    const bad = { ...promoted, queryExecStats: { collectionScans: { total: -1, nonTailable: 'x' } } };
    expect(collectionScansOf([bad])).toBeNull();
    expect(collectionScansOf([bad, promoted])).toEqual({ total: 65, nonTailable: 33 });
  });
});

describe('readCollectionScans', () => {
  it('sends one $collStats with queryExecStats and a time limit, on the primary, through the gate', async () => {
    const cmd = collectionScansCommand('orders', 5000);
    expect(cmd).toEqual({
      aggregate: 'orders',
      pipeline: [{ $collStats: { queryExecStats: {} } }],
      cursor: {},
      maxTimeMS: 5000,
    });
    expect(whyNotReading(cmd)).toBeNull();
    const { adapter, sent } = stub({ orders: [promoted] });
    expect(await readCollectionScans(adapter, 'shop', 'orders', { maxTimeMS: 5000 })).toEqual({
      total: 65,
      nonTailable: 33,
    });
    expect(sent).toEqual([{ db: 'shop', cmd, opts: { readPreference: 'primary' } }]);
  });

  it('says why the counts are absent: a server that does not count, or a refusal', async () => {
    const none = await readCollectionScans(stub({ orders: [withoutCounters] }).adapter, 'shop', 'orders', {
      maxTimeMS: 1,
    });
    expect(none).toEqual({ reason: expect.stringMatching(/answers without queryExecStats/) as unknown });
    const err = serverError(13, 'Unauthorized', 'not authorized on shop to execute command { aggregate: "orders" }');
    const refused = await readCollectionScans(stub({ orders: err }).adapter, 'shop', 'orders', { maxTimeMS: 1 });
    if (!('reason' in refused)) throw new Error('counted');
    expect(refused.reason).toMatch(/^\$collStats queryExecStats could not be read \(Unauthorized \(13\): /);
    expect(refused.reason).not.toMatch(/\n|\bat .+:\d+:\d+/);
  });
});

describe('readDatabaseScans', () => {
  it('reads each collection, skipping one dropped meanwhile', async () => {
    const gone = serverError(26, 'NamespaceNotFound', 'Collection [shop.gone] not found.');
    const { adapter, sent } = stub({ orders: [promoted], gone, events: perShard });
    const read = await readDatabaseScans(adapter, 'shop', ['orders', 'gone', 'events'], { maxTimeMS: 1 });
    expect(read.reason).toBeNull();
    expect(Object.fromEntries(read.scans)).toEqual({
      orders: { total: 65, nonTailable: 33 },
      events: { total: 65, nonTailable: 33 },
    });
    expect(sent).toHaveLength(3);
  });

  it('stops at the first answer without counters: one command on a server that never counts', async () => {
    const { adapter, sent } = stub({ orders: [withoutCounters], events: [promoted] });
    const read = await readDatabaseScans(adapter, 'shop', ['orders', 'events'], { maxTimeMS: 1 });
    expect(read.scans.size).toBe(0);
    expect(read.reason).toMatch(/does not count collection scans/);
    expect(sent).toHaveLength(1);
  });

  it('stops at the first refusal that is not about a missing collection', async () => {
    const err = serverError(238, 'NotImplemented', 'not implemented');
    const { adapter, sent } = stub({ orders: [promoted], events: err, users: [promoted] });
    const read = await readDatabaseScans(adapter, 'shop', ['orders', 'events', 'users'], { maxTimeMS: 1 });
    expect([...read.scans.keys()]).toEqual(['orders']);
    expect(read.reason).toMatch(/^\$collStats queryExecStats could not be read \(NotImplemented \(238\)/);
    expect(sent).toHaveLength(2);
  });
});
