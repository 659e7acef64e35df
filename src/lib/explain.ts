import type { Doc } from '../core/adapter';

/**
 * Every `stage` and `indexName` under an explain reply or plan node, found by walking it whole: the classic
 * `winningPlan`, the slot-based `queryPlan`, shards and executionStats alike. Rejected plans and the echoed command are
 * skipped: what they name was not run.
 */
export function planFacts(plan: unknown): { stages: string[]; indexes: string[] } {
  const stages: string[] = [];
  const indexes: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Doc)) {
        if (k === 'rejectedPlans' || k === 'command') continue;
        if (k === 'stage' && typeof x === 'string') stages.push(x);
        else if (k === 'indexName' && typeof x === 'string') indexes.push(x);
        else walk(x);
      }
    }
  };
  walk(plan);
  return { stages, indexes };
}
