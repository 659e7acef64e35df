import { describe, expect, it } from 'vitest';
import { EXAMINED_SHARE, INSERT_BATCH, PLANNER_TRIAL_WORKS, PROOF_DOCS } from '../../src/confirm/index-proof';
import { resolveRules, RuleOptionsError } from '../../src/core/options';
import rule from './index';

const resolve = (options: Record<string, unknown> = {}) =>
  resolveRules([rule], { rules: { [rule.id]: { options } } })[0]?.options;

describe('query-indexes options: the proof on scratch', () => {
  it("defaults to the proof's documented figures", () => {
    expect(resolve()).toMatchObject({
      proofDocs: PROOF_DOCS,
      plannerTrialWorks: PLANNER_TRIAL_WORKS,
      examinedShare: EXAMINED_SHARE,
      insertBatch: INSERT_BATCH,
    });
    // Twice the multi-planner's trial: a trial ends before the end of the copy.
    expect(PROOF_DOCS).toBe(2 * PLANNER_TRIAL_WORKS);
  });
  it('takes chosen values, and the consent line counts the chosen copy size', () => {
    const options = resolve({ proofDocs: 12_000, examinedShare: 0.25, insertBatch: 50, plannerTrialWorks: 500 });
    expect(options).toMatchObject({ proofDocs: 12_000, examinedShare: 0.25, insertBatch: 50, plannerTrialWorks: 500 });
    expect(rule.confirm?.copyDocs?.(options as never)).toBe(12_000);
  });
  it('refuses values that cannot be a size or a share, naming the option', () => {
    for (const bad of [{ proofDocs: 0 }, { examinedShare: 0 }, { examinedShare: 1.5 }, { insertBatch: 2.5 }]) {
      expect(() => resolve(bad)).toThrow(RuleOptionsError);
      expect(() => resolve(bad)).toThrow(Object.keys(bad)[0]);
    }
  });
});
