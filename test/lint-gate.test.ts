/**
 * The lint gate fails closed (pure): an error note of a read (a sample, a collector) makes it exit 2 whether or not
 * the note has a target; a deployment-wide collector that threw has none.
 */
import { describe, expect, it } from 'vitest';
import { judge, unreadTargets } from '../src/core/baseline';
import type { CheckResult, Note } from '../src/core/types';
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
