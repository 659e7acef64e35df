import { BSON, Long, ObjectId } from 'bson';
import { describe, expect, it } from 'vitest';
import { bsonSizes, dropRepeatedIds, ENVELOPE_BYTES, limitsFromHello, MONGODB_LIMITS, planCopyBatches } from './copy';

const MiB = 1024 * 1024;
/** What the documents of one command weigh in its `documents` array: each with its type byte and "i\0" key. */
const arrayBytes = (sizes: readonly number[], batch: readonly number[]): number =>
  batch.reduce((t, i, k) => t + (sizes[i] as number) + 2 + String(k).length, 0);

describe('planCopyBatches', () => {
  it('splits by real sizes, not an average: 6 MB documents among small ones never make a command past 16 MiB', () => {
    const sizes = [200, 6_000_000, 150, 6_000_000, 300, 6_000_000, ...Array.from({ length: 40 }, () => 120)];
    const plan = planCopyBatches(sizes);
    expect(plan.tooLarge).toEqual([]);
    expect(plan.batches.flat()).toEqual(sizes.map((_, i) => i)); // every document once, in order
    for (const b of plan.batches) expect(arrayBytes(sizes, b)).toBeLessThanOrEqual(16 * MiB - ENVELOPE_BYTES);
    expect(plan.batches.length).toBe(2); // two 6 MB documents fit together, the third starts a new command
  });

  it('caps documents per command at maxWriteBatchSize', () => {
    const plan = planCopyBatches(Array.from({ length: 250_001 }, () => 20));
    expect(plan.batches.map((b) => b.length)).toEqual([100_000, 100_000, 50_001]);
  });

  it('follows the limits hello states (smaller ones too)', () => {
    const hello = { maxBsonObjectSize: 1000 + ENVELOPE_BYTES, maxMessageSizeBytes: 48_000_000, maxWriteBatchSize: 3 };
    const limits = limitsFromHello(hello);
    const plan = planCopyBatches([400, 400, 400, 10, 10, 10, 10], limits);
    expect(plan.batches).toEqual([
      [0, 1],
      [2, 3, 4],
      [5, 6],
    ]);
  });

  it('leaves out a lone document over maxBsonObjectSize, and sends one at the limit alone', () => {
    const plan = planCopyBatches([100, 16 * MiB + 1, 16 * MiB, 100]);
    expect(plan.tooLarge).toEqual([1]);
    expect(plan.batches).toEqual([[0], [2], [3]]);
  });

  it('takes MongoDB documented values when hello says nothing or 0', () => {
    expect(limitsFromHello(null)).toEqual(MONGODB_LIMITS);
    expect(limitsFromHello({ maxBsonObjectSize: 0, maxMessageSizeBytes: 'x' })).toEqual(MONGODB_LIMITS);
    const documented = { maxBsonObjectSize: 16_777_216, maxMessageSizeBytes: 48_000_000, maxWriteBatchSize: 100_000 };
    expect(MONGODB_LIMITS).toEqual(documented);
  });

  it('plans nothing for no documents', () => {
    expect(planCopyBatches([])).toEqual({ batches: [], tooLarge: [] });
  });
});

describe('bsonSizes', () => {
  it('equals the BSON library on the documents it copies', () => {
    const docs = [{ _id: new ObjectId(), a: 'x'.repeat(1000), n: [1, 2, { b: new Date(0) }] }, { s: 'é' }];
    expect(bsonSizes(docs)).toEqual(docs.map((d) => BSON.calculateObjectSize(d)));
  });
});

describe('dropRepeatedIds', () => {
  it('keeps each _id once (the first), whatever object holds it, and every document without one', () => {
    const oid = new ObjectId();
    const docs = [
      { _id: oid, n: 1 },
      { _id: new ObjectId(oid.toHexString()), n: 2 },
      { _id: oid.toHexString(), n: 3 }, // a string is another _id than the ObjectId it spells
      { _id: 5, n: 4 },
      { _id: Long.fromNumber(5), n: 5 }, // numbers compare by value in a unique index
      { _id: { a: 1, b: [1] }, n: 6 },
      { _id: { a: 1, b: [1] }, n: 7 },
      { n: 8 },
      { n: 9 },
    ];
    const r = dropRepeatedIds(docs);
    expect(r.docs.map((d) => d.n)).toEqual([1, 3, 4, 6, 8, 9]);
    expect(r.repeated).toBe(3);
  });
});
