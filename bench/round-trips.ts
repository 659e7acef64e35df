/**
 * Round trips of the real CLI (`roundTrips` of `--format json`) on a server that holds five databases of one
 * 50-document collection each: `check` of one collection with only array-growth enabled and with every rule, and
 * `audit` of four databases against `audit` of one (the issue "rules own their data" sets the targets).
 *
 *   node bench/run.mjs round-trips [--server secantusdb|ferretdb|mongodb-memory-server]
 *
 * Needs `npm run build` first (it runs dist/cli.cjs, as a user would).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient } from 'mongodb';
import { startServer } from '../src/servers/embedded';
import { machine, markdownTable, serverOrder } from './lib/report';

const DBS = ['rt_a', 'rt_b', 'rt_c', 'rt_d', 'rt_e'];
const cli = path.join(__dirname, '..', '..', 'dist', 'cli.cjs');

function run(args: string[], cwd: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [cli, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      // check exits 1 when it has findings at the fail-on level: the JSON is still on stdout.
      try {
        resolve(JSON.parse(stdout) as Record<string, unknown>);
      } catch {
        reject(
          new Error(`mongo-advisor ${args.join(' ')} printed no JSON (${err?.message ?? ''}): ${stderr.slice(0, 500)}`),
        );
      }
    });
  });
}

/** rt_a…rt_e, each with one indexed collection of 50 documents; the server's databases as listDatabases gives them. */
async function seedDatabases(uri: string): Promise<{ name: string }[]> {
  const client = await MongoClient.connect(uri);
  for (const db of DBS) {
    await client.db(db).dropDatabase();
    await client
      .db(db)
      .collection('posts')
      .insertMany(Array.from({ length: 50 }, (_, i) => ({ i, tags: ['a', 'b'] })));
    await client.db(db).collection('posts').createIndex({ i: 1 });
  }
  const listed = (await client.db('admin').command({ listDatabases: 1, nameOnly: true })) as {
    databases: { name: string }[];
  };
  await client.close();
  return listed.databases;
}

/** only.json: the configuration that turns the listed rules off, for the run the table calls "only array-growth". */
function writeOnlyArrayGrowth(dir: string): void {
  writeFileSync(
    path.join(dir, 'only.json'),
    JSON.stringify({
      rules: Object.fromEntries(
        [
          'clustered-trap',
          'collection-count',
          'compression',
          'document-size',
          'id-pattern',
          'index-usage',
          'validator',
        ].map((id) => [id, 'off']),
      ),
    }),
  );
}

/** The round trips a run reports (check prints a result, audit a report holding one). */
function rt(r: Record<string, unknown>): number {
  return Number((r.roundTrips as number | undefined) ?? (r.result as { roundTrips?: number } | undefined)?.roundTrips);
}

// A deployment-wide note (no database named) must appear once, however many databases the run reads; notes about
// one database or collection name it, and may read alike for each.
function deploymentNotes(r: Record<string, unknown>): number {
  type N = { message: string; target?: { db?: string } };
  const notes = ((r.notes as N[] | undefined) ?? (r.result as { notes?: N[] } | undefined)?.notes ?? [])
    .filter((n) => !n.target?.db)
    .map((n) => n.message);
  const counts = new Map<string, number>();
  for (const m of notes) counts.set(m, (counts.get(m) ?? 0) + 1);
  for (const [m, k] of counts) if (k > 1) console.error(`repeated ${k}x: ${m}`);
  return Math.max(0, ...counts.values());
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const server = await startServer({
    order: serverOrder(argv) ?? ['secantusdb'],
    log: (l) => process.stderr.write(`${l}\n`),
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'mongo-advisor-rt-'));
  try {
    const listed = await seedDatabases(server.uri);
    writeOnlyArrayGrowth(dir);
    const only = await run(
      [
        'check',
        server.uri,
        '--db',
        'rt_a',
        '--collection',
        'posts',
        '--no-confirm',
        '--format',
        'json',
        '--config',
        'only.json',
        '-q',
      ],
      dir,
    );
    const every = await run(
      ['check', server.uri, '--db', 'rt_a', '--collection', 'posts', '--no-confirm', '--format', 'json', '-q'],
      dir,
    );
    const audit1 = await run(
      ['audit', server.uri, '--db', 'rt_a', '--no-confirm', '--format', 'json', '-o', 'a1.json', '-q'],
      dir,
    ).catch(() => JSON.parse(readFileSync(path.join(dir, 'a1.json'), 'utf8')) as Record<string, unknown>);
    const audit4 = await run(
      [
        'audit',
        server.uri,
        '--db',
        'rt_a',
        'rt_b',
        'rt_c',
        'rt_d',
        '--no-confirm',
        '--format',
        'json',
        '-o',
        'a4.json',
        '-q',
      ],
      dir,
    ).catch(() => JSON.parse(readFileSync(path.join(dir, 'a4.json'), 'utf8')) as Record<string, unknown>);
    console.log(
      `# round trips (${server.kind}; ${listed.length} databases on the ` +
        `server: ${listed.map((d) => d.name).join(', ')})`,
    );
    console.log(machine());
    console.log(
      markdownTable(
        ['run', 'round trips', 'target'],
        [
          ['check, one collection, only array-growth', String(rt(only)), '≤ 9'],
          ['check, one collection, every rule', String(rt(every)), '≤ 14'],
          ['audit of 4 one-collection databases', String(rt(audit4)), ''],
          ['audit of 1', String(rt(audit1)), ''],
          ['audit of 4 minus audit of 1', String(rt(audit4) - rt(audit1)), '≤ 30'],
          ['most repeats of one deployment-wide note in the audit of 4', String(deploymentNotes(audit4)), '1'],
        ],
      ),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
