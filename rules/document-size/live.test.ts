import { beforeAll, describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../src/collect';
import type { Snapshot } from '../../src/core/types';
import { runRule } from '../../test/support/rule-tester';
import rule from './index';
import { useLiveDb } from '../../test/support/live-db';

const DB = 'mongo_advisor_test_document_size';
const MARKER = 'Zq7';

describe('document-size (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('pages').insertMany(Array.from({ length: 20 }, (_, i) => ({ slug: `p${i}`, html: '<p>short</p>' })));
    await db.collection('pages').insertOne({ slug: 'huge', html: MARKER.repeat(800_000), meta: { lang: 'en' } });
    await db.collection('threads').insertMany(Array.from({ length: 20 }, (_, i) => ({ title: `t${i}`, comments: [] })));
    await db.collection('threads').insertOne({ title: 'busy', comments: Array.from({ length: 2500 }, (_, i) => ({ by: `u${i % 40}`, text: 'c'.repeat(900) })) });
  });
  let snap: Snapshot;

  beforeAll(async () => {
    snap = await collectSnapshot(live.adapter, { db: DB, sampleSize: 100 });
  });

  it('names the largest field of a 2.4 MB document, never its value', () => {
    const f = runRule(rule, snap).find((x) => x.target.collection === 'pages');
    expect(f?.severity).toBe('info');
    expect(f?.target.path).toBe('html');
    expect(f?.message).toMatch(/^Sampled documents reach 2\.40 MB .*over 2 MB \(Atlas\)\. Largest fields: `html` 2\.40 MB/);
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
});
