/**
 * The paste test of issue 26: every command the reports print, in every format, pasted into the real mongosh against
 * the real server, over names built to break out of a string literal. Each command must do exactly its named action:
 * the canary database and its index survive every paste, and index lists and validators change only as the command
 * says. Runs on SecantusDB only (indexes, hideIndex, validators and collMod); elsewhere it is skipped with the reason.
 *
 * What a command "names" is read by running its text in a bare JavaScript context (node:vm) whose `db` only records
 * the calls made on it: no server there, so a breakout shows as a second call chain or an error, and the real effect
 * on the server is then compared with that one call: the state read around each line (databases, the canary, each
 * collection's indexes, validator and count) and the writes the profiler (level 2) saw. SecantusDB answers hideIndex
 * ok but lists no `hidden` flag, so hide and unhide are judged by the collMod the profiler recorded. A builder that
 * quoted names raw (tried by hand) fails here: the pasted hideIndex dropped the canary database.
 *
 * Kinds: every method test/support/paste-kinds.ts lists as pasted (test/paste-kinds.test.ts fails when a rule prints
 * one it does not list), each judged on the server in every report: createIndex (dynamic-keys, query-collection-scan,
 * spec-drift, array-growth, embed-reference), hideIndex, unhideIndex (the "to undo" line run uncommented), dropIndex
 * (the later step run uncommented), collMod and countDocuments (validator), updateMany (dynamic-keys, mixed-types),
 * createCollection (array-growth's child collection, compression's copy), the `var schema = …` line, aggregate with
 * $merge (embed-reference's embedded and extended-reference layouts, compression's copy), getIndexes and the later
 * renameCollection (compression). A $merge is judged by what its target holds: the documents its pipeline makes from
 * the source's and the joined collection's, computed here (a $lookup, the extended reference's $map), nothing else
 * changed. SecantusDB's $collStats gives no WiredTiger creationString, so compression cannot advise on a live run: the
 * test plants `blockCompressor: "snappy"` in check's saved snapshot (the value mongod reports,
 * src/collect/coll-stats.ts reads it), which `analyze` and `lint` read; `audit` (HTML) and `advisor.check()` read only
 * the server, so they lack compression's getIndexes and renameCollection (LIVE_ONLY_REPORTS says so).
 *
 * The reports: `check` live (JSON, saving its snapshot), `lint` live with the spec and the queries, `audit` (HTML) and
 * advisor.check() in mongosh side by side, then text, Markdown, SARIF, JUnit and JSON from `analyze` of check's
 * snapshot (the renderer check uses, from the same findings: the test holds that analyze prints every command check
 * printed) and `lint` of it. Every format prints a command as the same text, so the distinct lines of all formats are
 * pasted once, in one mongosh process over one seed, and each verdict is every format's that printed the line (a
 * format whose line differs by one character is pasted as its own line).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { existsSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runProcess } from './support/run';
import { LIVE_ONLY_REPORTS, PASTED_KINDS } from './support/paste-kinds';
import { liveUri } from './support/live-uri';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const MONGOSH = join(ROOT, 'node_modules', '.bin', 'mongosh');
const PLUGIN = join(ROOT, 'dist', 'advisor.js');

const BREAK_QUOTE = `'); db.dropDatabase(); ('`;
const BREAK_CONCAT = `" + db.getSiblingDB("canary").dropDatabase() + "`;
const BREAK_SEMI = `q;db.getSiblingDB("canary").dropDatabase();db.q`;
const EVIL_INDEX = `"}); db.getSiblingDB("canary").dropDatabase(); ({ a: "`;
/** MongoDB allows none of / \ . space " $ in database names (the CLI refuses them): the rest of the hostile set. */
const DB = "mongo_advisor_paste'\u2028`|-stats);";
/** Arrays past array-growth's warn line (1,000 elements): its advice creates a child collection named by the field. */
const ARR_COLL = 'po`sts"\n\'';
const ARR_FIELD = 'c\'o"m\u2028m`ents';
/**
 * embed-reference's pairs, both joined by a `$lookup` in the workload (12 calls each, over its minJoinCalls 10): the
 * children of BREAK_QUOTE's documents by a dotted local field into `__proto__` (embed), and those of `stats` by `qty`
 * with two fields kept into BREAK_QUOTE's name, a dotted path (extended reference). Field names with dots cannot be a
 * foreign field (the join reads them as a path): ARR_FIELD and a backtick name are.
 */
const CHILD = "line\u2028it'ems`";
const EMBED_AS = '__proto__';
const LOCAL = 'pi|pe.x"\ny';
const EMBED_JOINS = 12;
/**
 * Documents each live run samples per collection: all of them (the largest collection holds 300), so that every
 * report judges the same data and prints the same findings. With the default sample (20 of BREAK_SEMI's 300), the
 * audit once printed no updateMany the server ran: its own sample's findings differed from check's.
 */
const SAMPLE = 300;
const CANARY = 'canary';
const CANARY_INDEX = 'canary_idx';
/** Commands that write, as the profiler records them (op "command"); inserts, updates and removes have their own op. */
const WRITE_COMMANDS = [
  'collMod',
  'createIndexes',
  'dropIndexes',
  'deleteIndexes',
  'drop',
  'dropDatabase',
  'renameCollection',
  'create',
  'insert',
  'update',
  'delete',
  'findAndModify',
];

/** The joins embed-reference reads, as the application sends them (the queries file, and the profiler's seed). */
function joins(): Record<string, unknown>[] {
  return Array.from({ length: EMBED_JOINS }, (_, i) => [
    {
      aggregate: BREAK_QUOTE,
      pipeline: [
        { $match: { [LOCAL]: i } },
        { $lookup: { from: CHILD, localField: LOCAL, foreignField: ARR_FIELD, as: EMBED_AS } },
      ],
      cursor: {},
    },
    {
      aggregate: 'stats',
      pipeline: [
        { $match: { qty: i % 10 } },
        { $lookup: { from: CHILD, localField: 'qty', foreignField: 'ti`ck', as: BREAK_QUOTE } },
        { $project: { name: 1, [`${BREAK_QUOTE}.sk|u`]: 1, [`${BREAK_QUOTE}.w"t`]: 1 } },
      ],
      cursor: {},
    },
  ]).flat();
}

