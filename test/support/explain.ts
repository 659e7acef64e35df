/**
 * The tests' own reading of an explain reply, independent of the product's plan readers (planIndexes, planStages)
 * that the tests check: every `stage` and `indexName` under the winning plan, found by walking the reply whole.
 * Rejected plans are skipped; everything else (classic `winningPlan`, slot-based `queryPlan`, shards) is walked.
 */
export function winningPlanFacts(reply: unknown): { stages: string[]; indexes: string[] } {
  const stages: string[] = [];
  const indexes: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      for (const x of v) walk(x);
      return;
    }
    if (v === null || typeof v !== 'object') return;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (k === 'rejectedPlans' || k === 'slotBasedPlan' || k === 'command') continue;
      if (k === 'stage' && typeof x === 'string') stages.push(x);
      else if (k === 'indexName' && typeof x === 'string') indexes.push(x);
      else walk(x);
    }
  };
  walk(reply);
  return { stages, indexes };
}
