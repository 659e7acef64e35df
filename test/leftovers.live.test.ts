import { Long, MongoClient, ObjectId, UUID } from 'mongodb';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from './support/run';
import type { Adapter } from '../src/adapters/types';
import { runCleanup } from '../src/cli/commands/cleanup';
import { isInternalDb } from '../src/cli/deployment';
import { leftoverLines, listScratchDatabases, NOT_OURS, staleness, STALE_AFTER_MS } from '../src/confirm/leftovers';
import { LoadAbort, LoadGuard, lagFromReplStatus, loadFromServerStatus, parseMaxLoad } from '../src/confirm/load';
import { MARKER_COLLECTION, runInProgressHere, Scratch } from '../src/confirm/scratch';
import { liveUri } from './support/live-uri';

const userDatabasesOf = (names: string[]): string[] => names.filter((n) => !isInternalDb(n));

describe('scratch markers, leftovers and `cleanup` (live)', () => {
  const uri = liveUri();
  let client: MongoClient;
  let adapter: Adapter;
  beforeAll(async () => {
    client = await MongoClient.connect(uri);
    adapter = {
      kind: 'driver',
      source: 'leftovers test',
      bson: { objectId: () => new ObjectId(), uuid: (hex) => new UUID(hex), long: (v) => Long.fromString(String(v)) },
      roundTrips: 0,
      command: async (db, cmd) => await client.db(db).command(cmd),
      close: () => Promise.resolve(),
    };
  });
  afterAll(async () => {
    await client?.close();
  });

  it('writes its marker before anything else, and a run in progress is never called stale', async () => {
    const s = new Scratch(adapter, `leftovers${Date.now().toString(16)}`);
    await s.create('x');
    const marker = await client
      .db(s.db)
      .collection(MARKER_COLLECTION)
      .findOne({ _id: 'owner' as never });
    expect(marker).toMatchObject({ tool: 'mongo-advisor', pid: process.pid, via: 'api' });
    expect(Date.parse(String(marker?.startedAt))).toBeGreaterThan(Date.now() - 60_000);
    const mine = (await listScratchDatabases(adapter)).find((d) => d.name === s.db);
    expect(mine?.state).toBe('running');
    expect(await s.cleanup()).toBeNull();
  });

  it('the staleness rule: dead pid on this host, too old, or no marker', () => {
    const m = {
      _id: 'owner' as const,
      tool: 'mongo-advisor' as const,
      version: '1',
      host: 'h',
      pid: 42,
      startedAt: new Date().toISOString(),
      via: 'cli',
    };
    expect(staleness(m, Date.now(), 'h', () => false).state).toBe('stale');
    expect(staleness(m, Date.now(), 'h', () => true).state).toBe('running');
    expect(staleness(m, Date.now(), 'other', () => false).state).toBe('running');
    expect(staleness(m, Date.now() + STALE_AFTER_MS + 1, 'other', () => true).state).toBe('stale');
    expect(staleness(null)).toEqual({ state: 'foreign', why: NOT_OURS });
    // this very process: in use while one of its runs writes there, a leftover once that run has ended (an
    // interrupted advisor.check in the same mongosh session)
    const mine = { ...m, pid: process.pid };
    const here = staleness(
      mine,
      Date.now(),
      'h',
      () => true,
      () => true,
    );
    expect(here.state).toBe('running');
    expect(here.why).toMatch(/this very process, a run going on now$/);
    const ended = staleness(
      mine,
      Date.now(),
      'h',
      () => true,
      () => false,
    );
    expect(ended.state).toBe('stale');
    expect(ended.why).toMatch(/this very process, whose run has ended/);
  });

  it('a scratch database of this process is in use from its first write until its cleanup ends', async () => {
    const scratch = new Scratch(adapter, undefined, 'api');
    try {
      expect(runInProgressHere(scratch.db)).toBe(false);
      await scratch.command({ create: 'x' });
      expect(runInProgressHere(scratch.db)).toBe(true);
      const listed = (await listScratchDatabases(adapter)).find((d) => d.name === scratch.db);
      expect(listed?.state).toBe('running');
    } finally {
      expect(await scratch.cleanup()).toBeNull();
    }
    expect(runInProgressHere(scratch.db)).toBe(false);
  });

  it("`cleanup --yes` drops a leftover (a dead pid's marker) and keeps a run in progress", async () => {
    const stale = new Scratch(adapter, `leftstale${Date.now().toString(16)}`);
    await stale.create('copy');
    // a leftover: its marker names a pid that cannot run here
    await client
      .db(stale.db)
      .collection(MARKER_COLLECTION)
      .updateOne({ _id: 'owner' as never }, { $set: { pid: 2 ** 22 + 12345 } });
    const live = new Scratch(adapter, `leftlive${Date.now().toString(16)}`);
    await live.create('copy');
    const out: string[] = [];
    const code = await runCleanup(
      uri,
      { yes: true },
      { out: (s) => out.push(s), err: (s) => out.push(s), isTTY: false },
    );
    expect(out.join('\n')).toContain(`dropped ${stale.db} (listDatabases no longer lists it)`);
    expect(out.join('\n')).toMatch(new RegExp(`${live.db}\\s+\\S+ \\w+\\s+in use: `));
    expect(code).toBe(0);
    const names = (
      (await client.db('admin').command({ listDatabases: 1, nameOnly: true })).databases as { name: string }[]
    ).map((d) => d.name);
    expect(names).not.toContain(stale.db);
    expect(names).toContain(live.db);
    expect(await live.cleanup()).toBeNull();
  });

  it(
    'through the real CLI: check and audit name a leftover with its removal command, audit never audits it, ' +
      '`cleanup --yes` drops it',
    async () => {
      const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
      const cli = async (...args: string[]) => {
        const t = Date.now();
        const r = await runProcess(process.execPath, [CLI, ...args], { timeoutMs: 60_000 });
        console.log(`[leftovers cli] ${args[0]} ${args.slice(2).join(' ')}: exit ${r.code} in ${Date.now() - t} ms`);
        return r;
      };
      const userDb = `mongo_advisor_test_leftover_cli`;
      await client
        .db(userDb)
        .collection('orders')
        .insertMany(Array.from({ length: 5 }, (_, i) => ({ i })));
      const stale = new Scratch(adapter, `leftcli${Date.now().toString(16)}`);
      await stale.create('copy');
      await client
        .db(stale.db)
        .collection('copy')
        .insertMany(Array.from({ length: 5 }, (_, i) => ({ i })));
      await client
        .db(stale.db)
        .collection(MARKER_COLLECTION)
        .updateOne({ _id: 'owner' as never }, { $set: { pid: 2 ** 22 + 12345 } });
      try {
        const checked = await cli('check', uri, '--db', userDb, '--no-confirm', '--format', 'json', '--quiet');
        expect(checked.err).toContain(stale.db);
        expect(checked.err).toMatch(/stale scratch database.*Remove it with: mongo-advisor cleanup <uri>/s);
        // Audit is read-only by default: it names the leftover too. (One database: the shared test server holds many.)
        const audited = await cli('audit', uri, '--db', userDb, '--format', 'json', '--output', '-', '--quiet');
        expect(audited.err).toContain(stale.db);
        expect(audited.err).not.toMatch(/Confirming \d+ finding/);
        // The listing audit reads every database from never offers a scratch database, nor does the inventory count
        // one.
        expect(userDatabasesOf([userDb, stale.db, 'admin'])).toEqual([userDb]);
        const refused = await cli('check', uri, '--db', stale.db, '--no-confirm');
        expect(refused.code).toBe(2);
        expect(refused.err).toMatch(/is a scratch database mongo-advisor writes its experiments to/);
        const cleaned = await cli('cleanup', uri, '--yes');
        expect(cleaned.code).toBe(0);
        expect(cleaned.out + cleaned.err).toContain(`dropped ${stale.db} (listDatabases no longer lists it)`);
        const names = (
          (await client.db('admin').command({ listDatabases: 1, nameOnly: true })).databases as { name: string }[]
        ).map((d) => d.name);
        expect(names).not.toContain(stale.db);
      } finally {
        await client
          .db(stale.db)
          .dropDatabase()
          .catch(() => undefined);
        await client.db(userDb).dropDatabase();
      }
    },
    120_000,
  );

  it('without --yes and without a terminal, cleanup drops nothing and says to pass --yes', async () => {
    const stale = new Scratch(adapter, `leftask${Date.now().toString(16)}`);
    await stale.create('copy');
    await client
      .db(stale.db)
      .collection(MARKER_COLLECTION)
      .updateOne({ _id: 'owner' as never }, { $set: { startedAt: '2000-01-01T00:00:00.000Z' } });
    const err: string[] = [];
    const code = await runCleanup(uri, {}, { out: () => undefined, err: (s) => err.push(s), isTTY: false });
    // kept stale databases: exit 1, as the README's table says (not 2, a usage error)
    expect(code).toBe(1);
    const said = `Nothing dropped: no terminal to ask on\\. Pass --yes to drop .*${stale.db}`;
    expect(err.join('\n')).toMatch(new RegExp(said));
    expect((await listScratchDatabases(adapter)).find((d) => d.name === stale.db)?.state).toBe('stale');
    expect(await stale.cleanup()).toBeNull();
  });
});

