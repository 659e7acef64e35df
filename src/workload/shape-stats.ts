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

const finite = (x: number | undefined): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;

/**
 * Durations kept exactly up to this many per shape (its p95 by linear interpolation, as src/core/stats.ts computes
 * it); past it they fold into a log-bucketed histogram, so a shape run a million times holds a few hundred buckets,
 * not a million numbers.
 */
export const EXACT_DURATIONS = 10_000;
/**
 * The histogram's bucket ratio: a bucket holds (γ^(k-1), γ^k] and answers with 2γ^k/(γ+1), within (γ-1)/(γ+1), about
 * 0.5%, of any value in it (DDSketch's relative-error buckets: Masson, Rim & Lee, VLDB 2019).
 */
const GAMMA = 1.01;
const LOG_GAMMA = Math.log(GAMMA);

/** The durations of one shape's calls: exact while few, a histogram past EXACT_DURATIONS. */
export class Durations {
  private exact: number[] | null = [];
  private readonly buckets = new Map<number, number>();
  private n = 0;

  get count(): number {
    return this.n;
  }

  add(ms: number): void {
    this.n++;
    if (this.exact) {
      this.exact.push(ms);
      if (this.exact.length > EXACT_DURATIONS) this.toHistogram();
    } else this.bucket(ms, 1);
  }

  merge(other: Durations): void {
    if (this.exact && other.exact && this.exact.length + other.exact.length <= EXACT_DURATIONS) {
      for (const v of other.exact) this.exact.push(v);
      this.n += other.n;
      return;
    }
    this.toHistogram();
    if (other.exact) for (const v of other.exact) this.bucket(v, 1);
    else for (const [k, c] of other.buckets) this.buckets.set(k, (this.buckets.get(k) ?? 0) + c);
    this.n += other.n;
  }

  /** The p-th percentile (0..100), null when none was added. */
  percentile(p: number): number | null {
    if (this.n === 0) return null;
    if (this.exact) return percentile(this.exact, p);
    const rank = Math.floor(((this.n - 1) * p) / 100);
    let seen = 0;
    for (const k of [...this.buckets.keys()].sort((a, b) => a - b)) {
      seen += this.buckets.get(k) ?? 0;
      if (seen > rank) return k === -Infinity ? 0 : (2 * GAMMA ** k) / (GAMMA + 1);
    }
    return null;
  }

  private toHistogram(): void {
    if (!this.exact) return;
    for (const v of this.exact) this.bucket(v, 1);
    this.exact = null;
  }

  private bucket(ms: number, count: number): void {
    const k = ms > 0 ? Math.ceil(Math.log(ms) / LOG_GAMMA) : -Infinity;
    this.buckets.set(k, (this.buckets.get(k) ?? 0) + count);
  }
}

/** One run as a shape's sums take it: the figures of ShapeRun and the plan facts the sources give. */
export interface ShapeRunFacts extends Omit<ShapeRun, 'shapeId'> {
  hasSortStage?: boolean;
  planSummary?: string;
}

/**
 * The running sums of one shape: a run folds in with `add`, two shapes' sums (the same shape read twice, or two raw
 * shapes that fold into one) with `merge`. Memory does not grow with the runs (Durations above).
 */
export class ShapeSums {
  calls = 0;
  timed = 0;
  totalMillis = 0;
  counted = 0;
  keys = 0;
  docs = 0;
  returned = 0;
  /** Runs whose source said whether they sorted in memory, and of them those that did. */
  sortsKnown = 0;
  sorts = 0;
  /** Runs whose source gave a plan summary, and of them those planned as a collection scan. */
  plansKnown = 0;
  scans = 0;
  readonly durations = new Durations();

  /** One run; `executions` (a `$queryStats` entry's execCount) weighs it, 1 when absent. */
  add(r: ShapeRunFacts, executions = r.executions): void {
    const w = finite(executions) ? executions : 1;
    this.calls += w;
    if (finite(r.durationMillis)) {
      this.durations.add(r.durationMillis);
      this.timed += w;
      this.totalMillis += r.durationMillis * w;
    }
    if (finite(r.keysExamined) && finite(r.docsExamined) && finite(r.nreturned)) {
      this.counted += w;
      this.keys += r.keysExamined * w;
      this.docs += r.docsExamined * w;
      this.returned += r.nreturned * w;
    }
    if (r.hasSortStage !== undefined) {
      this.sortsKnown++;
      if (r.hasSortStage) this.sorts++;
    }
    if (r.planSummary !== undefined) {
      this.plansKnown++;
      if (r.planSummary === 'COLLSCAN') this.scans++;
    }
  }

  merge(o: ShapeSums): void {
    this.calls += o.calls;
    this.timed += o.timed;
    this.totalMillis += o.totalMillis;
    this.counted += o.counted;
    this.keys += o.keys;
    this.docs += o.docs;
    this.returned += o.returned;
    this.sortsKnown += o.sortsKnown;
    this.sorts += o.sorts;
    this.plansKnown += o.plansKnown;
    this.scans += o.scans;
    this.durations.merge(o.durations);
  }

  stats(shapeId: string): ShapeStats {
    const ratio = (n: number): number | null => (this.counted > 0 && this.returned > 0 ? n / this.returned : null);
    return {
      shapeId,
      calls: this.calls,
      timed: this.timed,
      totalMillis: this.totalMillis,
      p95Millis: this.durations.percentile(95),
      counted: this.counted,
      keysExamined: this.keys,
      docsExamined: this.docs,
      nreturned: this.returned,
      docsPerReturned: ratio(this.docs),
      keysPerReturned: ratio(this.keys),
      wastedDocsPerCall: this.counted > 0 ? Math.max(0, this.docs - this.returned) / this.counted : null,
    };
  }
}

/** Per shape id, in the order shapes first appear. */
export function statsByShape(runs: Iterable<ShapeRun>): ShapeStats[] {
  const by = new Map<string, ShapeSums>();
  for (const r of runs) {
    let s = by.get(r.shapeId);
    if (!s) by.set(r.shapeId, (s = new ShapeSums()));
    s.add(r);
  }
  return [...by].map(([id, s]) => s.stats(id));
}