/**
 * The seed: every hostile name as a collection, field or index name, and a canary database. `profiled`: also run
 * embed-reference's joins at profiling level 2 (then back to 0), for advisor.check, which reads system.profile.
 */
async function seed(uri: string, profiled = false): Promise<void> {
  const client = new MongoClient(uri);
  await client.connect();
  try {
    const db = client.db(DB);
    await db.dropDatabase();
    // Redundant ({B:1} prefix of {B:1,`:1}) and unused (no shape of the complete queries file uses them).
    const c1 = db.collection(BREAK_QUOTE);
    await c1.insertMany(
      Array.from({ length: 200 }, (_, i) => ({
        [BREAK_CONCAT]: i % 7,
        'tick`s`': i,
        'pi|pe': { 'x"\ny': i },
        stats: i % 3,
      })),
    );
    await c1.createIndex({ [BREAK_CONCAT]: 1 });
    await c1.createIndex({ [BREAK_CONCAT]: 1, 'tick`s`': 1 });
    await c1.createIndex({ 'pi|pe.x"\ny': 1 }, { name: EVIL_INDEX });
    // A shape needing an index, and mixed types under a field named with U+2028.
    await db.collection(BREAK_SEMI).insertMany(
      Array.from({ length: 300 }, (_, i) => ({
        'a\u2028b': i % 3 ? i : String(i),
        [BREAK_QUOTE]: i,
        'orders-2024': i % 5,
      })),
    );
    await db
      .collection('stats')
      .insertMany(Array.from({ length: 200 }, (_, i) => ({ name: `n${i}`, qty: i, at: new Date(0) })));
    // A map with dynamic keys.
    await db.collection('orders-2024').insertMany(
      Array.from({ length: 200 }, (_, i) => ({
        byUser: Object.fromEntries(Array.from({ length: 8 }, (_, k) => [`u${i * 8 + k}x${k}`, k])),
      })),
    );
    // Letters from a two-letter alphabet: zstd's entropy coding stores them far smaller than snappy (compression).
    let r = 7;
    const letters = () =>
      Array.from({ length: 24 }, () => ((r = (r * 1103515245 + 12345) % 2 ** 31) & 1 ? 'a' : 'b')).join('');
    await db
      .collection(ARR_COLL)
      .insertMany(
        Array.from({ length: 3 }, () => ({ [ARR_FIELD]: Array.from({ length: 1000 }, () => ({ t: letters() })) })),
      );
    // Children of BREAK_QUOTE's first 20 documents (by LOCAL) and of `stats`' first 10 (by qty): 2 and 4 each.
    await db
      .collection(CHILD)
      .insertMany(
        Array.from({ length: 40 }, (_, i) => ({ [ARR_FIELD]: i % 20, 'ti`ck': i % 10, 'sk|u': `s${i}`, 'w"t': i })),
      );
    if (profiled) {
      await db.command({ profile: 2 });
      try {
        for (const command of joins()) await db.command(command);
      } finally {
        await db.command({ profile: 0 });
      }
    }
    const canary = client.db(CANARY);
    await canary.dropDatabase();
    await canary.collection(CANARY).insertOne({ k: 1 });
    await canary.collection(CANARY).createIndex({ k: 1 }, { name: CANARY_INDEX });
  } finally {
    await client.close();
  }
}

/** One call a command makes on `db`, as the recording context saw it. */
interface Call {
  db?: string;
  collection?: string;
  method: string;
  args: unknown[];
}

/**
 * The calls a command's text makes, read without a server: `db` in a fresh vm context records each call chain from
 * `db.getSiblingDB(…)`. `scope` carries `var schema = …` from one line of a block to the next.
 */
function intentOf(command: string, scope: Record<string, unknown>): Call[] {
  const calls: Call[] = [];
  const chain = (state: { db?: string; collection?: string; path: string[] }): unknown =>
    new Proxy(() => undefined, {
      get: (_t, p) => (typeof p === 'symbol' ? undefined : chain({ ...state, path: [...state.path, p] })),
      apply: (_t, _this, args: unknown[]) => {
        const method = state.path.at(-1) ?? '';
        if (method === 'getSiblingDB') return chain({ db: String(args[0]), path: [] });
        if (method === 'getCollection' && state.collection === undefined)
          return chain({ ...state, collection: String(args[0]), path: [] });
        calls.push({ db: state.db, collection: state.collection, method: state.path.join('.'), args });
        return chain({ ...state, path: [...state.path, '()'] });
      },
    });
  // A fresh `db` per line, in a context that keeps the block's variables (`var schema`) from line to line.
  scope.db = chain({ path: [] });
  try {
    runInNewContext(command, scope);
  } catch (e) {
    // Text that is not one plain call chain (a name spliced into code, say): unreadable, which the test fails on.
    calls.push({ method: `<unreadable: ${String(e)}>`, args: [] });
  }
  return calls;
}

interface IndexState {
  name: string;
  key: string;
  hidden: boolean;
}
interface CollState {
  indexes: IndexState[];
  validator: string;
  count: number;
}
interface State {
  dbs: string[];
  colls: Record<string, CollState>;
  canary: { n: number; indexes: string[] };
}
interface Ran {
  i: number;
  error?: string;
  /** The writes the profiler recorded while the command ran: `{ op, ns, command }` as JSON. */
  writes: string[];
  before: State;
  after: State;
  /** For an aggregate with $merge: the source's, the target's and the joined collection's documents after it ran. */
  docs?: MergeDocs;
}
interface MergeDocs {
  source: unknown[];
  target: unknown[];
  from: unknown[];
}

