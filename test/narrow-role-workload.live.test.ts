/**
 * The workload paths under roles that refuse them (issue 20), on a server that enforces roles: `profile` as a user
 * who may not change the profiling level, and `check` as a user who may not read `system.profile`. Each must end in
 * one clear line (what was refused, the server's answer, what to do), never a stack trace, with nothing changed.
 *
 * MongoDB's rules (https://www.mongodb.com/docs/manual/reference/command/profile/, "Access Control"; the manual's
 * dbAdmin role): `profile` needs the `enableProfiler` action on the database; reading the settings (`profile: -1`)
 * is allowed with `find` on `<db>.system.profile` alone (mongo/src/mongo/db/commands/profile_common.cpp,
 * `checkAuthForOperation`). A resource `{ db, collection: "" }` does not cover system collections
 * (https://www.mongodb.com/docs/manual/reference/resource-document/#specify-all-non-system-collections-in-a-database).
 *
 * SecantusDB 0.7.0b3, which this file starts with access control on (test/support/enforcing-secantus.ts), differs,
 * and the tests ask it rather than assume: it wants `enableProfiler` for `profile: -1` too (so the refusal comes at
 * the read, before any change), and it grants an action database-wide, whatever the resource names (`find` on
 * `shop.orders` reads `shop.system.profile`): a role that reads the collections but not the profiler cannot be made
 * there, and that case is skipped with the server's answer. A role with no `find` at all is refused the profiler on
 * both. FerretDB 1.24 has no createRole: skipped there.
 */
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type EnforcingServer, startEnforcingSecantus } from './support/enforcing-secantus';
import { type ProcessResult, runProcess } from './support/run';
import { liveUri } from './support/live-uri';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'shop';
const ON_SHOP = { db: DB, collection: '' };
/** The built-in `read` role's actions on the database, listed (no enableProfiler; system.profile not named). */
const READER = ['find', 'listCollections', 'listIndexes', 'collStats'];
/** Indexes and sizes, and the profiling level, but no document: no `find`, so no system.profile either. */
const NO_FIND = ['listCollections', 'listIndexes', 'collStats'];
/** The settings the admin leaves in place: off, a slowms of its own, so "unchanged" means exactly that. */
const BEFORE = { was: 0, slowms: 41, sampleRate: 1 };

async function cli(args: string[]): Promise<ProcessResult> {
  return await runProcess(process.execPath, [CLI, ...args], { timeoutMs: 90_000 });
}

/** No stack trace, no "This is a bug", no password, no document value. */
function clean(r: ProcessResult): void {
  expect(r.err + r.out).not.toMatch(/This is a bug|unexpected error|^\s+at .+:\d+:\d+\)?$/m);
  expect(r.err + r.out).not.toMatch(/root-pw|narrow-pw|SECRET-CUSTOMER/);
}

async function provision(client: MongoClient): Promise<void> {
  const orders = client.db(DB).collection('orders');
  await orders.insertMany(Array.from({ length: 30 }, (_, i) => ({ status: i % 3 ? 'open' : 'SECRET-CUSTOMER', n: i })));
  // Entries in system.profile: a profiler that is readable holds something to learn from.
  await client.db(DB).command({ profile: 1, slowms: 0 });
  for (let i = 0; i < 5; i++) await orders.find({ status: 'open', n: { $gt: i } }).toArray();
  await client.db(DB).command({ profile: BEFORE.was, slowms: BEFORE.slowms, sampleRate: BEFORE.sampleRate });
  const admin = client.db('admin');
  await admin.command({ createUser: 'root', pwd: 'root-pw', roles: [{ role: 'root', db: 'admin' }] });
  const role = async (name: string, actions: string[]): Promise<void> => {
    await admin.command({ createRole: name, privileges: [{ resource: ON_SHOP, actions }], roles: [] });
    await admin.command({ createUser: name, pwd: 'narrow-pw', roles: [{ role: name, db: 'admin' }] });
  };
  await role('reader', READER);
  await role('nofind', NO_FIND);
}

/** Why this server cannot run the file, or null. */
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

/** What `command` answers as `uri`'s user: null when allowed, else the server's first line. */
async function refusal(uri: string, command: object, db = DB): Promise<string | null> {
  const client = await MongoClient.connect(uri);
  try {
    await client.db(db).command(command);
    return null;
  } catch (err) {
    return (err as Error).message.split('\n')[0] ?? '';
  } finally {
    await client.close();
  }
}

