/** The timing harness every experiment shares: two arms timed in alternation, and how their ratio is written. */
import type { Doc } from '../adapters/types';
import { type Budget, DEFAULT_TRIALS, type Timed, type TrialPlan } from './harness';

const MIN_TRIALS = 5;

export interface Arm {
  label: string;
  /** Untimed, before each run (e.g. empty the collection the run inserts into). */
  reset?: () => Promise<void>;
  run: () => Promise<void>;
}

/**
 * Times two arms in alternation (A B, B A, A B…) so drift over the run (caches warming, the collection growing,
 * other load) falls on both alike, unlike timing all of A and then all of B. The first round is a warm-up.
 */
export async function alternate(budget: Budget, a: Arm, b: Arm, plan: TrialPlan = DEFAULT_TRIALS): Promise<[Timed, Timed]> {
  const sa: number[] = [];
  const sb: number[] = [];
  const rounds = plan.warmup + Math.max(MIN_TRIALS, plan.trials);
  for (let i = 0; i < rounds; i++) {
    budget.throwIfAborted();
    if (budget.exhausted && (sa.length >= MIN_TRIALS || i > 0)) break;
    const order: [Arm, number[]][] = i % 2 === 0 ? [[a, sa], [b, sb]] : [[b, sb], [a, sa]];
    for (const [arm, samples] of order) {
      await arm.reset?.();
      const t0 = performance.now();
      await arm.run();
      const dt = performance.now() - t0;
      if (i >= plan.warmup) samples.push(dt);
    }
  }
  return [
    { label: a.label, samples: sa, complete: sa.length >= MIN_TRIALS },
    { label: b.label, samples: sb, complete: sb.length >= MIN_TRIALS },
  ];
}

/** A copy of a document without its _id, so the server gives each insert a new one. */
export function withoutId(doc: Doc): Doc {
  const { _id: _ignored, ...rest } = doc;
  return rest;
}

/** "1.18x (95% CI 1.05x–1.31x)" */
export function fmtRatio(r: { median: number; low: number; high: number }): string {
  const f = (x: number): string => `${x.toFixed(2)}x`;
  return `${f(r.median)} (95% CI ${f(r.low)}–${f(r.high)})`;
}
