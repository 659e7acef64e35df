/**
 * The CLI's exit codes and messages for bad input (real binary, real server): what it says does not depend on which
 * server answers, so this file runs on one (test/projects.ts, ONE_SERVER); test/cli.e2e.test.ts keeps what each
 * server changes (the findings they collect, the demo's experiment).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { type ProcessResult, runProcess } from './support/run';
import { serverHeaderName } from './support/server-header';
import { liveUri } from './support/live-uri';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.cjs');
/** The demo blog test/global-setup.ts seeds once per server (SHARED_BLOG): this file only reads it. */
const DB = inject('blogDb');

async function run(args: string[], env: Record<string, string> = {}): Promise<ProcessResult> {
  return await runProcess(process.execPath, [CLI, ...args], { env });
}

function noStack(s: string): void {
  expect(s).not.toMatch(/^\s+at .+\(.*:\d+:\d+\)$/m);
}

describe('CLI usage and input errors (real binary, real server)', () => {
  const uri = liveUri();

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `npm run build` first (npm test does it)');
  });

  it('--fail-on: exit 0 when nothing reaches it', async () => {
    const r = await run(['check', uri, '--db', DB, '--collection', 'events', '--no-confirm', '--fail-on', 'warn']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('mongo-advisor');
    // The header names the server as what buildInfo says it is (test/readme-sample.e2e.test.ts checks it on the other
    // server): an imitation by its own name, mongod as MongoDB.
    const named = await serverHeaderName(uri);
    expect(r.out.split('\n')[0]).toContain(named);
  });

  it('an unknown database: exit 2, one clear line, no stack trace', async () => {
    const r = await run(['check', uri, '--db', 'no_such_database_xyz', '--no-confirm']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Database "no_such_database_xyz" does not exist/);
    noStack(r.err);
  });

  it('an unknown collection names the ones that exist', async () => {
    const r = await run(['check', uri, '--db', DB, '--collection', 'postz', '--no-confirm']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Collection "postz" does not exist .* Collections there: events, posts, sessions/);
  });

  it('a connection string that is not one: exit 2', async () => {
    const r = await run(['check', 'http://localhost:27017', '--db', 'x']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/"http:\/\/localhost:27017" starts with http:\/\/, not mongodb:\/\/ or mongodb\+srv:\/\//);
    noStack(r.err);
  });

  it('an unreachable server: exit 2, and the password is never echoed', async () => {
    const r = await run(['check', 'mongodb://alice:s3cretpass@127.0.0.1:9/?serverSelectionTimeoutMS=500', '--db', 'x']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Could not reach a MongoDB server at mongodb:\/\/alice:\*\*\*\*@127\.0\.0\.1:9/);
    expect(r.err + r.out).not.toContain('s3cretpass');
    noStack(r.err);
  });

  it('usage errors: exit 2; --help and --version: exit 0', async () => {
    expect((await run(['check'])).code).toBe(2);
    expect((await run(['check', uri, '--format', 'xml'])).code).toBe(2);
    expect((await run(['check', uri, '--sample-size', '-3'])).code).toBe(2);
    // Asked once connected, with the databases there are.
    expect((await run(['check', uri])).err).toMatch(new RegExp(`Which database\\? .* Databases there: .*${DB}`));
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('check');
    expect((await run(['--version'])).code).toBe(0);
  });
});
