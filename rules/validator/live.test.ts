import { Decimal128, Int32, MongoClient, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DriverAdapter } from '../../src/adapters/driver';
import { describeServerError } from '../../src/lib/server-error';
import { check } from '../../src/check';
import { collectSnapshot } from '../../src/collect';
import { confirmFindings } from '../../src/confirm';
import { dataOf } from '../../src/core/collector';
import type { CheckResult, Snapshot } from '../../src/core/types';
import { formatJson } from '../../src/report/json';
import { runRule } from '../../test/support/rule-tester';
import { validatorCollector } from './collect';
import { compileJsonSchema } from './json-schema';
import rule from './index';
import { expectScratchDropped } from '../../test/support/scratch';
import { liveUri } from '../../test/support/live-uri';

const DB = 'mongo_advisor_test_validator';
const SECRET = 'SECRET-VALUE-do-not-print';
/**
 * Each experiment's budget below. What these tests check is decided without the timing (the copies, their _id types,
 * the validator read back, the documents failing it) or accepts any verdict of it: the budget only bounds the rounds of
 * inserts and replacements timed (rules/validator/confirm.ts), which run on until it ends when the interval stays wide.
 * Enough for several blocks of a few dozen documents under load; the cost verdict at a real budget is the rule's unit
 * tests' (verdictOf) subject.
 */
const BUDGET_MS = 4_000;
/** What a server that skips Decimal128 for `maximum` counts, for the log. */
const SKIPS_DECIMAL = ' (MongoDB documents 3: the server skips Decimal128 for maximum)';
/** The server's count of documents failing a schema, or why there is none, for the log. */
const serverSays = (v: { server: number | null; serverWhy: string }): string =>
  v.server === null ? `no server count (${v.serverWhy.slice(0, 80)})` : `${v.server} on the server`;

