import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { excludedOn, LIVE_TEST_FILES, ONE_SERVER, PROGRAM_TEST_FILES, SLOW_FIRST, testServers } from './projects';

const globToRegExp = (g: string): RegExp =>
  new RegExp(`^${g.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);

describe('test projects', () => {
  it('every test file that talks to the test server is a live test (run on each server)', () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.test.ts'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
    const live = LIVE_TEST_FILES.map(globToRegExp);
    const needsServer = files.filter((f) =>
      /inject\(\s*'(mongoUris|serverKind|capabilities|blogDb)'|liveUri\(|useLiveDb\(/.test(readFileSync(f, 'utf8')),
    );
    expect(needsServer.length).toBeGreaterThan(5);
    expect(needsServer.filter((f) => !live.some((r) => r.test(f)))).toEqual([]);
  });

  it(
    'runs on FerretDB and SecantusDB by default, on MONGODB_URI alone when it is set, or on the servers ' + 'listed',
    () => {
      expect(testServers({})).toEqual(['ferretdb', 'secantusdb']);
      expect(testServers({ MONGODB_URI: 'mongodb://h:1/' })).toEqual(['MONGODB_URI']);
      expect(testServers({ MONGODB_URI: ' ', MONGO_ADVISOR_TEST_SERVERS: 'secantusdb' })).toEqual(['secantusdb']);
      expect(testServers({ MONGO_ADVISOR_TEST_SERVERS: 'ferretdb, mongodb-memory-server' })).toEqual([
        'ferretdb',
        'mongodb-memory-server',
      ]);
    },
  );
});

describe('files that run on one server', () => {
  it('names live files that exist, each with a reason, and leaves them out only where the other server runs', () => {
    for (const [file, o] of Object.entries(ONE_SERVER)) {
      expect(existsSync(file), file).toBe(true);
      expect(
        LIVE_TEST_FILES.map(globToRegExp).some((r) => r.test(file)),
        file,
      ).toBe(true);
      expect(o.why.length, file).toBeGreaterThan(10);
    }
    const both = ['ferretdb', 'secantusdb'];
    expect(excludedOn('ferretdb', both)).toContain('test/mongosh.e2e.test.ts');
    expect(excludedOn('secantusdb', both)).toContain('test/cli-flags.e2e.test.ts');
    expect(excludedOn('secantusdb', both)).not.toContain('test/mongosh.e2e.test.ts');
    // alone, a server runs everything; so does a real mongod
    expect(excludedOn('ferretdb', ['ferretdb'])).toEqual([]);
    expect(excludedOn('MONGODB_URI', ['MONGODB_URI'])).toEqual([]);
  });
});

describe('the programs project', () => {
  it('names files that exist and need no server; every unit file that starts the built CLI is one of them', () => {
    const live = LIVE_TEST_FILES.map(globToRegExp);
    for (const file of PROGRAM_TEST_FILES) {
      expect(existsSync(file), file).toBe(true);
      expect(
        live.some((r) => r.test(file)),
        file,
      ).toBe(false);
    }
    // the unit project runs without `npm run build`: no file of it may read dist/
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.test.ts'], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean);
    const unit = files.filter(
      (f) => !live.some((r) => r.test(f)) && !(PROGRAM_TEST_FILES as readonly string[]).includes(f),
    );
    expect(unit.length).toBeGreaterThan(50);
    expect(unit.filter((f) => /['"`/]dist['"`/]/.test(readFileSync(f, 'utf8')))).toEqual([]);
  });
});

describe('the slow files started first (test/support/sequencer.ts)', () => {
  it('names test files that exist, each once', () => {
    for (const file of SLOW_FIRST) expect(existsSync(file), file).toBe(true);
    expect(new Set(SLOW_FIRST).size).toBe(SLOW_FIRST.length);
  });
});
