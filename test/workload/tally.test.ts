import { describe, expect, it } from 'vitest';
import { makeRecord } from '../../src/workload/record';
import { WorkloadTally } from '../../src/workload/tally';

describe('WorkloadTally', () => {
  // Issue 27: one pipeline's time was counted on its aggregate shape and again on its $lookup's shape.
  it("counts a $lookup pipeline's time once, on the pipeline's shape; the $lookup's shape counts the calls", () => {
    const pipeline = {
      aggregate: 'users',
      pipeline: [
        { $match: { country: 'C1' } },
        { $lookup: { from: 'events', localField: '_id', foreignField: 'userId', as: 'events' } },
      ],
      cursor: {},
    };
    const facts = { source: 'log' as const, ns: { db: 'shop', coll: 'users' }, op: 'aggregate' as const };
    const tally = WorkloadTally.of([
      makeRecord({ ...facts, durationMillis: 900, keysExamined: 10, docsExamined: 10, nreturned: 10 }, pipeline),
      makeRecord({ ...facts, durationMillis: 300, keysExamined: 10, docsExamined: 10, nreturned: 10 }, pipeline),
    ]);
    const shapes = [...(tally.dbs.get('shop')?.shapes.values() ?? [])];
    const main = shapes.find((t) => t.shape.command === 'aggregate');
    const lookup = shapes.find((t) => t.shape.command === 'lookup');
    expect(main?.sums.stats('a')).toMatchObject({ calls: 2, timed: 2, totalMillis: 1200, counted: 2 });
    expect(lookup?.sums.stats('l')).toMatchObject({ calls: 2, timed: 0, totalMillis: 0, counted: 0, p95Millis: null });
    const total = shapes.reduce((t, s) => t + s.sums.totalMillis, 0);
    expect(total).toBe(1200);
  });
});
