import { describe, expect, it } from 'vitest';
import { check, collect, dataOf, defineCollector, defineRule } from '../src/index';
import { analyze } from '../src/core/runner';
import { judge } from '../src/core/baseline';
import { rules } from '../rules';
import { useLiveDb } from './support/live-db';

const DB = 'mongo_advisor_test_public_api';

/** A caller's own rule: collections whose sampled documents all lack a `createdAt` field. */
const needsCreatedAt = defineRule({
  id: 'acme-created-at',
  meta: {
    description: 'Documents should carry createdAt',
    docsUrl: 'https://example.com/acme/created-at',
    severity: 'warn',
    messages: { missing: 'None of {{n}} sampled documents has `createdAt`.' },
    options: {
      type: 'object',
      properties: {
        minDocs: { type: 'integer', default: 5, description: 'Fewer sampled documents than this: no finding.' },
      },
      additionalProperties: false,
    },
    requires: { capabilities: [] },
  },
  scope: 'collection',
  analyze({ collection, options, report }) {
    if (!collection || collection.sample.size < options.minDocs) return;
    if (collection.sample.fields.createdAt) return;
    report({
      messageId: 'missing',
      target: { db: collection.db, collection: collection.name },
      data: { n: collection.sample.size },
      evidence: { sampled: collection.sample.size },
    });
  },
});

/**
 * A caller's collector: how many documents of each collection have a `deletedAt` field, counted on the server (one
 * read-only `count` per collection). Its data: a whole number, under its id.
 */
const softDeleted = defineCollector<{ deleted: number }, 'collection'>({
  id: 'acme-soft-deleted',
  version: 1,
  scope: 'collection',
  description: 'count of documents with deletedAt (1 command per collection)',
  schema: {
    type: 'object',
    required: ['deleted'],
    additionalProperties: false,
    properties: { deleted: { type: 'integer', minimum: 0 } },
  },
  async collect(ctx) {
    const r = await ctx.adapter.command(ctx.collection.db, {
      count: ctx.collection.name,
      query: { deletedAt: { $exists: true } },
      maxTimeMS: ctx.maxTimeMS,
    });
    return { deleted: Number(r.n) };
  },
});

/** A caller's rule that needs that collector: a collection where soft-deleted documents are a large share. */
const softDeletes = defineRule({
  id: 'acme-soft-deletes',
  needs: [softDeleted],
  meta: {
    description: 'Soft-deleted documents should be archived',
    docsUrl: 'https://example.com/acme/soft-deletes',
    severity: 'info',
    messages: { many: '{{deleted}} of {{count}} documents are soft-deleted: archive them.' },
    options: {
      type: 'object',
      properties: {
        share: { type: 'number', default: 0.25, description: 'Share of soft-deleted documents to report at.' },
      },
      additionalProperties: false,
    },
    requires: { capabilities: [] },
  },
  scope: 'collection',
  analyze({ collection, options, report }) {
    const d = dataOf(softDeleted, collection);
    const count = collection?.stats?.count ?? 0;
    if (!collection || !d || count === 0 || d.deleted / count < options.share) return;
    report({
      messageId: 'many',
      target: { db: collection.db, collection: collection.name },
      data: { deleted: d.deleted, count },
      evidence: { deleted: d.deleted },
    });
  },
});

describe('check() with a caller-defined rule and its own collector (live)', () => {
  const live = useLiveDb(`${DB}_collector`, async (db) => {
    await db
      .collection('users')
      .insertMany(Array.from({ length: 20 }, (_, i) => (i < 8 ? { i, deletedAt: new Date() } : { i })));
    await db.collection('plans').insertMany(Array.from({ length: 20 }, (_, i) => ({ i })));
  });

  it(
    'collects its data with the run (only when enabled), gets its finding, and a snapshot taken without it ' +
      'says so',
    async () => {
      const result = await check(live.adapter, {
        db: `${DB}_collector`,
        confirm: false,
        extraRules: [softDeletes],
        settings: { only: ['acme-soft-deletes'] },
      });
      expect(result.findings.map((f) => [f.ruleId, f.target.collection, f.message])).toEqual([
        ['acme-soft-deletes', 'users', '8 of 20 documents are soft-deleted: archive them.'],
      ]);

      // Off: its collector does not run, and analysing that snapshot with the rule on says it was not collected.
      const snap = await collect(live.adapter, {
        db: `${DB}_collector`,
        settings: { only: ['array-growth'] },
        extraRules: [softDeletes],
      });
      expect(snap.collectors.map((c) => c.id)).not.toContain('acme-soft-deleted');
      const out = analyze(snap, { only: ['acme-soft-deletes'] }, [...rules, softDeletes]);
      expect(out.findings).toEqual([]);
      expect(out.notes.map((n) => n.message)).toContainEqual(
        expect.stringMatching(
          /^acme-soft-deletes: not checked: its data \(collector acme-soft-deleted\) was not collected/,
        ),
      );

      // On: the data sits under the collector's id, recorded with its version and the options it was collected with
      // (those the run resolved for the rule that needs it).
      const full = await collect(live.adapter, { db: `${DB}_collector`, extraRules: [softDeletes] });
      const options = { 'acme-soft-deletes': { share: 0.25 } };
      expect(full.collectors).toContainEqual({
        id: 'acme-soft-deleted',
        version: 1,
        scope: 'collection',
        couldNot: [],
        options,
      });
      const users = full.databases[0]?.collections.find((c) => c.name === 'users');
      expect(dataOf(softDeleted, users)).toEqual({ deleted: 8 });
    },
  );
});

