/**
 * Keys holding a dot and `$`-prefixed keys (legal since MongoDB 5.0: "Field Names with Periods and Dollar Signs",
 * https://www.mongodb.com/docs/manual/core/dot-dollar-considerations/) on each test server: the census keeps
 * `{"a.b": …}` apart from `{a: {b: …}}`, and what mixed-types suggests for the dotted key rewrites that key, run in
 * real mongosh on a copy.
 */
import { join } from 'node:path';
import { type Db, ObjectId } from 'mongodb';
import { beforeEach, describe, expect, it } from 'vitest';
import indexUsage from '../rules/index-usage/index';
import mixedTypes from '../rules/mixed-types/index';
import { collectSnapshot } from '../src/collect';
import { confirmFindings } from '../src/confirm';
import { collectPlan } from '../src/core/runner';
import { useLiveDb } from './support/live-db';
import { recordingAdapter } from './support/recording';
import { runRule } from './support/rule-tester';
import { runProcess } from './support/run';
import { expectScratchDropped } from './support/scratch';

const DB = 'mongo_advisor_test_field_names';
const COPY = 'mongo_advisor_test_field_names_copy';
const MONGOSH = join(__dirname, '..', 'node_modules', '.bin', 'mongosh');
const DOCS = 100;
/** Documents whose dotted key holds a number's text (the rest hold the number): the strays mixed-types converts. */
const STRAYS = 10;

/** Why the server refused the documents (FerretDB 2 refuses a key holding a dot on insert), or null: stored. */
let refused: string | null = null;

/**
 * `"a.b"` a number (its text in every tenth document), `a.b` an ObjectId: 100 values each in 100 documents; and
 * `meta.$v`, a `$` key below the top level, a number or (every tenth document) a blank string.
 */
async function seed(db: Db): Promise<void> {
  refused = null;
  try {
    await db.collection('things').insertMany(
      Array.from({ length: DOCS }, (_, i) => ({ n: i, 'a.b': i % 10 === 9 ? String(i) : i, a: { b: new ObjectId() }, meta: { $v: i % 10 === 4 ? '' : i, w: i } })),
    );
  } catch (err) {
    refused = err instanceof Error ? err.message : String(err);
  }
}

describe('keys holding a dot beside the nested path they spell (live)', () => {
  const live = useLiveDb(DB, seed);
  beforeEach((ctx) => {
    if (refused !== null && ctx.task.name !== PIN) ctx.skip(`${live.kind} refuses a document with a key holding a dot: ${refused}`);
  });

  const PIN = 'stores the documents as sent, or refuses a key holding a dot (pinned per server)';
  it(PIN, async () => {
    console.log(`[field-names live] ${live.kind}: ${refused === null ? 'stores keys holding a dot' : `refuses them: ${refused}`}`);
    if (live.kind === 'ferretdb') expect(refused).toMatch(/invalid key: "a\.b" \(key must not contain '\.' sign\)/);
    else expect(refused).toBeNull();
    if (refused === null) expect(await live.db.collection('things').countDocuments({ 'a.b': { $exists: true } })).toBe(DOCS);
  });

  it('counts 100 values for each path of 100 documents, not 200 for one', async () => {
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['things'], collectors: collectPlan([mixedTypes]) });
    const fields = snap.databases[0]?.collections[0]?.sample.fields ?? {};
    expect(fields['"a.b"']).toMatchObject({ present: DOCS, types: { int: DOCS - STRAYS, string: STRAYS } });
    expect(fields['a.b']).toEqual({ present: DOCS, types: { objectId: DOCS } });
    expect(fields.a).toEqual({ present: DOCS, types: { object: DOCS } });
    expect(fields['meta.$v']).toEqual({ present: DOCS, types: { int: DOCS - STRAYS, string: STRAYS }, strings: { blank: STRAYS, numeric: 0, integer: 0 } });
  });

  it("mixed-types' commands, run in mongosh on a copy, rewrite `\"a.b\"` and `meta.$v` and leave `a.b` as it was", async () => {
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['things'], collectors: collectPlan([mixedTypes]) });
    const findings = runRule(mixedTypes, snap);
    expect(findings.map((f) => [f.target.path, f.messageId])).toEqual([['"a.b"', 'mixed'], ['meta.$v', 'blankStrings']]);
    const commands = findings.flatMap((f) => f.recommendation?.commands ?? []);
    console.log(`[field-names live] ${live.kind} ${snap.server.version}: ${commands.join(' | ')}`);
    const updates = commands.filter((c) => c.includes('.updateMany('));
    expect(updates).toHaveLength(2);
    for (const u of updates) expect(u).toContain('$setField');
    const copy = live.client.db(COPY);
    await copy.dropDatabase();
    try {
      const before = await live.db.collection('things').find().sort({ n: 1 }).toArray();
      await copy.collection('things').insertMany(before);
      // the command as printed, its trailing `// …` note left out
      const script = `db = db.getSiblingDB(${JSON.stringify(COPY)}); ${updates.map((u) => `printjson(${u.replace(/\s+\/\/ [^"]*$/, '')});`).join(' ')}`;
      const run = await runProcess(MONGOSH, [live.uri, '--quiet', '--norc', '--eval', script], { env: { MONGOSH_NO_UPDATE_CHECK: '1' } });
      console.log(`[field-names live] ${live.kind} mongosh exit ${String(run.code)}: ${run.out.trim()} ${run.err.trim()}`);
      expect(run.code, run.err).toBe(0);
      const after = await copy.collection('things').find().sort({ n: 1 }).toArray();
      expect(after.map((d) => typeof d['a.b'])).toEqual(before.map(() => 'number'));
      expect(after.map((d) => d['a.b'] as number)).toEqual(before.map((_, i) => i));
      expect(after.map((d) => String((d.a as { b: ObjectId }).b))).toEqual(before.map((d) => String((d.a as { b: ObjectId }).b)));
      expect(after.every((d) => Object.keys(d.a as object).length === 1)).toBe(true);
      // the blank `$v` removed, the numbers and `w` kept
      expect(after.map((d) => d.meta as unknown)).toEqual(before.map((_, i) => (i % 10 === 4 ? { w: i } : { $v: i, w: i })));
    } finally {
      await copy.dropDatabase();
    }
  });

  it("mixed-types' experiment reads and queries the dotted key with $getField: the strays, asked as numbers, are missed", async () => {
    const snap = await collectSnapshot(live.adapter, { db: DB, collections: ['things'], collectors: collectPlan([mixedTypes]) });
    const f = runRule(mixedTypes, snap).find((x) => x.target.path === '"a.b"');
    const run = await confirmFindings(snap, f ? [f] : [], live.adapter, [mixedTypes], { budgetMs: 10_000, maxDocs: DOCS });
    const k = run.findings[0]?.confirmation;
    console.log(`[field-names live] ${live.kind} experiment: ${k?.status ?? 'none'}: ${k?.summary ?? ''} ${k?.reason ?? ''}`);
    expect(k?.status).toBe('supported');
    expect(k?.summary).toContain(`${STRAYS} documents holding \`"a.b"\` as strings`);
    expect(k?.summary).toContain(`matched 0 of them; asked as stored, it matched ${STRAYS}`);
    await expectScratchDropped(live.client, run.where);
  });
});

