import type { CollectionSnapshot, DocProfile } from '../../src/core/types';
import { outlierSearch } from '../../src/collect/outliers';
import { collectionOf, docWithArray, sampleOf, snapshotOf, withData } from '../../test/support/fixtures';
import { describe, expect, it } from 'vitest';
import { ruleTester, runRule } from '../../test/support/rule-tester';
import rule from './index';

const MiB = 1024 * 1024;

/** A document profile as collect writes it; `measuredOnServer` as for documents over 1 MiB sized with $bsonSize. */
function doc(bytes: number, fields: DocProfile['largestFields'], measuredOnServer = false): DocProfile {
  return { bytes, createdAt: null, measuredOnServer, arrays: [], largestFields: fields };
}

function sampled(docs: DocProfile[], fields: CollectionSnapshot['sample']['fields'] = {}): CollectionSnapshot {
  return collectionOf('reports', { sample: sampleOf(docs, { fields }) });
}

/** Every document read (collect's whole read): complete, no outlier pass needed. */
function readWhole(docs: DocProfile[]): CollectionSnapshot {
  const c = collectionOf('reports', { sample: sampleOf(docs, { method: 'whole', complete: true }) });
  return withData(c, outlierSearch, { status: 'not-needed', reason: null, docs: [] });
}

/** A sample plus what collect's server-side pass found beyond it (top-level shapes, measured with $bsonSize). */
function withOutliers(docs: DocProfile[], outliers: DocProfile[]): CollectionSnapshot {
  return withData(collectionOf('reports', { sample: sampleOf(docs) }), outlierSearch, {
    status: 'done',
    reason: null,
    docs: outliers,
  });
}

const small = Array.from({ length: 30 }, () => doc(4_000, [{ path: 'body', bytes: 3_000 }]));
const at = (path: string) => ({ db: 'app', collection: 'reports', path });
const subset = (field: string) => ({
  action: 'split the document (subset pattern)',
  commands: [
    `db.getSiblingDB("app").createCollection("reports_${field}")`,
    `db.getSiblingDB("app").getCollection("reports_${field}").createIndex({ parentId: 1 })`,
  ],
});

