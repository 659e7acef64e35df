/**
 * A least-privilege user on a server that enforces roles (issue 18): a role with only find, collStats and listIndexes
 * on one database. No listCollections, no cluster actions. check, lint, collect and audit must finish with a report
 * (exit 0 or 1; lint fails closed, exit 2, only where it read nothing it was asked for) that names under "Could not
 * check" what the server refused, never "This is a bug".
 *
 * The suite's SecantusDB runs without access control, so on the secantusdb project this file starts one that
 * enforces roles (test/support/enforcing-secantus.ts). SecantusDB 0.7.0b3 then lists no privileges in
 * connectionStatus, even for root, and refuses listCollections with authorizedCollections and nameOnly where MongoDB
 * lists the user's collections by name (both recorded in docs/roles.md): the advisor lets the server decide and notes
 * its refusals. FerretDB 1.24 has no createRole: skipped there, with the server's answer.
 */
import { join } from 'node:path';
import { MongoClient, ObjectId } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ProcessResult, runProcess } from './support/run';
import { type EnforcingServer, startEnforcingSecantus } from './support/enforcing-secantus';
import { liveUri } from './support/live-uri';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'shop';
const ROLE = { find: 'find', collStats: 'collStats', listIndexes: 'listIndexes' };

async function cli(args: string[]): Promise<ProcessResult> {
  return await runProcess(process.execPath, [CLI, ...args]);
}

/** No stack trace, no "This is a bug", no password. */
function clean(r: ProcessResult): void {
  expect(r.err + r.out).not.toMatch(/This is a bug|unexpected error|^\s+at .+:\d+:\d+\)?$/m);
  expect(r.err + r.out).not.toContain('narrow-pw');
}

async function provision(client: MongoClient): Promise<void> {
  // customerId written two ways (ObjectId and its hex string): a mixed-types finding from the sample alone
  const docs = Array.from({ length: 40 }, (_, i) => {
    const id = new ObjectId();
    return { customerId: i % 2 ? id : id.toHexString(), total: i * 3 };
  });
  await client.db(DB).collection('orders').insertMany(docs);
  await client.db(DB).collection('orders').createIndex({ customerId: 1 });
  await client.db('billing').collection('invoices').insertOne({ n: 1 });
  const admin = client.db('admin');
  await admin.command({ createUser: 'root', pwd: 'root-pw', roles: [{ role: 'root', db: 'admin' }] });
  const privileges = [{ resource: { db: DB, collection: '' }, actions: Object.values(ROLE) }];
  await admin.command({ createRole: 'narrowRole', privileges, roles: [] });
  await admin.command({ createUser: 'narrow', pwd: 'narrow-pw', roles: [{ role: 'narrowRole', db: 'admin' }] });
}

/** Why this server cannot run the file, or null: roles must be creatable and enforced. */
async function whyNot(kind: string, uri: string): Promise<string | null> {
  if (kind === 'secantusdb') return null;
  const client = await MongoClient.connect(uri);
  try {
    await client.db('admin').command({ createRole: 'mongoAdvisorProbe', privileges: [], roles: [] });
    await client.db('admin').command({ dropRole: 'mongoAdvisorProbe' });
    return `${kind}: roles could be created, but this file starts its own enforcing server only for SecantusDB`;
  } catch (err) {
    return `${kind} cannot enforce roles: createRole answered ${(err as Error).message.split('\n')[0] ?? ''}`;
  } finally {
    await client.close();
  }
}

