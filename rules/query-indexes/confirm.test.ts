import { describe, expect, it } from 'vitest';
import type { IndexProof } from '../../src/confirm/index-proof';
import { confirmationVerdict } from '../../src/report/group';
import { CONFIRMATION_STATUS } from '../../src/report/text';
import { resultOf } from './confirm';

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
