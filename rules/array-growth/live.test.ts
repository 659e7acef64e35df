import { ObjectId } from 'mongodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../src/collect';
import { confirmFindings } from '../../src/confirm';
import { dataOf } from '../../src/core/collector';
import { formatBytes } from '../../src/core/format';
import type { Finding, Snapshot } from '../../src/core/types';
import { useLiveDb } from '../../test/support/live-db';
import { runRule } from '../../test/support/rule-tester';
import { elementPace } from './collect';
import rule from './index';

const DB = 'mongo_advisor_test_array_growth';
const DAY = 86_400_000;

describe('array-growth (live)', () => {
  const now = Date.now();
  const live = useLiveDb(DB, async (db) => {
    const comment = (t: number) => ({ author: 'someone', at: new Date(t), text: 'y'.repeat(160) });
    // a post created 200 days ago whose 3,000 comments all came in the last 30 days: 100 a day, 15 by its age
    await db.collection('posts').insertMany([
      { _id: ObjectId.createFromTime(Math.floor((now - 200 * DAY) / 1000)), comments: Array.from({ length: 3000 }, (_, i) => comment(now - 60_000 - i * 0.01 * DAY)) },
      { _id: ObjectId.createFromTime(Math.floor((now - 199 * DAY) / 1000)), comments: [comment(now - 190 * DAY)] },
    ]);
  });
  let snap: Snapshot;
  beforeAll(async () => {
    snap = await collectSnapshot(live.adapter, { db: DB, collectors: [elementPace] });
  });

  it('reads the elements\' dates from the sample, with no command of its own, and keeps counts only', async () => {
    const without = await collectSnapshot(live.adapter, { db: DB });
    expect(snap.roundTrips).toBe(without.roundTrips);
    const posts = snap.databases[0]?.collections.find((c) => c.name === 'posts');
    const data = dataOf(elementPace, posts);
    expect(data?.paths.map((p) => [p.path, p.field, p.quietDays])).toEqual([['comments', 'at', 0]]);
    const busy = data?.paths[0]?.docs.find((d) => d.dated === 3000);
    expect(busy?.recent[1]).toBe(3000);
    expect(JSON.stringify(data)).not.toMatch(/yyyy|someone|20\d\d-/);
  });

  it('reports the pace from the dates, and the confirmation says how the projected length was derived', async () => {
    const options = { warnWithinDays: 1000, projectionDays: 10 };
    const [f] = runRule(rule, snap, options);
    console.log(`[array-growth live] ${live.kind}: ${f?.message ?? 'no finding'}`);
    expect(f?.messageId).toBe('growingArrayDated');
    expect(f?.message).toMatch(/grows by up to 100 elements per document per day \(median 50 over 2 documents\), counted from the dates at `comments\.at` over the 30 days up to the newest one/);
    expect(f?.message).toContain(`the largest document holding it is ${formatBytes(Number(f?.evidence.largestDocBytes))}`);
    expect(f?.evidence).toMatchObject({ paceSource: 'elements', projectedLength: 4000, projectedFromLength: 3000, projectionDays: 10 });
    const run = await confirmFindings(snap, [f as Finding], live.adapter, [rule], { budgetMs: 15_000, settings: { rules: { 'array-growth': { options } } } });
    const c = run.findings[0]?.confirmation;
    console.log(`[array-growth live] ${live.kind}: ${c?.status ?? 'none'}: ${c?.summary ?? ''}`);
    expect(run.cleanedUp).toBe(true);
    expect(c?.summary).toContain("The projected length, 4,000, is the longest array's 3,000 elements now + 100 a day × 10 days (the pace counted from the dates at `comments.at` over 30 days).");
  });
});