describe('a database with the scratch prefix but without our marker is not ours (live, real CLI)', () => {
  const uri = liveUri();
  const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
  let client: MongoClient;
  beforeAll(async () => {
    client = await MongoClient.connect(uri);
  });
  afterAll(async () => {
    await client?.close();
  });
  const names = async (): Promise<string[]> => {
    const listed = await client.db('admin').command({ listDatabases: 1, nameOnly: true });
    return (listed.databases as { name: string }[]).map((d) => d.name);
  };
  const cli = (...args: string[]) => runProcess(process.execPath, [CLI, ...args], { timeoutMs: 60_000 });

  it('`cleanup --yes` lists it with its size and leaves it; `cleanup --drop <name> --yes` drops it', async () => {
    const theirs = `mongo_advisor_scratch_users_own_${Date.now().toString(16)}`;
    const customers = Array.from({ length: 20 }, (_, i) => ({ i, name: `c${i}` }));
    await client.db(theirs).collection('customers').insertMany(customers);
    try {
      const cleaned = await cli('cleanup', uri, '--yes');
      const said = cleaned.out + cleaned.err;
      expect(said).toMatch(new RegExp(`${theirs}  (size unknown|[\\d.,]+ \\w*B)  NOT OURS: ${NOT_OURS}`));
      expect(said).not.toContain(`dropped ${theirs}`);
      expect(said).not.toMatch(/copies of source documents/);
      expect(cleaned.code).toBe(0);
      expect(await names()).toContain(theirs);
      expect(await client.db(theirs).collection('customers').countDocuments()).toBe(20);
      // A connecting command names it the same way, never as our leftover.
      const checked = await cli('check', uri, '--db', 'admin', '--no-confirm', '--quiet', '--format', 'json');
      expect(checked.err).toContain(`${theirs} (`);
      expect(checked.err).toContain(`) ${NOT_OURS}.`);
      expect(checked.err).not.toMatch(new RegExp(`copies of source documents[^\\n]*${theirs}`));
      const dropped = await cli('cleanup', uri, '--drop', theirs, '--yes');
      expect(dropped.out + dropped.err).toContain(`dropped ${theirs} (listDatabases no longer lists it)`);
      expect(dropped.code).toBe(0);
      expect(await names()).not.toContain(theirs);
    } finally {
      await client
        .db(theirs)
        .dropDatabase()
        .catch(() => undefined);
    }
  }, 120_000);

  it('`--drop` refuses a name without the prefix and one that is not there, sending nothing', async () => {
    const out: string[] = [];
    const io = { out: (s: string) => out.push(s), err: (s: string) => out.push(s), isTTY: false };
    const users = 'mongo_advisor_test_not_scratch';
    await client.db(users).collection('keep').insertOne({ a: 1 });
    try {
      await expect(runCleanup(uri, { drop: [users], yes: true }, io)).rejects.toThrow(
        new RegExp(`--drop "${users}" refused: cleanup drops only databases named mongo_advisor_scratch_…`),
      );
      const absent = runCleanup(uri, { drop: ['mongo_advisor_scratch_absent'], yes: true }, io);
      await expect(absent).rejects.toThrow(/no such database on this server/);
      expect(await names()).toContain(users);
    } finally {
      await client.db(users).dropDatabase();
    }
  });

  it('leftover lines: ours stale is "copies of source documents", a foreign one is not ours', () => {
    const lines = leftoverLines(
      [
        { name: 'mongo_advisor_scratch_mine', bytes: 1024, marker: null, state: 'stale', why: 'its process is gone' },
        { name: 'mongo_advisor_scratch_theirs', bytes: 2048, marker: null, state: 'foreign', why: NOT_OURS },
      ],
      'mongo-advisor cleanup <uri>',
    );
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^1 stale scratch database left by earlier runs .*copies of source documents.*_mine/);
    expect(lines[0]).not.toContain('theirs');
    expect(lines[1]).toBe(`mongo_advisor_scratch_theirs (2 KiB) ${NOT_OURS}.`);
  });
});

