/**
 * One flag vocabulary across commands (real CLI, real server): `-o, --output <file>` everywhere (`--out` a hidden,
 * announced alias), `--fail-on` defaults explained in --help and read from the configuration, an option naming a
 * field that does not exist is an error with "did you mean", hints never propose overwriting a file of the user's,
 * and an authentication refusal is named as such.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useLiveDb } from './support/live-db';
import { type ProcessResult, runProcess } from './support/run';
import { joinRegex } from './support/regex';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'mongo_advisor_test_cli_flags';

async function run(args: string[], cwd?: string): Promise<ProcessResult> {
  if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `node scripts/build.mjs --skip-types` first');
  return await runProcess(process.execPath, [CLI, ...args], {
    timeoutMs: 120_000,
    env: { MONGODB_URI: '' },
    ...(cwd ? { cwd } : {}),
  });
}

describe('flags and diagnoses (real CLI, live)', () => {
  const live = useLiveDb(DB, async (db) => {
    await db.collection('events').insertMany(
      Array.from({ length: 30 }, (_, i) => ({
        i,
        kind: 'click',
        createdAt: new Date(Date.UTC(2024, 0, 1 + i)),
        tags: Array.from({ length: 300 }, (_, k) => k),
      })),
    );
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

  it(
    'collect and audit write with --output; --out still works, with one line saying so; both at once must ' + 'agree',
    async () => {
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
      const both = await run([
        'collect',
        live.uri,
        '--db',
        DB,
        '-q',
        '--out',
        join(dir, 'c.json'),
        '--output',
        join(dir, 'd.json'),
      ]);
      expect(both.code).toBe(2);
      expect(both.err).toMatch(/name two files: give only -o, --output/);
      const html = join(dir, 'r.html');
      const audit = await run(['audit', live.uri, '--db', DB, '-q', '--no-confirm', '-o', html]);
      expect(audit.code, audit.err).toBe(0);
      expect(existsSync(html)).toBe(true);
    },
  );

  it('audit without -o names its file after the format it writes', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ma-audit-default-'));
    const r = await run(['audit', live.uri, '--db', DB, '-q', '--no-confirm', '-f', 'json'], cwd);
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(cwd)).toEqual(['mongo-advisor-audit.json']);
    expect(JSON.parse(readFileSync(join(cwd, 'mongo-advisor-audit.json'), 'utf8'))).toHaveProperty('findings');
  });

  it(
    '--fail-on: the defaults are explained in --help, and check and analyze read failOn from the ' + 'configuration',
    async () => {
      for (const cmd of ['check', 'analyze', 'audit', 'demo'])
        expect((await run([cmd, '--help'])).out.replace(/\s+/g, ' ')).toMatch(
          joinRegex(
            /--fail-on <severity>.*default: "failOn" of the configuration, else warn: this report is read by a /,
            /person; lint, the CI gate, defaults to error/,
          ),
        );
      expect((await run(['lint', '--help'])).out.replace(/\s+/g, ' ')).toMatch(
        joinRegex(
          /--fail-on <severity>.*else error: a CI gate fails on errors; check, analyze, audit and demo, read by a /,
          /person, default to warn/,
        ),
      );
      // The 300-element arrays give findings; failOn: info in the configuration makes any of them fail the run.
      const snap = join(dir, 'a.json');
      const config = join(dir, 'info.json');
      writeFileSync(config, JSON.stringify({ failOn: 'info' }));
      const findings = (JSON.parse((await run(['analyze', snap, '--format', 'json'])).out) as { findings: unknown[] })
        .findings.length;
      expect(findings).toBeGreaterThan(0);
      expect((await run(['analyze', snap, '--config', config])).code).toBe(1);
      expect((await run(['analyze', snap, '--config', config, '--fail-on', 'error'])).code).toBe(0);
      expect((await run(['check', live.uri, '--db', DB, '-q', '--no-confirm', '--config', config])).code).toBe(1);
    },
  );

  it('--time-field naming no field is an error with "did you mean", in check and collect', async () => {
    const check = await run(['check', live.uri, '--db', DB, '-q', '--no-confirm', '--time-field', 'createdAtt']);
    expect(check.code).toBe(2);
    expect(check.err).toMatch(
      joinRegex(
        /--time-field "createdAtt" names no field of the documents sampled in /,
        /mongo_advisor_test_cli_flags\.events\. Did you mean "createdAt"\? Fields holding dates there: createdAt\./,
      ),
    );
    const collect = await run([
      'collect',
      live.uri,
      '--db',
      DB,
      '-q',
      '--time-field',
      'nosuch',
      '--output',
      join(dir, 'never.json'),
    ]);
    expect(collect.code).toBe(2);
    expect(collect.err).toMatch(/--time-field "nosuch" names no field/);
    expect(existsSync(join(dir, 'never.json'))).toBe(false);
    // A field that exists is accepted.
    expect(
      (
        await run([
          'collect',
          live.uri,
          '--db',
          DB,
          '-q',
          '--time-field',
          'createdAt',
          '--output',
          join(dir, 'ok.json'),
        ])
      ).code,
    ).toBe(0);
  });

  it("a hint never proposes a command that would overwrite a file of the user's", async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'ma-hint-'));
    writeFileSync(join(cwd, 'snap.json'), 'mine');
    const r = await run(['analyze', 'mongodb://db.example.net/app'], cwd);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/mongo-advisor collect mongodb:\/\/db\.example\.net\/app --output snap-2\.json/);
    expect(r.err).not.toMatch(/--out(put)? snap\.json/);
  });

  it('an authentication refusal is reported as one: user, authSource, mechanism, never the password', async (ctx) => {
    const uri = live.uri
      .replace(/^mongodb:\/\//, 'mongodb://advisor_nobody:AuthSecret1@')
      .replace(/\/?(\?|$)/, `/${DB}?authSource=admin&serverSelectionTimeoutMS=5000&`)
      .replace(/&$/, '');
    const r = await run(['check', uri, '-q', '--no-confirm']);
    expect(r.out + r.err).not.toContain('AuthSecret1');
    if (r.code !== 2 || !/Authentication|auth/i.test(r.err))
      ctx.skip(`this server does not check credentials (exit ${String(r.code)}): ${r.err.slice(0, 200)}`);
    expect(r.err).toMatch(
      joinRegex(
        /Authentication failed at mongodb:\/\/advisor_nobody:\*\*\*\*@.* for user "advisor_nobody" \(authSource /,
        /admin, mechanism [^)]+\)/,
      ),
    );
    expect(r.err).toMatch(/the connection string itself is fine/);
    expect(r.err).not.toMatch(/not a MongoDB connection string|TLS/);
  });
  it(
    'one vocabulary: every command that writes a report takes -o and -f with every format it can write, ' +
      '--fail-on where it judges, --confirm and --no-confirm where it can confirm',
    async () => {
      const formats: Record<string, string[]> = {
        check: ['text', 'json', 'sarif', 'junit', 'markdown'],
        demo: ['text', 'json', 'sarif', 'junit', 'markdown'],
        analyze: ['text', 'json', 'sarif', 'junit', 'markdown'],
        lint: ['text', 'json', 'sarif', 'junit', 'markdown'],
        audit: ['html', 'text', 'json', 'sarif', 'junit', 'markdown'],
        collect: ['json'],
      };
      for (const [cmd, list] of Object.entries(formats)) {
        const help = (await run([cmd, '--help'])).out.replace(/\s+/g, ' ');
        expect(help, cmd).toMatch(/-o, --output <file>/);
        expect(help, cmd).toContain(`-f, --format <format>`);
        expect(help, cmd).toContain(`(choices: ${list.map((f) => `"${f}"`).join(', ')}`);
        if (cmd !== 'collect') expect(help, cmd).toMatch(/--fail-on <severity>/);
        if (cmd !== 'collect' && cmd !== 'analyze') expect(help, cmd).toMatch(/--confirm .*--no-confirm/);
      }
      for (const cmd of ['check', 'collect', 'lint', 'audit'])
        expect((await run([cmd, '--help'])).out, cmd).toMatch(/--db <name\.\.\.>/);
    },
  );

  it('check writes any format to -o, and --db takes several databases; audit judges with --fail-on', async () => {
    const other = `${DB}_b`;
    await live.client
      .db(other)
      .collection('events')
      .insertMany(Array.from({ length: 30 }, (_, i) => ({ i, tags: Array.from({ length: 300 }, (_, k) => k) })));
    try {
      const sarif = join(dir, 'check.sarif');
      // The 300-element arrays are info findings: exit 1 with --fail-on info, 0 by default (warn).
      const r = await run([
        'check',
        live.uri,
        '--db',
        DB,
        other,
        '-q',
        '--no-confirm',
        '-f',
        'sarif',
        '-o',
        sarif,
        '--fail-on',
        'info',
      ]);
      expect(r.code, r.err).toBe(1);
      expect(r.out).toBe('');
      const log = JSON.parse(readFileSync(sarif, 'utf8')) as {
        version: string;
        runs: { results: { locations: { logicalLocations?: { fullyQualifiedName?: string }[] }[] }[] }[];
      };
      expect(log.version).toBe('2.1.0');
      const where = JSON.stringify(log.runs[0]?.results ?? []);
      expect(where).toContain(`${DB}.events`);
      expect(where).toContain(`${other}.events`);
      const json = await run(['check', live.uri, '--db', DB, other, '-q', '--no-confirm', '-f', 'json']);
      expect((JSON.parse(json.out) as { scope: { db: string } }).scope.db).toBe(`${DB}, ${other}`);
      const both = await run(['check', live.uri, '--db', DB, other, '-c', 'events', '-q', '--no-confirm']);
      expect(both.code).toBe(2);
      expect(both.err).toMatch(/--collection needs exactly one database/);
      const audit = ['audit', live.uri, '--db', DB, '-q', '--no-confirm', '-f', 'json', '-o', join(dir, 'audit.json')];
      expect((await run(audit)).code).toBe(0);
      expect((await run([...audit, '--fail-on', 'info'])).code).toBe(1);
    } finally {
      await live.client.db(other).dropDatabase();
    }
  });
});
