/**
 * The lint gate fails closed (pure): an error note of a read (a sample, a collector) makes it exit 2 whether or not
 * the note has a target; a deployment-wide collector that threw has none.
 */
import { describe, expect, it } from 'vitest';
import { judge, unreadTargets } from '../src/core/baseline';
import { exitCodeFor } from '../src/cli/commands/check';
import { render } from '../src/cli/shared';
import type { CheckResult, Finding, Note } from '../src/core/types';
import { checkResultOf } from './support/fixtures';

const result = (notes: Note[]): CheckResult =>
  checkResultOf([], { source: 'snapshot.json', notes, confirm: { enabled: false, where: null, cleanedUp: null } });
const gate = (notes: Note[], allowPartial = false) =>
  judge(result(notes), { failOn: 'error', maxWarnings: null, baseline: null, allowPartial });

describe('lint gate: what could not be read (pure)', () => {
  it('a deployment-wide collector that threw (no target) fails the gate, named by its collector', () => {
    const notes: Note[] = [
      {
        level: 'error',
        collector: 'collection-count',
        message: 'collection-count could not read its data: Unauthorized (13)',
      },
    ];
    expect(unreadTargets(result(notes))).toEqual([
      { where: 'the deployment-wide data of collection-count', why: notes[0]?.message, deployment: true },
    ]);
    const lint = gate(notes);
    expect(lint.exitCode).toBe(2);
    expect(lint.verdict).toContain(
      'could not check: 1 part was not read (the deployment-wide data of collection-count: collection-count ' +
        'could not read its data',
    );
    expect(gate(notes, true).exitCode).toBe(0);
  });

  it('a collection whose sample failed: exit 2, worded per collection', () => {
    const lint = gate([
      {
        level: 'error',
        target: { db: 'app', collection: 'posts' },
        message: 'the sample could not be read: MaxTimeMSExpired',
      },
    ]);
    expect(lint.exitCode).toBe(2);
    expect(lint.verdict).toContain('1 collection was not read (app.posts: the sample could not be read');
  });

  it('an error of confirmation (neither target nor collector) is not a read: the gate judges the findings', () => {
    expect(gate([{ level: 'error', message: 'scratch database could not be dropped' }]).exitCode).toBe(0);
    expect(gate([{ level: 'skipped', collector: 'index-usage', message: 'index-usage: not allowed' }]).exitCode).toBe(
      0,
    );
  });
});

describe('withdrawn advice counts toward nothing (pure)', () => {
  const finding = (status?: 'refuted' | 'supported'): Finding => ({
    ruleId: 'query-indexes',
    messageId: 'unindexed',
    severity: 'warn',
    target: { db: 'app', collection: 'orders', path: 'shape 1' },
    message: 'No index serves the shape.',
    evidence: {},
    docsUrl: 'https://www.mongodb.com/docs/manual/indexes/',
    recommendation: {
      action: status === 'refuted' ? 'Withdrawn: create the index' : 'create the index',
      reason: 'ESR',
    },
    ...(status
      ? { confirmation: { status, summary: 'timed on scratch', measurements: [], where: 'scratch', durationMs: 1 } }
      : {}),
  });
  const of = (findings: Finding[]): CheckResult =>
    checkResultOf(findings, { confirm: { enabled: true, where: 'scratch', cleanedUp: true } });

  it('a refuted finding neither fails check nor lint, nor counts as a warning in the text summary', () => {
    const withdrawn = of([finding('refuted')]);
    expect(exitCodeFor(withdrawn, 'warn')).toBe(0);
    expect(judge(withdrawn, { failOn: 'warn', maxWarnings: 0, baseline: null }).exitCode).toBe(0);
    const text = render(withdrawn, 'text', { color: false });
    expect(text).toContain('0 warnings');
    expect(text).toContain('1 withdrawn (refuted on scratch)');
    // The same finding unrefuted, or supported, still counts.
    expect(exitCodeFor(of([finding()]), 'warn')).toBe(1);
    expect(exitCodeFor(of([finding('supported')]), 'warn')).toBe(1);
    expect(judge(of([finding()]), { failOn: 'error', maxWarnings: 0, baseline: null }).exitCode).toBe(1);
  });
});