/** A deployment-wide collector whose read is refused: its error note has no target, and the lint gate still fails
 * closed. */
const refused = defineCollector<{ n: number }, 'deployment'>({
  id: 'acme-refused',
  version: 1,
  scope: 'deployment',
  description: 'a command the server refuses (1 command per run)',
  schema: { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } },
  async collect(ctx) {
    const r = await ctx.adapter.command('admin', { acmeNoSuchCommand: 1, maxTimeMS: ctx.maxTimeMS });
    return { n: Number(r.n) };
  },
});
const needsRefused = defineRule({
  id: 'acme-needs-refused',
  needs: [refused],
  meta: {
    description: 'needs acme-refused',
    docsUrl: 'https://example.com/acme/refused',
    severity: 'info',
    messages: { never: 'never' },
    options: { type: 'object', properties: {}, additionalProperties: false },
    requires: { capabilities: [] },
  },
  scope: 'snapshot',
  analyze() {},
});

describe('a deployment-wide collector that fails (live)', () => {
  const live = useLiveDb(`${DB}_refused`, async (db) => {
    await db.collection('plans').insertMany(Array.from({ length: 5 }, (_, i) => ({ i })));
  });

  it('leaves an error note naming its collector (no target), and the lint gate exits 2 on it', async () => {
    const result = await check(live.adapter, {
      db: `${DB}_refused`,
      confirm: false,
      extraRules: [needsRefused],
      settings: { only: ['acme-needs-refused'] },
    });
    const note = result.notes.find((n) => n.collector === 'acme-refused' && n.level === 'error');
    expect(note?.message).toMatch(/^acme-refused could not read its data: /);
    expect(note?.target).toBeUndefined();
    const lint = judge(result, { failOn: 'error', maxWarnings: null, baseline: null });
    expect(lint.exitCode).toBe(2);
    expect(lint.unread).toEqual(['the deployment-wide data of acme-refused']);
  });
});

describe('check() with a caller-defined rule (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('orders').insertMany(Array.from({ length: 12 }, (_, i) => ({ total: i })));
    await db.collection('events').insertMany(Array.from({ length: 12 }, (_, i) => ({ createdAt: new Date(), i })));
  });

  it('runs it beside the built-in rules and reports its finding, with its options applied', async () => {
    const result = await check(live.adapter, { db: DB, confirm: false, extraRules: [needsCreatedAt] });
    const mine = result.findings.filter((f) => f.ruleId === 'acme-created-at');
    expect(mine.map((f) => [f.target.collection, f.severity, f.message])).toEqual([
      ['orders', 'warn', 'None of 12 sampled documents has `createdAt`.'],
    ]);
    // The built-in rules still run, and say the same as without it.
    const builtIn = await check(live.adapter, { db: DB, confirm: false });
    const key = (f: { ruleId: string; messageId: string; target: object }): string =>
      JSON.stringify([f.ruleId, f.messageId, f.target]);
    expect(result.findings.filter((f) => f.ruleId !== 'acme-created-at').map(key)).toEqual(builtIn.findings.map(key));
    const quiet = await check(live.adapter, {
      db: DB,
      confirm: false,
      extraRules: [needsCreatedAt],
      settings: { rules: { 'acme-created-at': { options: { minDocs: 50 } } } },
    });
    expect(quiet.findings.filter((f) => f.ruleId === 'acme-created-at')).toEqual([]);
  });

  it('refuses a rule whose id clashes with a built-in one, with a clear message', async () => {
    await expect(
      check(live.adapter, { db: DB, confirm: false, extraRules: [{ ...needsCreatedAt, id: 'validator' }] }),
    ).rejects.toThrow(/A rule with the id "validator" is already registered/);
  });
});
