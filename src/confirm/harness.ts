import { median, medianInterval, medianRank, orderStatMiss, pairedRatios } from '../core/stats';
import type { Measurement, RatioInterval } from '../core/types';

export interface TrialPlan {
  /** Untimed runs first, to warm caches and connections. */
  warmup: number;
  /** Timed runs wanted; at least 5. */
  trials: number;
  /**
   * Paired arms only (`alternate` in trials.ts): when the ratio's interval after `trials` rounds still holds one of
   * `thresholds`, more rounds up to this many, while the budget lasts (a second look; see `sequentialDesign`).
   * Default 3 × trials; `trials` or less turns the second look off.
   */
  maxTrials?: number;
  /** The ratios the interval must leave out to decide (default [1]); a rule's noise allowance may be one. */
  thresholds?: readonly number[];
}

export const DEFAULT_TRIALS: TrialPlan = { warmup: 1, trials: 7 };
export const MIN_TRIALS = 5;
/** What every interval aims at: at most a 5% chance of missing what it estimates (more when n is too small to reach it; the interval then says its coverage). */
export const CONFIDENCE = 0.95;

/** How the ratio of two paired arms is read (set by `alternate`): which pairs, which order statistics, what coverage. */
export interface Pairing {
  /** The other arm's label. */
  with: string;
  /** Pairs the interval uses (the first `n` rounds): the first look's, or the second's when it was taken. */
  n: number;
  /** 1-based rank of the interval's low end among the sorted paired ratios (high end: n + 1 - rank). */
  rank: number;
  /** The stated coverage of the procedure (both looks counted), never above the real one. */
  coverage: number;
  /** Timed rounds at each look taken (one entry, or two when the first look's interval held a threshold). */
  looks: number[];
}

export interface Timed {
  label: string;
  samples: number[];
  /** false when the time budget ran out before the minimum number of trials. */
  complete: boolean;
  /** Set when the arm was timed in alternation with another (round i of each is a pair). */
  pairing?: Pairing;
}

/** A per-finding time budget shared by every measurement of one experiment. */
export class Budget {
  private readonly deadline: number;
  constructor(readonly ms: number, private readonly signal?: AbortSignal) {
    this.deadline = performance.now() + ms;
  }
  get exhausted(): boolean {
    return performance.now() > this.deadline || this.signal?.aborted === true;
  }
  get remainingMs(): number {
    return Math.max(0, this.deadline - performance.now());
  }
  /** A budget for one part of the experiment: `fraction` of what remains, bound to the same signal. */
  slice(fraction: number): Budget {
    return new Budget(this.remainingMs * fraction, this.signal);
  }
  throwIfAborted(): void {
    if (this.signal?.aborted) throw new Error('interrupted');
  }
}

/**
 * Times `run` over warm-up plus trials. `prepare` runs untimed before each run (to reset state).
 * Stops early when the budget runs out; `complete` then says whether the minimum was reached.
 */
export async function timeTrials(
  label: string,
  budget: Budget,
  run: (trial: number) => Promise<void>,
  plan: TrialPlan = DEFAULT_TRIALS,
  prepare?: (trial: number) => Promise<void>,
): Promise<Timed> {
  const trials = Math.max(MIN_TRIALS, plan.trials);
  const samples: number[] = [];
  for (let i = 0; i < plan.warmup + trials; i++) {
    budget.throwIfAborted();
    if (budget.exhausted && samples.length >= MIN_TRIALS) break;
    if (budget.exhausted && i > 0) break;
    if (prepare) await prepare(i);
    const t0 = performance.now();
    await run(i);
    const dt = performance.now() - t0;
    if (i >= plan.warmup) samples.push(dt);
  }
  return { label, samples, complete: samples.length >= MIN_TRIALS };
}

/** A median with its distribution-free order-statistic interval and the coverage that interval really has. */
export function toMeasurement(t: Timed, unit: Measurement['unit'] = 'ms'): Measurement {
  const m = medianInterval(t.samples, CONFIDENCE);
  return { label: t.label, unit, median: m.median, low: m.low, high: m.high, trials: t.samples.length, coverage: m.coverage };
}

/**
 * The miss probabilities of a paired run with at most two looks. Look 1 after `n1` rounds; when its interval holds a
 * threshold and the plan allows, look 2 after more rounds. By the union bound the chance that the reported interval
 * misses the median ratio is at most miss1 + reserve2, whatever happens at either look, and that is the coverage
 * stated. Look 1 spends at most half of 1 - CONFIDENCE (min–max when n1 is too small for that), look 2 the rest (at
 * least the other half): n1 = 7 gives min–max at look 1 (1.6%) and 3.4% for look 2, stated coverage 95%.
 */
export function sequentialDesign(n1: number, extendable: boolean, alpha = 1 - CONFIDENCE): { rank1: number; miss1: number; reserve2: number; coverage: number } {
  const rank1 = medianRank(n1, extendable ? alpha / 2 : alpha);
  const miss1 = orderStatMiss(n1, rank1);
  const reserve2 = extendable ? Math.max(alpha - miss1, alpha / 2) : 0;
  return { rank1, miss1, reserve2, coverage: Math.max(0, 1 - miss1 - reserve2) };
}

/** Whether an interval holds any of the thresholds (so it cannot decide against them). */
export function holdsAny(r: { low: number; high: number }, thresholds: readonly number[]): boolean {
  return thresholds.some((t) => r.low <= t && t <= r.high);
}

/**
 * The ratio a/b with a distribution-free interval: the median of the paired ratios a[i]/b[i] and order statistics of
 * them (the sign-test interval), with `coverage` the probability it really has, not a nominal 95%. Arms timed in
 * alternation (`alternate`) pair round by round and use the run's two-look design; arms timed one after the other pair
 * by trial index (valid for independent trials, but drift over the run falls on one arm: prefer `alternate`).
 */
export function ratioOf(label: string, a: Timed, b: Timed): RatioInterval & { label: string } {
  const pa = a.pairing;
  const pb = b.pairing;
  if (pa && pb && pa.with === b.label && pb.with === a.label && pa.n === pb.n) {
    const ratios = pairedRatios(a.samples.slice(0, pa.n), b.samples.slice(0, pa.n));
    const sorted = Float64Array.from(ratios).sort();
    const n = sorted.length;
    const rank = Math.min(pa.rank, Math.max(1, Math.floor((n + 1) / 2)));
    return { label, median: median(ratios), low: n ? (sorted[rank - 1] as number) : NaN, high: n ? (sorted[n - rank] as number) : NaN, coverage: pa.coverage, pairs: n, paired: true };
  }
  const m = medianInterval(pairedRatios(a.samples, b.samples), CONFIDENCE);
  return { label, median: m.median, low: m.low, high: m.high, coverage: m.coverage, pairs: m.n, paired: false };
}

/**
 * Whether an interval lies wholly above `threshold` (supported), wholly below (refuted) or straddles it. With a
 * `margin` (> 1) it must clear threshold × margin to be above and threshold / margin to be below: a difference smaller
 * than the margin is not worth a verdict, and an arm pair with no real difference then rarely gets one by chance
 * (an interval that merely leaves out 1 does so 1 - coverage of the time, however large the run).
 */
export function verdict(r: { low: number; high: number }, threshold: number, margin = 1): 'above' | 'below' | 'straddles' {
  if (r.low > threshold * margin) return 'above';
  if (r.high < threshold / margin) return 'below';
  return 'straddles';
}
