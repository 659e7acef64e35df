import { existsSync } from 'node:fs';
import { MongoClient } from 'mongodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { mongosh as runMongosh, PLUGIN } from './support/mongosh';
import type { ProcessResult } from './support/run';
import { SCRATCH_PREFIX } from '../src/confirm/scratch';
import { rules } from '../rules';
import { onlyRules } from './support/only-rules';
import { VERSION } from '../src/version';
import { scratchDatabases, scratchLeftSince } from './support/scratch';
import { joinRegex } from './support/regex';
import { liveUri } from './support/live-uri';

/** The demo blog test/global-setup.ts seeds once per server (SHARED_BLOG): this file only reads it. */
const DB = inject('blogDb');

/** Runs the real mongosh with the plugin loaded (test/support/mongosh.ts), on `shellDb`. */
const mongosh = (uri: string, script: string, json = false, shellDb = DB): Promise<ProcessResult> =>
  runMongosh(uri, shellDb, script, { json });

/** `f()` run once, when a test first asks for it: the tests that read one mongosh run share it. */
function once<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}

/**
 * mongosh code that records, in `sent`, every command the plugin sends (as `db.command`): the plugin's ShellAdapter
 * sends them all through db.getSiblingDB(name).runCommand.
 */
const RECORD_COMMANDS =
  'const sent = []; const sibling = db.getSiblingDB.bind(db); db.getSiblingDB = (name) => { const d = ' +
  'sibling(name); return { runCommand: (cmd) => { sent.push(name + "." + Object.keys(cmd)[0]); return ' +
  'd.runCommand(cmd); } }; };';

/**
 * Several calls in one mongosh, since each start costs seconds: each call but the last is awaited in turn between
 * markers (`@@<i> start`, then `@@<i> resolved`, or `@@<i> rejected <the error's stack>`: for the plugin's errors the
 * one line mongosh shows); the last is left to mongosh, so the exit code and mongosh's own printing of an error are
 * those of a single call. `before` runs first (RECORD_COMMANDS); each call may use `sent`, emptied before it.
 */
function inOneShell(calls: readonly string[], before = ''): string {
  const empty = "if (typeof sent !== 'undefined') sent.length = 0;";
  const head = calls.slice(0, -1).map((c) => `async () => { ${c}; }`);
  return (
    `${before} (async () => { for (const [i, run] of [${head.join(', ')}].entries()) { print("@@" + i + " start"); ` +
    `${empty} try { await run(); print("@@" + i + " resolved"); } catch (e) { print("@@" + i + " rejected " + ` +
    `String(e && e.stack ? e.stack : e)); } } print("@@${calls.length - 1} start"); ${empty} })().then(() => ` +
    `${calls[calls.length - 1] ?? ''})`
  );
}

/** What `inOneShell` printed for call `i` (up to the next call's start), and whether that call rejected. */
function settled(out: string, i: number): { rejected: boolean; text: string } {
  const from = out.indexOf(`@@${i} start`);
  expect(from, out).toBeGreaterThanOrEqual(0);
  const to = out.indexOf(`@@${i + 1} start`, from);
  const text = out.slice(from, to === -1 ? undefined : to);
  return { rejected: text.includes(`@@${i} rejected `), text };
}

const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

