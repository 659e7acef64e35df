/**
 * Names MongoDB refuses, and the server's own databases and collections (issue 18), through the real CLI, the real
 * mongosh and check() on the test server: one line saying what, why and what to do, exit 2, and nothing sent to the
 * database asked for (so local's oplog is never read, let alone copied into a scratch database).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rules } from '../rules';
import { DriverAdapter } from '../src/adapters/driver';
import { check } from '../src/check';
import { collectSnapshot } from '../src/collect';
import { confirmFindings } from '../src/confirm';
import type { ConfirmContext } from '../src/confirm/context';
import type { AnyRule } from '../src/core/rule';
import type { Finding } from '../src/core/types';
import { UserError } from '../src/core/errors';
import { recordingAdapter } from './support/recording';
import { type ProcessResult, runProcess } from './support/run';
import { scratchDatabases, scratchLeftSince } from './support/scratch';
import { liveUri } from './support/live-uri';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
const MONGOSH = join(ROOT, 'node_modules', '.bin', 'mongosh');
const PLUGIN = join(ROOT, 'dist', 'advisor.js');
const DB = 'mongo_advisor_test_names';
const LONG = 'x'.repeat(70);

async function cli(args: string[]): Promise<ProcessResult> {
  return await runProcess(process.execPath, [CLI, ...args]);
}

/** One line on stderr, `mongo-advisor: <message>`, no stack trace, no "This is a bug". */
function oneUserError(r: ProcessResult, message: RegExp): void {
  expect(r.code).toBe(2);
  // A loaded machine may add a heartbeat ("  … 5 s into: connecting"): progress, not a second error line. And the
  // server is shared with the other test files: the scan for leftovers may name their scratch databases (created, its
  // owner marker not yet written): a note about another run's database, not a second error line.
  const lines = r.err
    .trim()
    .split('\n')
    .filter((l) => !/^\s*… \d+ s into: /.test(l))
    .filter((l) => !/^mongo-advisor: mongo_advisor_scratch_[0-9a-f]+ .*(no mongo-advisor marker|left by)/.test(l));
  // The lines themselves in the failure: a full run once saw two where a run alone sees one (the leftover note).
  expect(lines, JSON.stringify(lines)).toHaveLength(1);
  expect(lines[0]).toMatch(message);
  expect(r.err).not.toMatch(/This is a bug|unexpected error|^\s+at /m);
}

/** A rule with no analysis whose experiment is `run` (the engine hands it the real confirm context). */
function probeRule(run: (ctx: ConfirmContext) => Promise<void>): AnyRule {
  const schema = { type: 'object', properties: {}, additionalProperties: false } as const;
  const meta = { description: 'test', docsUrl: 'https://example.invalid', severity: 'info' } as const;
  return {
    id: 'system-copy-probe',
    meta: { ...meta, messages: { probe: 'probe' }, options: schema, requires: { capabilities: [] } },
    scope: 'collection',
    analyze: () => undefined,
    confirm: {
      describe: "asks to copy the server's own collections",
      run: async (ctx) => {
        await run(ctx);
        return { status: 'supported', summary: 'probed', measurements: [] };
      },
    },
  } as AnyRule;
}

