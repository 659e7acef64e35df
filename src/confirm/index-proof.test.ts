import { describe, expect, it } from 'vitest';
import { Long, ObjectId } from 'bson';
import {
  HEADROOM,
  MIN_SHARE,
  proofShare,
  pastBudgetAsMeasured,
  lateSentence,
  type Late,
  callKey,
  copyTooSmall,
  cutOnEveryCall,
  joinsOf,
  percent,
  planProofCopy,
  readOf,
  timeProblem,
  chose,
  decide,
  joinCountsDecide,
  joinedCopyDocs,
  joinQuery,
  joinValues,
  mostShared,
  reachingPipeline,
  soleJoin,
  work,
  type Copy,
  type DropProof,
  type IndexProof,
  type Replay,
} from './index-proof';

describe('readOf', () => {
  it('aims reads at the scratch collection and leaves session fields out', () => {
    const find = { find: 'orders', filter: { a: 1 }, sort: { b: -1 }, $db: 'shop', lsid: { id: 1 } };
    expect(readOf(find, 'proof_1_a')).toEqual({ find: 'proof_1_a', filter: { a: 1 }, sort: { b: -1 } });
    expect(readOf({ aggregate: 'orders', pipeline: [] }, 'x')).toEqual({ aggregate: 'x', pipeline: [], cursor: {} });
    expect(readOf({ count: 'orders', query: { a: 1 } }, 'x')).toEqual({ count: 'x', query: { a: 1 } });
  });
  it('replays the query part of an update or delete as a find', () => {
    const update = { update: 'orders', updates: [{ q: { a: 1 }, u: { $set: { b: 2 } } }] };
    expect(readOf(update, 'x')).toEqual({ find: 'x', filter: { a: 1 }, limit: 1 });
    const many = { update: 'orders', updates: [{ q: { a: 1 }, u: { $set: { b: 2 } }, multi: true }] };
    expect(readOf(many, 'x')).toEqual({ find: 'x', filter: { a: 1 } });
    expect(readOf({ delete: 'orders', deletes: [{ q: { a: 1 }, limit: 0 }] }, 'x')).toEqual({
      find: 'x',
      filter: { a: 1 },
    });
  });
  it('refuses anything else', () => {
    expect(readOf({ insert: 'orders', documents: [] }, 'x')).toBeNull();
  });
});

describe('planProofCopy: how many documents a proof copies, and why', () => {
  const run = { maxDocs: 5000, maxBytes: 32 * 1024 * 1024, pastMaxDocs: true };
  it("copies past the run's default limit up to its own size, when the collection holds more", () => {
    const p = planProofCopy({ want: 20_000, sourceCount: 50_000, maxDocsChosen: false, avgBytes: 200, ...run });
    expect(p).toEqual({ limit: 20_000, bound: 'proofDocs' });
  });
  it('never more than the collection holds', () => {
    const p = planProofCopy({ want: 20_000, sourceCount: 6000, maxDocsChosen: false, avgBytes: 200, ...run });
    expect(p).toEqual({ limit: 6000, bound: 'collection' });
    // A tie names the collection: the copy is the whole of it.
    expect(planProofCopy({ want: 6000, sourceCount: 6000, maxDocsChosen: false, avgBytes: 200, ...run })).toEqual({
      limit: 6000,
      bound: 'collection',
    });
  });
  it("never past the run's byte limit over the average document", () => {
    // 32 MiB of 4 KiB documents is 8,192 documents.
    const p = planProofCopy({ want: 20_000, sourceCount: 50_000, maxDocsChosen: false, avgBytes: 4096, ...run });
    expect(p).toEqual({ limit: 8192, bound: 'maxBytes' });
  });
  it('keeps a --confirm-docs the user chose', () => {
    const p = planProofCopy({ want: 20_000, sourceCount: 50_000, maxDocsChosen: true, avgBytes: 200, ...run });
    expect(p).toEqual({ limit: 5000, bound: 'maxDocs' });
  });
  it('keeps the default limit when the average size is unknown (the byte bound needs it)', () => {
    const p = planProofCopy({ want: 20_000, sourceCount: 50_000, maxDocsChosen: false, avgBytes: 0, ...run });
    expect(p).toEqual({ limit: 5000, bound: 'unsized' });
  });
  it("keeps the run's default limit for a caller that did not ask past it (the consent line counts no more)", () => {
    const q = { want: 20_000, sourceCount: 50_000, maxDocsChosen: false, avgBytes: 200, ...run, pastMaxDocs: false };
    expect(planProofCopy(q)).toEqual({ limit: 5000, bound: 'defaultLimit' });
  });
  it('an unknown count bounds nothing', () => {
    const p = planProofCopy({ want: 20_000, sourceCount: 0, maxDocsChosen: false, avgBytes: 100, ...run });
    expect(p).toEqual({ limit: 20_000, bound: 'proofDocs' });
  });
});

