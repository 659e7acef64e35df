import { beforeAll, describe, expect, inject, it } from 'vitest';
import { collectSnapshot } from '../../src/collect';
import { outlierSearch } from '../../src/collect/outliers';
import { dataOf } from '../../src/core/collector';
import type { Snapshot } from '../../src/core/types';
import { runRule } from '../../test/support/rule-tester';
import rule from './index';
import { useLiveDb } from '../../test/support/live-db';
import { joinRegex } from '../../test/support/regex';

const DB = 'mongo_advisor_test_document_size';
const MARKER = 'Zq7';

describe('document-size (live)', () => {
  const caps = inject('capabilities');
  const live = useLiveDb(DB, async (db) => {
    await db
      .collection('pages')
      .insertMany(Array.from({ length: 20 }, (_, i) => ({ slug: `p${i}`, html: '<p>short</p>' })));
    await db.collection('pages').insertOne({ slug: 'huge', html: MARKER.repeat(800_000), meta: { lang: 'en' } });
    await db.collection('threads').insertMany(Array.from({ length: 20 }, (_, i) => ({ title: `t${i}`, comments: [] })));
    await db.collection('threads').insertOne({
      title: 'busy',
      comments: Array.from({ length: 2500 }, (_, i) => ({ by: `u${i % 40}`, text: 'c'.repeat(900) })),
    });
  });
  let snap: Snapshot;

  beforeAll(async () => {
    // 21 documents each: read whole (within wholeMaxDocs and wholeMaxBytes)
    snap = await collectSnapshot(live.adapter, { db: DB, sampleSize: 100, collectors: [outlierSearch] });
  });

  it('names the largest field of a 2.4 MB document, never its value, and says every document was read', () => {
    const f = runRule(rule, snap).find((x) => x.target.collection === 'pages');
    expect(f?.severity).toBe('info');
    expect(f?.target.path).toBe('html');
    expect(f?.evidence.largestFrom).toBe('whole');
    expect(f?.message).toMatch(
      joinRegex(
        /^Documents reach 2\.29 MiB .*; documents over 2 MB, the size Atlas flags: 1 of all 21 \(every one was /,
        /read\)\. Largest fields: `html` 2\.29 MiB/,
      ),
    );
    expect(JSON.stringify(f)).not.toContain(MARKER);
    const measured = snap.server.capabilities.bsonSize.supported === true;
    expect(f?.evidence.measuredOnServer).toBe(measured);
    if (!measured) console.log('[document-size live] sizes measured in process: the server lacks $bsonSize');
  });

  it('points to array-growth when an array is most of the document', () => {
    const f = runRule(rule, snap).find((x) => x.target.collection === 'threads');
    expect(f?.target.path).toBe('comments');
    expect(f?.recommendation?.action).toBe('move the array out (see array-growth)');
    expect(f?.recommendation?.reason).toMatch(/^The array `comments` \(2,500 elements\) is \d+% of the document/);
  });

  it(
    'sampled (not read whole): finds the 2.4 MB document through the sample or the server-side pass, or says ' +
      'it could not look',
    async () => {
      const sampled = await collectSnapshot(live.adapter, {
        db: DB,
        collections: ['pages'],
        sampleSize: 5,
        collectors: [outlierSearch],
      });
      const pages = sampled.databases[0]?.collections[0];
      expect(pages?.sample.complete).toBe(false);
      const f = runRule(rule, sampled)[0];
      if (caps.has.bsonSize && caps.has.arraySize) {
        expect(dataOf(outlierSearch, pages)?.status).toBe('done');
        expect(f?.target.path).toBe('html');
        expect(['sample', 'outlierPass']).toContain(f?.evidence.largestFrom);
        expect(JSON.stringify(f)).not.toContain(MARKER);
      } else {
        console.log('[document-size live] no server-side pass here: the server lacks $bsonSize or $size');
        expect(dataOf(outlierSearch, pages)?.status).toBe('unsupported');
        expect(sampled.notes.map((n) => n.message).join('\n')).toMatch(/not searched for beyond the samples/);
      }
    },
  );
});
