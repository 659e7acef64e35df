import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProcessResult, runProcess } from './support/run';
import { MongoClient, UUID } from 'mongodb';
import { dropDb } from './support/seed';
import { liveUri } from './support/live-uri';

const ROOT = join(__dirname, '..');
const MONGOSH = join(ROOT, 'node_modules', '.bin', 'mongosh');
const PACKAGE = join(ROOT, 'dist', 'snippet');
const DB = 'mongo_advisor_test_snippet';

async function run(cmd: string, args: string[], env: Record<string, string>, cwd?: string): Promise<ProcessResult> {
  return await runProcess(cmd, args, { env, cwd });
}

describe('mongosh snippet package (npm pack, offline install, real mongosh, real server)', () => {
  const uri = liveUri();
  const home = mkdtempSync(join(tmpdir(), 'ma-snippet-home-'));
  const snippets = join(home, '.mongodb', 'mongosh', 'snippets');
  // A fresh HOME: mongosh finds its snippet folder there; npm keeps its cache there and stays offline.
  const env = {
    HOME: home,
    MONGOSH_NO_UPDATE_CHECK: '1',
    npm_config_update_notifier: 'false',
    npm_config_cache: join(home, '.npm'),
  };
  /** `typeof advisor` in the installing test's mongosh before `snippet load-all` ran. */
  let beforeLoadAll: string | undefined;
  let pkg: { name: string; version: string; main: string; scripts?: unknown; dependencies?: unknown };

  beforeAll(async () => {
    if (!existsSync(join(PACKAGE, 'package.json')))
      throw new Error('dist/snippet is missing: run `npm run build` first (npm test does it)');
    pkg = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as typeof pkg;
    // a small sessions collection (the demo's shape: UUID v4 _ids): the demo blog's 11 MB of posts were never read here
    const client = await MongoClient.connect(uri);
    try {
      await client.db(DB).dropDatabase();
      await client
        .db(DB)
        .collection<{ _id: UUID }>('sessions')
        .insertMany(
          Array.from({ length: 100 }, (_, i) => ({
            _id: new UUID(),
            userId: i % 30,
            startedAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
            device: i % 3 === 0 ? 'mobile' : 'desktop',
          })),
        );
    } finally {
      await client.close();
    }
  });
  afterAll(async () => {
    await dropDb(uri, DB);
  });

  it('ships built JS only: no dependencies, no install scripts, the core bundle beside the loader', () => {
    expect(pkg.scripts).toBeUndefined();
    expect(pkg.dependencies).toBeUndefined();
    expect(pkg.version).toBe(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
    );
    expect(readdirSync(PACKAGE).sort()).toEqual(['README.md', 'advisor-core.cjs', 'index.js', 'package.json']);
    expect(readFileSync(join(PACKAGE, pkg.main), 'utf8')).toContain(
      "createRequire(__filename)('./advisor-core.cjs').install(globalThis)",
    );
  });

  it(
    'installs offline into the snippet folder and `snippet load-all` defines advisor, which checks a ' + 'collection',
    async () => {
      const pack = await run('npm', ['pack', PACKAGE, '--pack-destination', home, '--silent'], env);
      expect(pack.code, pack.err).toBe(0);
      const tgz = join(home, pack.out.trim().split('\n').pop() as string);
      expect(existsSync(tgz)).toBe(true);

      mkdirSync(snippets, { recursive: true });
      writeFileSync(join(snippets, 'package.json'), '{}\n');
      // What `snippet install` does: npm install --ignore-scripts into the folder, saved to its package.json.
      const install = await run(
        'npm',
        ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--offline', tgz],
        env,
        snippets,
      );
      expect(install.code, install.err).toBe(0);
      expect(existsSync(join(snippets, 'node_modules', pkg.name, 'advisor-core.cjs'))).toBe(true);
      expect(
        Object.keys(
          (JSON.parse(readFileSync(join(snippets, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
            .dependencies,
        ),
      ).toEqual([pkg.name]);

      const url = `${uri.replace(/\/?(\?.*)?$/, '')}/${DB}`;
      const sh = await run(
        MONGOSH,
        [
          url,
          '--quiet',
          '--norc',
          '--json=relaxed',
          // the snippet is installed, not yet loaded: advisor must not exist before load-all (the last test reads it)
          '--eval',
          'print("BEFORE LOAD-ALL: " + typeof advisor)',
          '--eval',
          'snippet load-all',
          '--eval',
          "advisor.check('sessions', { confirm: false })",
        ],
        env,
      );
      expect(sh.code, sh.err).toBe(0);
      const [first = '', ...rest] = sh.out.split('\n');
      beforeLoadAll = /^BEFORE LOAD-ALL: (.*)$/.exec(first)?.[1];
      const result = JSON.parse(rest.join('\n')) as {
        tool: { version: string };
        scope: { db: string; collections: string[] };
        findings: { ruleId: string; target: { collection?: string } }[];
        confirm: { enabled: boolean };
      };
      expect(result.tool.version).toBe(pkg.version);
      expect(result.scope).toEqual({ db: DB, collections: ['sessions'] });
      expect(result.confirm.enabled).toBe(false);
      // Which rules fire is the rules' business; that the snippet's advisor read the collection and reported on it is
      // ours.
      expect(result.findings.filter((f) => f.target.collection === 'sessions').length).toBeGreaterThan(0);
    },
  );

  it('without load-all, advisor is not defined (the snippet is what brings it)', () => {
    // read in the previous test's mongosh (a start costs seconds), with the snippet installed, before its load-all
    expect(beforeLoadAll, 'the offline-install test did not reach its mongosh').toBe('undefined');
  });
});
