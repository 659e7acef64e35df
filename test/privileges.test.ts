import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgePrivileges, PRIVILEGE_CHECKS, PRIVILEGE_PROBE } from '../src/collect/privileges';
import { privilegeGate } from '../src/collect/privilege-gate';
import { isRefusal } from '../src/core/errors';
import type { Adapter } from '../src/adapters/types';
import { whyNotReading } from '../src/adapters/read-only';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(join(__dirname, 'fixtures', 'mongodb', `connection-status-${name}.json`), 'utf8')) as unknown;
const skippedChecks = (v: ReturnType<typeof judgePrivileges>): string[] => v.skipped.map((s) => s.check);

describe('judgePrivileges: what the user’s roles allow, from one connectionStatus reply', () => {
  it('the probe is a read the gate lets through', () => {
    expect(whyNotReading({ ...PRIVILEGE_PROBE })).toBeNull();
  });

  it(
    'read on one database: reads of that database pass; server-wide figures, index usage and delete plans are ' +
      'skipped with the action they need',
    () => {
      const v = judgePrivileges(fixture('read-only'), { databases: ['shop'], scratchDb: null });
      expect(v.basis).toBe('roles');
      expect(v.users).toEqual(['reporter@admin']);
      expect(v.allowed).toEqual([
        'collection list',
        'index definitions',
        'collection sizes ($collStats)',
        'document sample ($sample, find)',
        'document counts',
        'query plans (explain of reads)',
      ]);
      expect(v.skipped).toEqual([
        {
          check: 'database list',
          needs: 'listDatabases on { cluster: true }',
          reason: expect.stringMatching(
            /^your roles lack listDatabases on the cluster \(listDatabases\): only the databases your roles name/,
          ) as unknown,
        },
        {
          check: 'delete plans (explain of a delete at queryPlanner)',
          needs: 'remove on { db: "shop", collection: "" }',
          reason: expect.stringContaining('your roles lack remove on shop') as unknown,
        },
        {
          check: 'index usage ($indexStats)',
          needs: 'indexStats on { db: "shop", collection: "" }',
          reason: expect.stringContaining('your roles lack indexStats on shop') as unknown,
        },
        {
          check: 'server status (storage engine, cache)',
          needs: 'serverStatus on { cluster: true }',
          reason: expect.any(String) as unknown,
        },
        {
          check: 'replica-set configuration (hidden members)',
          needs: 'replSetGetConfig on { cluster: true }',
          reason: expect.any(String) as unknown,
        },
      ]);
      expect(v.summary).toMatch(/^signed in as reporter@admin: 6 of 11 checks allowed; skipped: database list; /);
    },
  );

  it('read on one database, another database asked for: every database-scope read of it is skipped, naming it', () => {
    const v = judgePrivileges(fixture('read-only'), { databases: ['shop', 'billing'], scratchDb: null });
    expect(v.skipped.find((s) => s.check === 'document sample ($sample, find)')).toEqual({
      check: 'document sample ($sample, find)',
      needs: 'find on { db: "billing", collection: "" }',
      reason: expect.stringContaining('your roles lack find on billing') as unknown,
    });
  });

  it('readAnyDatabase + clusterMonitor: every collect check but delete plans; confirm needs writes it lacks', () => {
    const v = judgePrivileges(fixture('read-any-cluster-monitor'), {
      databases: ['shop', 'billing'],
      scratchDb: 'mongo_advisor_scratch_1a2b3c4d',
    });
    expect(skippedChecks(v)).toEqual([
      'delete plans (explain of a delete at queryPlanner)',
      'scratch collections',
      'scratch copies',
      'scratch indexes',
      'scratch validators',
      'scratch cleanup',
      'checkpoint before storage sizes',
    ]);
    expect(v.skipped.find((s) => s.check === 'checkpoint before storage sizes')?.needs).toBe(
      'fsync on { cluster: true }',
    );
    expect(v.skipped.find((s) => s.check === 'scratch cleanup')?.needs).toBe(
      'dropDatabase on { db: "mongo_advisor_scratch_1a2b3c4d", collection: "" }',
    );
    expect(v.allowed).toContain('scratch reads'); // find on every database covers the scratch one
  });

  it(
    'the least-privilege role of docs/roles.md allows every collect check except delete plans, and no confirm ' +
      'write',
    () => {
      const v = judgePrivileges(fixture('least-privilege'), { databases: ['shop'], scratchDb: null });
      expect(skippedChecks(v)).toEqual(['delete plans (explain of a delete at queryPlanner)']);
    },
  );

  it('no authenticated user (auth off, localhost exception): every check is attempted, and the line says why', () => {
    const v = judgePrivileges(fixture('no-auth'), { databases: ['shop'], scratchDb: 'mongo_advisor_scratch_x' });
    expect(v).toMatchObject({ basis: 'no-auth', users: [], skipped: [] });
    expect(v.allowed).toHaveLength(PRIVILEGE_CHECKS.length);
    expect(v.summary).toMatch(/no authenticated user/);
  });

  it(
    'FerretDB 1.24’s reply (no authenticatedUserPrivileges key) and unreadable replies: nothing is skipped on ' +
      'a guess',
    () => {
      expect(
        judgePrivileges(
          { authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 },
          { databases: ['a'], scratchDb: null },
        ).basis,
      ).toBe('no-auth');
      expect(
        judgePrivileges({ ok: 0, errmsg: 'no such command' }, { databases: ['a'], scratchDb: null }),
      ).toMatchObject({
        basis: 'unknown',
        skipped: [],
      });
      expect(
        judgePrivileges(
          { authInfo: { authenticatedUsers: [{ user: 'u', db: 'admin' }] } },
          { databases: ['a'], scratchDb: null },
        ),
      ).toMatchObject({ basis: 'unknown', users: ['u@admin'], skipped: [] });
    },
  );

  it('resources: a privilege on another database or the cluster does not cover one; anyResource covers all', () => {
    const reply = (resource: object, actions: string[]) => ({
      authInfo: {
        authenticatedUsers: [{ user: 'u', db: 'admin' }],
        authenticatedUserPrivileges: [{ resource, actions }],
      },
    });
    const sample = (r: object) =>
      judgePrivileges(reply(r, ['find']), { databases: ['shop'], scratchDb: null }).allowed.includes(
        'document sample ($sample, find)',
      );
    // a privilege on one collection of shop: the roles may allow the command there, so the server answers
    expect(sample({ db: 'shop', collection: 'orders' })).toBe(true);
    expect(sample({ db: 'other', collection: 'orders' })).toBe(false);
    expect(sample({ cluster: true })).toBe(false);
    expect(sample({ db: 'other', collection: '' })).toBe(false);
    expect(sample({ db: '', collection: '' })).toBe(true);
    expect(sample({ anyResource: true })).toBe(true);
    expect(
      judgePrivileges(reply({ db: '', collection: '' }, ['serverStatus']), { databases: ['shop'], scratchDb: null })
        .allowed,
    ).not.toContain('server status (storage engine, cache)');
  });

  it('an empty privilege list (SecantusDB lists none, even for root) is no verdict: every check is attempted', () => {
    const root = { user: 'root', db: 'admin' };
    const roles = [{ role: 'root', db: 'admin' }];
    const authInfo = { authenticatedUsers: [root], authenticatedUserRoles: roles, authenticatedUserPrivileges: [] };
    const reply = { authInfo, ok: 1 };
    const v = judgePrivileges(reply, { databases: ['shop'], scratchDb: 'mongo_advisor_scratch_x' });
    expect(v).toMatchObject({ basis: 'unknown', users: ['root@admin'], skipped: [] });
    expect(v.allowed).toHaveLength(PRIVILEGE_CHECKS.length);
    expect(v.summary).toMatch(/^signed in as root@admin, but the server listed no privileges: every check is/);
  });

  // find, collStats and listIndexes on one database (issue 18): no listCollections action, yet MongoDB lists the
  // database's collections by name for this user (listCollections with authorizedCollections and nameOnly)
  const narrowActions = ['find', 'collStats', 'listIndexes'];
  const narrowPrivileges = [{ resource: { db: 'shop', collection: '' }, actions: narrowActions }];
  const narrowUsers = [{ user: 'narrow', db: 'admin' }];
  const narrow = { authInfo: { authenticatedUsers: narrowUsers, authenticatedUserPrivileges: narrowPrivileges } };

  it('a role without listCollections but with another action on the database: its collections listed by name', () => {
    const v = judgePrivileges(narrow, { databases: ['shop', 'billing'], scratchDb: null });
    expect(v.basis).toBe('roles');
    expect(v.namesOnly).toEqual(['shop']); // billing: no action at all, so even the names are refused
    const list = v.skipped.find((s) => s.check === 'collection list');
    expect(list?.reason).toMatch(/^your roles lack listCollections on shop, billing \(listCollections\): the/);
    expect(list?.reason).toContain('are listed by name only (authorizedCollections)');
    const one = judgePrivileges(narrow, { databases: ['shop'], scratchDb: null });
    expect(one.allowed).toEqual([
      'index definitions',
      'collection sizes ($collStats)',
      'document sample ($sample, find)',
      'document counts',
      'query plans (explain of reads)',
    ]);
  });

  it('the gate lets the names-only listing through where roles grant an action, nothing forbidden', async () => {
    const v = judgePrivileges(narrow, { databases: ['shop', 'billing'], scratchDb: null });
    const sent: string[] = [];
    const inner: Adapter = {
      kind: 'driver',
      source: 'test',
      bson: {} as Adapter['bson'],
      roundTrips: 0,
      command: async (db, cmd) => {
        sent.push(`${db} ${JSON.stringify(cmd)}`);
        return { ok: 1 };
      },
      close: async () => undefined,
    };
    const gate = privilegeGate(inner, v);
    const names = { listCollections: 1, nameOnly: true, authorizedCollections: true };
    await gate.command('shop', names);
    await expect(gate.command('shop', { listCollections: 1, authorizedCollections: true })).rejects.toMatchObject({
      code: 13,
      message: expect.stringMatching(/^not sent: your roles lack listCollections/) as unknown,
    });
    await expect(gate.command('billing', names)).rejects.toMatchObject({ code: 13 });
    await expect(gate.command('admin', { serverStatus: 1 })).rejects.toMatchObject({ code: 13 });
    expect(sent).toEqual([`shop ${JSON.stringify(names)}`]);
  });

  it('refusals are told apart from other failures: 13 and kin, and the gate’s own', () => {
    const error = (message: string, fields: object): Error => Object.assign(new Error(message), fields);
    const unauthorized = { code: 13, codeName: 'Unauthorized' };
    expect(isRefusal(error('not authorized on shop to execute command', unauthorized))).toBe(true);
    const atlas = 'user is not allowed to do action [listCollections] on [shop.]';
    expect(isRefusal(error(atlas, { code: 8000 }))).toBe(true);
    expect(isRefusal(new Error('command find requires authentication'))).toBe(true);
    expect(isRefusal(error('no such command', { code: 59, codeName: 'CommandNotFound' }))).toBe(false);
    expect(isRefusal(error('operation exceeded time limit', { code: 50 }))).toBe(false);
  });
});
