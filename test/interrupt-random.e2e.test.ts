import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dropDb, seedBlog } from './support/seed';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'mongo_advisor_test_interrupt_random';
/** Per server: this file runs once on each live server (FerretDB and SecantusDB), so 20 interrupts in all. */
const RUNS = 10;

describe('10 interrupts per server (20 over both) at random moments (real CLI) leave no scratch database', () => {
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

  it(`${RUNS} runs, each signalled (SIGINT, SIGTERM or SIGHUP) at a random moment`, async () => {
    const leaks: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const signal = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const)[i % 3] as NodeJS.Signals;
      const child = spawn(process.execPath, [CLI, 'check', uri, '--db', DB, '--confirm-budget', '2', '-f', 'json'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      // anywhere from the collection to the last experiment's cleanup (a run takes ~5-10 s here)
      const delay = Math.floor(Math.random() * 8000);
      const timer = setTimeout(() => child.kill(signal), delay);
      const code = await closed;
      clearTimeout(timer);
      const name = /scratch database (mongo_advisor_scratch_[0-9a-f]+)/.exec(err)?.[1];
      if (!name) continue; // stopped before confirmation began
      const r = await client.db('admin').command({ listDatabases: 1, nameOnly: true });
      if ((r.databases as { name: string }[]).some((d) => d.name === name))
        leaks.push(`run ${i} (${signal} at ${delay} ms, exit ${String(code)}): ${name}\n${err}`);
    }
    expect(leaks, leaks.join('\n')).toEqual([]);
  }, 600_000);
});