describe('mongosh plugin (real mongosh, real server)', () => {
  const uri = liveUri();

  beforeAll(async () => {
    if (!existsSync(PLUGIN))
      throw new Error('dist/advisor.js is missing: run `npm run build` first (npm test does it)');
  });

  it("load('dist/advisor.js'); advisor.check('posts') prints the readable report with its confirmation", async () => {
    // posts is far below id-pattern's 100 MB clustering line, and its ObjectIds are 12 bytes: lowering both lines makes
    // id-pattern advise against clustering them (as large), so the experiment runs on posts' large documents.
    // Only the two rules read here: the other experiments on posts and the default 30 s budget cost a minute and proved
    // nothing more about the plugin (each rule's live test covers its experiment). One mongosh for both (a start costs
    // seconds), one check each: id-pattern's first, printed with print() (the text the prompt shows for the value),
    // with 5 s, since its experiment fills whatever budget it has and only the form of its verdict is read here; then
    // array-growth's, whose supported verdict needs its 15 s on a loaded machine, printed by mongosh as the last value.
    const idPattern = {
      ...onlyRules('id-pattern').rules,
      'id-pattern': { options: { clusterMinBytes: 0, smallIdBytes: 10 } },
    };
    const r = await mongosh(
      uri,
      `print(advisor.check('posts', { confirmBudget: 5, rules: ${JSON.stringify(idPattern)} })); ` +
        `advisor.check('posts', { confirmBudget: 15, rules: ${JSON.stringify(onlyRules('array-growth').rules)} })`,
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/mongo-advisor \d+\.\d+\.\d+/);
    expect(r.out).toMatch(/posts › comments\s+array-growth/);
    expect(r.out).toMatch(/Array `comments` .*10,000 elements/s);
    expect(r.out).toMatch(/✔ supported: .*a \$push into an array of/s);
    expect(r.out).toMatch(/dropped afterwards/);
    expect(r.out).not.toMatch(/could not drop/);
    // The clustered-vs-regular experiment on posts (up to 10 MB documents) runs to a verdict, or says the server
    // ignores clusteredIndex: it never fails (it once wrote 500 copies of them per batch and filled SecantusDB's
    // cache).
    const verdict = /posts › _id\s+id-pattern\n([\s\S]*?)\n\n/.exec(r.out)?.[1] ?? '';
    expect(verdict, r.out).toMatch(
      joinRegex(
        /(✔ supported|✖ refuted|≈ inconclusive): With new ObjectIds \(monotonic\) and batches of|○ not measured: /,
        /The server accepted clusteredIndex but ignored it/,
      ),
    );
    expect(verdict).not.toContain('experiment failed');
  }, 300_000);

  /**
   * One mongosh --json for two tests (a start costs seconds): `first`, a read-only check's value (its result fields),
   * then `every`, a call with every option, recording the commands it sent (RECORD_COMMANDS, emptied between them).
   */
  const jsonRun = once(async () => {
    // the first reads id-pattern's findings only: the other rules' reads of 3,000 sessions are off (more options)
    const firstRules = { ...onlyRules('id-pattern').rules, 'id-pattern': { options: { clusterMinBytes: 0 } } };
    const opts =
      `{ confirm: false, sampleSize: 50, maxTimeMS: 20000, confirmBudget: 30, db: ${JSON.stringify(DB)}, ` +
      `rules: { 'id-pattern': { severity: 'error', options: { clusterMinBytes: 0 } }, 'array-growth': { ` +
      `options: { warnLength: 500 } } } }`;
    const r = await mongosh(
      uri,
      // the shell awaits advisor.check where the script uses its value, as it does its own methods
      `${RECORD_COMMANDS} const first = advisor.check('sessions', { confirm: false, sampleSize: 50, rules: ` +
        `${JSON.stringify(firstRules)} }); sent.length = 0; ` +
        `const r = advisor.check('sessions', ${opts}); ({ first, every: { enabled: r.confirm.enabled, ` +
        `findings: r.findings.map((f) => f.ruleId + '/' + f.severity), sent } })`,
      true,
    );
    expect(r.code, r.err).toBe(0);
    return JSON.parse(r.out) as {
      first: {
        findings: { ruleId: string; messageId: string }[];
        confirm: { enabled: boolean };
        scope: { collections: string[] };
      };
      every: { enabled: boolean; findings: string[]; sent: string[] };
    };
  });

  it('with --json the value is the result fields; options are honoured', async () => {
    const result = (await jsonRun()).first;
    expect(result.confirm.enabled).toBe(false);
    expect(result.scope.collections).toEqual(['sessions']);
    // id-pattern judges UUID v4 _ids by their version and bytes: random, every run (the size line lowered by the
    // option)
    expect(result.findings.filter((f) => f.ruleId === 'id-pattern').map((f) => f.messageId)).toEqual([
      'adviseAgainstClustered',
    ]);
  });

  /**
   * One mongosh for the refusals and the help text (a start costs seconds; inOneShell): each call but the last settles
   * in the script between markers, rejected or resolved, and the last is mongosh's, so the exit code is that of one
   * refused call. The scratch databases listed before it, for the test that no run began.
   */
  const REFUSALS = [
    "advisor.check('nope', { confirm: false })",
    "advisor.check('posts', { sampelSize: 5 })",
    'print(advisor.help())',
    "try { advisor.check('posts', { confirm: 'no' }) } finally { print(\"SENT \" + JSON.stringify(sent)) }",
    "try { advisor.check('posts', { rules: { 'array-grwth': { options: { warnLength: 500 } } } }) } " +
      'finally { print("SENT " + JSON.stringify(sent)) }',
    "advisor.check('posts', { confirm: false, rules: { 'array-growth': { options: { warnLenght: 500 } } } })",
    "advisor.check('posts', { confirm: false, sampleSize: 0 })",
    "advisor.check('posts', { confirm: false, maps: { minWordKey: 40 } })",
    "advisor.check('posts', { confirm: false, maps: { minShapedShare: 2 } })",
  ];
  const refusals = once(async () => {
    const before = await scratchDatabases(uri);
    const r = await mongosh(uri, inOneShell(REFUSALS, RECORD_COMMANDS));
    return { r, before };
  });

  it('bad input gives one clear line and no stack trace', async () => {
    const { r } = await refusals();
    const nope = settled(r.out, 0);
    expect(nope.rejected, nope.text).toBe(true);
    expect(nope.text).toMatch(new RegExp(`Collection "nope" does not exist in database "${DB}"`));
    expect(nope.text).not.toMatch(STACK_LINE);
    const bad = settled(r.out, 1);
    expect(bad.rejected, bad.text).toBe(true);
    expect(bad.text).toContain(
      'mongo-advisor: advisor.check did not run: Unknown option "sampelSize". Did you mean "sampleSize"? ' +
        'Options: confirm, sampleSize, db, confirmBudget, maxTimeMS, maxLoad, maps, rules.',
    );
    expect(bad.text).not.toMatch(STACK_LINE);
  });

  it(
    'advisor.check("<a database>"): checked as that database when no collection has the name, and said so; a ' +
      'shell database that does not exist gets mongosh wording',
    async () => {
      const other = `${DB}_other`;
      const client = new MongoClient(uri);
      try {
        await client
          .db(other)
          .collection('things')
          .insertMany(Array.from({ length: 5 }, (_, i) => ({ i })));
        // One mongosh (a start costs seconds; inOneShell): from a database that exists, naming another database;
        // then, with the shell switched to a database that does not exist (db = db.getSiblingDB, as `use` does), the
        // same name, and a name that is neither (the last call, mongosh's own).
        const absent = await mongosh(
          uri,
          inOneShell([
            `print(advisor.check(${JSON.stringify(other)}, { confirm: false }))`,
            `db = db.getSiblingDB(${JSON.stringify(`${DB}_absent`)}); ` +
              `print(String(advisor.check(${JSON.stringify(other)}, { confirm: false })))`,
            "advisor.check('posts', { confirm: false })",
          ]),
        );
        const named = settled(absent.out, 0);
        expect(named.text, absent.err).toContain('@@0 resolved');
        expect(named.text).toContain(`mongo-advisor ${VERSION} · ${other} on`);
        expect(named.text.replace(/\s+/g, ' ')).toContain(
          `"${other}" is no collection of database "${DB}" but a database of its own: every collection of ` +
            `"${other}" was checked`,
        );
        // the progress lines name only what was read: never the collection "<db>.<other>" that does not exist
        expect(absent.err).toMatch(new RegExp(`^collecting ${other}$`, 'm'));
        expect(absent.err).not.toContain(`collecting ${DB}.${other}`);
        const fromEmpty = settled(absent.out, 1);
        expect(fromEmpty.text, absent.err).toContain('@@1 resolved');
        expect(fromEmpty.text.replace(/\s+/g, ' ')).toContain(
          `the shell's database "${DB}_absent" does not exist, and "${other}" is a database`,
        );
        // a name that is neither: the shell's own words, not the CLI's --db
        expect(absent.code).not.toBe(0);
        const neither = { out: settled(absent.out, 2).text, err: absent.err };
        expect(neither.out + neither.err).toContain(`Database "${DB}_absent" does not exist`);
        expect(neither.out + neither.err).toContain('switch with use("<name>"), or pass { db: "<name>" }');
        expect(neither.out + neither.err).not.toContain('--db');
        expect(neither.out + neither.err).not.toMatch(STACK_LINE);
      } finally {
        await client.db(other).dropDatabase();
        await client.close();
      }
    },
  );

  it("{ confirm: 'no' } is refused before the plugin sends a command: no scratch database, no writes", async () => {
    const { r, before } = await refusals();
    const no = settled(r.out, 3);
    expect(no.rejected, no.text).toBe(true);
    expect(no.text).toContain(
      'mongo-advisor: advisor.check did not run: Option confirm is "no" (a string), but it must be true or ' +
        'false. Write { confirm: false } to skip the scratch experiments (read-only), or leave confirm out to ' +
        'run them.',
    );
    expect(no.text).not.toMatch(STACK_LINE);
    // Not one command: no read, no scratch database (posts has an array-growth finding a run would confirm there).
    expect(no.text).toContain('SENT []');
    expect(await scratchLeftSince(uri, before)).toEqual([]);
  }, 240_000);

  it('unknown rule ids and rule options are refused with the nearest name', async () => {
    const { r } = await refusals();
    const rule = settled(r.out, 4);
    expect(rule.rejected, rule.text).toBe(true);
    expect(rule.text).toContain(
      `mongo-advisor: advisor.check did not run: Unknown rule "array-grwth" in rules. Did you mean ` +
        `"array-growth"? Rules: ${rules.map((x) => x.id).join(', ')}.`,
    );
    expect(rule.text).toContain('SENT []');
    expect(rule.text).not.toMatch(STACK_LINE);
    const option = settled(r.out, 5);
    expect(option.rejected, option.text).toBe(true);
    expect(option.text).toMatch(
      joinRegex(
        /advisor\.check did not run: Unknown option "warnLenght" for rule array-growth\. Did you mean /,
        /"warnLength"\? Options of array-growth: [^\n]*\bwarnLength\b/,
      ),
    );
    const number = settled(r.out, 6);
    expect(number.rejected, number.text).toBe(true);
    expect(number.text).toContain(
      'advisor.check did not run: Option sampleSize is 0, but it must be a positive whole number of documents.',
    );
    const mapKey = settled(r.out, 7);
    expect(mapKey.rejected, mapKey.text).toBe(true);
    expect(mapKey.text).toContain(
      'advisor.check did not run: Unknown key "maps.minWordKey". Did you mean "minWordKeys"? For example { ' +
        'maps: { minWordKeys: 40 } }; its keys: minDistinctKeys, minShapedShare, minWordKeys, minKeySpread, ' +
        'maxKeysPerPath.',
    );
    expect(r.code).not.toBe(0);
    const mapValue = { out: settled(r.out, 8).text, err: r.err };
    expect(mapValue.out + mapValue.err).toContain(
      'advisor.check did not run: Option maps.minShapedShare is 2, but it must be <= 1: Share of those keys ' +
        'that must be data-shaped (default 0.9).',
    );
    expect(mapValue.out + mapValue.err).not.toMatch(STACK_LINE);
  });

  it(
    'a valid call with every option still runs, honours them and, with confirm: false, sends nothing to ' + 'scratch',
    async () => {
      const got = (await jsonRun()).every;
      expect(got.enabled).toBe(false);
      expect(got.findings).toContain('id-pattern/error');
      expect(got.sent).toContainEqual(`${DB}.listCollections`);
      // the leftovers check may read the owner marker of another test file's scratch database (a find): nothing else
      expect(got.sent.filter((c) => c.startsWith(SCRATCH_PREFIX) && !c.endsWith('.find'))).toEqual([]);
    },
  );

  it('advisor.help() explains the commands', async () => {
    const { r } = await refusals();
    const help = settled(r.out, 2);
    expect(help.text).toContain('@@2 resolved');
    expect(help.text).toContain('advisor.check("posts", { confirm: false })');
  });
});