ruleTester(rule, {
  valid: [
    { name: 'small documents', snapshot: snapshotOf([sampled(small)]) },
    {
      name: 'just under 2 MB',
      snapshot: snapshotOf([sampled([...small, doc(1_999_999, [{ path: 'body', bytes: 1_900_000 }])])]),
    },
    { name: 'nothing sampled', snapshot: snapshotOf([collectionOf('empty')]) },
    // the pass keeps the 5 largest documents whatever their size: small ones are no finding
    {
      name: 'outliers under 2 MB',
      snapshot: snapshotOf([withOutliers(small, [doc(1_500_000, [{ path: 'body', bytes: 1_400_000 }], true)])]),
    },
  ],
  invalid: [
    {
      name: 'a 2.5 MB document (Atlas)',
      snapshot: snapshotOf([
        sampled([
          ...small,
          doc(2_500_000, [
            { path: 'html', bytes: 2_300_000 },
            { path: 'meta', bytes: 150_000 },
          ]),
        ]),
      ]),
      findings: [
        {
          messageId: 'largeDocument',
          severity: 'info',
          target: at('html'),
          message:
            'Sampled documents reach 2.38 MiB (15% of the 16 MiB limit); sampled documents over 2 MB, the ' +
            'size Atlas flags: 1 of 31. Largest fields: `html` 2.19 MiB, `meta` 146 KiB.',
          evidence: {
            largestDocBytes: 2_500_000,
            docsOverInfoBytes: 1,
            docsOverWarnBytes: 0,
            largestField: 'html',
            dominantArray: null,
          },
          recommendation: subset('html'),
        },
      ],
    },
    {
      // never prints a document value: paths and sizes only
      name: 'one 2.5 MB document alone: paths and sizes only',
      snapshot: snapshotOf([sampled([doc(2_500_000, [{ path: 'html', bytes: 2_300_000 }])])]),
      findings: [
        {
          messageId: 'largeDocument',
          severity: 'info',
          target: at('html'),
          message:
            'Sampled documents reach 2.38 MiB (15% of the 16 MiB limit); sampled documents over 2 MB, the ' +
            'size Atlas flags: 1 of 1. Largest fields: `html` 2.19 MiB.',
          recommendation: subset('html'),
        },
      ],
    },
    {
      name: 'an 11 MB document measured on the server (Compass)',
      snapshot: snapshotOf([
        sampled([...small, doc(11_000_000, [{ path: 'pdf', bytes: 10_900_000 }], true)], {
          pdf: { present: 1, types: { binData: 1 } },
        }),
      ]),
      findings: [
        {
          messageId: 'largeDocumentMeasuredOnServer',
          severity: 'warn',
          target: at('pdf'),
          message:
            'Sampled documents reach 10.5 MiB (66% of the 16 MiB limit), measured on the server with ' +
            '$bsonSize; sampled documents over 10 MB, the size Compass flags: 1 of 31. Largest fields: `pdf` ' +
            '10.4 MiB.',
          // binaries go out of the document
          evidence: { measuredOnServer: true, largestFieldType: 'binData', docsOverWarnBytes: 1 },
          recommendation: {
            action: 'store the binary outside the document',
            commands: [
              'db.getSiblingDB("app").getCollection("reports").find({}, { pdf: 0 })  // reads without the large' +
                ' field meanwhile',
            ],
          },
        },
      ],
    },
    {
      name: 'a binary seen only beyond the sample, in a document measured on the server: its type comes from there',
      snapshot: snapshotOf([
        withOutliers(small, [doc(11_000_000, [{ path: 'pdf', bytes: 10_900_000, type: 'binData' }], true)]),
      ]),
      findings: [
        {
          messageId: 'largeDocumentBeyondSample',
          severity: 'warn',
          target: at('pdf'),
          messageIncludes: 'Largest fields: `pdf` 10.4 MiB.',
          evidence: { measuredOnServer: true, largestFieldType: 'binData' },
          recommendation: {
            action: 'store the binary outside the document',
            commands: [
              'db.getSiblingDB("app").getCollection("reports").find({}, { pdf: 0 })  // reads without the large' +
                ' field meanwhile',
            ],
          },
        },
      ],
    },
    {
      name: 'within 20% of 16 MiB: error',
      snapshot: snapshotOf([sampled([...small, doc(14 * MiB, [{ path: 'blob', bytes: 14 * MiB - 100 }], true)])]),
      findings: [
        {
          messageId: 'nearLimitMeasuredOnServer',
          severity: 'error',
          target: at('blob'),
          messageIncludes: [
            'reach 14 MiB (88% of the 16 MiB limit), measured on the server with $bsonSize',
            'sampled documents over 80% of the limit: 1 of 31',
          ],
          evidence: { docsOverErrorShare: 1, largestFieldType: null },
          recommendation: subset('blob'),
        },
      ],
    },
    {
      name: 'an array dominates: points to array-growth',
      snapshot: snapshotOf([sampled([...small, docWithArray('comments', 3000, 1000, null)])]),
      findings: [
        {
          messageId: 'largeDocument',
          severity: 'info',
          target: at('comments'),
          messageIncludes: 'Largest fields: `comments` 2.88 MiB.',
          // dominant arrays go to array-growth
          evidence: { dominantArray: 'comments' },
          recommendation: {
            action: 'move the array out (see array-growth)',
            reasonIncludes: [
              'The array `comments` (3,000 elements) is 100% of the document',
              'The array-growth rule measures whether it still grows',
            ],
          },
        },
      ],
    },
    {
      name: 'within 20% of 16 MiB, measured in process (a server without $bsonSize): said without the server',
      snapshot: snapshotOf([sampled([...small, doc(14 * MiB, [{ path: 'blob', bytes: 14 * MiB - 100 }])])]),
      findings: [
        {
          messageId: 'nearLimit',
          severity: 'error',
          target: at('blob'),
          data: { bytes: '14 MiB', share: 88, over: 1, sample: 31, errorPercent: 80, fields: '`blob` 14 MiB' },
          recommendation: subset('blob'),
        },
      ],
    },
    {
      name: 'every document read: said so, not "sampled"',
      snapshot: snapshotOf([readWhole([...small, doc(2_500_000, [{ path: 'html', bytes: 2_300_000 }])])]),
      findings: [
        {
          messageId: 'largeDocumentAllRead',
          severity: 'info',
          target: at('html'),
          message:
            'Documents reach 2.38 MiB (15% of the 16 MiB limit); documents over 2 MB, the size Atlas flags: ' +
            '1 of all 31 (every one was read). Largest fields: `html` 2.19 MiB.',
          evidence: { largestFrom: 'whole', sampleComplete: true, outlierSearch: 'not-needed' },
          recommendation: subset('html'),
        },
      ],
    },
    {
      // the case: a random sample of small documents misses the one 11 MB document; collect's pass finds it
      name: 'the largest document found beyond the sample by the server-side pass',
      snapshot: snapshotOf([
        withOutliers(small, [
          doc(11_000_000, [{ path: 'pdf', bytes: 10_900_000 }], true),
          doc(2_100_000, [{ path: 'pdf', bytes: 2_000_000 }], true),
        ]),
      ]),
      findings: [
        {
          messageId: 'largeDocumentBeyondSample',
          severity: 'warn',
          target: at('pdf'),
          message:
            'A document found by a server-side pass over the whole collection reaches 10.5 MiB (66% of the ' +
            '16 MiB limit), measured on the server with $bsonSize; sampled documents over 10 MB, the size ' +
            'Compass flags: 0 of 30, and the pass found 1 more beyond the sample. Largest fields: `pdf` 10.4 ' +
            'MiB.',
          evidence: {
            largestFrom: 'outlierPass',
            sampleSize: 30,
            docsOverWarnBytes: 0,
            beyondSampleOverWarnBytes: 1,
            beyondSampleOverInfoBytes: 2,
          },
          recommendation: subset('pdf'),
        },
      ],
    },
    {
      name: 'near the limit beyond the sample: the limits page',
      snapshot: snapshotOf([withOutliers(small, [doc(15 * MiB, [{ path: 'blob', bytes: 15 * MiB - 100 }], true)])]),
      findings: [
        {
          messageId: 'nearLimitBeyondSample',
          severity: 'error',
          target: at('blob'),
          data: {
            bytes: '15 MiB',
            share: 94,
            over: 0,
            sample: 30,
            errorPercent: 80,
            beyond: 1,
            fields: '`blob` 15 MiB',
          },
          recommendation: subset('blob'),
        },
      ],
    },
    {
      name: 'a sampled document larger than every outlier: the sample names it',
      snapshot: snapshotOf([
        withOutliers(
          [...small, doc(3_000_000, [{ path: 'html', bytes: 2_900_000 }])],
          [doc(2_200_000, [{ path: 'html', bytes: 2_100_000 }], true)],
        ),
      ]),
      findings: [
        {
          messageId: 'largeDocument',
          severity: 'info',
          target: at('html'),
          messageIncludes: 'Sampled documents reach 2.86 MiB',
          evidence: { largestFrom: 'sample', docsOverInfoBytes: 1, beyondSampleOverInfoBytes: 1 },
          recommendation: subset('html'),
        },
      ],
    },
    {
      name: 'thresholds are options',
      snapshot: snapshotOf([sampled(small)]),
      options: { infoBytes: 3_000 },
      findings: [
        {
          messageId: 'largeDocument',
          severity: 'info',
          target: at('body'),
          messageIncludes: 'sampled documents over 2.93 KiB, your infoBytes setting: 30 of 30',
          evidence: { docsOverInfoBytes: 30 },
          recommendation: subset('body'),
        },
      ],
    },
  ],
});

describe('document-size links', () => {
  it('links a finding near the 16 MiB limit to the limits page, and the others to the bloated-documents page', () => {
    const near = runRule(
      rule,
      snapshotOf([withOutliers(small, [doc(15 * MiB, [{ path: 'blob', bytes: 15 * MiB - 100 }], true)])]),
    );
    expect(near.map((f) => [f.messageId, f.docsUrl])).toEqual([
      [
        'nearLimitBeyondSample',
        'https://www.mongodb.com/docs/manual/reference/limits/#mongodb-limit-BSON-Document-Size',
      ],
    ]);
    const large = runRule(
      rule,
      snapshotOf([sampled([...small, doc(2_500_000, [{ path: 'html', bytes: 2_300_000 }])])]),
    );
    expect(large.map((f) => [f.messageId, f.docsUrl])).toEqual([
      ['largeDocument', 'https://www.mongodb.com/docs/manual/data-modeling/design-antipatterns/bloated-documents/'],
    ]);
  });
});
