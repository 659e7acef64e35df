import { describe, expect, it } from 'vitest';
import type { Rule } from '../../src/core/rule';
import { analyze, type RuleSetting } from '../../src/core/runner';
import type { Finding, Snapshot } from '../../src/core/types';

export interface RuleCase {
  name: string;
  snapshot: Snapshot;
  options?: Record<string, unknown>;
}

export interface ExpectedFinding {
  messageId?: string;
  severity?: Finding['severity'];
  path?: string;
  collection?: string;
  messageIncludes?: string;
}

export interface InvalidCase extends RuleCase {
  /** Each expected finding must match one reported finding (partial match); at least one is required. */
  expect: ExpectedFinding[];
}

export function runRule(rule: Rule, snapshot: Snapshot, options: Record<string, unknown> = {}): Finding[] {
  const setting: RuleSetting = { options };
  const out = analyze(snapshot, { rules: { [rule.id]: setting }, only: [rule.id] }, [rule]);
  return out.findings;
}

/**
 * The strict rule test, after ESLint's RuleTester: a valid case must produce no finding at warn or above
 * (info is allowed only when `allowInfo`), an invalid case at least the findings it expects.
 */
export function ruleTester(rule: Rule, cases: { valid: (RuleCase & { allowInfo?: boolean })[]; invalid: InvalidCase[] }): void {
  describe(`rule ${rule.id}`, () => {
    for (const c of cases.valid) {
      it(`valid: ${c.name}`, () => {
        const findings = runRule(rule, c.snapshot, c.options);
        const relevant = c.allowInfo ? findings.filter((f) => f.severity !== 'info') : findings;
        expect(relevant.map((f) => `${f.severity} ${f.messageId}: ${f.message}`)).toEqual([]);
        expect(findings.every((f) => f.messageId !== 'internalError')).toBe(true);
      });
    }
    for (const c of cases.invalid) {
      it(`invalid: ${c.name}`, () => {
        const findings = runRule(rule, c.snapshot, c.options);
        expect(c.expect.length).toBeGreaterThan(0);
        expect(findings.length).toBeGreaterThan(0);
        for (const e of c.expect) {
          const hit = findings.find(
            (f) =>
              (e.messageId === undefined || f.messageId === e.messageId) &&
              (e.severity === undefined || f.severity === e.severity) &&
              (e.path === undefined || f.target.path === e.path) &&
              (e.collection === undefined || f.target.collection === e.collection) &&
              (e.messageIncludes === undefined || f.message.includes(e.messageIncludes)),
          );
          expect(hit, `expected ${JSON.stringify(e)} among ${JSON.stringify(findings.map((f) => [f.severity, f.messageId, f.target]))}`).toBeDefined();
        }
      });
    }
  });
}
