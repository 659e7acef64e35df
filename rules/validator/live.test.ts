import { Decimal128, Int32, MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DriverAdapter } from '../../src/adapters/driver';
import { describeServerError } from '../../src/adapters/types';
import { collectSnapshot } from '../../src/collect';
import { confirmFindings } from '../../src/confirm';
import { dataOf } from '../../src/core/collector';
import type { Snapshot } from '../../src/core/types';
import { runRule } from '../../test/support/rule-tester';
import { validatorCollector } from './collect';
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
      // FerretDB dumps its internal Go value into the message: keep the sentence, drop the dump
      why = `creating a collection with a validator failed: ${describeServerError(err).replace(/ with value &\{.*\}(?= is not implemented)/, '')}`;
    }
    if (keepsValidators) {
      // documents first, then the validator (strict, error): 5 of 60 fail it on `age`
      await db.collection('members').insertMany(Array.from({ length: 60 }, (_, i) => ({ name: `m${i}`, age: i < 5 ? `${SECRET}` : 30 + i })));
      // 30 whole-number prices, then 3 Decimal128 prices over the validator's maximum (warn: nothing is rejected)
      await db.collection('prices').insertMany([...Array.from({ length: 30 }, (_, i) => ({ price: new Int32(10 + i) })), ...Array.from({ length: 3 }, () => ({ price: Decimal128.fromString('150.5') }))]);
      await db.command({ collMod: 'prices', validator: { $jsonSchema: { properties: { price: { bsonType: 'number', maximum: 100 } } } }, validationLevel: 'strict', validationAction: 'warn' });
      await db.command({ collMod: 'members', validator: { $jsonSchema: { bsonType: 'object', required: ['name', 'age'], properties: { name: { bsonType: 'string' }, age: { bsonType: 'int', minimum: 0 } } } }, validationLevel: 'strict', validationAction: 'error' });
    } else {
      console.log(`[validator live] ${kind}: no validators (${why}); the dry run and violation tests are skipped, the proposal and the not-run confirmation are tested`);
    }
    adapter = await DriverAdapter.connect(uri);
  });

  /** A snapshot as check takes it with this rule on: the core and the rule's collector. */
  const collect = (collections: string[], sampleSize: number): Promise<Snapshot> => collectSnapshot(adapter, { db: DB, collections, sampleSize, collectors: [validatorCollector] });
  /** The commands the collector added: the same collect without it, subtracted. */
  const addedRoundTrips = async (snap: Snapshot, collections: string[], sampleSize: number): Promise<number> =>
    snap.roundTrips - (await collectSnapshot(adapter, { db: DB, collections, sampleSize })).roundTrips;

  afterAll(async () => {
    await adapter?.close();
    await client?.db(DB).dropDatabase();
    await client?.close();
  });

  it('proposes a validator from the sample, with counts only in the snapshot and the report', async () => {
    const snap = await collect(['people'], 60);
    const people = snap.databases[0]?.collections[0];
    expect(dataOf(validatorCollector, people)?.stringCardinality).toMatchObject({ status: 2, 'address.city': 1, name: 60 });
    const added = await addedRoundTrips(snap, ['people'], 60);
    console.log(`[validator live] ${kind}: the collector sent ${added} commands for a collection without a validator`);
    expect(added).toBe(0);
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
    const snap = await collect(['people'], 60);
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
      ctx.skip(why);
    }
    const snap = await collect(['members'], 60);
    const members = snap.databases[0]?.collections[0];
    expect(dataOf(validatorCollector, members)?.dryRun).toMatchObject({ checked: 60, violations: 5, byPath: { age: 5 }, serverViolators: 5, serverDocuments: 60, unsupportedKeywords: [] });
    const added = await addedRoundTrips(snap, ['members'], 60);
    console.log(`[validator live] ${kind}: the collector sent ${added} commands for a collection with a validator (count)`);
    // one count of {$nor: [validator]}: the validator itself comes from the core's listCollections
    expect(added).toBe(1);
    const [f] = runRule(rule, snap).filter((x) => x.messageId === 'violationsStrict');
    expect(f?.severity).toBe('warn');
    expect(f?.message).toContain('5 of 60 documents (counted on the server) fail the validator');
    expect(f?.recommendation?.reason).toContain('`age` (5)');
    expect(JSON.stringify(snap)).not.toContain(SECRET);
  });

  it('measures the proposals for ObjectId and string _ids alike: copies keep their _id type', async (ctx) => {
    if (!keepsValidators) {
      console.log(`[validator live] skipped on ${kind}: ${why}`);
      ctx.skip(why);
    }
    const db = client.db(DB);
    // no validators on either: the rule proposes one, typing _id as the sample has it
    await db.collection('ids_oid').insertMany(Array.from({ length: 200 }, (_, i) => ({ name: `${SECRET} ${i}`, n: i })));
    await db.collection('ids_str').insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: `user-${i}` as unknown as undefined, name: `${SECRET} ${i}`, n: i })));
    const snap = await collect(['ids_oid', 'ids_str'], 40);
    const proposals = runRule(rule, snap).filter((x) => x.messageId === 'missing');
    const byColl = new Map(proposals.map((f) => [f.target.collection, f]));
    expect(byColl.get('ids_oid')?.recommendation?.commands?.[0]).toContain('_id: { bsonType: "objectId" }');
    expect(byColl.get('ids_str')?.recommendation?.commands?.[0]).toContain('_id: { bsonType: "string" }');
    const run = await confirmFindings(snap, proposals, adapter, [rule], { budgetMs: 8_000, maxDocs: 200 });
    for (const f of run.findings) {
      const k = f.confirmation;
      console.log(`[validator live] ${kind} ${f.target.collection ?? ''}: ${k?.status ?? 'none'}: ${k?.summary ?? ''}${k?.reason ? ` (${k.reason})` : ''}`);
      expect(['supported', 'refuted', 'inconclusive'], `${f.target.collection ?? ''}: ${k?.summary ?? ''}`).toContain(k?.status);
      expect(k?.summary).toContain('kept by the server (read back from listCollections)');
      expect(k?.summary).not.toMatch(/None of the|fail the validator and were left out|refused/);
      expect(k?.measurements).toHaveLength(4);
      expect(k?.summary).not.toContain(SECRET);
    }
    expect(run.findings.map((f) => f.target.collection).sort()).toEqual(['ids_oid', 'ids_str']);
    expect(run.cleanedUp).not.toBe(false);
    if (run.where) await expectScratchDropped(client, run.where);
  });

  // MongoDB documents that mongod adds an ObjectId _id to an inserted document that lacks one, before inserting it
  // (so a schema requiring _id accepts it); SecantusDB validates first and rejects it with code 121. The advisor
  // sends every copy with an _id, as drivers do, so its confirmation does not depend on which the server does.
  it('copies carry their _id client-side: the measurement does not depend on the server adding _id before validating', async (ctx) => {
    if (!keepsValidators) {
      console.log(`[validator live] skipped on ${kind}: ${why}`);
      ctx.skip(why);
    }
    const db = client.db(DB);
    await db.createCollection('id_required', { validator: { $jsonSchema: { bsonType: 'object', required: ['_id', 'n'] } } });
    const raw = await db.command({ insert: 'id_required', documents: [{ n: 1 }], ordered: false });
    const serverAddsIdFirst = Number(raw.n) === 1;
    console.log(`[validator live] ${kind}: a raw insert without _id into a collection whose validator requires _id is ${serverAddsIdFirst ? 'accepted (the server adds _id before validating, as MongoDB documents)' : `rejected (${JSON.stringify((raw.writeErrors as { code?: number }[] | undefined)?.[0]?.code)}: the server validates before adding _id)`}`);
    const snap = await collect(['people'], 60);
    const [f] = runRule(rule, snap).filter((x) => x.messageId === 'missing');
    expect(f?.message).toContain('`_id`');
    const run = await confirmFindings(snap, f ? [f] : [], adapter, [rule], { budgetMs: 6_000, maxDocs: 60 });
    const k = run.findings[0]?.confirmation;
    expect(['supported', 'refuted', 'inconclusive'], k?.summary).toContain(k?.status);
    expect(k?.summary).not.toMatch(/refused|None of the/);
    if (run.where) await expectScratchDropped(client, run.where);
  });

  // MongoDB documents minimum/maximum/multipleOf for numbers, Decimal128 included (bsonType "number" covers it);
  // SecantusDB's $jsonSchema skips Decimal128 values for them, so its count misses such documents. The advisor's
  // in-process check follows MongoDB, and when the server counts fewer failing documents than the sample shows, the
  // report says the two disagree (the advice still follows the server, which enforces the validator).
  it('counts Decimal128 values against maximum in-process as MongoDB documents it, and names a server count that disagrees', async (ctx) => {
    if (!keepsValidators) {
      console.log(`[validator live] skipped on ${kind}: ${why}`);
      ctx.skip(why);
    }
    const snap = await collect(['prices'], 33);
    const dry = dataOf(validatorCollector, snap.databases[0]?.collections[0])?.dryRun;
    expect(dry).toMatchObject({ checked: 33, violations: 3, byPath: { price: 3 } });
    const findings = runRule(rule, snap);
    const disagree = findings.find((f) => f.messageId === 'countsDisagree');
    console.log(`[validator live] ${kind}: Decimal128 150.5 against maximum 100: the server counts ${String(dry?.serverViolators)} of 3 failing${dry?.serverViolators === 3 ? ' (as MongoDB documents)' : ' (MongoDB documents 3: the server skips Decimal128 for maximum)'}`);
    if (dry?.serverViolators === 3) {
      expect(disagree).toBeUndefined();
      expect(findings.find((f) => f.messageId === 'violations')?.message).toContain('3 of 33 documents (counted on the server) fail the validator');
    } else {
      expect(dry?.serverViolators).toBeLessThan(3);
      expect(disagree?.message).toContain(`finds 3 of 33 sampled documents failing the validator, but the server counts only ${String(dry?.serverViolators)}`);
      expect(disagree?.message).toContain('`price` (3)');
    }
  });
});