describe("copyTooSmall: a copy the planner's trial would read whole", () => {
  const copy = (copied: number, sourceCount: number): Copy => ({
    sourceCount,
    copied,
    planned: copied,
    bound: 'maxDocs',
    rebuilt: [],
    notRebuilt: [],
  });
  it('says so when the copy is below the trial and below the collection', () => {
    expect(copyTooSmall(copy(5000, 50_000))).toBe(
      "the copy held 5,000 documents, fewer than the planner's trial reads (10,000) and than the collection holds " +
        '(50,000), so every plan may tie',
    );
    expect(copyTooSmall(copy(5000, 50_000), 4000)).toBeNull();
  });
  it('accepts a whole collection, however small, and a copy past the trial', () => {
    expect(copyTooSmall(copy(3000, 3000))).toBeNull();
    expect(copyTooSmall(copy(10_000, 50_000))).toBeNull();
  });
});

describe('percent', () => {
  it('prints a share as the sentences say it', () => {
    expect([0.5, 0.25, 1 / 3].map(percent)).toEqual(['50%', '25%', '33.3%']);
  });
});

describe('timeProblem: time must not worsen', () => {
  const t = (low: number, high: number, coverage: number) => ({ median: (low + high) / 2, low, high, coverage });
  it('says slower when the interval lies above 1 by the noise margin', () => {
    expect(timeProblem(t(1.3, 1.6, 0.96))).toBe('the replayed queries were slower with it');
  });
  it('accepts a 95% interval that does not lie above', () => {
    expect(timeProblem(t(0.9, 1.05, 0.96))).toBeNull();
    expect(timeProblem(t(0.003, 0.013, 0.96))).toBeNull();
  });
  it('accepts fewer blocks when the one-sided bound holds: 5 blocks all faster (range coverage 93.75%)', () => {
    expect(timeProblem(t(0.003, 0.013, 1 - 2 * 0.5 ** 5))).toBeNull();
  });
  it('is undecided when the upper end is not below 1, or too few blocks back it', () => {
    const why = 'the time budget ended before enough rounds were timed for a 95% interval';
    expect(timeProblem(t(0.5, 1.02, 1 - 2 * 0.5 ** 5))).toBe(why);
    // 4 blocks: the upper end alone holds with 93.75% only.
    expect(timeProblem(t(0.003, 0.013, 1 - 2 * 0.5 ** 4))).toBe(why);
  });
});

describe('joins of a pipeline ($lookup proven with its join)', () => {
  const lookup = { from: 'events', localField: '_id', foreignField: 'userId', as: 'ev' };
  const agg = { aggregate: 'users', pipeline: [{ $match: { country: 'x' } }, { $lookup: lookup }] };
  it('names each join by fields, and refuses stages whose other side it does not copy', () => {
    expect(joinsOf([agg, agg])).toEqual([{ from: 'events', localField: '_id', foreignField: 'userId' }]);
    expect(joinsOf([{ aggregate: 'u', pipeline: [{ $unionWith: 'x' }] }])).toMatch(/\$unionWith/);
    expect(joinsOf([{ aggregate: 'u', pipeline: [{ $lookup: { from: 'e', pipeline: [], as: 'x' } }] }])).toMatch(
      /without localField/,
    );
    expect(joinsOf([{ find: 'orders', filter: {} }])).toEqual([]);
  });
  it('aims the $lookup at the joined copy', () => {
    const read = readOf(agg, 'proof_1_a', new Map([['events', 'proof_1_a_j0']]));
    expect((read?.pipeline as Record<string, unknown>[])[1]).toEqual({ $lookup: { ...lookup, from: 'proof_1_a_j0' } });
    expect(read?.aggregate).toBe('proof_1_a');
  });
});

describe('cutOnEveryCall: the counts decide when every call is cut and the planner chose the candidate', () => {
  const r = (examined: number, indexes: string[] = []) => ({
    keysExamined: 0,
    docsExamined: examined,
    nReturned: 1,
    indexes,
    executionTimeMillis: 0,
  });
  const candidate = { key: { a: 1 }, name: 'a_1' };
  it('holds only when each call falls to the share with the candidate chosen', () => {
    expect(
      cutOnEveryCall(
        { status: 'inconclusive', without: [r(100), r(100)], with: [r(10, ['a_1']), r(50, ['a_1'])] },
        { candidate },
      ),
    ).toBe(true);
    expect(
      cutOnEveryCall(
        { status: 'inconclusive', without: [r(100), r(100)], with: [r(10, ['a_1']), r(51, ['a_1'])] },
        { candidate },
      ),
    ).toBe(false);
    expect(cutOnEveryCall({ status: 'inconclusive', without: [r(100)], with: [r(10, ['b_1'])] }, { candidate })).toBe(
      false,
    );
  });
});

