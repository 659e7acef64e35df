import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgePrivileges, PRIVILEGE_CHECKS, PRIVILEGE_PROBE } from '../src/collect/privileges';
import { whyNotReading } from '../src/adapters/read-only';

const fixture = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, 'fixtures', 'mongodb', `connection-status-${name}.json`), 'utf8')) as unknown;
const skippedChecks = (v: ReturnType<typeof judgePrivileges>): string[] => v.skipped.map((s) => s.check);

describe('judgePrivileges: what the user’s roles allow, from one connectionStatus reply', () => {
  it('the probe is a read the gate lets through', () => {
    expect(whyNotReading({ ...PRIVILEGE_PROBE })).toBeNull();
  });

  it('read on one database: reads of that database pass; server-wide figures, index usage and delete plans are skipped with the action they need', () => {
    const v = judgePrivileges(fixture('read-only'), { databases: ['shop'], scratchDb: null });
    expect(v.basis).toBe('roles');
    expect(v.users).toEqual(['reporter@admin']);
    expect(v.allowed).toEqual(['collection list', 'index definitions', 'collection sizes ($collStats)', 'document sample ($sample, find)', 'document counts', 'query plans (explain of reads)']);
    expect(v.skipped).toEqual([
      { check: 'database list', needs: 'listDatabases on { cluster: true }', reason: expect.stringMatching(/^your roles lack listDatabases on the cluster \(listDatabases\): only the databases your roles name/) as unknown },
      { check: 'delete plans (explain of a delete at queryPlanner)', needs: 'remove on { db: "shop", collection: "" }', reason: expect.stringContaining('your roles lack remove on shop') as unknown },
      { check: 'index usage ($indexStats)', needs: 'indexStats on { db: "shop", collection: "" }', reason: expect.stringContaining('your roles lack indexStats on shop') as unknown },
      { check: 'server status (storage engine, cache)', needs: 'serverStatus on { cluster: true }', reason: expect.any(String) as unknown },
      { check: 'replica-set configuration (hidden members)', needs: 'replSetGetConfig on { cluster: true }', reason: expect.any(String) as unknown },
    ]);
    expect(v.summary).toMatch(/^signed in as reporter@admin: 6 of 11 checks allowed; skipped: database list; /);
  });

  it('read on one database, another database asked for: every database-scope read of it is skipped, naming it', () => {
    const v = judgePrivileges(fixture('read-only'), { databases: ['shop', 'billing'], scratchDb: null });
    expect(v.skipped.find((s) => s.check === 'document sample ($sample, find)')).toEqual({ check: 'document sample ($sample, find)', needs: 'find on { db: "billing", collection: "" }', reason: expect.stringContaining('your roles lack find on billing') as unknown });
  });

  it('readAnyDatabase + clusterMonitor: every collect check but delete plans; confirm needs writes it lacks', () => {
    const v = judgePrivileges(fixture('read-any-cluster-monitor'), { databases: ['shop', 'billing'], scratchDb: 'mongo_advisor_scratch_1a2b3c4d' });
    expect(skippedChecks(v)).toEqual(['delete plans (explain of a delete at queryPlanner)', 'scratch collections', 'scratch copies', 'scratch indexes', 'scratch validators', 'scratch cleanup', 'checkpoint before storage sizes']);
    expect(v.skipped.find((s) => s.check === 'checkpoint before storage sizes')?.needs).toBe('fsync on { cluster: true }');
    expect(v.skipped.find((s) => s.check === 'scratch cleanup')?.needs).toBe('dropDatabase on { db: "mongo_advisor_scratch_1a2b3c4d", collection: "" }');
    expect(v.allowed).toContain('scratch reads'); // find on every database covers the scratch one
  });

  it('the least-privilege role of docs/roles.md allows every collect check except delete plans, and no confirm write', () => {
    const v = judgePrivileges(fixture('least-privilege'), { databases: ['shop'], scratchDb: null });
    expect(skippedChecks(v)).toEqual(['delete plans (explain of a delete at queryPlanner)']);
  });

  it('no authenticated user (auth off, localhost exception): every check is attempted, and the line says why', () => {
    const v = judgePrivileges(fixture('no-auth'), { databases: ['shop'], scratchDb: 'mongo_advisor_scratch_x' });
    expect(v).toMatchObject({ basis: 'no-auth', users: [], skipped: [] });
    expect(v.allowed).toHaveLength(PRIVILEGE_CHECKS.length);
    expect(v.summary).toMatch(/no authenticated user/);
  });

  it('FerretDB 1.24’s reply (no authenticatedUserPrivileges key) and unreadable replies: nothing is skipped on a guess', () => {
    expect(judgePrivileges({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 }, { databases: ['a'], scratchDb: null }).basis).toBe('no-auth');
    expect(judgePrivileges({ ok: 0, errmsg: 'no such command' }, { databases: ['a'], scratchDb: null })).toMatchObject({ basis: 'unknown', skipped: [] });
    expect(judgePrivileges({ authInfo: { authenticatedUsers: [{ user: 'u', db: 'admin' }] } }, { databases: ['a'], scratchDb: null })).toMatchObject({ basis: 'unknown', users: ['u@admin'], skipped: [] });
  });

  it('resources: a privilege on another collection or the cluster does not cover a database; anyResource covers all', () => {
    const reply = (resource: object, actions: string[]) => ({ authInfo: { authenticatedUsers: [{ user: 'u', db: 'admin' }], authenticatedUserPrivileges: [{ resource, actions }] } });
    const sample = (r: object) => judgePrivileges(reply(r, ['find']), { databases: ['shop'], scratchDb: null }).allowed.includes('document sample ($sample, find)');
    expect(sample({ db: 'shop', collection: 'orders' })).toBe(false);
    expect(sample({ cluster: true })).toBe(false);
    expect(sample({ db: 'other', collection: '' })).toBe(false);
    expect(sample({ db: '', collection: '' })).toBe(true);
    expect(sample({ anyResource: true })).toBe(true);
    expect(judgePrivileges(reply({ db: '', collection: '' }, ['serverStatus']), { databases: ['shop'], scratchDb: null }).allowed).not.toContain('server status (storage engine, cache)');
  });
});
