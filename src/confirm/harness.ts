import {
  CONFIDENCE,
  NOISE_MARGIN,
  median,
  medianInterval,
  medianRank,
  orderStatMiss,
  pairedRatios,
} from '../core/stats';
import type { Measurement, RatioClaim, RatioInterval, Verdict } from '../core/types';

export interface TrialPlan {
  /** Untimed runs (rounds, for paired arms) first, to warm caches and connections. */
  warmup: number;
  /**
   * `timeTrials`: timed runs wanted (at least 5). `alternate`: blocks wanted at the first look (each block is
   * BLOCK_ROUNDS rounds, one of each order), at least MIN_BLOCKS.
   */
  trials: number;
  /**
   * Paired arms only (`alternate`): when the first look's interval still holds one of `thresholds` (its blocks
   * disagree about the claim), more blocks up to this many, while the budget lasts (a second look; see
   * `sequentialDesign`). Default 3 × trials; `trials` or less turns the second look off.
   */
  maxTrials?: number;
  /**
   * The ratios the interval must leave out to decide (`alternate` without any: [1]); a rule passes its claim's
   * `decisionEdges` (its size and the noise margin's two edges), as DEFAULT_TRIALS does for a claim of size 1.
   */
  thresholds?: readonly number[];
}

/**
 * 7 blocks (14 rounds) at the first look: min–max of 7 block ratios misses 1.6%, which leaves the second look 3.4%.
 * The second look is taken while the interval holds 1 or an edge of the noise margin (1 / 1.1, 1.1): where `judge`
 * cannot yet decide a claim of size 1.
 */
export const DEFAULT_TRIALS: TrialPlan = { warmup: 1, trials: 7, thresholds: decisionEdges({ size: 1 }) };
export const MIN_TRIALS = 5;
/** Rounds per block: one with A first and one with B first, so a block's ratio cancels what running first costs. */
export const BLOCK_ROUNDS = 2;
/** Fewest blocks whose min–max reaches CONFIDENCE (6: 96.9%); fewer is a range of what was timed, never a verdict. */
export const MIN_BLOCKS = 6;
export { CONFIDENCE, NOISE_MARGIN };

/** How the ratio of two paired arms is read (set by `alternate`): which blocks, which order statistics, what
 * coverage. */
