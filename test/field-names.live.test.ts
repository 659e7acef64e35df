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
import type { Snapshot } from '../src/core/types';
import type { DriverAdapter } from '../src/adapters/driver';
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

const log = (line: string): void => console.log(`[field-names live] ${line}`);
const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
type AnyRule = Parameters<typeof collectPlan>[0][number];
const snapshotFor = (adapter: DriverAdapter, db: string, coll: string, rule: AnyRule): Promise<Snapshot> =>
  collectSnapshot(adapter, { db, collections: [coll], collectors: collectPlan([rule]) });

/** Why the server refused the documents (FerretDB 2 refuses a key holding a dot on insert), or null: stored. */
let refused: string | null = null;

/** Document `i`: `"a.b"` a number or its text, `a.b` an ObjectId, `meta.$v` a number or a blank string. */
const docOf = (i: number): Record<string, unknown> => ({
  n: i,
  'a.b': i % 10 === 9 ? String(i) : i,
  a: { b: new ObjectId() },
  meta: { $v: i % 10 === 4 ? '' : i, w: i },
});

async function seed(db: Db): Promise<void> {
  refused = null;
  try {
    await db.collection('things').insertMany(Array.from({ length: DOCS }, (_, i) => docOf(i)));
  } catch (err) {
    refused = messageOf(err);
  }
}

/** mongosh source running the commands on the copy, each as printed less its trailing `// …` note. */
function scriptOf(commands: readonly string[]): string {
  const calls = commands.map((c) => `printjson(${c.replace(/\s+\/\/ [^"]*$/, '')});`);
  return `db = db.getSiblingDB(${JSON.stringify(COPY)}); ${calls.join(' ')}`;
}

describe('keys holding a dot beside the nested path they spell (live)', () => {
  const live = useLiveDb(DB, seed);
  const PIN = 'stores the documents as sent, or refuses a key holding a dot (pinned per server)';
  beforeEach((ctx) => {
    if (refused === null || ctx.task.name === PIN) return;
    ctx.skip(`${live.kind} refuses a document with a key holding a dot: ${refused}`);
  });

  it(PIN, async () => {
    log(`${live.kind}: ${refused === null ? 'stores keys holding a dot' : `refuses them: ${refused}`}`);
    if (live.kind === 'ferretdb') expect(refused).toMatch(/invalid key: "a\.b" \(key must not contain '\.' sign\)/);
    else expect(refused).toBeNull();
    if (refused !== null) return;
    expect(await live.db.collection('things').countDocuments({ 'a.b': { $exists: true } })).toBe(DOCS);
  });

  it('counts 100 values for each path of 100 documents, not 200 for one', async () => {
    const snap = await snapshotFor(live.adapter, DB, 'things', mixedTypes);
    const fields = snap.databases[0]?.collections[0]?.sample.fields ?? {};
    expect(fields['"a.b"']).toMatchObject({ present: DOCS, types: { int: DOCS - STRAYS, string: STRAYS } });
    expect(fields['a.b']).toEqual({ present: DOCS, types: { objectId: DOCS } });
    expect(fields.a).toEqual({ present: DOCS, types: { object: DOCS } });
    const strings = { blank: STRAYS, numeric: 0, integer: 0 };
    expect(fields['meta.$v']).toEqual({ present: DOCS, types: { int: DOCS - STRAYS, string: STRAYS }, strings });
  });

  it('mixed-types\' commands, run in mongosh on a copy, rewrite `"a.b"` and `meta.$v`, not `a.b`', async () => {
    const snap = await snapshotFor(live.adapter, DB, 'things', mixedTypes);
    const findings = runRule(mixedTypes, snap);
    const targets = findings.map((f) => [f.target.path, f.messageId]);
    expect(targets).toEqual([
      ['"a.b"', 'mixed'],
      ['meta.$v', 'blankStrings'],
    ]);
    // The rewrites are the later step (once the code writes one type); the counts run now.
    const commands = findings.flatMap((f) => [
      ...(f.recommendation?.commands ?? []),
      ...(f.recommendation?.later?.commands ?? []),
    ]);
    log(`${live.kind} ${snap.server.version}: ${commands.join(' | ')}`);
    const printed = commands.filter((c) => c.includes('.updateMany('));
    expect(printed).toHaveLength(2);
    for (const u of printed) expect(u).toContain('$setField');
    // Every command names its database: run on the copy, each is pointed there (and only there) by that name.
    for (const u of printed) expect(u).toContain(`db.getSiblingDB(${JSON.stringify(DB)})`);
    const updates = printed.map((u) => u.split(JSON.stringify(DB)).join(JSON.stringify(COPY)));
    const copy = live.client.db(COPY);
    await copy.dropDatabase();
    try {
      const before = await live.db.collection('things').find().sort({ n: 1 }).toArray();
      await copy.collection('things').insertMany(before);
      const args = [live.uri, '--quiet', '--norc', '--eval', scriptOf(updates)];
      const run = await runProcess(MONGOSH, args, { env: { MONGOSH_NO_UPDATE_CHECK: '1' } });
      log(`${live.kind} mongosh exit ${String(run.code)}: ${run.out.trim()} ${run.err.trim()}`);
      expect(run.code, run.err).toBe(0);
      const after = await copy.collection('things').find().sort({ n: 1 }).toArray();
      // the strings of "a.b" converted to the numbers they spell
      expect(after.map((d) => d['a.b'] as unknown)).toEqual(before.map((_, i) => i));
      // a.b untouched, and a holds nothing else
      const nested = (d: Record<string, unknown>): unknown => d.a;
      expect(after.map(nested)).toEqual(before.map(nested));
      // the blank `$v` removed, the numbers and `w` kept
      const meta = before.map((_, i) => (i % 10 === 4 ? { w: i } : { $v: i, w: i }));
      expect(after.map((d) => d.meta as unknown)).toEqual(meta);
    } finally {
      await copy.dropDatabase();
    }
  });

  it('mixed-types\' experiment queries `"a.b"` with $getField: the strays, asked as numbers, are missed', async () => {
    const snap = await snapshotFor(live.adapter, DB, 'things', mixedTypes);
    const f = runRule(mixedTypes, snap).find((x) => x.target.path === '"a.b"');
    const options = { budgetMs: 10_000, maxDocs: DOCS };
    const run = await confirmFindings(snap, f ? [f] : [], live.adapter, [mixedTypes], options);
    const k = run.findings[0]?.confirmation;
    log(`${live.kind} experiment: ${k?.status ?? 'none'}: ${k?.summary ?? ''} ${k?.reason ?? ''}`);
    expect(k?.status).toBe('supported');
    expect(k?.summary).toContain(`${STRAYS} documents holding \`"a.b"\` as strings`);
    expect(k?.summary).toContain(`matched 0 of them; asked as stored, it matched ${STRAYS}`);
    await expectScratchDropped(live.client, run.where);
  });
});

