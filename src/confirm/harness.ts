import { bootstrapMedian, bootstrapRatio } from '../core/stats';
import type { Measurement } from '../core/types';

export interface TrialPlan {
  /** Untimed runs first, to warm caches and connections. */
  warmup: number;
  /** Timed runs wanted; at least 5. */
  trials: number;
}

export const DEFAULT_TRIALS: TrialPlan = { warmup: 1, trials: 7 };
const MIN_TRIALS = 5;

export interface Timed {
  label: string;
  samples: number[];
  /** false when the time budget ran out before the minimum number of trials. */
  complete: boolean;
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

export function toMeasurement(t: Timed, unit: Measurement['unit'] = 'ms'): Measurement {
  const b = bootstrapMedian(t.samples);
  return { label: t.label, unit, median: b.median, low: b.low, high: b.high, trials: t.samples.length };
}

/** median(a)/median(b) with a bootstrap 95% interval. */
export function ratioOf(label: string, a: Timed, b: Timed): { label: string; median: number; low: number; high: number } {
  return { label, ...bootstrapRatio(a.samples, b.samples) };
}

/** Whether an interval lies wholly above `threshold` (supported), wholly below (refuted) or straddles it. */
export function verdict(r: { low: number; high: number }, threshold: number): 'above' | 'below' | 'straddles' {
  if (r.low > threshold) return 'above';
  if (r.high < threshold) return 'below';
  return 'straddles';
}