export interface Pairing {
  /** The other arm's label. */
  with: string;
  /** Rounds the interval uses (the first `n`): `blocks` × BLOCK_ROUNDS. */
  n: number;
  /** Blocks the interval is over: the first look's, or the second's when it was taken. */
  blocks: number;
  /** 1-based rank of the interval's low end among the sorted block ratios (high end: blocks + 1 - rank). */
  rank: number;
  /** The stated coverage of the procedure (both looks counted), never above the real one. */
  coverage: number;
  /** Blocks at each look taken (one entry, or two when the first look's interval held a threshold). */
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
  constructor(
    readonly ms: number,
    private readonly signal?: AbortSignal,
  ) {
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
  return {
    label: t.label,
    unit,
    median: m.median,
    low: m.low,
    high: m.high,
    trials: t.samples.length,
    coverage: m.coverage,
  };
}

/**
 * The miss probabilities of a paired run with at most two looks. Look 1 after `n1` rounds; when its interval holds a
 * threshold and the plan allows, look 2 after more rounds. By the union bound the chance that the reported interval
 * misses the median ratio is at most miss1 + reserve2, whatever happens at either look, and that is the coverage
 * stated. Look 1 spends at most half of 1 - CONFIDENCE (min–max when n1 is too small for that), look 2 the rest (at
 * least the other half): n1 = 7 gives min–max at look 1 (1.6%) and 3.4% for look 2, stated coverage 95%.
 */
export function sequentialDesign(
  n1: number,
  extendable: boolean,
  alpha = 1 - CONFIDENCE,
): { rank1: number; miss1: number; reserve2: number; coverage: number } {
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
 * Block-level ratios: the rounds split into blocks of `rounds` consecutive pairs, each block's ratio the geometric mean
 * of its pairs' a[i]/b[i]. With BLOCK_ROUNDS = 2 a block holds one round of each order (A B, then B A), so what running
 * first costs cancels. An interval over blocks is the method of batch means for a series whose neighbours are not
 * independent: drift over the run (a loaded stretch, caches warming) moves a whole block, and the blocks' spread shows
 * it, where an interval over single rounds narrows as if each round were a fresh run, and a rerun falls outside it.
 */
export function blockRatios(a: readonly number[], b: readonly number[], rounds = BLOCK_ROUNDS): number[] {
  const pairs = pairedRatios(a, b);
  const out: number[] = [];
  for (let i = 0; i + rounds <= pairs.length; i += rounds) {
    const logs = pairs.slice(i, i + rounds).map((x) => Math.log(x));
    out.push(Math.exp(logs.reduce((t, x) => t + x, 0) / rounds));
  }
  return out;
}

/**
 * The ratio a/b over blocks (`blockRatios`): the median of the block ratios and a distribution-free interval of them
 * (order statistics, the sign-test interval), `coverage` the probability it really has. Arms timed in alternation
 * (`alternate`) use the run's two-look design; arms timed one after the other pair by trial index (valid for
 * independent trials, but drift over the run falls on one arm: prefer `alternate`).
 */
export function ratioOf(label: string, a: Timed, b: Timed): RatioInterval & { label: string } {
  const pa = a.pairing;
  const pb = b.pairing;
  if (pa && pb && pa.with === b.label && pb.with === a.label && pa.n === pb.n) {
    const blocks = blockRatios(a.samples.slice(0, pa.n), b.samples.slice(0, pa.n));
    const sorted = Float64Array.from(blocks).sort();
    const n = sorted.length;
    const rank = Math.min(pa.rank, Math.max(1, Math.floor((n + 1) / 2)));
    const [low, high] = n ? [sorted[rank - 1] as number, sorted[n - rank] as number] : [NaN, NaN];
    return {
      label,
      median: median(blocks),
      low,
      high,
      coverage: n ? pa.coverage : 0,
      pairs: pa.n,
      blocks: n,
      paired: true,
    };
  }
  const blocks = blockRatios(a.samples, b.samples);
  const m = medianInterval(blocks, CONFIDENCE);
  return {
    label,
    median: m.median,
    low: m.low,
    high: m.high,
    coverage: m.coverage,
    pairs: Math.min(a.samples.length, b.samples.length),
    blocks: m.n,
    paired: false,
  };
}

/** The margin as the percentage a message prints ("10%"). */
export function noisePercent(margin = NOISE_MARGIN): string {
  return `${Math.round((margin - 1) * 100)}%`;
}

/**
 * The ratios a timed interval must leave out for the verdict on `claim` to be decided (the size and its two margin
 * edges): a paired run takes its second look while its interval still holds one of them (`TrialPlan.thresholds`),
 * and a printed figure keeps each of its ends on its side of all three (`figure` in verdict.ts). The size comes first.
 */
export function decisionEdges(claim: Pick<RatioClaim, 'size'>, margin = NOISE_MARGIN): number[] {
  return [claim.size, claim.size / margin, claim.size * margin];
}

/**
 * The verdict on a ratio claim, from the interval and nothing else. A timed interval (one with a `coverage`) is
 * supported only when it lies wholly beyond the claim's size by the noise `margin` (above size × margin for a claim
 * "above", below size / margin for "below"), refuted only when it lies wholly beyond the other side by the same
 * margin, and inconclusive otherwise: when it reaches within the margin of the size, or when it does not reach
 * CONFIDENCE (too few blocks timed). An exact figure (no coverage: a size read from the server) is judged as it is,
 * without margin; on the size itself it decides nothing.
 */
export function judge(
  claim: Pick<RatioClaim, 'direction' | 'size'>,
  r: { low: number; high: number; coverage?: number },
  margin = NOISE_MARGIN,
): Verdict {
  if (r.coverage !== undefined && !(r.coverage >= CONFIDENCE - 1e-12)) return 'inconclusive';
  if (!Number.isFinite(r.low) || !Number.isFinite(r.high)) return 'inconclusive';
  const m = r.coverage === undefined ? 1 : margin;
  const above = r.low > claim.size * m;
  const below = r.high < claim.size / m;
  if (claim.direction === 'above') return above ? 'supported' : below ? 'refuted' : 'inconclusive';
  return below ? 'supported' : above ? 'refuted' : 'inconclusive';
}
