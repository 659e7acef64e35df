import { describe, expect, it } from 'vitest';
import type { IndexShape } from '../../src/lib/index-keys';
import { adviseIndexes } from '../../src/workload/candidates';
import {
  GAP_WORDS,
  gapWords,
  judgeShape,
  redundantPrefixesOf,
  unboundedRegexes,
  type WinningPlan,
} from '../../src/workload/judge';
import { shapesOf, type QueryShape } from '../../src/workload/shape';

const shapeOf = (cmd: Record<string, unknown>): QueryShape => {
  const [s] = shapesOf(cmd, 'shop');
  if (!s) throw new Error('no shape');
  return s;
};
const ix = (name: string, key: Record<string, 1 | -1>, extra: Partial<IndexShape> = {}): IndexShape => ({
  name,
  key,
  ...extra,
});
const ID = ix('_id_', { _id: 1 });

/** The judgement of one command against the given indexes, with the advice computed over it alone. */
function judged(cmd: Record<string, unknown>, indexes: IndexShape[], plan?: WinningPlan) {
  const shape = shapeOf(cmd);
  const advice = adviseIndexes([shape], () => indexes);
  return judgeShape(shape, indexes, advice, plan);
}

const byAuthor = { find: 'posts', filter: { author: 'a' }, sort: { createdAt: -1 } };
const byStatus = { find: 'orders', filter: { status: 'open' }, sort: { total: -1 } };
const sku = { find: 'products', filter: { sku: { $regex: 'ab', $options: 'i' } } };
const events = { find: 'events', filter: { type: 'click', at: { $gte: new Date(0) } }, sort: { at: 1 } };

describe('judgeShape: what the indexes allow', () => {
  it('served: an index gives the equality and the sort', () => {
    const j = judged(byAuthor, [ID, ix('author_1_createdAt_-1', { author: 1, createdAt: -1 })]);
    expect(j.verdict).toEqual({ kind: 'served', index: 'author_1_createdAt_-1' });
    expect(j.candidate).toBeUndefined();
    expect(j.basis).toBe('indexes');
  });

  it('sorted in memory: the index bounds it, the proposal gives the sort', () => {
    const j = judged(byStatus, [ID, ix('status_1', { status: 1 })]);
    expect(j.verdict).toMatchObject({ kind: 'sort', index: 'status_1' });
    expect(j.candidate?.key).toEqual({ status: 1, total: -1 });
  });

  it('scanned: no index bounds it, and the one index to propose', () => {
    const j = judged(events, [ID]);
    expect(j.verdict).toEqual({ kind: 'scan' });
    expect(j.candidate?.key).toEqual({ type: 1, at: 1 });
  });

  it('served in part, with the gap in the one table of words', () => {
    const j = judged({ find: 'orders', filter: { status: 'open', customerId: 3 } }, [
      ID,
      ix('status_1', { status: 1 }),
    ]);
    expect(j.verdict).toMatchObject({ kind: 'partial', index: 'status_1', gaps: ['equality-not-leading'] });
    expect(gapWords(j.verdict.kind === 'partial' ? j.verdict.gaps : [])).toBe(GAP_WORDS['equality-not-leading']);
  });

  it('bounded only by a regex: the regex verdict, no proposal, the path named once', () => {
    const j = judged(sku, [ID]);
    expect(j.verdict).toEqual({ kind: 'regex' });
    expect(j.candidate).toBeUndefined();
    expect(j.regex).toEqual({ caseInsensitive: ['sku'], unanchored: [] });
    expect(unboundedRegexes(shapeOf(sku))).toEqual(j.regex);
  });

  it('not judged: $text is another kind of index', () => {
    expect(judged({ find: 'posts', filter: { $text: { $search: 'x' } } }, [ID]).verdict).toEqual({
      kind: 'not-judged',
    });
  });
});

describe('judgeShape online: the plan is evidence about the plan, not about the indexes', () => {
  it('a plan that sorts over author_1 beside author_1_createdAt_-1: what it did, and the index that serves', () => {
    const indexes = [ID, ix('author_1', { author: 1 }), ix('author_1_createdAt_-1', { author: 1, createdAt: -1 })];
    const j = judged(byAuthor, indexes, { stages: ['SORT', 'FETCH', 'IXSCAN'], indexes: ['author_1'] });
    expect(j.plan).toEqual({ did: 'sort', chose: ['author_1'], couldServe: 'author_1_createdAt_-1' });
    expect(j.verdict).toEqual({ kind: 'served', index: 'author_1_createdAt_-1' });
    expect(j.candidate).toBeUndefined();
  });

  it('a plan that scans although status_1 bounds the query: not "no index serves it"', () => {
    const j = judged(byStatus, [ID, ix('status_1', { status: 1 })], { stages: ['SORT', 'COLLSCAN'], indexes: [] });
    expect(j.plan).toEqual({ did: 'scan', chose: [], couldServe: 'status_1' });
    expect(j.candidate?.key).toEqual({ status: 1, total: -1 });
  });

  it('a plan that scans where no index could: the scan, as offline', () => {
    const j = judged(events, [ID], { stages: ['COLLSCAN'], indexes: [] });
    expect(j.verdict).toEqual({ kind: 'scan' });
    expect(j.plan).toBeUndefined();
    expect(j.basis).toBe('plan');
  });

  it('a regex-only shape the plan scans: still the regex alone, once', () => {
    const j = judged(sku, [ID], { stages: ['COLLSCAN'], indexes: [] });
    expect(j.verdict).toEqual({ kind: 'regex' });
    expect(j.plan).toBeUndefined();
  });

  it('a plan that agrees: the sort over the index that bounds it', () => {
    const j = judged(byStatus, [ID, ix('status_1', { status: 1 })], {
      stages: ['SORT', 'FETCH', 'IXSCAN'],
      indexes: ['status_1'],
    });
    expect(j.verdict).toMatchObject({ kind: 'sort', index: 'status_1' });
    expect(j.plan).toBeUndefined();
  });

  it('an in-memory sort over no named index says too little: the key patterns judge', () => {
    const j = judged(byStatus, [ID, ix('status_1', { status: 1 })], { stages: ['SORT'], indexes: [] });
    expect(j.basis).toBe('indexes');
    expect(j.verdict).toMatchObject({ kind: 'sort', index: 'status_1' });
  });
});

describe('redundantPrefixesOf: what a proposal leaves behind', () => {
  it('names type_1 under { type: 1, at: 1 }, never _id, a unique or a partial index', () => {
    const j = judged(events, [ID, ix('type_1', { type: 1 })]);
    const c = j.candidate;
    expect(c?.key).toEqual({ type: 1, at: 1 });
    if (!c) throw new Error('no candidate for the events shape');
    expect(redundantPrefixesOf(c, [ID, ix('type_1', { type: 1 })]).map((i) => i.name)).toEqual(['type_1']);
    expect(redundantPrefixesOf(c, [ix('type_1', { type: 1 }, { unique: true })])).toEqual([]);
    expect(redundantPrefixesOf(c, [ix('type_1', { type: 1 }, { partial: true })])).toEqual([]);
    expect(redundantPrefixesOf(c, [ix('type_-1', { type: -1 })])).toEqual([]);
    expect(redundantPrefixesOf(c, [ix('at_1', { at: 1 })])).toEqual([]);
  });
});
