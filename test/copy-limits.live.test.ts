/**
 * Copies into scratch on the real test servers: large documents among small ones go in commands the server takes
 * (none past maxBsonObjectSize + 16 KiB, whatever the collection's average says), a document `$sample` hands over
 * twice is copied once, and the server's own error texts for a duplicate key or a failed validation reach no output
 * with their values.
 */
import { calculateObjectSize } from 'bson';
import type { CommandStartedEvent, CommandSucceededEvent } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DriverAdapter } from '../src/adapters/driver';
import { type Adapter, type Doc, describeServerError } from '../src/adapters/types';
import { collectSnapshot } from '../src/collect';
import { confirmFindings, type ConfirmRun } from '../src/confirm';
import { SCRATCH_PREFIX } from '../src/confirm/scratch';
import { type AnyRule as Rule, defineRule } from '../src/core/rule';
import { collectPlan } from '../src/core/runner';
import type { Confirmation } from '../src/core/types';
import { redactServerText } from '../src/lib/redact';
import dynamicKeys from '../rules/dynamic-keys/index';
import validator from '../rules/validator/index';
import { useLiveDb } from './support/live-db';
import { runRule } from './support/rule-tester';
import { expectScratchDropped } from './support/scratch';

const DB = 'mongo_advisor_test_copy_limits';
const SMALL = 60;
const LARGE = 3;
/** About 6 MB each: three of them together pass 16 MiB. */
const LARGE_BYTES = 6_000_000;
/** The most a command may weigh: maxBsonObjectSize and the 16 KiB the server reads past it (BSONObjMaxInternalSize). */
const COMMAND_MAX = 16 * 1024 * 1024 + 16 * 1024;
const SKU = (n: number): string => `QZSKU-${String(n).padStart(5, '0')}`;
/** Every seeded key and value carries one of these: none may reach an output. */
const LEAK = /QZSKU|QZDUP|QZBLOB|QZVAL/;

/** A confirmation in one line, for the test log. */
const said = (k: Confirmation | undefined): string =>
  `${k?.status ?? 'none'}: ${k?.summary ?? ''}${k?.reason ? ` (${k.reason})` : ''}`;

interface Sent {
  command: string;
  bytes: number;
  documents: number;
}

/** The insert commands a driver client sends to scratch databases, with their BSON sizes, and the write errors. */
function watchScratchInserts(adapter: DriverAdapter): { sent: Sent[]; writeErrors: number } {
  const out = { sent: [] as Sent[], writeErrors: 0 };
  adapter.client.on('commandStarted', (e: CommandStartedEvent) => {
    if (e.commandName !== 'insert' || !e.databaseName.startsWith(SCRATCH_PREFIX)) return;
    const docs = (e.command.documents as unknown[] | undefined) ?? [];
    out.sent.push({ command: String(e.command.insert), bytes: calculateObjectSize(e.command), documents: docs.length });
  });
  adapter.client.on('commandSucceeded', (e: CommandSucceededEvent) => {
    if (e.commandName !== 'insert' || !e.databaseName.startsWith(SCRATCH_PREFIX)) return;
    out.writeErrors += ((e.reply as Doc).writeErrors as unknown[] | undefined)?.length ?? 0;
  });
  return out;
}

/**
 * The real server, read through a tap that hands over the first document of each read of `coll` twice: what
 * MongoDB's `$sample` may do ("may output the same document more than once in its result set"), which the test
 * servers do not show on demand. Every command still goes to the server.
 */
function doublingReads(inner: DriverAdapter, coll: string, seen: { doubled: number }): Adapter {
  return {
    kind: inner.kind,
    source: inner.source,
    bson: inner.bson,
    get roundTrips() {
      return inner.roundTrips;
    },
    command: (db, cmd, o) => inner.command(db, cmd, o),
    cursor: async (db, cmd, o) => {
      const r = await inner.cursor(db, cmd, o);
      const read = cmd.aggregate === coll || cmd.find === coll;
      if (!read || r.docs.length === 0) return r;
      seen.doubled++;
      return { ...r, docs: [r.docs[0] as Doc, ...r.docs] };
    },
    close: () => Promise.resolve(),
  };
}

