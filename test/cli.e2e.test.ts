import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type ProcessResult, runProcess } from './support/run';
import { joinRegex } from './support/regex';
import { rulesOffConfig } from './support/rules-off';
import { liveUri } from './support/live-uri';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
/** The demo blog test/global-setup.ts seeds once per server (SHARED_BLOG): this file only reads it. */
const DB = inject('blogDb');

async function run(args: string[], env: Record<string, string> = {}, timeoutMs?: number): Promise<ProcessResult> {
  return await runProcess(process.execPath, [CLI, ...args], { env, ...(timeoutMs ? { timeoutMs } : {}) });
}

/**
 * What each server changes in the CLI's run: the findings it collects, and the demo's experiment. Its exit codes and
 * messages for bad input are server-independent: test/cli-usage.e2e.test.ts, on one server.
 */
describe('CLI (real binary, real server)', () => {
  const uri = liveUri();

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `npm run build` first (npm test does it)');
  });

  it('check --no-confirm --format json: exit 1 with the array-growth and id-pattern findings', async () => {
    const r = await run(['check', uri, '--db', DB, '--no-confirm', '--format', 'json']);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.out) as {
      findings: {
        ruleId: string;
        messageId: string;
        target: { collection: string; path?: string };
        confirmation?: unknown;
      }[];
      confirm: { enabled: boolean };
    };
    expect(result.confirm.enabled).toBe(false);
    const ag = result.findings.find((f) => f.ruleId === 'array-growth');
    expect(ag?.target).toMatchObject({ collection: 'posts', path: 'comments' });
    // The demo's collections are far below id-pattern's 100 MB clustering line: no clustering advice, for or against.
    expect(result.findings.filter((f) => f.ruleId === 'id-pattern' && f.target.collection === 'sessions')).toEqual([]);
    expect(result.findings.every((f) => f.confirmation === undefined)).toBe(true);
  });

  it(
    'demo: findings for the 1,000- and 10,000-comment posts, a measured push slowdown, binary UUIDs for ' +
      'string ones',
    async (ctx) => {
      // The demo's own path (seed, check, confirm, clean up) is the same on every server; its experiment on FerretDB is
      // array-growth's live test's. It runs where `npm run demo` runs on this machine (SecantusDB: no mongod to
      // download) and on any MongoDB given, not a second time on FerretDB (45 s).
      if (inject('serverKind') === 'ferretdb')
        ctx.skip(
          "the demo runs on SecantusDB, the server npm run demo picks here; array-growth's live test confirms on " +
            'FerretDB',
        );
      // Only the rules this test reads: each other experiment would cost its whole budget on these slow servers
      // (the demo honours --config's rules; `npm run demo` itself runs them all).
      const dir = mkdtempSync(join(tmpdir(), 'ma-demo-'));
      const config = rulesOffConfig(dir, 'demo.json', 'array-growth', 'id-pattern');
      const r = await run(['demo', '--no-color', '--config', config], { MONGODB_URI: uri }, 420_000);
      rmSync(dir, { recursive: true, force: true });
      // The blog is seeded to have errors: exit 1, as for check (the README's exit-code table).
      // (the report too when it fails: under a second suite's load FerretDB's demo once ended 0 after collecting)
      expect(r.code, `${r.err}\n${r.out}`).toBe(1);
      expect(r.out).toMatch(/Array `comments` .*10,000 elements/s);
      expect(r.out).toMatch(/→ reference/);
      expect(r.out).toMatch(
        joinRegex(
          /a \$push into an array of [\d,]+ took /s,
          /.*:\s+([\d,.]+x\s+\(95%\s+interval\s+[\d,.]+x–|about\s+[\d,.]+x–[\d,.]+x\s+\(95%\s+interval\))/s,
        ),
      );
      expect(r.out).toMatch(/carts › _id[\s\S]*UUID v4 values as 36-character\s+strings/);
      expect(r.err).toContain('Server:');
    },
    450_000,
  );
});