describe('names and system databases (real CLI, real mongosh, real server)', () => {
  const uri = liveUri();
  let client: MongoClient;

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `node scripts/build.mjs --skip-types` first');
    client = await MongoClient.connect(uri);
    const docs = Array.from({ length: 30 }, (_, i) => ({ n: i, tags: ['a', 'b'] }));
    await client.db(DB).collection('orders').insertMany(docs);
  });
  afterAll(async () => {
    await client?.db(DB).dropDatabase();
    await client?.close();
  });

  const dotted = /^mongo-advisor: Database name "a\.b" holds "\.", which MongoDB does not allow in database names .*$/;
  const long = new RegExp(`^mongo-advisor: Database name "${LONG}" is 70 bytes long, and MongoDB database names`);

  it('check, lint, collect and audit: "a.b" and a 70-byte name are a user error, named as such', async () => {
    const runs: [string[], RegExp][] = [
      [['check', uri, '--db', 'a.b', '--no-confirm'], dotted],
      [['check', uri, '--db', LONG], long],
      [['lint', uri, '--db', 'a.b'], dotted],
      [['lint', uri, '--db', DB, LONG], long],
      [['collect', uri, '--db', 'a.b', '-o', '-'], dotted],
      [['audit', uri, '--db', LONG, '-o', '-'], long],
    ];
    for (const [args, message] of runs) oneUserError(await cli(args), message);
  });

  it('a database named in the connection string is checked the same way', async () => {
    const base = uri.replace(/\/?(\?.*)?$/, '');
    const query = /\?.*$/.exec(uri)?.[0] ?? '';
    oneUserError(await cli(['check', `${base}/a.b${query}`, '--no-confirm']), dotted);
  });

  it('a collection name MongoDB refuses, or a system collection asked for, is a user error', async () => {
    const dollar = await cli(['check', uri, '--db', DB, '-c', 'a$b', '--no-confirm']);
    oneUserError(dollar, /^mongo-advisor: Collection name "a\$b" holds "\$"/);
    const profile = await cli(['lint', uri, '--db', DB, '-c', 'system.profile']);
    oneUserError(profile, /^mongo-advisor: Collection "mongo_advisor_test_names\.system\.profile" is a system/);
  });

  it("check --db local (confirming): exit 2, one line saying local is the server's own, nothing copied", async () => {
    const before = await scratchDatabases(uri);
    const r = await cli(['check', uri, '--db', 'local']);
    oneUserError(
      r,
      new RegExp(
        '^mongo-advisor: Database "local" holds the server\'s own data \\(the replication oplog, the startup log\\), ' +
          "not your application's: mongo-advisor neither checks it nor copies from it, so nothing was read\\.",
      ),
    );
    expect(r.out).toBe('');
    expect(await scratchLeftSince(uri, before)).toEqual([]);
    const config = await cli(['audit', uri, '--db', DB, 'config', '-o', '-']);
    oneUserError(config, /^mongo-advisor: Database "config" holds the server's own data/);
  });

  it('check() sends nothing at all for local (no read of oplog.rs, no scratch write)', async () => {
    const live = await DriverAdapter.connect(uri);
    try {
      const spy = recordingAdapter(live);
      const err = await check(spy, { db: 'local', rules, confirm: true }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(UserError);
      expect(spy.sent.map((s) => `${s.db} ${s.label}`)).toEqual([]);
    } finally {
      await live.close();
    }
  });

  it("confirmation never copies the server's own data, whatever a rule asks for", async () => {
    const live = await DriverAdapter.connect(uri);
    try {
      const snapshot = await collectSnapshot(live, { db: DB, sampleSize: 10 });
      const spy = recordingAdapter(live);
      const asked: string[] = [];
      const rule = probeRule(async (ctx) => {
        const own = [
          ['local', 'oplog.rs'],
          ['config', 'system.sessions'],
          [DB, 'system.profile'],
        ] as const;
        for (const [db, coll] of own) {
          const copy = ctx.sourceDocs(db, coll, { limit: 5 });
          asked.push(
            await copy.then(
              () => 'copied',
              (err: unknown) => (err as Error).message,
            ),
          );
        }
        expect(await ctx.sourceDocs(DB, 'orders', { limit: 5 })).toHaveLength(5);
      });
      const target = { db: DB, collection: 'orders' };
      const docsUrl = rule.meta.docsUrl;
      const probe = { ruleId: rule.id, messageId: 'probe', severity: 'info' as const };
      const finding: Finding = { ...probe, target, message: '', evidence: {}, docsUrl };
      const run = await confirmFindings(snapshot, [finding], spy, [rule], { budgetMs: 5_000 });
      expect(run.findings[0]?.confirmation?.status).toBe('supported');
      const never = "holds the server's own data, which is never copied into a scratch database";
      expect(asked).toEqual([
        `not copied: local.oplog.rs ${never}`,
        `not copied: config.system.sessions ${never}`,
        `not copied: ${DB}.system.profile ${never}`,
      ]);
      const reads = spy.sent.filter((c) => c.name === 'find' || c.name === 'aggregate');
      const namespaces = reads.map((c) => `${c.db}.${String(c.cmd[c.name])}`);
      expect(namespaces).toContain(`${DB}.orders`);
      expect(namespaces.filter((r) => /^(local|config)\.|\.system\./.test(r))).toEqual([]);
    } finally {
      await live.close();
    }
  });

  it('mongosh advisor.check: a bad database name or local is one line, no stack', async () => {
    const url = `${uri.replace(/\/?(\?.*)?$/, '')}/${DB}`;
    const shell = async (script: string): Promise<ProcessResult> => {
      const args = [url, '--quiet', '--norc', '--eval', `load(${JSON.stringify(PLUGIN)}); ${script}`];
      return await runProcess(MONGOSH, args, { env: { MONGOSH_NO_UPDATE_CHECK: '1' } });
    };
    const bad = await shell('advisor.check(undefined, { db: "a.b", confirm: false })');
    expect(bad.out + bad.err).toMatch(/mongo-advisor: Database name "a\.b" holds "\."/);
    expect(bad.out + bad.err).not.toMatch(/This is a bug|^\s+at /m);
    const local = await shell('advisor.check("oplog.rs", { db: "local" })');
    expect(local.out + local.err).toMatch(/mongo-advisor: Database "local" holds the server's own data/);
  });
});