/** mongosh code defining `state()`: what a command may change, read from the server. */
const STATE_FN = `
function state() {
  const names = db.adminCommand({ listDatabases: 1, nameOnly: true }).databases.map((d) => d.name)
    .filter((n) => n === ${JSON.stringify(DB)} || n === ${JSON.stringify(CANARY)}).sort();
  const t = db.getSiblingDB(${JSON.stringify(DB)});
  const colls = {};
  for (const info of t.getCollectionInfos()) {
    if (info.name.startsWith('system.')) continue;
    const c = t.getCollection(info.name);
    colls[info.name] = {
      indexes: c.getIndexes().map((x) => ({ name: x.name, key: JSON.stringify(x.key), hidden: x.hidden === true }))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
      validator: JSON.stringify([(info.options || {}).validator, (info.options || {}).validationAction]),
      count: c.estimatedDocumentCount(),
    };
  }
  const k = db.getSiblingDB(${JSON.stringify(CANARY)}).getCollection(${JSON.stringify(CANARY)});
  const here = db.getSiblingDB(${JSON.stringify(CANARY)}).getCollectionNames().includes(${JSON.stringify(CANARY)});
  const indexes = here ? k.getIndexes().map((x) => x.name).sort() : [];
  return { dbs: names, colls, canary: { n: k.countDocuments({}), indexes } };
}
const PROFILED = [${JSON.stringify(DB)}, ${JSON.stringify(CANARY)}].map((n) => db.getSiblingDB(n));
for (const d of PROFILED) d.setProfilingLevel(2);
const WRITE_COMMANDS = ${JSON.stringify(WRITE_COMMANDS)};
function lastProfiled() {
  return PROFILED.map((d) =>
    (d.getCollection('system.profile').find({}, { _id: 1 }).sort({ _id: -1 }).limit(1).toArray()[0] || {})._id);
}
function writesSince(last) {
  return PROFILED.flatMap((d, i) => d.getCollection('system.profile')
    .find(last[i] === undefined ? {} : { _id: { $gt: last[i] } }).sort({ _id: 1 }).toArray()
    .filter((p) => p.op !== 'command' || WRITE_COMMANDS.includes(Object.keys(p.command || {})[0])
      || JSON.stringify(p.command || {}).match(/"\\$(merge|out)"/))
    .filter((p) => p.op !== 'query' && p.op !== 'getmore')
    .map((p) => JSON.stringify({ op: p.op, ns: p.ns, command: p.command })));
}
`;

/**
 * A mongosh script that runs each line as pasted (its own try/catch, at top level so `var schema` carries over),
 * reading the state before and after, and prints one marked JSON line per command.
 */
function script(lines: readonly string[], calls: readonly (Call | undefined)[]): string {
  // One state read between two commands: the after of one is the before of the next.
  const parts = [STATE_FN, 'let before = state(); let last = lastProfiled(); let error;'];
  lines.forEach((line, i) => {
    const docs = docsRead(calls[i]);
    parts.push(
      `error = undefined; try {\n${line}\n} catch (e) { error = String(e && e.message || e); }`,
      `{ const writes = writesSince(last); const after = state(); last = lastProfiled(); const docs = ${docs};` +
        ` print('PASTE_RAN ' + JSON.stringify({ i: ${i}, error, before, writes, after, docs })); before = after; }`,
    );
  });
  return parts.join('\n');
}

/**
 * mongosh code reading, after an aggregate with $merge, the documents its judge compares (`undefined` for any other
 * command): the source's, the target's and the `$lookup`'s collection's, by `_id`, from the database the call names.
 */
function docsRead(call: Call | undefined): string {
  const merge = call?.method === 'aggregate' ? mergeOf(call.args[0]) : undefined;
  if (call === undefined || merge === undefined) return 'undefined';
  const from = lookupOf(call.args[0])?.from;
  // Each document as its list of fields ($objectToArray): mongosh returns the elements of an array under a field
  // named `__proto__` as raw BSON buffers, and its `{ k, v }` pairs it reads as documents.
  const all = (database: string | undefined, coll: string | undefined) =>
    coll === undefined
      ? '[]'
      : `db.getSiblingDB(${JSON.stringify(database ?? '')}).getCollection(${JSON.stringify(coll)}).aggregate([` +
        "{ $sort: { _id: 1 } }, { $replaceWith: { kv: { $objectToArray: '$$ROOT' } } }]).toArray().map((d) => d.kv)";
  return (
    `{ source: ${all(call.db, call.collection)}, target: ${all(merge.db ?? call.db, merge.coll)}, ` +
    `from: ${all(call.db, from)} }`
  );
}

/** A document read as its list of fields back to a document (a field named `__proto__` a field). */
const fromFields = (kv: unknown): unknown => {
  const o = {};
  for (const { k, v } of kv as { k: string; v: unknown }[]) define(o, k, v);
  return o;
};

async function paste(
  uri: string,
  dir: string,
  label: string,
  lines: readonly string[],
  calls: readonly (Call | undefined)[],
): Promise<Ran[]> {
  const file = join(dir, `${label.replace(/\W+/g, '_')}.js`);
  writeFileSync(file, script(lines, calls));
  // The shell's current database is the canary: a `db.dropDatabase()` broken out of a string would drop it.
  const r = await runProcess(
    MONGOSH,
    [`${uri.replace(/\/?(\?.*)?$/, '')}/${CANARY}`, '--quiet', '--norc', '--file', file],
    {
      env: { MONGOSH_NO_UPDATE_CHECK: '1' },
      // every line of every format in one process: about 1 s a line on a loaded 2-core machine
      timeoutMs: 240_000,
    },
  );
  const ran = r.out
    .split('\n')
    .filter((l) => l.startsWith('PASTE_RAN '))
    .map((l) => JSON.parse(l.slice('PASTE_RAN '.length)) as Ran);
  expect(ran.length, `${label}: mongosh ran ${ran.length} of ${lines.length} lines\n${r.out}\n${r.err}`).toBe(
    lines.length,
  );
  return ran;
}

