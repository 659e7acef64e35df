/**
 * check() as a user whose roles lack clusterMonitor (the built-in role read on one database), on the real servers.
 * Neither server has users, so the user is the real adapter behind a stand-in for MongoDB's authorization: its
 * connectionStatus answers with test/fixtures/mongodb/connection-status-read-only.json (the manual's privileges of
 * `read`, its database renamed to this test's), and any command those privileges do not grant is refused as mongod
 * refuses it: code 13 (Unauthorized), "not authorized on <db> to execute command { … }" (mongodb/mongo
 * src/mongo/db/commands.cpp, the authorization check before a command runs). Every other command reaches the real
 * server. The advisor must not send what the roles forbid, and must say up front what it skipped and why.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rules } from '../rules';
import { DriverAdapter } from '../src/adapters/driver';
import { type Adapter, type CursorOptions, type Doc, commandLabel, commandShape } from '../src/adapters/types';
import { check } from '../src/check';
import { formatMarkdown } from '../src/report/markdown';
import { formatText } from '../src/report/text';
import { joinRegex } from './support/regex';
import { liveUri } from './support/live-uri';

const DB = 'mongo_advisor_test_privileges';

/** A fixture of connectionStatus with its database ("shop") renamed to this test's. */
function asFixture(file: string): Doc {
  const text = readFileSync(join(__dirname, 'fixtures', 'mongodb', file), 'utf8');
  return JSON.parse(text.replaceAll('"shop"', JSON.stringify(DB))) as Doc;
}

/** What `read` on DB does not grant, command by command (the manual's built-in role read; privilege actions page). */
function forbiddenByRead(db: string, cmd: Doc): boolean {
  const { name, stage, explained } = commandShape(cmd);
  if (['serverStatus', 'replSetGetConfig', 'listDatabases', 'fsync'].includes(name)) return true; // cluster actions
  if (name === 'aggregate' && stage === '$indexStats') return true; // indexStats: not in read
  if (name === 'explain' && explained === 'delete') return true; // explain needs remove
  if (['create', 'insert', 'update', 'delete', 'drop', 'dropDatabase', 'createIndexes', 'collMod'].includes(name))
    return true;
  return db !== DB && db !== 'admin' && name !== 'connectionStatus';
}

interface Seen {
  sent: { db: string; cmd: Doc }[];
  refused: string[];
}

/** The live adapter as a user of the given connectionStatus reply sees it. */
function asUser(live: Adapter, reply: Doc, forbidden: (db: string, cmd: Doc) => boolean, seen: Seen): Adapter {
  const gate = (db: string, cmd: Doc): void => {
    seen.sent.push({ db, cmd });
    if (forbidden(db, cmd)) {
      seen.refused.push(Object.keys(cmd)[0] ?? '');
      throw Object.assign(new Error(`not authorized on ${db} to execute command ${JSON.stringify(cmd).slice(0, 80)}`), {
        code: 13,
        codeName: 'Unauthorized',
      });
    }
  };
  return {
    kind: live.kind,
    source: live.source,
    bson: live.bson,
    get roundTrips() {
      return live.roundTrips;
    },
    async command(db: string, cmd: Doc) {
      if ('connectionStatus' in cmd) {
        seen.sent.push({ db, cmd });
        return structuredClone(reply);
      }
      gate(db, cmd);
      return await live.command(db, cmd);
    },
    async cursor(db: string, cmd: Doc, opts?: CursorOptions) {
      gate(db, cmd);
      if (!live.cursor) throw new Error('the live adapter has no cursor API');
      return await live.cursor(db, cmd, opts);
    },
    close: async () => undefined,
  };
}

const names = (seen: Seen): string[] => seen.sent.map(({ cmd }) => commandLabel(cmd));

