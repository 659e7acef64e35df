import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DriverAdapter } from '../../src/adapters/driver';
import { describeServerError } from '../../src/adapters/types';
import { collectSnapshot } from '../../src/collect';
import { confirmFindings } from '../../src/confirm';
import { runRule } from '../../test/support/rule-tester';
import rule from './index';
import { expectScratchDropped } from '../../test/support/scratch';

const DB = 'mongo_advisor_test_validator';
const SECRET = 'SECRET-VALUE-do-not-print';

describe('validator (live)', () => {
  const uri = inject('mongoUri');
  const kind = inject('serverKind');
  let client: MongoClient;
  let adapter: DriverAdapter;
  /** Whether this server keeps a validator: proven by reading it back, never assumed. */
  let keepsValidators = false;
  let why = '';

  beforeAll(async () => {
    client = await MongoClient.connect(uri);
    const db = client.db(DB);
    await db.dropDatabase();
    await db.collection('people').insertMany(
      Array.from({ length: 60 }, (_, i) => ({ name: `${SECRET} ${i}`, age: 20 + (i % 40), status: i % 2 ? 'active' : 'inactive', address: { city: SECRET } })),
    );
    try {
      await db.createCollection('probe', { validator: { $jsonSchema: { required: ['a'] } } });
      const [info] = await db.listCollections({ name: 'probe' }).toArray();
      keepsValidators = (info as { options?: { validator?: unknown } } | undefined)?.options?.validator !== undefined;
      why = keepsValidators ? '' : 'the server accepted a validator but listCollections does not show it';
    } catch (err) {
      why = `creating a collection with a validator failed: ${describeServerError(err)}`;
    }
    if (keepsValidators) {
      // documents first, then the validator (strict, error): 5 of 60 fail it on `age`
      await db.collection('members').insertMany(Array.from({ length: 60 }, (_, i) => ({ name: `m${i}`, age: i < 5 ? `${SECRET}` : 30 + i })));
      await db.command({ collMod: 'members', validator: { $jsonSchema: { bsonType: 'object', required: ['name', 'age'], properties: { name: { bsonType: 'string' }, age: { bsonType: 'int', minimum: 0 } } } }, validationLevel: 'strict', validationAction: 'error' });
    } else {
      console.log(`[validator live] ${kind}: no validators (${why}); the dry run and violation tests are skipped, the proposal and the not-run confirmation are tested`);
    }
    adapter = await DriverAdapter.connect(uri);
  });

  afterAll(async () => {
    await adapter?.close();
    await client?.db(DB).dropDatabase();
    await client?.close();
  });

  it('proposes a validator from the sample, with counts only in the snapshot and the report', async () => {
    const snap = await collectSnapshot(adapter, { db: DB, collections: ['people'], sampleSize: 60 });
    const people = snap.databases[0]?.collections[0];
    expect(people?.stringCardinality).toMatchObject({ status: 2, 'address.city': 1, name: 60 });
    const [f] = runRule(rule, snap).filter((x) => x.messageId === 'missing');
    expect(f?.message).toContain('Proposed from 60 sampled documents: `_id`, `address`, `age`, `name`, `status` required');
    const cmds = f?.recommendation?.commands ?? [];
    expect(cmds[0]).toContain('age: { bsonType: "number" }');
    expect(cmds[2]).toContain('collMod: "people"');
    const enums = runRule(rule, snap, { proposeEnums: true, enumMinOccurrences: 5 }).find((x) => x.messageId === 'missing');
    expect(enums?.recommendation?.commands?.[0]).toContain('enum: db.people.distinct("status", { "status": { $type: "string" } })');
    expect(JSON.stringify(snap)).not.toContain(SECRET);
    expect(JSON.stringify([f, enums])).not.toContain(SECRET);
  });

  it('confirms the proposal on scratch, or says why it could not (server without validators)', async () => {
    const snap = await collectSnapshot(adapter, { db: DB, collections: ['people'], sampleSize: 60 });
    const [f] = runRule(rule, snap).filter((x) => x.messageId === 'missing');
    expect(f).toBeDefined();
    if (!f) return;
    const run = await confirmFindings(snap, [f], adapter, [rule], { budgetMs: 8_000, maxDocs: 60 });
    const k = run.findings[0]?.confirmation;
    console.log(`[validator live] ${kind}: ${k?.status ?? 'none'}: ${k?.summary ?? ''}${k?.reason ? ` (${k.reason})` : ''}`);
    if (keepsValidators) {
      expect(['supported', 'refuted', 'inconclusive']).toContain(k?.status);
      expect(k?.summary).toContain('kept by the server (read back from listCollections)');
      expect(k?.measurements).toHaveLength(4);
    } else {
      expect(k?.status).toBe('not-run');
      expect(k?.reason ?? '').not.toBe('');
      expect(k?.measurements).toEqual([]);
    }
    expect(run.cleanedUp).not.toBe(false);
    if (run.where) await expectScratchDropped(client, run.where);
  });

  it('dry-runs a stored validator over the sample and counts violators on the server', async (ctx) => {
    if (!keepsValidators) {
      console.log(`[validator live] skipped on ${kind}: ${why}`);
      ctx.skip();
    }
    const snap = await collectSnapshot(adapter, { db: DB, collections: ['members'], sampleSize: 60 });
    const members = snap.databases[0]?.collections[0];
    expect(members?.validatorDryRun).toMatchObject({ checked: 60, violations: 5, byPath: { age: 5 }, serverViolators: 5, unsupportedKeywords: [] });
    const [f] = runRule(rule, snap).filter((x) => x.messageId === 'violationsStrict');
    expect(f?.severity).toBe('warn');
    expect(f?.message).toContain('5 documents of 60 (counted on the server) fail the validator');
    expect(f?.message).toContain('`age` (5)');
    expect(JSON.stringify(snap)).not.toContain(SECRET);
  });
});
