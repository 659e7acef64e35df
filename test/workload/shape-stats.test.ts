import { describe, expect, it } from 'vitest';
import { statsByShape, type ShapeRun } from '../../src/workload/shape-stats';

describe('statsByShape', () => {
  it('counts calls, sums time and takes the 95th percentile per shape', () => {
    const runs: ShapeRun[] = [];
    for (let i = 1; i <= 20; i++) runs.push({ shapeId: 'a', durationMillis: i * 10 });
    runs.push({ shapeId: 'b', durationMillis: 7 }, { shapeId: 'a' });
    const [a, b] = statsByShape(runs);
    expect(a).toMatchObject({ shapeId: 'a', calls: 21, timed: 20, totalMillis: 2100 });
    // 20 sorted durations 10..200: position 0.95 × 19 = 18.05, between 190 and 200
    expect(a?.p95Millis).toBeCloseTo(190.5, 6);
    expect(b).toMatchObject({ shapeId: 'b', calls: 1, timed: 1, totalMillis: 7, p95Millis: 7 });
  });
  it('weighs a row by the executions it stands for ($queryStats means)', () => {
    const [s] = statsByShape([
      { shapeId: 'a', executions: 40, durationMillis: 2, keysExamined: 0, docsExamined: 900, nreturned: 10 },
      { shapeId: 'a', durationMillis: 10, keysExamined: 0, docsExamined: 100, nreturned: 100 },
    ]);
    expect(s).toMatchObject({ calls: 41, timed: 41, totalMillis: 90, counted: 41, docsExamined: 36_100 });
    expect(s?.nreturned).toBe(500);
    expect(s?.wastedDocsPerCall).toBeCloseTo((36_100 - 500) / 41, 6);
  });
  it('reads examined against returned over the runs that report all three', () => {
    const [s] = statsByShape([
      { shapeId: 'x', keysExamined: 1000, docsExamined: 1000, nreturned: 10 },
      { shapeId: 'x', keysExamined: 3000, docsExamined: 2000, nreturned: 30 },
      { shapeId: 'x', docsExamined: 99999 },
    ]);
    expect(s).toMatchObject({ calls: 3, counted: 2, keysExamined: 4000, docsExamined: 3000, nreturned: 40 });
    expect([s?.docsPerReturned, s?.keysPerReturned, s?.wastedDocsPerCall]).toEqual([75, 100, 1480]);
  });
  it('says null, not zero or NaN, when nothing was timed, counted or returned', () => {
    const none = { shapeId: 'y', keysExamined: 5, docsExamined: 5, nreturned: 0 };
    const [s] = statsByShape([none, { shapeId: 'y', durationMillis: NaN }]);
    expect([s?.p95Millis, s?.docsPerReturned, s?.keysPerReturned, s?.timed]).toEqual([null, null, null, 0]);
    expect(s?.wastedDocsPerCall).toBe(5);
    expect(statsByShape([])).toEqual([]);
  });
});
