import { Long, MongoClient, ObjectId, UUID } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Adapter, describeServerError } from '../src/adapters/types';
import { SCRATCH_PREFIX, Scratch } from '../src/confirm/scratch';
import { liveUri } from './support/live-uri';

/** Only this file's connections match the failpoints it sets: other test files may drop their databases meanwhile. */
const APP = 'mongo-advisor-scratch-cleanup-test';

describe('scratch cleanup (live): a failed drop is retried and checked with listDatabases', () => {
  const uri = liveUri();
  const kind = inject('serverKind');
  let admin: MongoClient;
  let tagged: MongoClient;
  let adapter: Adapter;
  let noFailpoint = '';

  beforeAll(async () => {
    admin = await MongoClient.connect(uri);
    tagged = await MongoClient.connect(uri, { appName: APP });
    // The driver's own commands through a connection that carries the test's appName (the advisor's adapter names
    // itself "mongo-advisor", which a failpoint would share with every other run on the server).
    adapter = {
      kind: 'driver',
      source: 'scratch-cleanup test',
      bson: { objectId: () => new ObjectId(), uuid: (hex) => new UUID(hex), long: (v) => Long.fromString(String(v)) },
      roundTrips: 0,
      command: async (db, cmd) => await tagged.db(db).command(cmd),
      close: async () => await tagged.close(),
    };
    try {
      await admin.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' });
    } catch (err) {
      noFailpoint =
        `this server (${kind}) refused configureFailPoint (${describeServerError(err)}): start it with test ` +
        `commands enabled (mongod --setParameter enableTestCommands=1, secantusd --enable-test-commands)`;
    }
  });

  afterAll(async () => {
    if (!noFailpoint) await admin?.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' });
    await tagged?.close();
    await admin?.close();
  });

  const failDrops = async (times: number, errorCode: number): Promise<void> => {
    await admin.db('admin').command({
      configureFailPoint: 'failCommand',
      mode: { times },
      data: { failCommands: ['dropDatabase'], errorCode, appName: APP },
    });
  };
  const listed = async (name: string): Promise<boolean> => {
    const r = await admin.db('admin').command({ listDatabases: 1, nameOnly: true });
    return (r.databases as { name: string }[]).some((d) => d.name === name);
  };
  const skipWithoutFailpoint = (ctx: { skip: (note?: string) => void }): void => {
    if (!noFailpoint) return;
    console.log(`[scratch cleanup live] skipped: ${noFailpoint}`);
    ctx.skip(noFailpoint);
  };
  const used = async (): Promise<Scratch> => {
    const s = new Scratch(adapter);
    await s.command({ insert: 'x', documents: [{ a: 1 }] });
    expect(await listed(s.db)).toBe(true);
    return s;
  };

  it('drops and checks: a plain cleanup leaves the database unlisted', async () => {
    const s = await used();
    expect(await s.cleanup()).toBeNull();
    expect(s.cleanedUp).toBe(true);
    expect(await listed(s.db)).toBe(false);
  });

  it(
    'retries a drop the server refused once (InternalError, as SecantusDB answers when its cache ' + 'is full)',
    async (ctx) => {
      skipWithoutFailpoint(ctx);
      const s = await used();
      await failDrops(1, 1);
      expect(await s.cleanup()).toBeNull();
      expect(s.cleanedUp).toBe(true);
      expect(await listed(s.db)).toBe(false);
    },
  );

  it(
    'reports precisely a drop that keeps failing: each attempt, that the database is still listed, and how to ' +
      'drop it',
    async (ctx) => {
      skipWithoutFailpoint(ctx);
      const s = await used();
      await failDrops(3, 1);
      const problem = await s.cleanup();
      expect(s.cleanedUp).toBe(false);
      expect(problem).toMatch(
        new RegExp(
          `^could not drop ${SCRATCH_PREFIX}[0-9a-f]{8}: 3 attempts failed \\(attempt 1: InternalError ` +
            `\\(1\\): [^;]+; attempt 2: InternalError \\(1\\): [^;]+; attempt 3: InternalError \\(1\\): ` +
            `[^)]+\\); listDatabases still lists it; drop it by hand with ` +
            `db\\.getSiblingDB\\("${s.db}"\\)\\.dropDatabase\\(\\)$`,
        ),
      );
      expect(await listed(s.db)).toBe(true);
      // a later cleanup (the CLI's Ctrl-C handler, or the run's own) tries again
      expect(await s.cleanup()).toBeNull();
      expect(await listed(s.db)).toBe(false);
    },
  );

  it('does not retry a drop the user is not allowed to make', async (ctx) => {
    skipWithoutFailpoint(ctx);
    const s = await used();
    await failDrops(3, 13);
    const problem = await s.cleanup();
    expect(problem).toMatch(/: 1 attempt failed \(attempt 1: Unauthorized \(13\): .*\); listDatabases still lists it;/);
    await admin.db('admin').command({ configureFailPoint: 'failCommand', mode: 'off' });
    expect(await s.cleanup()).toBeNull();
  });
});
