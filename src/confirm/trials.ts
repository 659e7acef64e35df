/** The timing harness every experiment shares: two arms timed in alternation, and how their ratio is written. */
import type { Doc } from '../adapters/types';
import { formatRatioFigure } from '../core/format';
import { intervalLabel, medianRank, orderStatMiss } from '../core/stats';
import type { RatioInterval } from '../core/types';
import {
  BLOCK_ROUNDS,
  blockRatios,
  type Budget,
  CONFIDENCE,
  DEFAULT_TRIALS,
  holdsAny,
  MIN_BLOCKS,
  type Pairing,
  sequentialDesign,
  type Timed,
  type TrialPlan,
} from './harness';

export interface Arm {
  label: string;
  /** Untimed, before each run (e.g. empty the collection the run inserts into). */
  reset?: () => Promise<void>;
  run: () => Promise<void>;
}

/**
 * Times two arms in alternation (A B, B A, A B…) so drift over the run (caches warming, the collection growing,
 * other load) falls on both alike, unlike timing all of A and then all of B. The first `plan.warmup` rounds are
 * warm-ups. Round i of each arm is a pair; BLOCK_ROUNDS consecutive pairs (one of each order) make a block, and
 * `ratioOf` reads the median of the block ratios with an order-statistic interval over blocks (harness.ts).
 *
 * Two looks at most (`sequentialDesign` in harness.ts): after `plan.trials` blocks (7 by default, 14 rounds), and,
 * when the blocks disagree about the claim (that interval still holds 1 or another of `plan.thresholds`), again after
 * more blocks, up to `plan.maxTrials` (3 × trials by default) while the budget lasts. The second look is taken only
 * when it can keep its share of the miss probability; otherwise the first look stands. The stated coverage counts
 * both looks. A budget that ends the first look early gives one look at the blocks timed: fewer than MIN_BLOCKS is a
 * range of what was timed (coverage below 95%), which `judge` reads as inconclusive.
 */
export async function alternate(
  budget: Budget,
  a: Arm,
  b: Arm,
  plan: TrialPlan = DEFAULT_TRIALS,
): Promise<[Timed, Timed]> {
  const sa: number[] = [];
  const sb: number[] = [];
  const max = Math.max(plan.trials, plan.maxTrials ?? 3 * plan.trials);
  // the two-look design reaches 95% from 7 blocks at the first look (harness.ts sequentialDesign)
  const n1 = Math.max(max > plan.trials ? 7 : MIN_BLOCKS, plan.trials);
  const maxBlocks = Math.max(n1, max);
  const thresholds = plan.thresholds ?? [1];
  const design = sequentialDesign(n1, maxBlocks > n1);
  const warmup = evenWarmup(plan.warmup);
  const round = async (i: number): Promise<void> => {
    const order: [Arm, number[]][] =
      i % 2 === 0
        ? [
            [a, sa],
            [b, sb],
          ]
        : [
            [b, sb],
            [a, sa],
          ];
    const times: number[] = [];
    for (const [arm] of order) {
      await arm.reset?.();
      const t0 = performance.now();
      await arm.run();
      times.push(performance.now() - t0);
    }
    if (i >= warmup) order.forEach(([, samples], k) => samples.push(times[k] as number));
  };
  let i = 0;
  for (; i < warmup + n1 * BLOCK_ROUNDS; i++) {
    budget.throwIfAborted();
    if (budget.exhausted && i > 0) break;
    await round(i);
  }
  const blocksOf = (): number => Math.floor(sa.length / BLOCK_ROUNDS);
  const looks = [blocksOf()];
  let nb = blocksOf();
  // The budget ended the first look early: one look at what was timed (the time, not the data, stopped it).
  let rank = nb >= n1 ? design.rank1 : medianRank(nb, 1 - CONFIDENCE);
  const coverage = nb >= n1 ? design.coverage : 1 - orderStatMiss(nb, rank);
  if (nb >= n1 && maxBlocks > n1 && holdsAny(intervalAt(blockRatios(sa, sb), design.rank1), thresholds)) {
    for (; blocksOf() < maxBlocks; i++) {
      budget.throwIfAborted();
      if (budget.exhausted && sa.length % BLOCK_ROUNDS === 0) break;
      await round(i);
    }
    const n2 = blocksOf();
    const rank2 = medianRank(n2, design.reserve2);
    if (n2 > n1 && orderStatMiss(n2, rank2) <= design.reserve2) {
      looks.push(n2);
      nb = n2;
      rank = rank2;
    }
  }
  const pairing = (other: string): Pairing => ({
    with: other,
    n: nb * BLOCK_ROUNDS,
    blocks: nb,
    rank,
    coverage,
    looks,
  });
  const complete = nb >= MIN_BLOCKS;
  return [
    { label: a.label, samples: sa, complete, pairing: pairing(b.label) },
    { label: b.label, samples: sb, complete, pairing: pairing(a.label) },
  ];
}

/** Warm-up rounds made even, so the first timed round is A-first and every block holds one round of each order. */
function evenWarmup(warmup: number): number {
  return warmup + (warmup % 2);
}

/** Every round `alternate` runs for a plan without a second look (maxTrials = trials): warm-ups and the blocks'
 * rounds. */
export function roundsOf(plan: TrialPlan): number {
  return evenWarmup(plan.warmup) + Math.max(MIN_BLOCKS, plan.trials) * BLOCK_ROUNDS;
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

/** "1.2x (95% interval 1.1x–1.3x)", or "about 230x–490x (95% interval)" when the interval spans a factor of 2 or
 * more. */
export function fmtRatio(r: RatioInterval): string {
  return formatRatioFigure(r, ciLabel(r));
}

/** The one label: "95% interval", or "range of what was timed (too few for a 95% interval)"; "exact" for a size. */
export function ciLabel(r: { coverage?: number }): string {
  return intervalLabel(r.coverage);
}
