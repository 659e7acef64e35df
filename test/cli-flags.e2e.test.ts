/**
 * One flag vocabulary across commands (real CLI, real server): `-o, --output <file>` everywhere (`--out` a hidden,
 * announced alias), `--fail-on` defaults explained in --help and read from the configuration, an option naming a
 * field that does not exist is an error with "did you mean", hints never propose overwriting a file of the user's,
 * and an authentication refusal is named as such.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useLiveDb } from './support/live-db';
import { type ProcessResult, runProcess } from './support/run';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'mongo_advisor_test_cli_flags';

async function run(args: string[], cwd?: string): Promise<ProcessResult> {
  if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `node scripts/build.mjs --skip-types` first');
  return await runProcess(process.execPath, [CLI, ...args], { timeoutMs: 120_000, env: { MONGODB_URI: '' }, ...(cwd ? { cwd } : {}) });
}

describe('flags and diagnoses (real CLI, live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('events').insertMany(Array.from({ length: 30 }, (_, i) => ({ i, kind: 'click', createdAt: new Date(Date.UTC(2024, 0, 1 + i)), tags: Array.from({ length: 300 }, (_, k) => k) })));
  });
  const dir = mkdtempSync(join(tmpdir(), 'ma-flags-'));

  it('every command that writes a file says -o, --output in --help; none shows --out', async () => {
    for (const cmd of ['collect', 'audit', 'lint', 'analyze']) {
      const help = await run([cmd, '--help']);
      expect(help.code).toBe(0);
      expect(help.out, cmd).toMatch(/-o, --output <file>/);
      expect(help.out, cmd).not.toMatch(/--out\b/);
    }
  });

  it('collect and audit write with --output; --out still works, with one line saying so; both at once must agree', async () => {
    const snap = join(dir, 'a.json');
    const a = await run(['collect', live.uri, '--db', DB, '-q', '--output', snap]);
    expect(a.code, a.err).toBe(0);
    expect(JSON.parse(readFileSync(snap, 'utf8'))).toMatchObject({ format: 'mongo-advisor-snapshot' });
    expect(a.err).not.toMatch(/--out is now/);
    const old = join(dir, 'b.json');
    const b = await run(['collect', live.uri, '--db', DB, '-q', '--out', old]);
    expect(b.code, b.err).toBe(0);
    expect(existsSync(old)).toBe(true);
    expect(b.err).toMatch(/--out is now -o, --output/);
    const both = await run(['collect', live.uri, '--db', DB, '-q', '--out', join(dir, 'c.json'), '--output', join(dir, 'd.json')]);
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/name two files: give only -o, --output/);
    const html = join(dir, 'r.html');
    const audit = await run(['audit', live.uri, '--db', DB, '-q', '--no-confirm', '-o', html]);
    expect(audit.code, audit.err).toBe(0);
    expect(existsSync(html)).toBe(true);
  });

  it('--fail-on: the defaults are explained in --help, and check and analyze read failOn from the configuration', async () => {
    for (const cmd of ['check', 'analyze']) expect((await run([cmd, '--help'])).out.replace(/\s+/g, ' ')).toMatch(/--fail-on <severity>.*default: "failOn" of the configuration, else warn: this report is read by a person; lint, the CI gate, defaults to error/);
    expect((await run(['lint', '--help'])).out.replace(/\s+/g, ' ')).toMatch(/--fail-on <severity>.*else error: a CI gate fails on errors; check and analyze, read by a person, default to warn/);
    // The 300-element arrays give findings; failOn: info in the configuration makes any of them fail the run.
    const snap = join(dir, 'a.json');
    const config = join(dir, 'info.json');
    writeFileSync(config, JSON.stringify({ failOn: 'info' }));
    const findings = (JSON.parse((await run(['analyze', snap, '--format', 'json'])).out) as { findings: unknown[] }).findings.length;
    expect(findings).toBeGreaterThan(0);
    expect((await run(['analyze', snap, '--config', config])).code).toBe(1);
    expect((await run(['analyze', snap, '--config', config, '--fail-on', 'error'])).code).toBe(0);
    expect((await run(['check', live.uri, '--db', DB, '-q', '--no-confirm', '--config', config])).code).toBe(1);
  });

  it('--time-field naming no field is an error with "did you mean", in check and collect', async () => {
    const check = await run(['check', live.uri, '--db', DB, '-q', '--no-confirm', '--time-field', 'createdAtt']);
    expect(check.code).toBe(2);
    expect(check.err).toMatch(/--time-field "createdAtt" names no field of the documents sampled in mongo_advisor_test_cli_flags\.events\. Did you mean "createdAt"\? Fields holding dates there: createdAt\./);
    const collect = await run(['collect', live.uri, '--db', DB, '-q', '--time-field', 'nosuch', '--output', join(dir, 'never.json')]);
    expect(collect.code).toBe(2);
    expect(collect.err).toMatch(/--time-field "nosuch" names no field/);
    expect(existsSync(join(dir, 'never.json'))).toBe(false);
    // A field that exists is accepted.
    expect((await run(['collect', live.uri, '--db', DB, '-q', '--time-field', 'createdAt', '--output', join(dir, 'ok.json')])).code).toBe(0);
  });

  it('a hint never proposes a command that would overwrite a file of the user\'s', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ma-hint-'));
    writeFileSync(join(cwd, 'snap.json'), 'mine');
    const r = await run(['analyze', 'mongodb://db.example.net/app'], cwd);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/mongo-advisor collect mongodb:\/\/db\.example\.net\/app --output snap-2\.json/);
    expect(r.err).not.toMatch(/--out(put)? snap\.json/);
  });

  it('an authentication refusal is reported as one: user, authSource, mechanism, never the password', async (ctx) => {
    const uri = live.uri.replace(/^mongodb:\/\//, 'mongodb://advisor_nobody:AuthSecret1@').replace(/\/?(\?|$)/, `/${DB}?authSource=admin&serverSelectionTimeoutMS=5000&`).replace(/&$/, '');
    const r = await run(['check', uri, '-q', '--no-confirm']);
    expect(r.out + r.err).not.toContain('AuthSecret1');
    if (r.code !== 2 || !/Authentication|auth/i.test(r.err)) ctx.skip(`this server does not check credentials (exit ${String(r.code)}): ${r.err.slice(0, 200)}`);
    expect(r.err).toMatch(/Authentication failed at mongodb:\/\/advisor_nobody:\*\*\*\*@.* for user "advisor_nobody" \(authSource admin, mechanism [^)]+\)/);
    expect(r.err).toMatch(/the connection string itself is fine/);
    expect(r.err).not.toMatch(/not a MongoDB connection string|TLS/);
  });
});