describe('privileges (live): a user without clusterMonitor', () => {
  const uri = liveUri();
  let client: MongoClient;
  let live: DriverAdapter;

  beforeAll(async () => {
    client = await MongoClient.connect(uri);
    const db = client.db(DB);
    await db.dropDatabase();
    await db.collection('orders').insertMany(
      Array.from({ length: 40 }, (_, i) => ({
        customer: `c${i % 7}`,
        total: i * 3,
        at: new Date(Date.UTC(2026, 0, 1 + i)),
      })),
    );
    await db.collection('orders').createIndexes([{ key: { customer: 1 } }, { key: { customer: 1, at: -1 } }]);
    live = await DriverAdapter.connect(uri);
  });

  afterAll(async () => {
    await client?.db(DB).dropDatabase();
    await client?.close();
    await live?.close();
  });

  it('check sends nothing the roles forbid, and says up front what it skipped and why', async () => {
    const seen: Seen = { sent: [], refused: [] };
    const result = await check(asUser(live, asFixture('connection-status-read-only.json'), forbiddenByRead, seen), {
      db: DB,
      rules,
      confirm: false,
    });
    // nothing forbidden reached the (stand-in) authorization: the advisor did not send it
    expect(seen.refused).toEqual([]);
    const sent = names(seen);
    expect(sent[0]).toBe('connectionStatus');
    expect(sent.filter((n) => n === 'connectionStatus')).toHaveLength(1);
    for (const never of [
      'serverStatus',
      'replSetGetConfig',
      'listDatabases',
      'aggregate $indexStats',
      'explain delete',
    ])
      expect(sent).not.toContain(never);
    // what the roles allowed still ran
    expect(sent).toContain('listIndexes');
    expect(sent).toContain('aggregate $collStats');

    expect(result.privileges?.basis).toBe('roles');
    expect(result.privileges?.users).toEqual(['reporter@admin']);
    const skipped = result.privileges?.skipped.map((s) => s.check) ?? [];
    expect(skipped).toEqual(
      expect.arrayContaining([
        'server status (storage engine, cache)',
        'index usage ($indexStats)',
        'replica-set configuration (hidden members)',
        'database list',
        'delete plans (explain of a delete at queryPlanner)',
      ]),
    );
    // no confirmation asked: its writes are not judged
    expect(skipped.some((s) => s.startsWith('scratch'))).toBe(false);
    const messages = result.notes.map((n) => n.message);
    expect(messages).toContain(
      'privileges: index usage ($indexStats) skipped: your roles lack indexStats on ' +
        'mongo_advisor_test_privileges (aggregate $indexStats): no index usage: unused-index advice is ' +
        'skipped; the built-in role clusterMonitor grants it (or indexStats on { db: ' +
        '"mongo_advisor_test_privileges", collection: "" })',
    );
    expect(messages.find((m) => m.startsWith('privileges: server status'))).toMatch(
      /your roles lack serverStatus on the cluster \(serverStatus\): .*clusterMonitor grants it/,
    );

    const text = formatText(result, { color: false });
    const head = text.split('\n').slice(0, 4).join('\n');
    expect(head).toMatch(
      joinRegex(
        /^roles: signed in as reporter@admin: \d+ of \d+ checks allowed; skipped: .*server status \(storage /m,
        /engine, cache\)/m,
      ),
    );
    expect(formatMarkdown(result)).toMatch(/⚠️ Roles: signed in as reporter@admin: \d+ of \d+ checks allowed/);
  });

  it(
    'the least-privilege role of docs/roles.md skips only the delete plan (it leaves out remove, by ' + 'design)',
    async () => {
      const seen: Seen = { sent: [], refused: [] };
      const result = await check(
        asUser(live, asFixture('connection-status-least-privilege.json'), () => false, seen),
        { db: DB, rules, confirm: false },
      );
      expect(result.privileges?.basis).toBe('roles');
      expect(result.privileges?.skipped.map((s) => s.check)).toEqual([
        'delete plans (explain of a delete at queryPlanner)',
      ]);
      expect(result.notes.filter((n) => n.message.startsWith('privileges:'))).toHaveLength(1);
      expect(names(seen)).toContain('serverStatus');
      expect(names(seen)).not.toContain('explain delete');
      expect(formatText(result, { color: false })).toMatch(
        joinRegex(
          /^roles: signed in as mongo-advisor@admin: \d+ of \d+ checks allowed; skipped: delete plans \(explain of /m,
          /a delete at queryPlanner\)$/m,
        ),
      );
    },
  );

  it(
    'with confirmation asked, roles that cannot write the scratch database start no experiment, and ' + 'say why',
    async () => {
      const seen: Seen = { sent: [], refused: [] };
      const result = await check(asUser(live, asFixture('connection-status-read-only.json'), forbiddenByRead, seen), {
        db: DB,
        rules,
        confirm: true,
        budgetMs: 2_000,
      });
      expect(seen.refused).toEqual([]);
      const writes = names(seen).filter((n) =>
        ['create', 'insert', 'update', 'delete', 'drop', 'dropDatabase', 'createIndexes', 'collMod'].includes(n),
      );
      expect(writes).toEqual([]);
      expect(result.confirm.enabled).toBe(false);
      expect(result.findings.some((f) => f.confirmation !== undefined)).toBe(false);
      expect(result.notes.map((n) => n.message).find((m) => m.startsWith('confirmation not started'))).toMatch(
        joinRegex(
          /^confirmation not started: your roles do not allow writing the scratch database \(createCollection on /,
          /.*insert on .*dropDatabase on .*\), so no experiment ran .* --scratch-uri .* --no-confirm$/,
        ),
      );
    },
  );

  it(
    'without access control (no authenticated user) every check is attempted and nothing is said ' + 'about roles',
    async () => {
      const seen: Seen = { sent: [], refused: [] };
      const result = await check(
        asUser(live, asFixture('connection-status-no-auth.json'), () => false, seen),
        { db: DB, rules, confirm: false },
      );
      expect(result.privileges?.basis).toBe('no-auth');
      expect(result.notes.filter((n) => n.message.startsWith('privileges:'))).toEqual([]);
      expect(formatText(result, { color: false })).not.toMatch(/^roles:/m);
    },
  );
});
