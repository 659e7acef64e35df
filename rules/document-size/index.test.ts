import { describe, expect, it } from 'vitest';
import type { CollectionSnapshot, DocProfile } from '../../src/core/types';
import { collectionOf, docWithArray, snapshotOf } from '../../test/support/fixtures';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import rule from './index';

const MiB = 1024 * 1024;

/** A document profile as collect writes it; `measuredOnServer` as for documents over 1 MiB sized with $bsonSize. */
function doc(bytes: number, fields: { path: string; bytes: number }[], measuredOnServer = false): DocProfile {
  return { bytes, createdAt: null, measuredOnServer, arrays: [], largestFields: fields };
}

function sampled(docs: DocProfile[], fields: CollectionSnapshot['sample']['fields'] = {}): CollectionSnapshot {
  return collectionOf('reports', { sample: { method: '$sample', random: true, requested: docs.length, size: docs.length, docs, id: null, fields, timeSource: null } });
}

const small = Array.from({ length: 30 }, () => doc(4_000, [{ path: 'body', bytes: 3_000 }]));

ruleTester(rule, {
  valid: [
    { name: 'small documents', snapshot: snapshotOf([sampled(small)]) },
    { name: 'just under 2 MB', snapshot: snapshotOf([sampled([...small, doc(1_999_999, [{ path: 'body', bytes: 1_900_000 }])])]) },
    { name: 'nothing sampled', snapshot: snapshotOf([collectionOf('empty')]) },
  ],
  invalid: [
    {
      name: 'a 2.5 MB document (Atlas)',
      snapshot: snapshotOf([sampled([...small, doc(2_500_000, [{ path: 'html', bytes: 2_300_000 }, { path: 'meta', bytes: 150_000 }])])]),
      expect: [{ messageId: 'largeDocument', severity: 'info', path: 'html', messageIncludes: '1 of 31 sampled documents are over 2 MB (Atlas)' }],
    },
    {
      name: 'an 11 MB document measured on the server (Compass)',
      snapshot: snapshotOf([sampled([...small, doc(11_000_000, [{ path: 'pdf', bytes: 10_900_000 }], true)], { pdf: { present: 1, types: { binData: 1 } } })]),
      expect: [{ messageId: 'largeDocument', severity: 'warn', messageIncludes: 'measured on the server with $bsonSize' }],
    },
    {
      name: 'within 20% of 16 MiB: error',
      snapshot: snapshotOf([sampled([...small, doc(14 * MiB, [{ path: 'blob', bytes: 14 * MiB - 100 }], true)])]),
      expect: [{ messageId: 'largeDocument', severity: 'error', messageIncludes: '88% of the 16 MiB limit' }],
    },
    {
      name: 'an array dominates: points to array-growth',
      snapshot: snapshotOf([sampled([...small, docWithArray('comments', 3000, 1000, null)])]),
      expect: [{ messageIncludes: 'see array-growth', path: 'comments' }],
    },
    {
      name: 'thresholds are options',
      snapshot: snapshotOf([sampled(small)]),
      options: { infoBytes: 3_000 },
      expect: [{ severity: 'info' }],
    },
  ],
});

describe('document-size recommendation', () => {
  it('sends dominant arrays to array-growth and binaries out of the document', () => {
    const arr = runRule(rule, snapshotOf([sampled([docWithArray('comments', 3000, 1000, null)])]))[0];
    expect(arr?.recommendation?.action).toBe('move the array out (see array-growth)');
    expect(arr?.evidence.dominantArray).toBe('comments');
    const bin = runRule(rule, snapshotOf([sampled([doc(11_000_000, [{ path: 'pdf', bytes: 10_900_000 }], true)], { pdf: { present: 1, types: { binData: 1 } } })]))[0];
    expect(bin?.recommendation?.action).toBe('store the binary outside the document');
    expect(bin?.evidence.largestFieldType).toBe('binData');
  });

  it('never prints a document value: paths and sizes only', () => {
    const f = runRule(rule, snapshotOf([sampled([doc(2_500_000, [{ path: 'html', bytes: 2_300_000 }])])]))[0];
    expect(f?.message).toBe('Sampled documents reach 2.50 MB (15% of the 16 MiB limit); 1 of 1 sampled documents are over 2 MB (Atlas). Largest fields: `html` 2.30 MB.');
  });
});