describe('a narrow role (find, collStats, listIndexes on one database) on a server that enforces it', () => {
  const kind = inject('serverKind');
  let skip: string | null = null;
  let server: EnforcingServer | null = null;
  let narrow = '';

  beforeAll(async () => {
    skip = await whyNot(kind, liveUri());
    if (skip !== null) return;
    server = await startEnforcingSecantus(provision);
    narrow = server.as('narrow', 'narrow-pw');
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('the server enforces the role (else this file would prove nothing)', async (ctx) => {
    if (skip !== null) return ctx.skip(skip);
    const client = await MongoClient.connect(narrow);
    try {
      await expect(client.db(DB).collection('orders').insertOne({ x: 1 })).rejects.toMatchObject({ code: 13 });
      await expect(client.db('billing').collection('invoices').findOne({})).rejects.toMatchObject({ code: 13 });
      await expect(client.db(DB).command({ listCollections: 1 })).rejects.toMatchObject({ code: 13 });
      expect(await client.db(DB).collection('orders').countDocuments()).toBe(40);
    } finally {
      await client.close();
    }
  });

  it('check: a report with its findings and what was skipped (exit 1), confirming or not', async (ctx) => {
    if (skip !== null) return ctx.skip(skip);
    const r = await cli(['check', narrow, '--db', DB, '-c', 'orders', '--no-confirm', '--format', 'json']);
    clean(r);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.out) as {
      findings: { ruleId: string }[];
      notes: { level: string; message: string }[];
      privileges?: { basis: string };
    };
    expect(result.findings.map((f) => f.ruleId)).toContain('mixed-types');
    expect(result.privileges?.basis).toBe('unknown'); // SecantusDB lists no privileges: the server decided
    const skipped = result.notes.filter((n) => n.level !== 'info').map((n) => n.message);
    expect(skipped).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^collection list: the server refused listCollections \(Unauthorized \(13\)/),
        expect.stringMatching(/^serverStatus was refused/),
      ]),
    );
    expect(skipped.join('\n')).not.toMatch(/sample could not be read|indexes could not be listed/);

    const confirming = await cli(['check', narrow, '--db', DB, '-c', 'orders', '--confirm-budget', '5']);
    clean(confirming);
    expect(confirming.code).toBe(1);
    expect(confirming.out).toMatch(/^Could not check$/m);
    expect(confirming.out).toMatch(/mixed-types/);
    // the first scratch write refused: one line, nothing to drop, no finding claims a measurement
    const text = confirming.out.replace(/\n\s+/g, ' ');
    expect(text).toMatch(/confirmation not run: the server refused the first write to the scratch database \w+ \(Un/);
    expect(text).not.toMatch(/could not drop|drop it by hand|experiment failed/);
  });

  it('root, whose privileges SecantusDB does not list: the run goes on, nothing skipped for roles', async (ctx) => {
    if (skip !== null) return ctx.skip(skip);
    const r = await cli(['check', server?.as('root', 'root-pw') ?? '', '--db', DB, '--no-confirm', '--format', 'json']);
    clean(r);
    expect(r.code).toBe(1);
    const result = JSON.parse(r.out) as {
      scope: { collections: string[] };
      notes: { message: string }[];
      privileges?: { basis: string; summary: string };
    };
    expect(result.privileges?.basis).toBe('unknown');
    expect(result.privileges?.summary).toMatch(/^signed in as root@admin, but the server listed no privileges: every/);
    expect(result.scope.collections).toEqual(['orders']);
    expect(result.notes.map((n) => n.message).filter((m) => /privileges:|refused|not authorized/.test(m))).toEqual([]);
  });

  it('check of the whole database: its collection list refused, said under "Could not check" (exit 0)', async (ctx) => {
    if (skip !== null) return ctx.skip(skip);
    const r = await cli(['check', narrow, '--db', DB, '--no-confirm']);
    clean(r);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Could not check$/m);
    expect(r.out.replace(/\n\s+/g, ' ')).toMatch(
      /shop: collection list: the server refused listCollections .* so no collection of shop was checked; name the/,
    );
  });

  it('lint: exit 1 on what it read; exit 2 on a database it could not list, unless --allow-partial', async (ctx) => {
    if (skip !== null) return ctx.skip(skip);
    const named = await cli(['lint', narrow, '--db', DB, '-c', 'orders']);
    clean(named);
    expect(named.code).toBe(1);
    expect(named.out).toMatch(/^Could not check$/m);
    const whole = await cli(['lint', narrow, '--db', DB]);
    clean(whole);
    expect(whole.code).toBe(2);
    expect(whole.err).toMatch(/^mongo-advisor lint could not check: 1 collection was not read \(shop: collection/m);
    const partial = await cli(['lint', narrow, '--db', DB, '--allow-partial']);
    expect(partial.code).toBe(0);
  });

  it('audit and collect: a report and a snapshot (exit 0); audit without --db asks for one', async (ctx) => {
    if (skip !== null) return ctx.skip(skip);
    const audit = await cli(['audit', narrow, '--db', DB, '--format', 'text', '-o', '-']);
    clean(audit);
    expect(audit.code).toBe(0);
    expect(audit.out).toMatch(/^Could not check$/m);
    const collect = await cli(['collect', narrow, '--db', DB, '-c', 'orders', '-o', '-', '-q']);
    clean(collect);
    expect(collect.code).toBe(0);
    type Snap = { databases: { collections: { name: string; sample: { size: number } }[] }[] };
    const snapshot = JSON.parse(collect.out) as Snap;
    expect(snapshot.databases[0]?.collections.map((c) => [c.name, c.sample.size])).toEqual([['orders', 40]]);
    const everything = await cli(['audit', narrow, '-o', '-', '-q']);
    clean(everything);
    expect(everything.code).toBe(2);
    expect(everything.err.trim()).toMatch(
      /^mongo-advisor: Could not list the databases of mongodb:\/\/narrow:\*+@.*: the server refused listDatabases/,
    );
  });
});
