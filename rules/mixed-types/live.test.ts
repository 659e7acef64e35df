/**
 * mixed-types' experiment on each test server: ids stored as ObjectIds in most documents and as their hex text in
 * some, the classic bug; the confirmation asks for the strays' values as ObjectIds and counts what it misses.
 */
import { ObjectId } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { collectSnapshot } from '../../src/collect';
import { confirmFindings } from '../../src/confirm';
import { collectPlan } from '../../src/core/runner';
import { useLiveDb } from '../../test/support/live-db';
import { runRule } from '../../test/support/rule-tester';
import { expectScratchDropped } from '../../test/support/scratch';
import rule from './index';

const DB = 'mongo_advisor_test_mixed_types';

describe('mixed-types confirmation (live)', () => {
  const ids: string[] = [];
  const live = useLiveDb(DB, async (db) => {
    await db.collection('orders').insertMany(
      Array.from({ length: 60 }, (_, i) => {
        const customer = new ObjectId();
        ids.push(customer.toHexString());
        // ObjectId in 50 documents, its hex text in 10
        return { customerId: i % 6 === 5 ? customer.toHexString() : customer, n: i };
      }),
    );
  });

  it('the string ids asked for as ObjectIds match none of their documents; asked as stored, all', async () => {
    const snap = await collectSnapshot(live.adapter, {
      db: DB,
      collections: ['orders'],
      collectors: collectPlan([rule]),
    });
    const f = runRule(rule, snap).find((x) => x.target.path === 'customerId');
    expect(f?.messageId).toBe('mixedIds');
    const run = await confirmFindings(snap, f ? [f] : [], live.adapter, [rule], { budgetMs: 10_000, maxDocs: 60 });
    const k = run.findings[0]?.confirmation;
    console.log(`[mixed-types live] ${live.kind}: ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
    expect(k?.status).toBe('supported');
    expect(k?.summary).toContain(
      '10 documents holding `customerId` as strings (copied from orders, each value readable as an ' +
        'ObjectId): a find for those same values as ObjectIds, as code that writes ObjectIds asks, matched 0 ' +
        'of them; asked as stored, it matched 10. Every one is missed',
    );
    expect(k?.brief).toBe('a query by ObjectIds missed 10 of 10');
    for (const id of ids) expect(JSON.stringify(k)).not.toContain(id);
    expect(run.where).toBeTruthy();
    await expectScratchDropped(live.client, run.where);
  });
});