const diffColls = (a: State, b: State): string[] =>
  [...new Set([...Object.keys(a.colls), ...Object.keys(b.colls)])].filter(
    (c) => JSON.stringify(a.colls[c]) !== JSON.stringify(b.colls[c]),
  );

const parsed = (w: string) => JSON.parse(w) as { op: string; ns: string; command: Record<string, unknown> };

/**
 * What each kind of command may change, checked against what it did: the state before and after (databases, the
 * canary, each collection's indexes, validator and count) and the writes the profiler saw. Returns the kind, for the
 * coverage tally. SecantusDB answers hideIndex ok but lists no `hidden` flag, so hide and unhide are judged by the
 * collMod the profiler recorded.
 */
function judge(label: string, line: string, call: Call | undefined, ran: Ran): string {
  const where = `${label}: ${line}${ran.error ? ` (error: ${ran.error})` : ''}\nwrites: ${ran.writes.join('\n')}`;
  const { before, after } = ran;
  // Every paste: the canary database, its collection and index survive; no database disappears.
  expect(after.canary, where).toEqual({ n: 1, indexes: ['_id_', CANARY_INDEX] });
  expect(after.dbs, where).toEqual(before.dbs);
  const changed = diffColls(before, after);
  if (call === undefined) {
    expect(changed, where).toEqual([]);
    expect(ran.writes, where).toEqual([]);
    return 'comment';
  }
  expect(call.db, where).toBe(DB);
  const kind = call.method === 'runCommand' ? (Object.keys(call.args[0] as object)[0] ?? '') : call.method;
  if (ran.error !== undefined) {
    // A command the server refused (a dropIndex of an index already gone, an update the validator a line before
    // rejects) changes nothing; the profiler may record the attempt, on the named collection only.
    expect(changed, where).toEqual([]);
    expect(
      ran.writes.filter((w) => !/"dropIndexes"|"collMod"/.test(w) && parsed(w).ns !== `${DB}.${call.collection ?? ''}`),
      where,
    ).toEqual([]);
    return `${kind} (refused)`;
  }
  const writes = ran.writes.map(parsed);
  const merge = kind === 'aggregate' ? mergeOf(call.args[0]) : undefined;
  if (kind === 'createCollection' || merge !== undefined || kind === 'renameCollection')
    return judgeCollections(where, call, kind, merge, ran, changed, writes);
  const coll = kind === 'collMod' ? String((call.args[0] as { collMod: string }).collMod) : (call.collection ?? '');
  const ns = `${DB}.${coll}`;
  // Only the named collection may change, and every write is on it.
  expect(
    changed.filter((c) => c !== coll),
    where,
  ).toEqual([]);
  expect(
    writes.filter((w) => w.ns !== ns && w.ns !== `${DB}.$cmd`),
    where,
  ).toEqual([]);
  const b = before.colls[coll];
  const a = after.colls[coll];
  expect(a, where).toBeDefined();
  expect(b, where).toBeDefined();
  if (a === undefined || b === undefined) return kind;
  const names = (s: CollState) => s.indexes.map((x) => x.name);
  const commands = writes.map((w) => w.command);
  switch (kind) {
    case 'createIndex': {
      const added = a.indexes.filter((x) => !names(b).includes(x.name));
      // Adds exactly the named key (or nothing, when an index of that key already exists); the rest unchanged.
      expect(added.length, where).toBeLessThanOrEqual(1);
      const key = JSON.stringify(call.args[0]);
      if (added.length === 1) expect(added[0]?.key, where).toBe(key);
      else
        expect(
          b.indexes.some((x) => x.key === key),
          where,
        ).toBe(true);
      expect(
        a.indexes.filter((x) => names(b).includes(x.name)),
        where,
      ).toEqual(b.indexes);
      expect(
        commands.map((c) => Object.keys(c)[0]),
        where,
      ).toEqual(['createIndexes']);
      break;
    }
    case 'hideIndex':
    case 'unhideIndex':
    case 'dropIndex': {
      const name = String(call.args[0]);
      expect(names(b), where).toContain(name);
      const rest = (s: CollState) => s.indexes.filter((x) => x.name !== name);
      expect(rest(a), where).toEqual(rest(b));
      expect(a.count, where).toBe(b.count);
      if (kind === 'dropIndex') {
        expect(names(a), where).not.toContain(name);
        expect(commands, where).toEqual([{ dropIndexes: coll, index: name }]);
      } else {
        expect(names(a), where).toContain(name);
        expect(commands, where).toEqual([{ collMod: coll, index: { name, hidden: kind === 'hideIndex' } }]);
      }
      break;
    }
    case 'collMod':
      expect(a.indexes, where).toEqual(b.indexes);
      expect(a.count, where).toBe(b.count);
      expect(
        commands.map((c) => [Object.keys(c)[0], c.collMod]),
        where,
      ).toEqual([['collMod', coll]]);
      break;
    case 'updateMany':
      // Documents may change; indexes, the validator and the document count never.
      expect(a.indexes, where).toEqual(b.indexes);
      expect(a.validator, where).toBe(b.validator);
      expect(a.count, where).toBe(b.count);
      expect(
        writes.filter((w) => w.op !== 'update'),
        where,
      ).toEqual([]);
      break;
    default:
      // Reads (countDocuments, find, getIndexes, getCollectionInfos): nothing changes.
      expect(changed, where).toEqual([]);
      expect(writes, where).toEqual([]);
  }
  return kind;
}

type Stage = Record<string, unknown>;
const stagesOf = (pipeline: unknown): Stage[] =>
  Array.isArray(pipeline) ? pipeline.filter((s): s is Stage => typeof s === 'object' && s !== null) : [];

/**
 * What an aggregate's $merge stage writes into: `into` as a name (the aggregate's own database) or as
 * `{ db, coll }`; undefined when the pipeline has no $merge.
 */