const DOLLAR_DB = 'mongo_advisor_test_dollar_index';

/**
 * An index on a `$`-prefixed field: MongoDB refuses to build one (jstests/core/index/indexp.js: `createIndex({'$a': 1})`
 * fails), so what a server does is pinned here; where one is built, index-usage's redundancy experiment must not send
 * `{ $in: v }` as an equality filter (it would read the key as an operator).
 */
describe('an index on a `$`-prefixed field (live)', () => {
  /** What createIndexes answered, per index: 'built' or the server's refusal; and the insert's. */
  const built: Record<string, string> = {};
  let inserted = '';
  const live = useLiveDb(DOLLAR_DB, async (db) => {
    try {
      await db.collection('ops').insertMany(Array.from({ length: 200 }, (_, i) => ({ $in: i % 20, x: i })));
      inserted = 'stored';
    } catch (err) {
      inserted = err instanceof Error ? err.message : String(err);
    }
    for (const key of [{ $in: 1 }, { $in: 1, x: 1 }]) {
      const name = Object.keys(key).map((k) => `${k}_1`).join('_');
      try {
        await db.command({ createIndexes: 'ops', indexes: [{ key, name }] });
        built[name] = 'built';
      } catch (err) {
        built[name] = err instanceof Error ? err.message : String(err);
      }
    }
  });

  it('pins whether the server stores such a key and builds the index (MongoDB refuses the index)', () => {
    console.log(`[field-names live] ${live.kind} documents with $in: ${inserted}; index on $in: ${JSON.stringify(built)}`);
    if (live.kind === 'ferretdb') expect(inserted).toBe('invalid key: "$in" (key must not start with \'$\' sign)');
    else expect(inserted).toBe('stored');
    // both servers here build the indexes, FerretDB on an empty collection (MongoDB refuses: indexp.js)
    expect(built).toEqual({ $in_1: 'built', $in_1_x_1: 'built' });
  });

  it('the redundancy experiment sends no filter naming `$in`, and says why no plan was checked', async (ctx) => {
    if (inserted !== 'stored') ctx.skip(`${live.kind} refuses a document with a \`$in\` key: ${inserted}`);
    if (built.$in_1 !== 'built' || built.$in_1_x_1 !== 'built') ctx.skip(`${live.kind} did not build the indexes: ${JSON.stringify(built)}`);
    const snap = await collectSnapshot(live.adapter, { db: DOLLAR_DB, collections: ['ops'], collectors: collectPlan([indexUsage]) });
    const redundant = runRule(indexUsage, snap).filter((f) => f.messageId.startsWith('redundant'));
    expect(redundant.map((f) => [f.target.index, f.evidence.longer])).toEqual([['$in_1', '$in_1_x_1']]);
    const adapter = recordingAdapter(live.adapter);
    const run = await confirmFindings(snap, redundant, adapter, [indexUsage], { budgetMs: 6_000, maxDocs: 200 });
    const k = run.findings[0]?.confirmation;
    console.log(`[field-names live] ${live.kind} redundancy: ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
    const filters = adapter.sent.map((s) => JSON.stringify((s.cmd.explain as { filter?: unknown } | undefined)?.filter ?? (s.cmd as { filter?: unknown }).filter ?? null));
    expect(adapter.sent.some((s) => s.name === 'createIndexes')).toBe(true);
    expect(filters.filter((f) => f.includes('"$in"'))).toEqual([]);
    expect(k?.status).toBe('inconclusive');
    expect(k?.summary).toContain('No query was explained: a filter reads `$in` as an operator, not a field');
    await expectScratchDropped(live.client, run.where);
  });
});