describe('pastBudgetAsMeasured: "ran past its budget" only when the measured time did', () => {
  const copy: Copy = {
    sourceCount: 30_000,
    copied: 10_000,
    planned: 10_000,
    bound: 'proofDocs',
    rebuilt: [],
    notRebuilt: [],
    pastBudget: true,
  };
  const index: IndexProof = {
    status: 'supported',
    copy,
    joins: [{ from: 'events', copied: 500, rebuilt: [], pastBudget: true }],
  };
  const drop: DropProof = { status: 'supported', copy, pastBudget: 'explain' };

  it('keeps the flags of a proof that ended past its budget, and its measured time', () => {
    const late = { elapsedMs: 6001, budgetMs: 6000 };
    expect(pastBudgetAsMeasured(index, 6001, 6000)).toEqual({ ...index, late });
    expect(pastBudgetAsMeasured(drop, 6001, 6000)).toEqual({ ...drop, late });
  });

  it('holds the measured time of a proof that ran late with no step that chose to, and says it in one sentence', () => {
    const plain: IndexProof = { status: 'refuted', copy: { ...copy, pastBudget: undefined } };
    const late = pastBudgetAsMeasured(plain, 37_750, 30_000).late;
    expect(late).toEqual({ elapsedMs: 37_750, budgetMs: 30_000 });
    expect(lateSentence(late as Late)).toMatch(
      /^This proof took 37\.8 s against its 30\.0 s budget: .* so it ran past its budget; a larger --confirm-budget/,
    );
    expect(pastBudgetAsMeasured(plain, 29_000, 30_000).late).toBeUndefined();
  });

  it('drops them when the proof ended within its budget, whatever the copy predicted, and leaves the rest', () => {
    const within = pastBudgetAsMeasured(index, 5999, 6000);
    expect(within.copy?.pastBudget).toBeUndefined();
    expect(within.joins).toEqual([{ from: 'events', copied: 500, rebuilt: [] }]);
    expect({ ...within, copy: { ...within.copy, pastBudget: true }, joins: index.joins }).toEqual(index);
    const dropWithin = pastBudgetAsMeasured(drop, 6000, 6000);
    expect(dropWithin).toEqual({ status: 'supported', copy: { ...copy, pastBudget: undefined } });
    expect('pastBudget' in dropWithin || 'pastBudget' in (dropWithin.copy ?? {})).toBe(false);
    // the proof given is not changed
    expect(copy.pastBudget).toBe(true);
  });
});

describe('proofShare: the proof keeps room for dropping its copies within the budget', () => {
  it('keeps HEADROOM before any drop was timed', () => {
    expect(proofShare(30_000, 0, 4)).toBe(HEADROOM);
  });
  it('reserves the slowest drop so far for each copy, on top of the headroom', () => {
    // 4 copies of 2.5 s each: 10 s of 30 s reserved besides the headroom.
    expect(proofShare(30_000, 2_500, 4)).toBeCloseTo(HEADROOM - 1 / 3, 5);
    expect(proofShare(30_000, 2_500, 2)).toBeCloseTo(HEADROOM - 1 / 6, 5);
    expect(proofShare(30_000, 1_000, 2)).toBeCloseTo(HEADROOM - 1 / 15, 5);
  });
  it('never keeps less than MIN_SHARE, however slow the drops', () => {
    expect(proofShare(30_000, 20_000, 4)).toBe(MIN_SHARE);
    expect(proofShare(0, 1_000, 2)).toBe(HEADROOM);
  });
});

describe('callKey: identical calls are replayed once, calls that differ in a value or its type are not', () => {
  it('gives identical calls one key and tells a Date, an ObjectId and a Long from their texts', () => {
    const at = new Date(Date.UTC(2026, 0, 1));
    const id = new ObjectId('65f000000000000000000001');
    const find = (v: unknown): Record<string, unknown> => ({ find: 'orders', filter: { v }, sort: { at: 1 } });
    expect(callKey(find(at))).toBe(callKey(find(new Date(at.getTime()))));
    expect(callKey(find(at))).not.toBe(callKey(find(at.toISOString())));
    expect(callKey(find(id))).not.toBe(callKey(find(id.toHexString())));
    expect(callKey(find(Long.fromNumber(5)))).not.toBe(callKey(find(5)));
    expect(callKey(find(1))).not.toBe(callKey(find(2)));
  });
});