const DOLLAR_DB = 'mongo_advisor_test_dollar_index';

/** The filter a recorded command sends (a find's, or an explained find's), as JSON; 'null' for none. */
function filterText(cmd: Record<string, unknown>): string {
  const explained = cmd.explain as { filter?: unknown } | undefined;
  return JSON.stringify(explained?.filter ?? (cmd as { filter?: unknown }).filter ?? null);
}

/**
 * An index on a `$`-prefixed field: MongoDB refuses to build one (jstests/core/index/indexp.js:
 * `createIndex({'$a': 1})` fails), so what a server does is pinned here; where one is built, index-usage's
 * redundancy experiment must not send `{ $in: v }` as an equality filter (it would read the key as an operator).
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
      inserted = messageOf(err);
    }
    for (const key of [{ $in: 1 }, { $in: 1, x: 1 }]) {
      const name = Object.keys(key)
        .map((k) => `${k}_1`)
        .join('_');
      try {
        await db.command({ createIndexes: 'ops', indexes: [{ key, name }] });
        built[name] = 'built';
      } catch (err) {
        built[name] = messageOf(err);
      }
    }
  });

  it('pins whether the server stores such a key and builds the index (MongoDB refuses the index)', () => {
    log(`${live.kind} documents with $in: ${inserted}; index on $in: ${JSON.stringify(built)}`);
    if (live.kind === 'ferretdb') expect(inserted).toBe('invalid key: "$in" (key must not start with \'$\' sign)');
    else expect(inserted).toBe('stored');
    // both servers here build the indexes, FerretDB on an empty collection (MongoDB refuses: indexp.js)
    expect(built).toEqual({ $in_1: 'built', $in_1_x_1: 'built' });
  });

  it('the redundancy experiment sends no filter naming `$in`, and says why no plan was checked', async (ctx) => {
    if (inserted !== 'stored') ctx.skip(`${live.kind} refuses a document with a \`$in\` key: ${inserted}`);
    if (built.$in_1 !== 'built' || built.$in_1_x_1 !== 'built') ctx.skip(`${live.kind} did not build the indexes`);
    const snap = await snapshotFor(live.adapter, DOLLAR_DB, 'ops', indexUsage);
    const redundant = runRule(indexUsage, snap).filter((f) => f.messageId.startsWith('redundant'));
    expect(redundant.map((f) => [f.target.index, f.evidence.longer])).toEqual([['$in_1', '$in_1_x_1']]);
    const adapter = recordingAdapter(live.adapter);
    const run = await confirmFindings(snap, redundant, adapter, [indexUsage], { budgetMs: 6_000, maxDocs: 200 });
    const k = run.findings[0]?.confirmation;
    log(`${live.kind} redundancy: ${k?.status ?? 'none'}: ${k?.summary ?? ''}`);
    expect(adapter.sent.some((s) => s.name === 'createIndexes')).toBe(true);
    expect(adapter.sent.map((s) => filterText(s.cmd)).filter((f) => f.includes('"$in"'))).toEqual([]);
    expect(k?.status).toBe('inconclusive');
    expect(k?.summary).toContain('No query was explained: a filter reads `$in` as an operator, not a field');
    await expectScratchDropped(live.client, run.where);
  });
});
