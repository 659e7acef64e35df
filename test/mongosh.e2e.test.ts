import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ProcessResult, runProcess } from './support/run';
import { dropDb, seedBlog } from './support/seed';

const ROOT = join(__dirname, '..');
const MONGOSH = join(ROOT, 'node_modules', '.bin', 'mongosh');
const PLUGIN = join(ROOT, 'dist', 'advisor.js');
const DB = 'mongo_advisor_test_mongosh';

/** Runs the real mongosh (asynchronously: see runProcess). */
async function mongosh(uri: string, script: string, json = false): Promise<ProcessResult> {
  const url = `${uri.replace(/\/?(\?.*)?$/, '')}/${DB}`;
  const args = [url, '--quiet', '--norc', ...(json ? ['--json=relaxed'] : []), '--eval', `load(${JSON.stringify(PLUGIN)}); ${script}`];
  return await runProcess(MONGOSH, args, { env: { MONGOSH_NO_UPDATE_CHECK: '1' } });
}

describe('mongosh plugin (real mongosh, real server)', () => {
  const uri = inject('mongoUri');

  beforeAll(async () => {
    if (!existsSync(PLUGIN)) throw new Error('dist/advisor.js is missing: run `npm run build` first (npm test does it)');
    await seedBlog(uri, DB);
  });
  afterAll(async () => {
    await dropDb(uri, DB);
  });

  it("load('dist/advisor.js'); advisor.check('posts') prints the readable report with its confirmation", async () => {
    const r = await mongosh(uri, "advisor.check('posts')");
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/mongo-advisor \d+\.\d+\.\d+/);
    expect(r.out).toMatch(/posts › comments\s+array-growth/);
    expect(r.out).toMatch(/Array `comments` .*10,000 elements/s);
    expect(r.out).toMatch(/✔ confirmed: .*a \$push into an array of/s);
    expect(r.out).toMatch(/dropped afterwards/);
    expect(r.out).not.toMatch(/could not drop/);
    // The clustered-vs-regular experiment on posts (up to 10 MB documents) runs to a verdict, or says the server
    // ignores clusteredIndex: it never fails (it once wrote 500 copies of them per batch and filled SecantusDB's cache).
    const idPattern = /posts › _id\s+id-pattern\n([\s\S]*?)\n\n/.exec(r.out)?.[1] ?? '';
    expect(idPattern, r.out).toMatch(/(✔ confirmed|✖ not borne out|≈ inconclusive): With new ObjectIds \(monotonic\) and batches of|○ not measured: The server accepted clusteredIndex but ignored it/);
    expect(idPattern).not.toContain('experiment failed');
  }, 300_000);

  it('with --json the value is the result fields; options are honoured', async () => {
    const r = await mongosh(uri, "advisor.check('sessions', { confirm: false, sampleSize: 50 })", true);
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(r.out) as { findings: { ruleId: string; messageId: string }[]; confirm: { enabled: boolean }; scope: { collections: string[] } };
    expect(result.confirm.enabled).toBe(false);
    expect(result.scope.collections).toEqual(['sessions']);
    // against clustering the UUID _ids, as random or as large (which one depends on the sample's order correlation)
    expect(result.findings.map((f) => `${f.ruleId}/${f.messageId}`)).toContainEqual(expect.stringMatching(/^id-pattern\/adviseAgainstClustered(Large)?$/));
  });

  it('bad input gives one clear line and no stack trace', async () => {
    const r = await mongosh(uri, "advisor.check('nope', { confirm: false })");
    expect(r.code).not.toBe(0);
    const text = r.out + r.err;
    expect(text).toMatch(/Collection "nope" does not exist in database "mongo_advisor_test_mongosh"/);
    expect(text).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
    const bad = await mongosh(uri, "advisor.check('posts', { sampelSize: 5 })");
    expect(bad.out + bad.err).toMatch(/Unknown option "sampelSize"/);
  });

  it('advisor.help() explains the commands', async () => {
    const r = await mongosh(uri, 'advisor.help()');
    expect(r.code).toBe(0);
    expect(r.out).toContain('advisor.check("posts", { confirm: false })');
  });
});
