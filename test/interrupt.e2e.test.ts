import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SCRATCH_PREFIX } from '../src/confirm/scratch';
import { dropDb, seedBlog } from './support/seed';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'mongo_advisor_test_interrupt';

async function scratchDbs(client: MongoClient): Promise<string[]> {
  const r = await client.db('admin').command({ listDatabases: 1, nameOnly: true });
  return (r.databases as { name: string }[]).map((d) => d.name).filter((n) => n.startsWith(SCRATCH_PREFIX));
}

describe('Ctrl-C during confirmation (real CLI)', () => {
  const uri = inject('mongoUri');
  let client: MongoClient;
  beforeAll(async () => {
    await seedBlog(uri, DB);
    client = await MongoClient.connect(uri);
  });
  afterAll(async () => {
    await client?.close();
    await dropDb(uri, DB);
  });

  it('stops, drops the scratch database and exits 130', async () => {
    const child = spawn(process.execPath, [CLI, 'check', uri, '--db', DB, '--collection', 'posts', '--confirm-budget', '60'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // wait until a new scratch database appears (other test files may run their own at the same time)
    const before = new Set(await scratchDbs(client));
    const deadline = Date.now() + 60_000;
    let seen: string[] = [];
    while (Date.now() < deadline && seen.length === 0) {
      await new Promise((r) => setTimeout(r, 200));
      seen = (await scratchDbs(client)).filter((n) => !before.has(n));
    }
    expect(seen.length, 'the experiment never created its scratch database').toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1000));
    child.kill('SIGINT');
    const code = await exited;
    expect(code).toBe(130);
    const name = /dropping the scratch database (\S+)/.exec(err)?.[1];
    expect(name, err).toMatch(new RegExp(`^${SCRATCH_PREFIX}`));
    expect(await scratchDbs(client), err).not.toContain(name);
  }, 120_000);
});
