import { describe, expect, it } from 'vitest';
import type { IndexProof } from '../../src/confirm/index-proof';
import { confirmationVerdict } from '../../src/report/group';
import { CONFIRMATION_STATUS } from '../../src/report/text';
import { joinedPhrase, resultOf } from './confirm';

const replay = (examined: number): NonNullable<IndexProof['without']>[number] => ({
  keysExamined: 0,
  docsExamined: examined,
  nReturned: 5,
  indexes: [],
  executionTimeMillis: 1,
});

const proof = (writeCost: IndexProof['writeCost']): IndexProof => ({
  status: 'inconclusive',
  reason: 'the time budget ended before enough rounds were timed for a 95% interval',
  copy: { sourceCount: 8000, copied: 8000, planned: 8000, bound: 'collection', rebuilt: ['_id_'], notRebuilt: [] },
  without: [replay(8000)],
  with: [replay(6)],
  ...(writeCost ? { writeCost } : {}),
});

describe('query-indexes confirmation: the write cost in the line the text report prints (issue 27)', () => {
  it("puts the index's size and insert time in the brief the grouped text line shows", () => {
    const insert = { median: 1.2, low: 1.1, high: 1.3, coverage: 0.96, pairs: 10, blocks: 5, paired: true };
    const r = resultOf(proof({ bytes: 2 * 1024 * 1024, insert, batch: 200 }), '{ a: 1 }', 1, 0.5);
    const line = confirmationVerdict({ ...r, durationMs: 0, where: 'scratch' }, CONFIRMATION_STATUS);
    expect(line).toMatch(/examined 8,000 → 6 per call; write cost about 2(\.0)? MiB, inserts 1\.2x .* with it$/);
  });

  it('says the size alone when the inserts were not timed, and nothing when no write cost was measured', () => {
    const sized = resultOf(proof({ bytes: 4096, insertReason: 'not timed', batch: 200 }), '{ a: 1 }', 1, 0.5);
    expect(sized.brief).toMatch(/; write cost about 4(\.0)? KiB$/);
    expect(resultOf(proof(undefined), '{ a: 1 }', 1, 0.5).brief).toBe('examined 8,000 → 6 per call');
  });
});

describe('query-indexes confirmation: the write cost in the summary of an inconclusive proof too', () => {
  it('says the write cost after why the proof did not decide', () => {
    const r = resultOf(proof({ bytes: 4096, insertReason: 'not timed', batch: 200 }), '{ a: 1 }', 1, 0.5);
    expect(r.summary).toMatch(
      /for a 95% interval\. Write cost: about 4(\.0)? KiB at the collection's size; insert time/,
    );
  });
});

describe('query-indexes confirmation: a proof that ran past its budget says so', () => {
  it('adds why and what to do when the copy could not be cut to fit, and nothing otherwise', () => {
    const base = proof(undefined);
    const late = resultOf({ ...base, copy: { ...base.copy!, pastBudget: true } }, '{ a: 1 }', 1, 0.5);
    expect(late.summary).toMatch(/Copying these 8,000 documents .* ran past its budget rather than decide nothing/);
    expect(late.summary).toMatch(/a larger --confirm-budget keeps it within\.$/);
    expect(resultOf(base, '{ a: 1 }', 1, 0.5).summary).not.toMatch(/past its budget/);
  });
});

describe("query-indexes confirmation: a foreign-field index decided on the join's own query", () => {
  const joinReplay = (own: number, join: number, joinIndexes: string[] = []) => ({
    ...replay(own),
    join: { keysExamined: join / 2, docsExamined: join / 2, nReturned: 50, indexes: joinIndexes, values: 10 },
  });
  const joined: IndexProof = {
    status: 'supported',
    basis: 'examined',
    reason: 'the time budget ended before the calls could be timed',
    foreign: true,
    joinBasis: 'query',
    copy: { sourceCount: 2000, copied: 2000, planned: 2000, bound: 'collection', rebuilt: [], notRebuilt: [] },
    joins: [{ from: 'events', copied: 10_000, rebuilt: [] }],
    without: [joinReplay(2000, 10_000), joinReplay(2000, 10_000)],
    with: [joinReplay(2000, 100, ['userId_1']), joinReplay(2000, 120, ['userId_1'])],
  };
  it('says which basis decided, with the join query and the pipeline figures, and names no value', () => {
    const r = resultOf(joined, '{ userId: 1 }', 2, 0.5);
    expect(r.status).toBe('supported');
    expect(r.summary).toBe(
      "On 2,000 copied documents (the whole collection) with the collection's indexes rebuilt and 10,000 joined " +
        'documents of events copied (the whole collection: the join in place), 2 real calls replayed unhinted. ' +
        "The server's explain counts nothing of the $lookup stage, so the join's own query (its foreign field " +
        'matched against the 10 local values a call brings to it) was explained on both joined copies: ' +
        '{ userId: 1 } cut it from 10,000 to 110 keys and documents examined per call, the planner chose it on every ' +
        'call; with what the stages before the join examined (2,000 per call either way) counted in, 12,000 ' +
        'without it and 2,110 with it per call (to 50% or less on every call); the pipelines returned the same ' +
        'results both ways. ' +
        'Decided on the examined counts (without the index that query reads no more than the $lookup does, so the ' +
        'cut in production is at least this); the time, a second check, was not timed: the budget ended first.',
    );
    expect(r.brief).toBe('examined 12,000 → 2,110 per call');
  });
  it('says when the counts with the index were weighed by the local documents sharing a value', () => {
    const weighed = (r: (typeof joined.with & object)[number]) => ({ ...r, join: { ...r.join!, weight: 3 } });
    const r = resultOf({ ...joined, with: joined.with?.map(weighed) }, '{ userId: 1 }', 2, 0.5);
    expect(r.summary).toContain(
      'cut it from 10,000 to 330 keys and documents examined per call (with it counted 3 times over, as many as the ' +
        'local documents sharing one value, since the stage seeks once per local document), the planner chose it',
    );
  });
  it('says which joined documents were copied', () => {
    expect(joinedPhrase({ from: 'events', copied: 20_000, rebuilt: [], reached: 81, partial: true })).toBe(
      ' and 20,000 documents of events copied (the 81 the replayed calls join to and 19,919 others: the join in place)',
    );
    expect(joinedPhrase({ from: 'events', copied: 500, rebuilt: [], partial: true })).toBe(
      ' and 500 joined documents of events copied (the join in place)',
    );
  });
});