type Experiment = NonNullable<Rule['confirm']>['run'];

/** A caller's rule reporting one finding on `dups`, whose experiment is `run`. */
function ruleWithExperiment(id: string, run: Experiment): Rule {
  return defineRule({
    id,
    meta: {
      description: 'A test experiment',
      docsUrl: `https://example.com/${id}`,
      severity: 'info',
      messages: { here: 'Collection {{name}} can be copied.' },
      options: { type: 'object', properties: {}, additionalProperties: false },
      requires: { capabilities: [] },
    },
    scope: 'collection',
    analyze({ collection: c, report }) {
      if (c?.name !== 'dups') return;
      report({ messageId: 'here', target: { db: c.db, collection: c.name }, data: { name: c.name }, evidence: {} });
    },
    confirm: { describe: 'a copy', run },
  }) as Rule;
}

/**
 * Copies the documents of `dups` to scratch keeping their `_id`s (as the validator's experiment does), and says how
 * many the server took: it runs on every server, where the validator's needs validators.
 */
const copyKeepingIds = ruleWithExperiment('test-copy-keeping-ids', async (ctx, f) => {
  const docs = await ctx.sourceDocs(f.target.db, f.target.collection ?? '');
  const c = await ctx.scratch.copy('ids_kept', docs);
  const clean = c.inserted === docs.length && c.writeErrors.length === 0;
  const summary = `${c.inserted} of ${docs.length} copies inserted, ${c.writeErrors.length} write errors`;
  return { status: clean ? 'supported' : 'refuted', summary, measurements: [] };
});

/** Past maxBsonObjectSize (16 MiB on both test servers): a copy must leave it out, not send it. */
const OVERSIZE = 17 * 1024 * 1024;

/** Copies two small documents and, between them, one past the server's limit (made here: no server stores one). */
const copyOversize = ruleWithExperiment('test-copy-oversize', async (ctx) => {
  const c = await ctx.scratch.copy('oversize', [{ n: 1 }, { n: 2, blob: 'x'.repeat(OVERSIZE) }, { n: 3 }]);
  return { status: 'supported', summary: `${c.inserted} inserted, ${c.tooLarge} left out`, measurements: [] };
});

