import { describe, expect, it } from 'vitest';
import { check } from '../src/index';
import { defineRule } from '../src/core/rule';
import { useLiveDb } from './support/live-db';

const DB = 'mongo_advisor_test_public_api';

/** A caller's own rule: collections whose sampled documents all lack a `createdAt` field. */
const needsCreatedAt = defineRule<{ minDocs: number }>({
  id: 'acme-created-at',
  meta: {
    description: 'Documents should carry createdAt',
    docsUrl: 'https://example.com/acme/created-at',
    severity: 'warn',
    messages: { missing: 'None of {{n}} sampled documents has `createdAt`.' },
    options: { type: 'object', properties: { minDocs: { type: 'integer', default: 5, description: 'Fewer sampled documents than this: no finding.' } }, additionalProperties: false },
    requires: { capabilities: [] },
  },
  scope: 'collection',
  analyze({ collection, options, report }) {
    if (!collection || collection.sample.size < options.minDocs) return;
    if (collection.sample.fields.createdAt) return;
    report({ messageId: 'missing', target: { db: collection.db, collection: collection.name }, data: { n: collection.sample.size }, evidence: { sampled: collection.sample.size } });
  },
});

describe('check() with a caller-defined rule (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('orders').insertMany(Array.from({ length: 12 }, (_, i) => ({ total: i })));
    await db.collection('events').insertMany(Array.from({ length: 12 }, (_, i) => ({ createdAt: new Date(), i })));
  });

  it('runs it beside the built-in rules and reports its finding, with its options applied', async () => {
    const result = await check(live.adapter, { db: DB, confirm: false, extraRules: [needsCreatedAt] });
    const mine = result.findings.filter((f) => f.ruleId === 'acme-created-at');
    expect(mine.map((f) => [f.target.collection, f.severity, f.message])).toEqual([['orders', 'warn', 'None of 12 sampled documents has `createdAt`.']]);
    // The built-in rules still run, and say the same as without it.
    const builtIn = await check(live.adapter, { db: DB, confirm: false });
    const key = (f: { ruleId: string; messageId: string; target: object }): string => JSON.stringify([f.ruleId, f.messageId, f.target]);
    expect(result.findings.filter((f) => f.ruleId !== 'acme-created-at').map(key)).toEqual(builtIn.findings.map(key));
    const quiet = await check(live.adapter, { db: DB, confirm: false, extraRules: [needsCreatedAt], settings: { rules: { 'acme-created-at': { options: { minDocs: 50 } } } } });
    expect(quiet.findings.filter((f) => f.ruleId === 'acme-created-at')).toEqual([]);
  });

  it('refuses a rule whose id clashes with a built-in one, with a clear message', async () => {
    await expect(check(live.adapter, { db: DB, confirm: false, extraRules: [{ ...needsCreatedAt, id: 'validator' }] })).rejects.toThrow(/A rule with the id "validator" is already registered/);
  });
});