describe('load guard (the decision, over readings)', () => {
  it('parses --max-load and maps serverStatus and replSetGetStatus', () => {
    expect(parseMaxLoad('active=3,lag=2')).toEqual({ active: 3, queued: 10, dirty: 0.05, lag: 2 });
    expect(() => parseMaxLoad('threads=3')).toThrow(/active, queued, dirty, lag/);
    expect(
      loadFromServerStatus({
        globalLock: { activeClients: { total: 7 }, currentQueue: { total: 2 } },
        wiredTiger: { cache: { 'tracked dirty bytes in the cache': 10, 'maximum bytes configured': 100 } },
      }),
    ).toEqual({ active: 7, queued: 2, dirty: 0.1 });
    const t = Date.now();
    expect(
      lagFromReplStatus({
        members: [
          { stateStr: 'PRIMARY', optimeDate: new Date(t) },
          { stateStr: 'SECONDARY', optimeDate: new Date(t - 3000) },
        ],
      }),
    ).toBe(3);
  });

  it('pauses while above --max-load, resumes under it, stops past the pause bound or the critical level', async () => {
    const readings = [{ active: 30 }, { active: 30 }, { active: 5 }];
    const lines: string[] = [];
    const g = new LoadGuard(null, {
      intervalMs: 10,
      read: () => Promise.resolve(readings.shift() ?? {}),
      log: (l) => lines.push(l),
    });
    await g.check(true);
    expect(lines[0]).toMatch(
      /^pausing: the server is busy \(active=30>25; --max-load active=25,queued=10,dirty=0.05,lag=1\)$/,
    );
    expect(lines[1]).toMatch(/^resuming/);
    const stuck = new LoadGuard(null, { intervalMs: 10, maxPauseMs: 50, read: () => Promise.resolve({ queued: 11 }) });
    await expect(stuck.check(true)).rejects.toThrow(LoadAbort);
    await expect(stuck.check(true)).rejects.toThrow(/stayed above --max-load for \d+ s \(queued=11>10/);
    const critical = new LoadGuard(null, { read: () => Promise.resolve({ dirty: 0.3 }) });
    await expect(critical.check(true)).rejects.toThrow(/past the critical level \(dirty=0\.300>0\.2/);
  });
});