// A $lookup's foreign-field proof on a server whose explain counts nothing of the $lookup stage (SecantusDB): the
// join's own query, built from the pipeline and the local values a call brings, is explained on the joined copies.
describe("the join's own query, built from a pipeline", () => {
  const lookup = { from: 'events', localField: '_id', foreignField: 'userId', as: 'ev' };
  const agg = {
    aggregate: 'users',
    pipeline: [{ $match: { country: 'C0' } }, { $lookup: lookup }, { $unwind: '$ev' }],
    cursor: {},
  };
  it('finds the one $lookup and the stages before it', () => {
    expect(soleJoin(agg)).toEqual({
      before: [{ $match: { country: 'C0' } }],
      join: { from: 'events', localField: '_id', foreignField: 'userId' },
    });
    expect(reachingPipeline(agg)).toEqual([{ $match: { country: 'C0' } }, { $project: { _id: 1 } }]);
  });
  it('stands for no call it cannot: two joins, a joining stage besides, a $lookup by pipeline, no join', () => {
    const two = { aggregate: 'u', pipeline: [{ $lookup: lookup }, { $lookup: { ...lookup, as: 'x' } }] };
    expect(soleJoin(two)).toBeNull();
    expect(soleJoin({ aggregate: 'u', pipeline: [{ $lookup: lookup }, { $unionWith: 'x' }] })).toBeNull();
    expect(soleJoin({ aggregate: 'u', pipeline: [{ $lookup: { from: 'e', pipeline: [], as: 'x' } }] })).toBeNull();
    expect(soleJoin({ find: 'users', filter: {} })).toBeNull();
    expect(reachingPipeline({ find: 'users', filter: {} })).toBeNull();
  });
  it("matches the foreign field against the call's local values, as the stage matches each", () => {
    // an array's elements each, a missing field as null (which $in matches to null and missing alike), once each
    const rows = [{ _id: 1 }, { _id: [2, 3] }, {}, { _id: 1 }, { _id: null }];
    const values = joinValues(rows, '_id');
    expect(values).toEqual([1, 2, 3, null]);
    const join = { from: 'events', localField: '_id', foreignField: 'userId' };
    expect(joinQuery('proof_1_a_j0', join, values)).toEqual({
      find: 'proof_1_a_j0',
      filter: { userId: { $in: [1, 2, 3, null] } },
    });
  });
  it('counts the most local documents sharing one value (the stage seeks once per local document)', () => {
    expect(mostShared([{ _id: 1 }, { _id: 2 }], '_id')).toBe(1);
    expect(mostShared([{ sku: 'a' }, { sku: 'a' }, { sku: ['a', 'b', 'a'] }, {}, { sku: null }], 'sku')).toBe(3);
    expect(mostShared([], 'sku')).toBe(1);
  });
  it('copies the documents the calls join to first, then others up to the size, each once', () => {
    const d = (id: number) => ({ _id: id });
    expect(joinedCopyDocs([d(5), d(6)], [d(1), d(5), d(2), d(3)], 4)).toEqual([d(5), d(6), d(1), d(2)]);
    // the reached ones are never cut, even past the size
    expect(joinedCopyDocs([d(5), d(6), d(7)], [d(1)], 2)).toEqual([d(5), d(6), d(7)]);
  });
});