describe('the workload paths under narrow roles, on a server that enforces them', () => {
  const kind = inject('serverKind');
  let skip: string | null = null;
  let server: EnforcingServer | null = null;
  let root: MongoClient | null = null;
  const settings = async (): Promise<{ was: unknown; slowms: unknown; sampleRate: unknown }> => {
    const r = await (root as MongoClient).db(DB).command({ profile: -1 });
    return { was: r.was, slowms: r.slowms, sampleRate: r.sampleRate };
  };

  beforeAll(async () => {
    skip = await whyNot(kind, liveUri());
    if (skip !== null) return;
    server = await startEnforcingSecantus(provision);
    root = await MongoClient.connect(server.as('root', 'root-pw'));
  }, 120_000);
  afterAll(async () => {
    await root?.close();
    await server?.stop();
  });

  it('the server enforces the roles this file relies on (else it would prove nothing)', async (ctx) => {
    if (skip !== null || !server) return ctx.skip(skip ?? 'no server');
    expect(await settings()).toEqual(BEFORE);
    for (const user of ['reader', 'nofind'])
      expect(await refusal(server.as(user, 'narrow-pw'), { profile: 1, slowms: 0 })).toMatch(/enableProfiler/);
    expect(await refusal(server.as('nofind', 'narrow-pw'), { count: 'system.profile' })).toMatch(/not authorized/);
    expect(await refusal(server.as('reader', 'narrow-pw'), { count: 'orders' })).toBeNull();
  });

  it('profile without enableProfiler: one line saying why and what grants it, exit 2, level kept', async (ctx) => {
    if (skip !== null || !server) return ctx.skip(skip ?? 'no server');
    const reader = server.as('reader', 'narrow-pw');
    // MongoDB lets a user who may read system.profile read the settings and refuses only the change; SecantusDB
    // refuses the read too. Either way nothing may change, and the line says which step the server refused.
    const readRefused = (await refusal(reader, { profile: -1 })) !== null;
    console.log(`[narrow roles] ${kind}: profile -1 without enableProfiler is ${readRefused ? 'refused' : 'allowed'}`);
    const r = await cli(['profile', reader, '--db', DB, '--for', '2s', '--yes']);
    clean(r);
    expect(r.code, r.err).toBe(2);
    expect(await settings()).toEqual(BEFORE);
    const err = r.err.trim().split('\n');
    expect(err, r.err).toHaveLength(1);
    if (readRefused) {
      expect(r.out).toBe('');
      expect(err[0]).toMatch(
        /^mongo-advisor: Not allowed to read the profiling level of "shop" \(.*not authorized.*\): the profile /,
      );
      expect(err[0]).toContain('needs the enableProfiler action on that database (the built-in role dbAdmin grants');
      expect(err[0]).toMatch(/Nothing was changed\.$/);
    } else {
      expect(err[0]).toMatch(
        /^mongo-advisor: Not allowed to set the profiling level of "shop" \(.*authorized.*\): the/,
      );
      expect(r.out).toContain('The profiling level of "shop" was not changed: level 0, slowms 41.');
    }
  });

  it('check without find on system.profile: query-indexes quotes the server, the run ends (exit 0)', async (ctx) => {
    if (skip !== null || !server) return ctx.skip(skip ?? 'no server');
    const nofind = server.as('nofind', 'narrow-pw');
    const r = await cli(['check', nofind, '--db', DB, '-c', 'orders', '--no-confirm', '--format', 'json']);
    clean(r);
    // Nothing could be sampled, so nothing is found: exit 0, as for any run whose gaps are all "could not check"
    expect(r.code, r.err).toBe(0);
    const result = JSON.parse(r.out) as { findings: unknown[]; notes: { level: string; message: string }[] };
    // The profiler's line, then (SecantusDB reports MongoDB 8.2, so $queryStats is asked next) why that gave nothing.
    const all = result.notes.filter((n) => n.message.startsWith('query-indexes:'));
    const stats = all.filter((n) => n.message.startsWith('query-indexes: $queryStats was not read: '));
    expect(stats.map((n) => n.level)).toEqual(stats.length ? ['info'] : []);
    const lines = all.filter((n) => !stats.includes(n));
    expect(lines.map((n) => n.level)).toEqual(['skipped']);
    console.log(`[narrow roles] ${kind}: ${lines[0]?.message ?? ''}`);
    expect(lines[0]?.message).toMatch(
      /^query-indexes: the profiler \(shop\.system\.profile\) could not be read \(Unauthorized \(13\).*\): turn the/,
    );
    expect(lines[0]?.message).toContain('--log <file>');
    const text = await cli(['check', nofind, '--db', DB, '-c', 'orders', '--no-confirm']);
    clean(text);
    expect(text.code, text.err).toBe(0);
    expect(text.out).toMatch(/^Could not check$/m);
    expect(text.out.replace(/\n\s+/g, ' ')).toMatch(
      /query-indexes: the profiler \(shop\.system\.profile\) could not be/,
    );
  });

  it('check as a user who reads the collections but not system.profile: the same line', async (ctx) => {
    if (skip !== null || !server) return ctx.skip(skip ?? 'no server');
    // `find` on { db: "shop", collection: "" } does not cover shop.system.profile on MongoDB.
    const reader = server.as('reader', 'narrow-pw');
    if ((await refusal(reader, { count: 'system.profile' })) === null)
      return ctx.skip(
        `${kind} lets a role with find on the database's collections read ${DB}.system.profile (MongoDB does not: ` +
          'such a resource never covers system collections), so no role here reads the collections but not the ' +
          'profiler',
      );
    const r = await cli(['check', reader, '--db', DB, '-c', 'orders', '--no-confirm', '-f', 'json']);
    clean(r);
    const result = JSON.parse(r.out) as { notes: { message: string }[] };
    expect(result.notes.map((n) => n.message)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^query-indexes: the profiler \(shop\.system\.profile\) could not/),
      ]),
    );
  });
});
