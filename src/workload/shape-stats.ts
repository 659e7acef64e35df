/**
 * What the workload says about each shape: how often it ran, how long it took, and how much it read for what it
 * returned. The input is one row per recorded operation, already keyed by shape id (shape.ts); the readers' records
 * give the counts under these names.
 */
import { percentile } from '../core/stats';

export interface ShapeRun {
  shapeId: string;
  durationMillis?: number;
  keysExamined?: number;
  docsExamined?: number;
  nreturned?: number;
  /**
   * How many executions the row stands for (a `$queryStats` entry: its `execCount`, its figures the means per
   * execution); 1 when absent. The p95 is then over the rows' means, not over every execution.
   */
  executions?: number;
}

export interface ShapeStats {
  shapeId: string;
  /** Operations recorded with this shape. */
  calls: number;
  /** Of them, those with a duration. */
  timed: number;
  totalMillis: number;
  /** 95th percentile of the durations (linear interpolation, src/core/stats.ts); null with none timed. */
  p95Millis: number | null;
  /** Operations that reported keysExamined, docsExamined and nreturned; the sums below are over them. */
  counted: number;
  keysExamined: number;
  docsExamined: number;
  nreturned: number;
  /** Documents read per document returned (Atlas's "query targeting"); null when none was returned or counted. */
  docsPerReturned: number | null;
  keysPerReturned: number | null;
  /**
   * Documents read and not returned, per call. The query-indexes rule reports a shape past 500 (its
   * `wastedDocsPerCall` default), Atlas Performance Advisor's line: "Also, the Performance Advisor suggests the index
   * only if the difference between scanned documents and returned documents is greater than 500 for impacted
   * queries." (Review Index Ranking, "Limiting Proposed Indexes":
   * https://www.mongodb.com/docs/atlas/performance-advisor/index-ranking/).
   */
  wastedDocsPerCall: number | null;
}

interface Sums {
  calls: number;
  durations: number[];
  timed: number;
  totalMillis: number;
  counted: number;
  keys: number;
  docs: number;
  returned: number;
}

const finite = (x: number | undefined): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

function finish(shapeId: string, s: Sums): ShapeStats {
  const ratio = (n: number): number | null => (s.counted > 0 && s.returned > 0 ? n / s.returned : null);
  return {
    shapeId,
    calls: s.calls,
    timed: s.timed,
    totalMillis: s.totalMillis,
    p95Millis: s.durations.length ? percentile(s.durations, 95) : null,
    counted: s.counted,
    keysExamined: s.keys,
    docsExamined: s.docs,
    nreturned: s.returned,
    docsPerReturned: ratio(s.docs),
    keysPerReturned: ratio(s.keys),
    wastedDocsPerCall: s.counted > 0 ? Math.max(0, s.docs - s.returned) / s.counted : null,
  };
}

/** Per shape id, in the order shapes first appear. */
export function statsByShape(runs: Iterable<ShapeRun>): ShapeStats[] {
  const by = new Map<string, Sums>();
  for (const r of runs) {
    let s = by.get(r.shapeId);
    if (!s)
      by.set(
        r.shapeId,
        (s = { calls: 0, durations: [], timed: 0, totalMillis: 0, counted: 0, keys: 0, docs: 0, returned: 0 }),
      );
    const w = finite(r.executions) ? r.executions : 1;
    s.calls += w;
    if (finite(r.durationMillis)) {
      s.durations.push(r.durationMillis);
      s.timed += w;
      s.totalMillis += r.durationMillis * w;
    }
    if (finite(r.keysExamined) && finite(r.docsExamined) && finite(r.nreturned)) {
      s.counted += w;
      s.keys += r.keysExamined * w;
      s.docs += r.docsExamined * w;
      s.returned += r.nreturned * w;
    }
  }
  return [...by].map(([id, s]) => finish(id, s));
}