describe("the decision when the join's own query counted the join", () => {
  const replay = (own: number, join: number, indexes: string[] = [], joinIndexes: string[] = []) => ({
    keysExamined: 0,
    docsExamined: own,
    nReturned: 10,
    indexes,
    executionTimeMillis: 0,
    join: { keysExamined: 0, docsExamined: join, nReturned: 50, indexes: joinIndexes, values: 10 },
  });
  const copy: Copy = {
    sourceCount: 2000,
    copied: 2000,
    planned: 2000,
    bound: 'collection',
    rebuilt: [],
    notRebuilt: [],
  };
  const joins = [{ from: 'events', copied: 10_000, rebuilt: [] }];
  const base = (without: Replay[], withIt: Replay[], extra: Partial<IndexProof> = {}): IndexProof => {
    const sum = (rs: Replay[]) => rs.reduce((t, r) => t + work(r), 0);
    return {
      status: 'inconclusive',
      copy,
      without,
      with: withIt,
      examinedRatio: sum(withIt) / sum(without),
      pickedCandidate: withIt.filter((r) => chose(r, 'userId_1')).length,
      sameResults: { checked: without.length, same: without.length },
      joins,
      joinBasis: 'query',
      ...extra,
    };
  };
  const userId = { candidate: { key: { userId: 1 }, name: 'userId_1' } };
  const country = { candidate: { key: { country: 1 }, name: 'country_1' } };
  const slowTime = { median: 1.4, low: 1.3, high: 1.5, coverage: 0.97, pairs: 12, blocks: 6, paired: true };

  it('supports a foreign-field index cut on every call, the planner choosing it on the join query, untimed', () => {
    const p = base(
      [replay(2000, 10_000), replay(2000, 10_000)],
      [replay(2000, 100, [], ['userId_1']), replay(2000, 120, [], ['userId_1'])],
      { foreign: true },
    );
    expect(cutOnEveryCall(p, userId)).toBe(true);
    expect(joinCountsDecide(p, userId)).toBe('supported');
    const v = decide(p, { ns: 'shop.users', existingIndexes: [], instances: [], ...userId });
    expect(v.status).toBe('supported');
    expect(v.basis).toBe('examined');
    expect(v.reason).toMatch(/before the calls could be timed/);
  });

  it('does not refute a foreign-field index on a small cut: the query without it is a floor, the time decides', () => {
    // 2,000 local + 1,000 joined without, 2,000 + 100 with: 70%, but the stage reads at least the 1,000
    const p = base([replay(2000, 1000)], [replay(2000, 100, [], ['userId_1'])], { foreign: true });
    expect(joinCountsDecide(p, userId)).toBeNull();
    const v = decide(p, { ns: 'shop.users', existingIndexes: [], instances: [], ...userId });
    expect(v.status).toBe('inconclusive');
    expect(v.reason).toMatch(/^the join's own query, .* did not fall to 50% or less .* the time of the whole pipeline/);
  });

  it("weighs the join query's counts with the index by the local documents sharing a value", () => {
    // 100 local documents share one value: the stage seeks it 100 times, the query once
    const shared = (w: number) => ({
      ...replay(0, 300, [], ['userId_1']),
      join: { keysExamined: 150, docsExamined: 150, nReturned: 150, indexes: ['userId_1'], values: 1, weight: w },
    });
    expect(work(shared(100))).toBe(30_000);
    expect(cutOnEveryCall(base([replay(0, 10_000)], [shared(1)], { foreign: true }), userId)).toBe(true);
    expect(cutOnEveryCall(base([replay(0, 10_000)], [shared(100)], { foreign: true }), userId)).toBe(false);
  });

  it('never supports without the planner choosing it on the join query', () => {
    const p = base([replay(2000, 10_000)], [replay(2000, 100)], { foreign: true });
    expect(joinCountsDecide(p, userId)).toBeNull();
  });

  it('keeps a slower pipeline inconclusive even when the counts cut', () => {
    const p = base([replay(2000, 10_000)], [replay(2000, 100, [], ['userId_1'])], { foreign: true, time: slowTime });
    const v = decide(p, { ns: 'shop.users', existingIndexes: [], instances: [], ...userId });
    expect(v.status).toBe('inconclusive');
  });

  it('refutes a local index the join dominates, saying so, and never supports one on the floor', () => {
    // country cuts its $match 2,000 → 20, the join (unchanged, at least 10,000, no index) keeps the pipeline at 83%
    const dominated = base(
      [replay(2000, 10_000), replay(2000, 10_000)],
      [replay(20, 10_000, ['country_1']), replay(20, 10_000, ['country_1'])],
    );
    expect(joinCountsDecide(dominated, country)).toBe('refuted');
    const v = decide(dominated, { ns: 'shop.users', existingIndexes: [], instances: [], ...country });
    expect(v.status).toBe('refuted');
    expect(v.reason).toBe(
      'it cut what the stages before the $lookup examined to 1%, but the $lookup into events, which it does ' +
        'not change, reads at least what its own query examined on the joined copy, 10,000 keys and documents per ' +
        "call (a collection scan: no index serves its foreign field), so with it counted the pipeline's examined " +
        "fell only to 83.5%, not to 50% or less; index the join's foreign field first, then prove this one again",
    );
    // with the join indexed its floor is small: the share falls below the line, which a floor cannot support
    const indexed = base([replay(2000, 100, [], ['userId_1'])], [replay(20, 100, ['country_1'], ['userId_1'])]);
    expect(joinCountsDecide(indexed, country)).toBeNull();
    const w = decide(indexed, { ns: 'shop.users', existingIndexes: [], instances: [], ...country });
    expect(w.status).toBe('inconclusive');
    expect(w.reason).toMatch(
      /counted only at their floor .* and the time budget ended before the calls could be timed/,
    );
  });
});
