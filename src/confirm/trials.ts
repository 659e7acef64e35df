/** The timing harness every experiment shares: two arms timed in alternation, and how their ratio is written. */
import type { Doc } from '../adapters/types';
import { formatCoverage, medianRank, orderStatMiss, pairedRatios } from '../core/stats';
import type { RatioInterval } from '../core/types';
import { type Budget, CONFIDENCE, DEFAULT_TRIALS, holdsAny, MIN_TRIALS, type Pairing, sequentialDesign, type Timed, type TrialPlan } from './harness';

export interface Arm {
  label: string;
  /** Untimed, before each run (e.g. empty the collection the run inserts into). */
  reset?: () => Promise<void>;
  run: () => Promise<void>;
}

/**
 * Times two arms in alternation (A B, B A, A B…) so drift over the run (caches warming, the collection growing,
 * other load) falls on both alike, unlike timing all of A and then all of B. The first `plan.warmup` rounds are
 * warm-ups. Round i of each arm is a pair: `ratioOf` reads the median of the per-round ratios with an
 * order-statistic interval (src/core/stats.ts), each ratio sharing the load of its moment.
 *
 * Two looks at most (`sequentialDesign` in harness.ts): after `plan.trials` rounds (7 by default), and, when that
 * interval still holds 1 (or another of `plan.thresholds`), again after more rounds, up to `plan.maxTrials` (3 × trials
 * by default) while the budget lasts. The second look is taken only when it can keep its share of the miss
 * probability; otherwise the first look stands. The stated coverage counts both looks.
 */
export async function alternate(budget: Budget, a: Arm, b: Arm, plan: TrialPlan = DEFAULT_TRIALS): Promise<[Timed, Timed]> {
  const sa: number[] = [];
  const sb: number[] = [];
  const n1 = Math.max(MIN_TRIALS, plan.trials);
  const max = Math.max(n1, plan.maxTrials ?? 3 * n1);
  const thresholds = plan.thresholds ?? [1];
  const design = sequentialDesign(n1, max > n1);
  const round = async (i: number): Promise<void> => {
    const order: [Arm, number[]][] = i % 2 === 0 ? [[a, sa], [b, sb]] : [[b, sb], [a, sa]];
    const times: number[] = [];
    for (const [arm] of order) {
      await arm.reset?.();
      const t0 = performance.now();
      await arm.run();
      times.push(performance.now() - t0);
    }
    if (i >= plan.warmup) order.forEach(([, samples], k) => samples.push(times[k] as number));
  };
  let i = 0;
  for (; i < plan.warmup + n1; i++) {
    budget.throwIfAborted();
    if (budget.exhausted && (sa.length >= MIN_TRIALS || i > 0)) break;
    await round(i);
  }
  const looks = [sa.length];
  let n = sa.length;
  // The budget ended the first look early: one look at what was timed (the time, not the data, stopped it).
  let rank = sa.length >= n1 ? design.rank1 : medianRank(sa.length, 1 - CONFIDENCE);
  const coverage = sa.length >= n1 ? design.coverage : 1 - orderStatMiss(sa.length, rank);
  if (sa.length >= n1 && max > n1 && holdsAny(intervalAt(pairedRatios(sa, sb), design.rank1), thresholds)) {
    for (; sa.length < max; i++) {
      budget.throwIfAborted();
      if (budget.exhausted) break;
      await round(i);
    }
    const n2 = sa.length;
    const rank2 = medianRank(n2, design.reserve2);
    if (n2 > n1 && orderStatMiss(n2, rank2) <= design.reserve2) {
      looks.push(n2);
      n = n2;
      rank = rank2;
    }
  }
  const pairing = (other: string): Pairing => ({ with: other, n, rank, coverage, looks });
  return [
    { label: a.label, samples: sa, complete: sa.length >= MIN_TRIALS, pairing: pairing(b.label) },
    { label: b.label, samples: sb, complete: sb.length >= MIN_TRIALS, pairing: pairing(a.label) },
  ];
}

function intervalAt(ratios: readonly number[], rank: number): { low: number; high: number } {
  const sorted = Float64Array.from(ratios).sort();
  return { low: sorted[rank - 1] as number, high: sorted[sorted.length - rank] as number };
}

/** A copy of a document without its _id, so the server gives each insert a new one. */
export function withoutId(doc: Doc): Doc {
  const { _id: _ignored, ...rest } = doc;
  return rest;
}

/** "1.18x (95% CI 1.05x–1.31x)", with the interval's real coverage ("93.8% CI" for the min–max of 5 pairs). */
export function fmtRatio(r: RatioInterval): string {
  const f = (x: number): string => `${x.toFixed(2)}x`;
  return `${f(r.median)} (${ciLabel(r)} ${f(r.low)}–${f(r.high)})`;
}

/**
 * "95% CI", "93.7% CI": the level an interval really has; "CI" alone when it does not say. One or two timed pairs
 * give no interval worth a level (0% or 50%): said as such, with the range of what was timed.
 */
export function ciLabel(r: { coverage?: number }): string {
  if (r.coverage === undefined) return 'CI';
  return r.coverage < 0.75 ? 'too few timed pairs for an interval; range' : `${formatCoverage(r.coverage)} CI`;
}