describe('copies into scratch by real size (live)', () => {
  const live = useLiveDb(DB, async (db) => {
    const small = Array.from({ length: SMALL }, (_, i) => ({
      itemsBySku: Object.fromEntries(Array.from({ length: 1 + (i % 3) }, (_, j) => [SKU(i * 2 + j), j + 1])),
      n: i,
    }));
    await db.collection('big').insertMany(small);
    for (let j = 0; j < LARGE; j++) {
      const blob = `QZBLOB${'x'.repeat(LARGE_BYTES)}`;
      await db.collection('big').insertOne({ itemsBySku: { [SKU(900 + j)]: 1 }, blob });
    }
    const dups = Array.from({ length: 40 }, (_, i) => ({ _id: `QZDUP-${i}`, n: i, label: `QZVAL-${i}` }));
    await db.collection<{ _id: string }>('dups').insertMany(dups);
  });
  let watched: DriverAdapter;
  beforeAll(async () => {
    watched = await DriverAdapter.connect(live.uri, { monitorCommands: true });
  });
  afterAll(async () => {
    await watched?.close();
  });

  let bigRun: ConfirmRun | null = null;

  it('copies documents far above the average without a command over 16 MiB', async () => {
    const collectors = collectPlan([dynamicKeys]);
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['big'], collectors });
    const stats = snap.databases[0]?.collections[0]?.stats;
    console.log(`[copy-limits live] ${live.kind}: the collection's avgObjSize reads ${String(stats?.avgObjSize)}`);
    const f = runRule(dynamicKeys, snap).find((x) => x.target.path === 'itemsBySku');
    expect(f, 'dynamic-keys reports the map at itemsBySku').toBeDefined();
    const inserts = watchScratchInserts(watched);
    // maxBytes past what the sampled sizes would allow: every document, the three large ones too, is read and copied.
    // The budget bounds only the finds timed after the copies (any verdict passes below): 4 s, not the copies' subject.
    const limits = { budgetMs: 4_000, maxDocs: 100, maxBytes: 128 * 1024 * 1024 };
    bigRun = await confirmFindings(snap, f ? [f] : [], watched, [dynamicKeys], limits);
    const k = bigRun.findings[0]?.confirmation;
    console.log(`[copy-limits live] ${live.kind}: ${said(k)}`);
    expect(k?.status, k?.summary).not.toBe('error');
    const copies = inserts.sent.filter((s) => s.command === 'keys_as_fields');
    const largest = Math.max(...inserts.sent.map((s) => s.bytes));
    const told = `${copies.length} inserts to keys_as_fields, largest command ${largest} B`;
    console.log(`[copy-limits live] ${live.kind}: ${told}`);
    expect(copies.reduce((t, s) => t + s.documents, 0)).toBe(SMALL + LARGE);
    expect(copies.length).toBeGreaterThanOrEqual(2); // three large documents cannot share one command
    expect(largest).toBeLessThanOrEqual(COMMAND_MAX);
    expect(inserts.sent.filter((s) => s.bytes > LARGE_BYTES).length).toBeGreaterThanOrEqual(2); // MAP and PAIRS
    expect(inserts.writeErrors).toBe(0);
    expect(JSON.stringify(bigRun)).not.toMatch(LEAK);
    await expectScratchDropped(live.client, bigRun.where);
  });

  it('and the experiment measures on those copies', (ctx) => {
    const k = bigRun?.findings[0]?.confirmation;
    if (!k) return ctx.skip('the copy test above did not run the experiment');
    if (k.status === 'not-run') {
      return ctx.skip(`${live.kind} cannot run this experiment after the copy: ${k.reason ?? k.summary}`);
    }
    expect(['supported', 'refuted', 'inconclusive']).toContain(k.status);
    expect(k.measurements).toHaveLength(2);
    expect(k.summary).toContain(`${SMALL + LARGE} documents copied from big`);
  });

  it('copies a document $sample hands over twice once, and prints no value', async (ctx) => {
    const collectors = collectPlan([validator]);
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['dups'], collectors });
    const f = runRule(validator, snap).find((x) => x.messageId.startsWith('missing'));
    expect(f, 'the validator rule proposes one for dups').toBeDefined();
    const seen = { doubled: 0 };
    const inserts = watchScratchInserts(watched);
    const source = doublingReads(watched, 'dups', seen);
    // the copy is the subject: the inserts timed after it get a small budget
    const run = await confirmFindings(snap, f ? [f] : [], source, [validator], { budgetMs: 3_000, maxDocs: 60 });
    const k = run.findings[0]?.confirmation;
    console.log(`[copy-limits live] ${live.kind} dups: ${said(k)}`);
    expect(JSON.stringify(run)).not.toMatch(LEAK);
    if (run.where) await expectScratchDropped(live.client, run.where);
    const loaded = inserts.sent.filter((s) => s.command === 'validator_without');
    if (k?.status === 'not-run' && loaded.length === 0) {
      return ctx.skip(`${live.kind} copies nothing for the validator experiment: ${k.reason ?? k.summary}`);
    }
    expect(seen.doubled).toBeGreaterThan(0);
    expect(loaded[0]?.documents).toBe(40);
    expect(inserts.writeErrors).toBe(0);
    expect(k?.summary).not.toContain('twice');
  });

  it('hands each _id over once to any experiment, on every server', async () => {
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['dups'] });
    const findings = runRule(copyKeepingIds, snap);
    expect(findings).toHaveLength(1);
    const seen = { doubled: 0 };
    const inserts = watchScratchInserts(watched);
    const source = doublingReads(watched, 'dups', seen);
    const run = await confirmFindings(snap, findings, source, [copyKeepingIds], { maxDocs: 60 });
    const k = run.findings[0]?.confirmation;
    expect(seen.doubled).toBeGreaterThan(0);
    expect(k?.summary).toBe('40 of 40 copies inserted, 0 write errors');
    expect(k?.status).toBe('supported');
    expect(inserts.sent.filter((x) => x.command === 'ids_kept').reduce((t, x) => t + x.documents, 0)).toBe(40);
    expect(inserts.writeErrors).toBe(0);
    expect(JSON.stringify(run)).not.toMatch(LEAK);
    await expectScratchDropped(live.client, run.where);
  });

  it('leaves out a document over maxBsonObjectSize, sends the rest, and says so', async () => {
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['dups'] });
    const inserts = watchScratchInserts(watched);
    const run = await confirmFindings(snap, runRule(copyOversize, snap), watched, [copyOversize], {});
    expect(run.findings[0]?.confirmation?.summary).toBe('2 inserted, 1 left out');
    const sent = inserts.sent.filter((x) => x.command === 'oversize');
    expect(sent.reduce((t, x) => t + x.documents, 0)).toBe(2);
    expect(Math.max(...sent.map((x) => x.bytes))).toBeLessThan(OVERSIZE);
    const note = /^1 document was not copied to the scratch collection oversize: over the server's maxBsonObjectSize/;
    expect(run.notes).toContainEqual(expect.stringMatching(note));
    await expectScratchDropped(live.client, run.where);
  });

  it("masks the _id in this server's own duplicate-key error", async () => {
    const c = live.db.collection<{ _id: string }>('errors');
    await c.insertOne({ _id: 'QZDUP-real' });
    const dup = await c.insertOne({ _id: 'QZDUP-real' }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(dup, 'the second insert of one _id fails').not.toBeNull();
    const raw = (dup as Error).message;
    expect(raw).toMatch(/duplicate key/i);
    const shown = describeServerError(dup);
    expect(shown).toMatch(/11000|duplicate key/i);
    expect(shown).not.toMatch(LEAK);
    expect(redactServerText(raw)).not.toMatch(LEAK);
  });

  it("masks the document's values in this server's own validation error (code 121)", async (ctx) => {
    const validator = { $jsonSchema: { properties: { label: { bsonType: 'int' } } } };
    const made = await live.db.createCollection('checked', { validator }).then(
      () => null,
      (err: unknown) => describeServerError(err),
    );
    if (made !== null) return ctx.skip(`${live.kind} refuses a collection with a validator (${made})`);
    const [info] = await live.db.listCollections({ name: 'checked' }).toArray();
    const kept = (info as { options?: { validator?: unknown } } | undefined)?.options?.validator;
    if (kept === undefined) {
      return ctx.skip(`${live.kind} accepts a validator but keeps none: no validation error to read`);
    }
    const checked = live.db.collection<{ _id: string; label: string }>('checked');
    const bad = await checked.insertOne({ _id: 'QZDUP-v', label: 'QZVAL-real' }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(bad, 'a string label is refused').not.toBeNull();
    expect((bad as { code?: number }).code).toBe(121);
    expect(describeServerError(bad)).not.toMatch(LEAK);
    // The error as a whole (errInfo: failingDocumentId, consideredValue), printed by anything that stringifies it.
    const whole = JSON.stringify(bad);
    if ((bad as { errInfo?: unknown }).errInfo !== undefined) expect(whole).toMatch(LEAK);
    expect(redactServerText(whole)).not.toMatch(LEAK);
  });
});