function mergeOf(pipeline: unknown): { db?: string; coll: string } | undefined {
  const stage = stagesOf(pipeline).find((s) => '$merge' in s)?.$merge as { into?: unknown } | undefined;
  if (stage === undefined) return undefined;
  const into = stage.into;
  if (typeof into === 'object' && into !== null) {
    const { db, coll } = into as { db?: unknown; coll?: unknown };
    return { db: String(db), coll: String(coll) };
  }
  return { coll: String(into) };
}

interface Lookup {
  from: string;
  localField: string;
  foreignField: string;
  as: string;
}
const lookupOf = (pipeline: unknown): Lookup | undefined =>
  stagesOf(pipeline).find((s) => '$lookup' in s)?.$lookup as Lookup | undefined;

const own = (o: unknown, k: string): unknown =>
  typeof o === 'object' && o !== null && Object.prototype.hasOwnProperty.call(o, k)
    ? (o as Record<string, unknown>)[k]
    : undefined;
/** A dotted path's value in a document (own fields only: `__proto__` is a field here). */
const valueAt = (doc: unknown, path: string): unknown => path.split('.').reduce<unknown>(own, doc);
const define = (o: object, k: string, value: unknown): void =>
  void Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });
/** A copy of `doc` with `path` set (a field named `__proto__` included), making the objects on the way. */
function withValueAt(doc: unknown, path: string, value: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  const parts = path.split('.');
  let cur: object = copy;
  for (const p of parts.slice(0, -1)) {
    const next = own(cur, p);
    if (typeof next !== 'object' || next === null || Array.isArray(next)) define(cur, p, {});
    cur = own(cur, p) as object;
  }
  define(cur, parts.at(-1) ?? '', value);
  return copy;
}

/**
 * A value as canonical text: object keys sorted, arrays in order except the one at `sortAt` (a $lookup's `as`, whose
 * order MongoDB does not define), whose elements are sorted.
 */
function canon(v: unknown, sortAt: readonly string[] | null = null): string {
  if (Array.isArray(v)) {
    const items = v.map((x) => canon(x));
    if (sortAt !== null && sortAt.length === 0) items.sort();
    return `[${items.join(',')}]`;
  }
  if (typeof v === 'object' && v !== null)
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon(own(v, k), sortAt?.[0] === k ? sortAt.slice(1) : null)}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

/**
 * The documents a pipeline of the kinds the project prints writes with $merge, computed here from the source's and
 * the joined collection's documents: a `$lookup` (localField/foreignField, scalar keys; a missing key matches a
 * missing or null one) and a `$set` of `$map` over the joined array keeping `$$c.<field>`s (extended reference). Any
 * other stage fails the test: evaluate it here first.
 */
function mergedDocs(pipeline: unknown, docs: MergeDocs): unknown[] {
  let out = docs.source;
  for (const stage of stagesOf(pipeline)) {
    const [name] = Object.keys(stage);
    if (name === '$merge') break;
    if (name === '$lookup') {
      const l = stage.$lookup as Lookup;
      const key = (v: unknown) => {
        if (Array.isArray(v)) throw new Error('the paste test does not evaluate a $lookup on an array key');
        return canon(v ?? null);
      };
      out = out.map((d) =>
        withValueAt(
          d,
          l.as,
          docs.from.filter((c) => key(valueAt(c, l.foreignField)) === key(valueAt(d, l.localField))),
        ),
      );
      continue;
    }
    if (name === '$set') {
      for (const [field, expr] of Object.entries(stage.$set as Record<string, unknown>)) {
        const map = own(expr, '$map') as { input: string; as: string; in: Record<string, string> } | undefined;
        if (map === undefined || !map.input.startsWith('$'))
          throw new Error(`the paste test evaluates only $map in $set: ${JSON.stringify(expr)}`);
        const prefix = `$$${map.as}.`;
        out = out.map((d) => {
          const input = valueAt(d, map.input.slice(1));
          const mapped = (Array.isArray(input) ? input : []).map((c: unknown) => {
            const o = {};
            for (const [k, e] of Object.entries(map.in)) {
              if (!e.startsWith(prefix)) throw new Error(`the paste test evaluates only ${prefix}<field>: ${e}`);
              const v = valueAt(c, e.slice(prefix.length));
              if (v !== undefined) define(o, k, v);
            }
            return o;
          });
          return withValueAt(d, field, mapped);
        });
      }
      continue;
    }
    throw new Error(`the paste test does not evaluate ${String(name)} in a $merge pipeline: add it to mergedDocs`);
  }
  return out;
}

/**
 * Commands that make or replace a collection: createCollection makes exactly the one named, empty, with only the
 * `_id` index; aggregate with $merge fills exactly its target with the source's documents and leaves the source as it
 * was; renameCollection with dropTarget puts the source in the target's place, documents and indexes unchanged, and
 * touches nothing else.
 */
