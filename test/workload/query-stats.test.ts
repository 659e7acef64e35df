import { describe, expect, it } from 'vitest';
import { recordOfQueryStats } from '../../src/workload/query-stats';
import { flat, grouped } from '../fixtures/workload/query-stats';

describe('recordOfQueryStats', () => {
  it.each([
    ['grouped (newer)', grouped],
    ['flat (8.0)', flat],
  ])('reads %s metrics as per-execution means', (_, e) => {
    const rec = recordOfQueryStats(e);
    expect(rec).toMatchObject({
      source: 'queryStats',
      ns: { db: 'shop', coll: 'orders' },
      op: 'find',
      appName: 'orders-api',
      execCount: 4,
      durationMillis: 150,
      keysExamined: 5000,
      docsExamined: 5000,
      nreturned: 20,
      hasSortStage: true,
      usedDisk: false,
      shapeOnly: true,
      queryShapeHash: grouped.queryShapeHash,
    });
    if (typeof rec === 'string') throw new Error(rec);
    expect(rec.command).toMatchObject({ find: 'orders', sort: { createdAt: -1 } });
    expect(rec.command).not.toHaveProperty('cmdNs');
  });

  it('leaves out the advisor own shapes and entries without a shape', () => {
    const own = { ...grouped, key: { ...grouped.key, client: { application: { name: 'mongo-advisor' } } } };
    expect(recordOfQueryStats(own)).toBe('own');
    expect(recordOfQueryStats({ key: {}, metrics: {} })).toBe('malformed');
  });
});