describe('validator (live)', () => {
  const uri = liveUri();
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
      Array.from({ length: 60 }, (_, i) => ({
        name: `${SECRET} ${i}`,
        age: 20 + (i % 40),
        status: i % 2 ? 'active' : 'inactive',
        address: { city: SECRET },
      })),
    );
    try {
      await db.createCollection('probe', { validator: { $jsonSchema: { required: ['a'] } } });
      const [info] = await db.listCollections({ name: 'probe' }).toArray();
      keepsValidators = (info as { options?: { validator?: unknown } } | undefined)?.options?.validator !== undefined;
      why = keepsValidators ? '' : 'the server accepted a validator but listCollections does not show it';
    } catch (err) {
      // FerretDB dumps its internal Go value into the message: keep the sentence, drop the dump
      why =
        `creating a collection with a validator ` +
        `failed: ${describeServerError(err).replace(/ with value &\{.*\}(?= is not implemented)/, '')}`;
    }
    if (keepsValidators) {
      // documents first, then the validator (strict, error): 5 of 60 fail it on `age`
      await db
        .collection('members')
        .insertMany(Array.from({ length: 60 }, (_, i) => ({ name: `m${i}`, age: i < 5 ? `${SECRET}` : 30 + i })));
      // 30 whole-number prices, then 3 Decimal128 prices over the validator's maximum (warn: nothing is rejected)
      await db
        .collection('prices')
        .insertMany([
          ...Array.from({ length: 30 }, (_, i) => ({ price: new Int32(10 + i) })),
          ...Array.from({ length: 3 }, () => ({ price: Decimal128.fromString('150.5') })),
        ]);
      await db.command({
        collMod: 'prices',
        validator: { $jsonSchema: { properties: { price: { bsonType: 'number', maximum: 100 } } } },
        validationLevel: 'strict',
        validationAction: 'warn',
      });
      await db.command({
        collMod: 'members',
        validator: {
          $jsonSchema: {
            bsonType: 'object',
            required: ['name', 'age'],
            properties: { name: { bsonType: 'string' }, age: { bsonType: 'int', minimum: 0 } },
          },
        },
        validationLevel: 'strict',
        validationAction: 'error',
      });
    } else {
      console.log(
        `[validator live] ${kind}: no validators (${why}); the dry run and violation tests are skipped, the ` +
          `proposal and the not-run confirmation are tested`,
      );
    }
    adapter = await DriverAdapter.connect(uri);
  });

  /** A snapshot as check takes it with this rule on: the core and the rule's collector. */
  const collect = (collections: string[], sampleSize: number): Promise<Snapshot> =>
    collectSnapshot(adapter, { db: DB, collections, sampleSize, collectors: [validatorCollector] });
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
    expect(dataOf(validatorCollector, people)?.stringCardinality).toMatchObject({
      status: 2,
      'address.city': 1,
      name: 60,
    });
    const added = await addedRoundTrips(snap, ['people'], 60);
    console.log(
      `[validator live] ${kind}: the collector sent ${added} commands for a collection without a validator ` +
        `(the proposal's count)`,
    );
    // one count of {$nor: [{$jsonSchema: proposal}]} (refused where the server lacks $jsonSchema in queries, but sent)
    expect(added).toBe(1);
    const [f] = runRule(rule, snap).filter((x) => x.messageId.startsWith('missing'));
    const ordered = f?.messageId === 'missingOrdered';
    expect(f?.message).toContain(
      ordered ? 'so only `_id` is required' : '`_id`, `address`, `age`, `name`, `status` required',
    );
    const cmds = f?.recommendation?.commands ?? [];
    expect(cmds[0]).toContain('age: { bsonType: "number" }');
    // a server without validators (FerretDB) gets the schema alone, for a MongoDB server: no collMod to run there
    if (snap.server.flavor === 'ferretdb' || snap.server.capabilities.validators.supported === false)
      expect(cmds).toHaveLength(1);
    else expect(cmds[2]).toContain('collMod: "people"');
    const enums = runRule(rule, snap, { proposeEnums: true, enumMinOccurrences: 5 }).find((x) =>
      x.messageId.startsWith('missing'),
    );
    if (people?.sample.complete)
      expect(enums?.recommendation?.commands?.[0]).toContain(
        `enum: db.getSiblingDB(${JSON.stringify(DB)}).getCollection("people").distinct("status", { status: { $type: ` +
          '"string" } })',
      );
    else
      expect(enums?.recommendation?.reason).toContain('No enums: enums are proposed only when every document was read');
    expect(JSON.stringify(snap)).not.toContain(SECRET);
    expect(JSON.stringify([f, enums])).not.toContain(SECRET);
  });

  it(
    'refutes a strict/error proposal that some copies fail (documents written after the snapshot): it would ' +
      'reject them',
    async (ctx) => {
      if (!keepsValidators) ctx.skip(`the server keeps no validator (${why}): nothing can be confirmed or refuted`);
      const db = client.db(DB);
      await db
        .collection('drifted')
        .drop()
        .catch(() => undefined);
      await db
        .collection('drifted')
        .insertMany(Array.from({ length: 30 }, (_, i) => ({ name: `d${i}`, qty: new Int32(i) })));
      const snap = await collect(['drifted'], 30);
      const [f] = runRule(rule, snap).filter((x) => x.messageId.startsWith('missing'));
      expect(f?.evidence.proposedAction).toBe('error');
      if (!f) return;
      // written after the proposal was made: qty as a string, which the proposal (qty: int) rejects
      await db
        .collection('drifted')
        .insertMany(Array.from({ length: 30 }, (_, i) => ({ name: `e${i}`, qty: `${SECRET}` })));
      const run = await confirmFindings(snap, [f], adapter, [rule], { budgetMs: BUDGET_MS, maxDocs: 60 });
      const k = run.findings[0]?.confirmation;
      console.log(`[validator live] ${kind} drifted: ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
      expect(k?.status).toBe('refuted');
      expect(k?.summary).toMatch(
        /30 of the 60 copied documents fail the validator: set to "error" it would reject them/,
      );
      expect(JSON.stringify(k)).not.toContain(SECRET);
      // copies were measured, so a scratch database was made: it must be gone
      expect(run.where).toBeTruthy();
      await expectScratchDropped(client, run.where);
    },
  );

  it('confirms the proposal on scratch, or says why it could not (server without validators)', async () => {
    const snap = await collect(['people'], 60);
    const [f] = runRule(rule, snap).filter((x) => x.messageId.startsWith('missing'));
    expect(f).toBeDefined();
    if (!f) return;
    const run = await confirmFindings(snap, [f], adapter, [rule], { budgetMs: BUDGET_MS, maxDocs: 60 });
    const k = run.findings[0]?.confirmation;
    console.log(
      `[validator live] ${kind}: ${k?.status ?? 'none'}: ${k?.summary ?? ''}${k?.reason ? ` (${k.reason})` : ''}`,
    );
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
    expect(dataOf(validatorCollector, members)?.dryRun).toMatchObject({
      checked: 60,
      violations: 5,
      byPath: { age: 5 },
      serverViolators: 5,
      serverDocuments: 60,
      unsupportedKeywords: [],
    });
    const added = await addedRoundTrips(snap, ['members'], 60);
    console.log(
      `[validator live] ${kind}: the collector sent ${added} commands for a collection with a validator (count)`,
    );
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
    await db
      .collection('ids_oid')
      .insertMany(Array.from({ length: 200 }, (_, i) => ({ name: `${SECRET} ${i}`, n: i })));
    await db.collection('ids_str').insertMany(
      Array.from({ length: 200 }, (_, i) => ({
        _id: `user-${i}` as unknown as undefined,
        name: `${SECRET} ${i}`,
        n: i,
      })),
    );
    const snap = await collect(['ids_oid', 'ids_str'], 40);
    const proposals = runRule(rule, snap).filter((x) => x.messageId.startsWith('missing'));
    const byColl = new Map(proposals.map((f) => [f.target.collection, f]));
    expect(byColl.get('ids_oid')?.recommendation?.commands?.[0]).toContain('_id: { bsonType: "objectId" }');
    expect(byColl.get('ids_str')?.recommendation?.commands?.[0]).toContain('_id: { bsonType: "string" }');
    const run = await confirmFindings(snap, proposals, adapter, [rule], { budgetMs: BUDGET_MS, maxDocs: 200 });
    for (const f of run.findings) {
      const k = f.confirmation;
      const why = k?.reason ? ` (${k.reason})` : '';
      console.log(
        `[validator live] ${kind} ${f.target.collection ?? ''}: ${k?.status ?? 'none'}: ${k?.summary ?? ''}${why}`,
      );
      expect(['supported', 'refuted', 'inconclusive'], `${f.target.collection ?? ''}: ${k?.summary ?? ''}`).toContain(
        k?.status,
      );
      expect(k?.summary).toContain('kept by the server (read back from listCollections)');
      expect(k?.summary).not.toMatch(/None of the|fail the validator and were left out|refused/);
      expect(k?.measurements).toHaveLength(4);
      expect(k?.summary).not.toContain(SECRET);
    }
    expect(run.findings.map((f) => f.target.collection).sort()).toEqual(['ids_oid', 'ids_str']);
    expect(run.cleanedUp).not.toBe(false);
    expect(run.where).toBeTruthy();
    await expectScratchDropped(client, run.where);
  });

  // MongoDB documents that mongod adds an ObjectId _id to an inserted document that lacks one, before inserting it
  // (so a schema requiring _id accepts it); SecantusDB validates first and rejects it with code 121. The advisor
  // sends every copy with an _id, as drivers do, so its confirmation does not depend on which the server does.
  it(
    'copies carry their _id client-side: the measurement does not depend on the server adding _id before ' +
      'validating',
    async (ctx) => {
      if (!keepsValidators) {
        console.log(`[validator live] skipped on ${kind}: ${why}`);
        ctx.skip(why);
      }
      const db = client.db(DB);
      await db.createCollection('id_required', {
        validator: { $jsonSchema: { bsonType: 'object', required: ['_id', 'n'] } },
      });
      const raw = await db.command({ insert: 'id_required', documents: [{ n: 1 }], ordered: false });
      const serverAddsIdFirst = Number(raw.n) === 1;
      const code = JSON.stringify((raw.writeErrors as { code?: number }[] | undefined)?.[0]?.code);
      const outcome = serverAddsIdFirst
        ? 'accepted (the server adds _id before validating, as MongoDB documents)'
        : `rejected (${code}: the server validates before adding _id)`;
      console.log(
        `[validator live] ${kind}: a raw insert without _id into a collection whose validator requires _id ` +
          `is ${outcome}`,
      );
      const snap = await collect(['people'], 60);
      const [f] = runRule(rule, snap).filter((x) => x.messageId.startsWith('missing'));
      expect(f?.message).toContain('`_id`');
      const run = await confirmFindings(snap, f ? [f] : [], adapter, [rule], { budgetMs: BUDGET_MS, maxDocs: 60 });
      const k = run.findings[0]?.confirmation;
      expect(['supported', 'refuted', 'inconclusive'], k?.summary).toContain(k?.status);
      expect(k?.summary).not.toMatch(/refused|None of the/);
      expect(run.where).toBeTruthy();
      await expectScratchDropped(client, run.where);
    },
  );

  // MongoDB documents minimum/maximum/multipleOf for numbers, Decimal128 included (bsonType "number" covers it);
  // SecantusDB's $jsonSchema skips Decimal128 values for them, so its count misses such documents. The advisor's
  // in-process check follows MongoDB, and when the server counts fewer failing documents than the sample shows, the
  // report says the two disagree (the advice still follows the server, which enforces the validator).
  it(
    'counts Decimal128 values against maximum in-process as MongoDB documents it, and names a server count ' +
      'that disagrees',
    async (ctx) => {
      if (!keepsValidators) {
        console.log(`[validator live] skipped on ${kind}: ${why}`);
        ctx.skip(why);
      }
      const snap = await collect(['prices'], 33);
      const dry = dataOf(validatorCollector, snap.databases[0]?.collections[0])?.dryRun;
      expect(dry).toMatchObject({ checked: 33, violations: 3, byPath: { price: 3 } });
      const findings = runRule(rule, snap);
      const disagree = findings.find((f) => f.messageId === 'countsDisagree');
      console.log(
        `[validator live] ${kind}: Decimal128 150.5 against maximum 100: the server ` +
          `counts ${String(dry?.serverViolators)} of 3 ` +
          `failing${dry?.serverViolators === 3 ? ' (as MongoDB documents)' : SKIPS_DECIMAL}`,
      );
      if (dry?.serverViolators === 3) {
        expect(disagree).toBeUndefined();
        expect(findings.find((f) => f.messageId === 'violations')?.message).toContain(
          '3 of 33 documents (counted on the server) fail the validator',
        );
      } else {
        expect(dry?.serverViolators).toBeLessThan(3);
        expect(disagree?.message).toContain(
          `finds 3 of 33 sampled documents failing the validator, but the server counts ` +
            `only ${String(dry?.serverViolators)}`,
        );
        expect(disagree?.message).toContain('`price` (3)');
      }
    },
  );
});

/**
 * The issue's failure: proposals marked strict/error rejected 7-62% of the existing documents of their collections.
 * Collections shaped like those cases are seeded (rare shapes after a natural-order prefix), `check` runs with the
 * rule, and each proposed validator is taken from the JSON output (the mongosh literal the DBA would paste) and
 * evaluated over every document: on the server with {$nor: [{$jsonSchema}]} where it evaluates $jsonSchema in queries
 * (SecantusDB), and in-process with the advisor's ajv reading of MongoDB's $jsonSchema everywhere (FerretDB has no
 * $jsonSchema in queries, docs/test-servers.md). A proposal that says strict/error must reject nothing that exists.
 */
describe('validator proposals reject nothing that exists (live)', () => {
  const uri = liveUri();
  const kind = inject('serverKind');
  const PDB = 'mongo_advisor_test_validator_proposals';
  const N = 1000;
  /** 4% of 1,000, as mongosh's analyze-schema snippet samples: the rare documents sit beyond a natural-order prefix. */
  const SAMPLE = 40;
  let client: MongoClient;
  let adapter: DriverAdapter;

  const last = (i: number, n: number): boolean => i >= N - n;
  const seeds: Record<string, (i: number) => Record<string, unknown>> = {
    // null in most documents; a value only in the last ones (and `legacy` null everywhere but the last 20)
    nullheavy: (i) => ({
      name: `${SECRET} ${i}`,
      deletedAt: last(i, 50) ? new Date(1_700_000_000_000 + i) : null,
      legacy: last(i, 20) ? `${SECRET}` : null,
    }),
    // a field in 60% of the documents; the last 15 lack `name`
    partial: (i) => ({
      ...(last(i, 15) ? {} : { name: `${SECRET} ${i}` }),
      ...(i % 5 < 3 ? { email: `${SECRET}@example.com` } : {}),
    }),
    // a map keyed by data; the last 10 hold strings under their keys
    maps: (i) => ({
      stock: Object.fromEntries(
        Array.from({ length: 1 + (i % 4) }, (_, k) => [
          `SKU-${(i * 7 + k * 13) % 500}`,
          last(i, 10) ? `${SECRET}` : i + k,
        ]),
      ),
    }),
    // one field of three types; the ObjectIds only at the end
    mixed: (i) => ({ code: last(i, 50) ? new ObjectId() : i % 2 ? i : `${SECRET}-${i}` }),
    // uniform, then 20 documents of another shape
    rare: (i) =>
      last(i, 20)
        ? { name: `${SECRET} ${i}`, age: `${SECRET}` }
        : { name: `${SECRET} ${i}`, age: 20 + (i % 50), address: { city: `${SECRET}` } },
    // nothing rare: a count on the server can prove it clean
    clean: (i) => ({ name: `${SECRET} ${i}`, n: i, tags: [`${SECRET}`], address: { city: `${SECRET}`, zip: `${i}` } }),
  };
  const names = Object.keys(seeds);

  beforeAll(async () => {
    client = await MongoClient.connect(uri);
    const db = client.db(PDB);
    await db.dropDatabase();
    for (const [name, make] of Object.entries(seeds))
      await db.collection(name).insertMany(Array.from({ length: N }, (_, i) => make(i)));
    adapter = await DriverAdapter.connect(uri);
  });

  afterAll(async () => {
    await adapter?.close();
    await client?.db(PDB).dropDatabase();
    await client?.close();
  });

  /** The schema of `var schema = …` (the first command): a JavaScript literal when enums are off, as here. */
  const schemaOf = (command: string): Record<string, unknown> => {
    expect(command.startsWith('var schema = ')).toBe(true);
    // The literal the DBA pastes into mongosh, evaluated as mongosh would.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- a test's own command text
    const literal = new Function(`return (${command.slice('var schema = '.length)});`) as () => Record<string, unknown>;
    return literal();
  };

  /** Documents failing the schema: the server's count where it evaluates $jsonSchema, and the in-process check of every
   * document. */
  async function violators(
    coll: string,
    schema: Record<string, unknown>,
  ): Promise<{ server: number | null; serverWhy: string; inProcess: number }> {
    const db = client.db(PDB);
    let server: number | null = null;
    let serverWhy = '';
    try {
      server = await db.collection(coll).countDocuments({ $nor: [{ $jsonSchema: schema }] });
    } catch (err) {
      serverWhy = describeServerError(err);
    }
    const compiled = compileJsonSchema(schema);
    let inProcess = 0;
    try {
      for (const d of await db.collection(coll).find({}).toArray()) if (compiled.check(d).length > 0) inProcess++;
      expect(compiled.unsupported).toEqual([]);
    } finally {
      compiled.dispose();
    }
    return { server, serverWhy, inProcess };
  }

  it(
    'no proposed strict/error validator rejects an existing document (each evaluated over every ' + 'document)',
    async () => {
      let snap: Snapshot | null = null;
      const result = await check(adapter, {
        db: PDB,
        collections: names,
        sampleSize: SAMPLE,
        confirm: false,
        rules: [rule],
        onSnapshot: (s) => void (snap = s),
      });
      const json = formatJson(result);
      expect(json).not.toContain(SECRET);
      // map keys are data: once the profiler folds the map, no key reaches the report
      const folded =
        (snap as Snapshot | null)?.databases[0]?.collections
          .find((c) => c.name === 'maps')
          ?.sample.dynamicKeys.some((d) => d.path === 'stock') ?? false;
      if (folded) expect(json).not.toContain('SKU-');
      else
        console.log(
          `[validator live] ${kind}: the profiler did not fold \`stock\` as a map (src/collect/profile.ts), ` +
            `so its keys are census paths: the no-keys check waits for the folding`,
        );
      const findings = (JSON.parse(json) as CheckResult).findings.filter(
        (f) => f.ruleId === 'validator' && f.messageId.startsWith('missing'),
      );
      expect(findings.map((f) => f.target.collection).sort()).toEqual([...names].sort());
      const strictOnes: string[] = [];
      const counted = new Set<string>();
      const server = (snap as Snapshot | null)?.server;
      const noValidators = server?.flavor === 'ferretdb' || server?.capabilities.validators.supported === false;
      for (const f of findings) {
        const coll = f.target.collection ?? '';
        const cmds = f.recommendation?.commands ?? [];
        const schema = schemaOf(cmds[0] ?? '');
        // a server without validators gets the schema alone (no collMod): the proposal is for a MongoDB server
        if (noValidators) {
          expect(cmds, coll).toHaveLength(1);
          expect(f.recommendation?.action, coll).toBe('none for this server; the schema is for a MongoDB server');
        }
        const mod = /validationLevel: "(\w+)", validationAction: "(\w+)"/.exec(cmds[2] ?? '');
        const [level, action] = noValidators
          ? [f.evidence.proposedLevel, f.evidence.proposedAction]
          : [mod?.[1], mod?.[2]];
        expect([level, action]).toEqual([f.evidence.proposedLevel, f.evidence.proposedAction]);
        const v = await violators(coll, schema);
        if (v.server !== null) counted.add(coll);
        console.log(
          `[validator live] ${kind} ${coll}: proposed ${String(level)}/${String(action)} (${f.messageId}, ` +
            `violators ${String(f.evidence.violators)} counted on ${String(f.evidence.violatorsCountedOn)}); ` +
            `over every document: ${v.inProcess} fail ` +
            `in-process, ${serverSays(v)}`,
        );
        if (level === 'strict' || action === 'error') {
          strictOnes.push(coll);
          expect(level, coll).toBe('strict');
          expect(action, coll).toBe('error');
          expect(v.inProcess, `${coll}: a strict/error proposal rejects existing documents`).toBe(0);
          if (v.server !== null)
            expect(v.server, `${coll}: a strict/error proposal rejects existing documents (server count)`).toBe(0);
        } else {
          expect([level, action], coll).toEqual(['moderate', 'warn']);
          // it says why: a count of failing documents, or why there is none
          if (!noValidators)
            expect(f.recommendation?.reason, coll).toMatch(
              /existing documents fail it|no server count says|fail it\. Start with/,
            );
        }
        // where the server counted, the finding's figure is the count of every document
        if (f.evidence.violatorsCountedOn === 'server' && v.server !== null)
          expect(f.evidence.violators, coll).toBe(v.server);
        // a field null in most documents is never required, nor typed "null" alone
        if (coll === 'nullheavy') {
          const props = schema.properties as Record<string, Record<string, unknown>>;
          expect(schema.required).toEqual(
            ['_id', 'name'].filter((k) => f.messageId !== 'missingOrdered' || k === '_id'),
          );
          expect(props.deletedAt?.bsonType === 'null').toBe(false);
          expect(props.legacy?.bsonType === 'null').toBe(false);
        }
        if (coll === 'partial') expect(schema.required as string[]).not.toContain('email');
      }
      if (counted.has('clean')) {
        // the server counts $jsonSchema: the clean collection is proven clean, so the test is not vacuous
        expect(strictOnes).toContain('clean');
      } else {
        console.log(
          `[validator live] ${kind}: no $jsonSchema in queries here, so no server count; strict/error ` +
            `proposals: ${strictOnes.join(', ') || 'none'} (only from a read of every document)`,
        );
      }
    },
  );
});