function judgeCollections(
  where: string,
  call: Call,
  kind: string,
  merge: { db?: string; coll: string } | undefined,
  ran: Ran,
  changed: string[],
  writes: { op: string; ns: string; command: Record<string, unknown> }[],
): string {
  const { before, after } = ran;
  if (kind === 'createCollection') {
    const name = String(call.args[0]);
    expect(changed, where).toEqual([name]);
    expect(before.colls[name], where).toBeUndefined();
    expect(after.colls[name]?.count, where).toBe(0);
    // The profiler records the create on the new namespace (SecantusDB) or on the database's $cmd.
    expect(
      writes.map((w) => [w.ns === `${DB}.$cmd` ? `${DB}.${name}` : w.ns, Object.keys(w.command)[0], w.command.create]),
      where,
    ).toEqual([[`${DB}.${name}`, 'create', name]]);
    return kind;
  }
  const source = call.collection ?? '';
  if (merge !== undefined) {
    // Into the named database (the aggregate's own, or `into.db`), a target that held nothing, and nothing else
    // changed: the source and the joined collection read the same after.
    expect(merge.db ?? call.db, where).toBe(DB);
    const into = merge.coll;
    expect(changed, where).toEqual([into]);
    expect(before.colls[into]?.count ?? 0, where).toBe(0);
    expect(after.colls[source], where).toEqual(before.colls[source]);
    expect(
      writes.filter((w) => w.ns !== `${DB}.${source}` && w.ns !== `${DB}.${into}` && w.ns !== `${DB}.$cmd`),
      where,
    ).toEqual([]);
    // The target holds exactly what the pipeline says, computed here from the documents it read: the source's
    // documents, with the joined children (or their kept fields) under the $lookup's `as`.
    expect(ran.docs, where).toBeDefined();
    if (ran.docs === undefined) return 'aggregate $merge';
    const docs: MergeDocs = {
      source: ran.docs.source.map(fromFields),
      target: ran.docs.target.map(fromFields),
      from: ran.docs.from.map(fromFields),
    };
    const sortAt = lookupOf(call.args[0])?.as.split('.') ?? null;
    const text = (list: unknown[]) => list.map((d) => canon(d, sortAt)).sort();
    expect(docs.target.length, where).toBe(docs.source.length);
    expect(text(docs.target), where).toEqual(text(mergedDocs(call.args[0], docs)));
    return 'aggregate $merge';
  }
  const target = String(call.args[0]);
  expect(call.args[1], where).toBe(true);
  // The target may read the same before and after (a copy of it replacing it): it need not show as changed.
  expect(
    changed.filter((c) => c !== target),
    where,
  ).toEqual([source]);
  expect(after.colls[source], where).toBeUndefined();
  expect(after.colls[target], where).toEqual(before.colls[source]);
  // renameCollection runs on admin, which the test does not profile: any write seen is on the two collections.
  expect(
    writes.filter((w) => w.ns !== `${DB}.${source}` && w.ns !== `${DB}.${target}` && w.ns !== `${DB}.$cmd`),
    where,
  ).toEqual([]);
  return kind;
}

const unescapeHtml = (s: string): string =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

const isCode = (l: string): boolean => /^(db\.|var |\/\/ )/.test(l);

/** Every ```js fence's lines in a text (Markdown, SARIF's markdown messages). */
const fenced = (text: string): string[] =>
  [...text.matchAll(/```js\n([\s\S]*?)\n```/g)].flatMap((m) => (m[1] ?? '').split('\n'));

/** Every string in a JSON value. */
const stringsOf = (v: unknown): string[] =>
  typeof v === 'string'
    ? [v]
    : Array.isArray(v)
      ? v.flatMap(stringsOf)
      : v !== null && typeof v === 'object'
        ? Object.values(v).flatMap(stringsOf)
        : [];

/** A printed `// ` line that holds a command: the later step, or how to undo. */
const uncomment = (l: string): string | undefined => {
  const m = /^\/\/ (?:to undo, if a query slows down: )?(db\..*)$/.exec(l);
  return m?.[1];
};

interface JsonFinding {
  recommendation?: { commands?: string[]; later?: { commands: string[] } };
}
/** JSON: the runnable commands, then each later step's commands as the report holds them (not commented out). */
function fromJson(text: string): { printed: string[]; later: string[] } {
  const findings = (JSON.parse(text) as { findings: JsonFinding[] }).findings;
  return {
    printed: findings.flatMap((f) => f.recommendation?.commands ?? []),
    later: findings.flatMap((f) => [
      ...(f.recommendation?.commands ?? []).map(uncomment).filter((l): l is string => l !== undefined),
      ...(f.recommendation?.later?.commands ?? []),
    ]),
  };
}

