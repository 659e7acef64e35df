/*
 * The validator's collector reads the run's resolved options (ctx.options): the proposal it counts is the one the rule
 * will propose with the user's values, not with the defaults.
 */
import { describe, expect, it } from 'vitest';
import { resolveRules } from '../../src/core/options';
import { collectFromDocs, runRule } from '../../test/support/rule-tester';
import { validatorCollector } from './collect';
import rule from './index';
import type { ValidatorOptions } from './options';
import { plainSchema, proposeSchema, schemaFingerprint } from './propose';

/** 30 documents; `email` in 24 of them (80%). */
const docs = Array.from({ length: 30 }, (_, i) => ({ _id: i, name: `n${i}`, ...(i < 24 ? { email: `e${i}` } : {}) }));
const runWith = (options: Partial<ValidatorOptions>) => resolveRules([rule], { rules: { validator: { options } } });
const collectWith = (options: Partial<ValidatorOptions> | null) =>
  collectFromDocs(
    validatorCollector,
    docs,
    options ? { name: 'users', resolved: runWith(options) } : { name: 'users' },
  );

describe("the validator's collector reads the user's options", () => {
  it('requiredShare: the counted proposal requires what the rule will require', async () => {
    const byDefault = await collectWith(null);
    const lowered = await collectWith({ requiredShare: 0.75 });
    // default (1): email is optional, no sampled document fails; at 0.75 it is required and the 6 without it fail
    expect(byDefault.data?.proposal).toMatchObject({ checked: 30, violations: 0 });
    expect(lowered.data?.proposal).toMatchObject({ checked: 30, violations: 6 });
    expect(lowered.data?.proposal?.fingerprint).not.toBe(byDefault.data?.proposal?.fingerprint);
    // the fingerprint is that of the rule's own proposal under the same options: analyze can use the count
    const [resolved] = runWith({ requiredShare: 0.75 });
    const mine = proposeSchema(lowered.collection, resolved?.options as ValidatorOptions);
    if (!mine) throw new Error('the rule proposed nothing');
    expect(lowered.data?.proposal?.fingerprint).toBe(schemaFingerprint(plainSchema(mine.schema)));
  });

  it('minSample: above the sample, the collector counts no proposal', async () => {
    expect((await collectWith({})).data?.proposal).toBeDefined();
    const raised = await collectWith({ minSample: 31 });
    expect(raised.data).toBeDefined();
    expect(raised.data?.proposal).toBeUndefined();
  });

  it("the rule uses the collector's count when collected with its options, and says so when not", async () => {
    const options = { requiredShare: 0.75 };
    const reasons = (found: ReturnType<typeof runRule>) => found.map((f) => f.recommendation?.reason ?? '').join('\n');
    const same = runRule(rule, (await collectWith(options)).snapshot, options);
    const other = runRule(rule, (await collectWith(null)).snapshot, options);
    expect(same.length).toBeGreaterThan(0);
    expect(reasons(other)).toContain('collected with, and yours differ');
    expect(reasons(same)).not.toContain('yours differ');
  });
});
