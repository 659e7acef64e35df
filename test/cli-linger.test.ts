/**
 * A connection that fails must not keep the process alive after its message: the real CLI (dist/cli.cjs) against
 * host lists that cannot resolve, timed from the message on stderr to the process's exit. No server: `.invalid` names
 * never resolve (RFC 2606).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_HOSTS } from '../src/cli/uri';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');

interface Timed {
  code: number | null;
  err: string;
  /** From spawn to the first byte on stderr, and to the exit. */
  messageMs: number;
  exitMs: number;
}

async function timedCli(args: string[]): Promise<Timed> {
  const t0 = Date.now();
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
  let err = '';
  let messageMs = -1;
  child.stderr.on('data', (d: Buffer) => {
    if (messageMs < 0) messageMs = Date.now() - t0;
    err += d.toString();
  });
  return await new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, err, messageMs, exitMs: Date.now() - t0 }));
  });
}

const hosts = (n: number): string => Array.from({ length: n }, (_, i) => `h${i}.advisor-test.invalid:27017`).join(',');

describe('a failed connection ends the process promptly (real CLI)', () => {
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error('dist/cli.cjs is missing: run `node scripts/build.mjs --skip-types` first');
  });

  it('a connection string of 1,000 hosts: refused before any lookup, exit 2 within 2 s of the message', async () => {
    const r = await timedCli(['check', `mongodb://user:LingerSecret1@${hosts(1000)}/db`, '--no-confirm']);
    console.log(`[linger] 1,000 hosts: message at ${r.messageMs} ms, exit at ${r.exitMs} ms`);
    expect(r.code).toBe(2);
    const says = `lists 1,000 hosts; mongo-advisor takes at most ${MAX_HOSTS}\\. .*list two or three members`;
    expect(r.err).toMatch(new RegExp(says));
    expect(r.err).not.toContain('LingerSecret1');
    expect(r.err).not.toMatch(/This is a bug|^\s+at /m);
    expect(r.exitMs - r.messageMs).toBeLessThan(2000);
  }, 60_000);

  it(`${MAX_HOSTS} unresolvable hosts (the most allowed): the exit within one lookup's timeout`, async () => {
    const uri = `mongodb://${hosts(MAX_HOSTS)}/db?serverSelectionTimeoutMS=1000`;
    const r = await timedCli(['check', uri, '--no-confirm']);
    console.log(`[linger] ${MAX_HOSTS} hosts: message at ${r.messageMs} ms, exit at ${r.exitMs} ms`);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Could not reach a MongoDB server at .*the host name does not resolve/);
    // Before: the process stayed until every one of the driver's lookups had answered (minutes for 1,000 hosts). Now
    // it exits half a second after main answers; exit() still joins a lookup already running in libuv's thread pool,
    // which the resolver's own timeout bounds (5 s by default, resolv.conf "options timeout").
    expect(r.exitMs - r.messageMs).toBeLessThan(7000);
  }, 120_000);
});