describe('paste test: every printed command does only its named action (real CLI, real mongosh)', () => {
  const uri = liveUri();
  const kind = inject('serverKind');
  const dir = mkdtempSync(join(tmpdir(), 'ma-paste-'));
  const queries = join(dir, 'queries.jsonl');
  const spec = join(dir, 'spec.json');
  const snap = join(dir, 'snap.json');
  const cli = async (args: string[]) =>
    await runProcess('node', [CLI, ...args], { env: { NO_COLOR: '1' }, timeoutMs: 90_000 });

  beforeAll(async () => {
    if (kind !== 'secantusdb') return;
    if (!existsSync(CLI) || !existsSync(PLUGIN)) throw new Error('dist/ is missing: run `npm run build` first');
    await seed(uri, true);
    writeFileSync(
      queries,
      [
        { find: BREAK_SEMI, filter: { 'orders-2024': 3, [BREAK_QUOTE]: { $gt: 5 } }, $db: DB },
        { find: BREAK_QUOTE, filter: { stats: 1 }, $db: DB },
        { find: 'stats', filter: { qty: 4 }, $db: DB },
        ...joins().map((c) => ({ ...c, $db: DB })),
      ]
        .map((q) => JSON.stringify(q))
        .join('\n') + '\n',
    );
    writeFileSync(
      spec,
      JSON.stringify({
        db: DB,
        collections: [
          { name: BREAK_SEMI, indexes: [{ key: { 'orders-2024': 1, [BREAK_QUOTE]: 1 } }] },
          { name: 'stats' },
          { name: 'orders-2024' },
          { name: BREAK_QUOTE },
        ],
      }),
    );
  }, 120_000);

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (kind !== 'secantusdb') return;
    const client = new MongoClient(uri);
    await client.connect();
    await client.db(DB).dropDatabase();
    await client.db(CANARY).dropDatabase();
    await client.close();
  });

  it('pastes the commands of check, audit, lint, analyze and advisor.check in every format', async (ctx) => {
    if (kind !== 'secantusdb') {
      ctx.skip(`runs on SecantusDB only (indexes, hideIndex, validators, collMod); this server is ${kind}`);
      return;
    }
    const started = Date.now();
    console.log(
      'paste test: not used as database names (MongoDB allows none of / \\ . space " $ in them, and the CLI refuses ' +
        `them before connecting): ${JSON.stringify([BREAK_QUOTE, BREAK_CONCAT, BREAK_SEMI, '"\\n'])}; used as ` +
        'collection, field and index names instead. The database name holds \' U+2028 ` | - ) ; and "stats".',
    );
    const work = ['--queries', queries, '--workload-complete', '--sample-size', String(SAMPLE)];
    const took: string[] = [];
    const timed = async <T>(label: string, p: Promise<T>): Promise<T> => {
      const t0 = Date.now();
      const r = await p;
      took.push(`${label} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      return r;
    };
    const run = async (args: string[]): Promise<string> => {
      const r = await timed(
        `${args[0] ?? ''}${args.includes('-f') ? ` ${args[args.indexOf('-f') + 1] ?? ''}` : ''}`,
        cli(args),
      );
      expect(r.code === 0 || r.code === 1, `${args.join(' ')}\n${r.err}`).toBe(true);
      return r.out;
    };
    const html = join(dir, 'audit.html');
    // The live runs, side by side (each waits on the server in turn): check (JSON, saving its snapshot), lint with the
    // spec and the queries, audit (HTML), and advisor.check() in mongosh.
    const shell = timed(
      'advisor.check()',
      runProcess(
        MONGOSH,
        [
          uri,
          '--quiet',
          '--norc',
          '--json=relaxed',
          '--eval',
          `load(${JSON.stringify(PLUGIN)}); db = db.getSiblingDB(${JSON.stringify(DB)}); ` +
            `advisor.check(undefined, { confirm: false, sampleSize: ${SAMPLE} })`,
        ],
        { env: { MONGOSH_NO_UPDATE_CHECK: '1' }, timeoutMs: 90_000 },
      ),
    );
    const live = Promise.all([
      run([
        'lint',
        uri,
        '--db',
        DB,
        '--spec',
        spec,
        '--queries',
        queries,
        '--sample-size',
        String(SAMPLE),
        '-q',
        '-v',
        '--fail-on',
        'info',
      ]),
      run(['audit', uri, '--db', DB, '-q', '-v', '-o', html, ...work]),
    ]);
    const json = await run([
      'check',
      uri,
      '--db',
      DB,
      '--no-confirm',
      '-q',
      '-v',
      ...work,
      '-f',
      'json',
      '--save-snapshot',
      snap,
    ]);
    // What mongod's $collStats reports and SecantusDB's lacks (wiredTiger.creationString's block_compressor), planted
    // in check's snapshot so that compression advises its copy: 64 MiB of data, the rule's default minDataBytes.
    const doc = JSON.parse(readFileSync(snap, 'utf8')) as {
      databases: { name: string; collections: { name: string; stats: Record<string, unknown> }[] }[];
    };
    const arr = doc.databases.find((d) => d.name === DB)?.collections.find((x) => x.name === ARR_COLL);
    expect(arr, `the snapshot has no ${JSON.stringify(ARR_COLL)}`).toBeDefined();
    Object.assign(arr?.stats ?? {}, {
      blockCompressor: 'snappy',
      sizeBytes: 64 * 2 ** 20,
      storageSizeBytes: 32 * 2 ** 20,
    });
    writeFileSync(snap, JSON.stringify(doc));
    // Every format from analyze of that snapshot (the renderer check uses, without the server: no load on it), and
    // lint of it.
    const analyze = (format: string) => run(['analyze', snap, '-f', format, '-v']);
    const [text, md, sarif, junit, jsonSnap, lintSnap] = await Promise.all([
      analyze('text'),
      analyze('markdown'),
      analyze('sarif'),
      analyze('junit'),
      analyze('json'),
      run(['lint', snap, '-q', '-v', '--fail-on', 'info']),
    ]);
    const [lintText] = await live;
    const sh = await shell;
    expect(sh.code, sh.err).toBe(0);
    const reported = Date.now();

    const reports: { label: string; printed: string[]; later: string[] }[] = [];
    const linesOf = (label: string, lines: string[]) => {
      const printed = lines.filter(isCode);
      reports.push({ label, printed, later: printed.map(uncomment).filter((l): l is string => l !== undefined) });
    };
    linesOf(
      'text',
      text
        .split('\n')
        .filter((l) => l.startsWith('      '))
        .map((l) => l.slice(6)),
    );
    linesOf('markdown', fenced(md));
    linesOf('sarif', stringsOf(JSON.parse(sarif)).flatMap(fenced));
    linesOf(
      'junit',
      unescapeHtml(junit)
        .split('\n')
        .filter((l) => l.startsWith('  '))
        .map((l) => l.slice(2)),
    );
    linesOf(
      'audit html',
      [...readFileSync(html, 'utf8').matchAll(/<pre class="cmd(?: later)?">([\s\S]*?)<\/pre>/g)].flatMap((m) =>
        unescapeHtml(m[1] ?? '').split('\n'),
      ),
    );
    linesOf(
      'lint text',
      `${lintText}\n${lintSnap}`
        .split('\n')
        .filter((l) => l.startsWith('      '))
        .map((l) => l.slice(6)),
    );
    const jsonLive = fromJson(json);
    const jsonSnapLines = fromJson(jsonSnap);
    // analyze of check's snapshot prints every command check printed live: the formats read from it are check's.
    expect(jsonLive.printed.filter((l) => !jsonSnapLines.printed.includes(l))).toEqual([]);
    expect(jsonLive.later.filter((l) => !jsonSnapLines.later.includes(l))).toEqual([]);
    reports.push({
      label: 'json',
      printed: [...new Set([...jsonLive.printed, ...jsonSnapLines.printed])],
      later: [...new Set([...jsonLive.later, ...jsonSnapLines.later])],
    });
    reports.push({ label: 'advisor.check() value', ...fromJson(sh.out) });

    const kinds = new Map<string, Set<string>>();
    const tally = (label: string, k: string) => kinds.set(k, (kinds.get(k) ?? new Set()).add(label));
    for (const r of reports) {
      expect(r.printed.length, `${r.label} printed no command`).toBeGreaterThan(0);
      // Every line printed runs as one call chain on the named database (or, commented out, runs nothing).
      const scope: Record<string, unknown> = {};
      for (const line of r.printed) {
        const calls = intentOf(line, scope);
        expect(calls.length, `${r.label}: ${line}`).toBeLessThanOrEqual(1);
        expect(calls[0]?.method ?? '', `${r.label}: ${line}`).not.toMatch(/^<unreadable/);
      }
    }
    // One paste for every format: the formats print the same command as the same text, so each distinct line is
    // pasted once (in the order it first appears) and its verdict is every format's that printed it; a format whose
    // line differs by one character is pasted as its own line. The lines as printed first, then each later step (and
    // each undo) uncommented, which must do exactly its own action. No format may print runnable what another prints
    // as a later step.
    const printed = [...new Set(reports.flatMap((r) => r.printed))];
    const later = [...new Set(reports.flatMap((r) => r.later))];
    expect(later.filter((l) => printed.includes(l))).toEqual([]);
    await seed(uri);
    const seeded = Date.now();
    const scope: Record<string, unknown> = {};
    const intents = printed.map((l) => intentOf(l, scope));
    const laterScope: Record<string, unknown> = {};
    const laterIntents = later.map((l) => intentOf(l, laterScope));
    laterIntents.forEach((c, j) => expect(c.length, later[j]).toBe(1));
    // The lines that are comments (templates, later steps and undos as printed; the vm ran nothing in them) are pasted
    // together, first: they must change nothing and write nothing, and one state read around them all shows it as well
    // as one around each (a breakout would still drop the canary or leave a write in the profiler).
    const all = [...printed, ...later];
    const calls = [...intents, ...laterIntents];
    const quiet = all.map((l, i) => l.startsWith('//') && calls[i]?.length === 0);
    const comments = all.flatMap((_, i) => (quiet[i] ? [i] : []));
    const units = [...(comments.length ? [comments] : []), ...all.flatMap((_, i) => (quiet[i] ? [] : [[i]]))];
    const ran = await paste(
      uri,
      dir,
      'every format',
      units.map((u) => u.map((i) => all[i] ?? '').join('\n')),
      units.map((u) => (u.length === 1 ? calls[u[0] ?? -1]?.[0] : undefined)),
    );
    const verdict = new Map<string, string>();
    const firstLabel = (line: string) => reports.find((r) => r.printed.includes(line) || r.later.includes(line))?.label;
    const keyOf = (i: number) => (i < printed.length ? (printed[i] ?? '') : `later ${later[i - printed.length] ?? ''}`);
    ran.forEach((x, k) => {
      const unit = units[k] ?? [];
      const text = unit.map((i) => all[i] ?? '').join('\n');
      const v = judge(
        firstLabel(all[unit[0] ?? -1] ?? '') ?? '',
        text,
        unit.length === 1 ? calls[unit[0] ?? -1]?.[0] : undefined,
        x,
      );
      for (const i of unit) verdict.set(keyOf(i), v);
    });
    // PASTE_DEBUG_LINES=<file>: every line pasted, its verdict, and the reports that printed it (to read a failure).
    if (process.env.PASTE_DEBUG_LINES)
      writeFileSync(
        process.env.PASTE_DEBUG_LINES,
        all
          .map(
            (l, i) =>
              `${verdict.get(keyOf(i)) ?? '?'} [${reports
                .filter((r) => r.printed.includes(l) || r.later.includes(l))
                .map((r) => r.label)
                .join(', ')}]\n  ${l}`,
          )
          .join('\n'),
      );
    for (const r of reports) {
      for (const line of r.printed) tally(r.label, verdict.get(line) ?? 'not pasted');
      for (const line of r.later) tally(`${r.label} (uncommented)`, verdict.get(`later ${line}`) ?? 'not pasted');
    }
    const s = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)} s`;
    const ended = Date.now();
    console.log(
      `paste test: ${reports.length} reports, ${s(started, ended)} (reports ${s(started, reported)}, seed ` +
        `${s(reported, seeded)}, ${all.length} lines pasted and judged in ${ran.length} pastes ${s(seeded, ended)}; ` +
        `${took.join(', ')})\n` +
        [...kinds].map(([k, where]) => `  ${k}: ${[...where].join(', ')}`).join('\n'),
    );
    // Every kind the project prints (test/support/paste-kinds.ts, which test/paste-kinds.test.ts holds to the
    // source) pasted and judged on the server, not merely refused, in every report but those that cannot print it.
    const labels = reports.map((r) => r.label);
    for (const k of PASTED_KINDS) {
      const where = [...(kinds.get(k) ?? [])].map((l) => l.replace(/ \(uncommented\)$/, ''));
      const expected = labels.filter((l) => !(LIVE_ONLY_REPORTS[k] ?? []).includes(l));
      const missing = expected.filter((l) => !where.includes(l));
      // The lines of those reports that call the kind's method, with the verdict each got: why it was not judged.
      const method = k.split(' ')[0] ?? k;
      const seen = reports
        .filter((r) => missing.includes(r.label))
        .flatMap((r) => [
          ...r.printed.map((l) => `${r.label}: ${verdict.get(l) ?? '?'}: ${l}`),
          ...r.later.map((l) => `${r.label} (uncommented): ${verdict.get(`later ${l}`) ?? '?'}: ${l}`),
        ])
        .filter((l) => l.includes(`.${method}(`));
      expect(missing, `${k} was not pasted and judged in these reports\n${seen.join('\n')}`).toEqual([]);
    }
    // And no kind the list does not know: a rule printing a new kind fails here under this seed.
    const known = new Set<string>([...PASTED_KINDS, 'comment']);
    expect([...kinds.keys()].filter((k) => !known.has(k) && !k.endsWith(' (refused)'))).toEqual([]);
    expect(kinds.get('comment')?.size, 'commented-out later lines pasted').toBeGreaterThan(0);
  }, 360_000);
});
