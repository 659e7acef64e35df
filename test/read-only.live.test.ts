import { type CommandStartedEvent, Long, MongoClient, ObjectId, UUID } from 'mongodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { commandCursor } from '../src/adapters/cursor';
import { DriverAdapter } from '../src/adapters/driver';
import { isReadOnly, readOnly, RefusedCommand, SCRATCH_PREFIX, scratchOnly } from '../src/adapters/read-only';
import type { Adapter, Doc } from '../src/adapters/types';
import { rules } from '../rules';
import { collectSnapshot } from '../src/collect';
import { collectorsOf } from '../src/core/collector';
import { confirmFindings } from '../src/confirm';
import type { AnyRule as Rule } from '../src/core/rule';
import type { Finding, Snapshot } from '../src/core/types';
import { joinRegex } from './support/regex';
import { liveUri } from './support/live-uri';

const DB = 'mongo_advisor_test_read_only';
const POSTS = 40;

/** The reading commands the gate lets through (src/adapters/read-only.ts), as the driver names them in events. */
const READS = new Set([
  'find',
  'aggregate',
  'count',
  'listCollections',
  'listIndexes',
  'listDatabases',
  'buildInfo',
  'hello',
  'isMaster',
  'ismaster',
  'serverStatus',
  'replSetGetConfig',
  'replSetGetStatus',
  'dbStats',
  'connectionStatus',
  'ping',
  'explain',
  'getMore',
  'killCursors',
]);

/** An advisor adapter over a driver client of the test's own, so the driver's command monitoring sees every command it
 * sends. */
function adapterOver(client: MongoClient): Adapter {
  return {
    kind: 'driver',
    source: 'read-only test',
    bson: { objectId: () => new ObjectId(), uuid: (hex) => new UUID(hex), long: (v) => Long.fromString(String(v)) },
    roundTrips: 0,
    command: async (db, cmd) => await client.db(db).command(cmd),
    close: async () => undefined,
  };
}

function asLong(id: unknown): unknown {
  return typeof id === 'number' ? Long.fromNumber(id) : id;
}

describe('read-only by construction (live): collect and confirm reads send only reading commands', () => {
  const uri = liveUri();
  const kind = inject('serverKind');
  let plain: MongoClient;
  let watched: MongoClient;
  const started: CommandStartedEvent[] = [];
  let gate: Adapter;
  let seeded: string[] = [];

  /** Commands the watched client sent since `from`, leaving out the driver's own session bookkeeping. */
  const sentSince = (from: number): CommandStartedEvent[] =>
    started.slice(from).filter((e) => e.commandName !== 'endSessions');
  const postCount = async (): Promise<number> => await plain.db(DB).collection('posts').countDocuments();
  const collections = async (): Promise<string[]> =>
    (await plain.db(DB).listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name).sort();

  beforeAll(async () => {
    plain = await MongoClient.connect(uri);
    watched = await MongoClient.connect(uri, { monitorCommands: true });
    watched.on('commandStarted', (e) => started.push(e));
    const db = plain.db(DB);
    await db.dropDatabase();
    await db.collection('posts').insertMany(
      Array.from({ length: POSTS }, (_, i) => ({
        n: i,
        createdAt: new Date(Date.now() - i * 60_000),
        tags: Array.from({ length: i % 7 }, (_, j) => `t${j}`),
        body: 'x'.repeat(200 + i * 40),
      })),
    );
    await db.collection('posts').createIndex({ n: 1 });
    await db.collection('other').insertOne({ a: 1 });
    await db.createCollection('empty');
    seeded = await collections();
    gate = readOnly(adapterOver(watched));
  });

  afterAll(async () => {
    await plain?.db(DB).dropDatabase();
    await watched?.close();
    await plain?.close();
  });

  it('refuses writes before they reach the server: no command started, nothing changed', async () => {
    const refused: [string, string, Doc][] = [
      ['insert', DB, { insert: 'posts', documents: [{ n: -1 }] }],
      ['update', DB, { update: 'posts', updates: [{ q: {}, u: { $set: { n: 0 } }, multi: true }] }],
      ['delete', DB, { delete: 'posts', deletes: [{ q: {}, limit: 0 }] }],
      ['findAndModify', DB, { findAndModify: 'posts', query: {}, remove: true }],
      ['drop', DB, { drop: 'posts' }],
      ['dropDatabase', DB, { dropDatabase: 1 }],
      ['create', DB, { create: 'made' }],
      ['createIndexes', DB, { createIndexes: 'posts', indexes: [{ key: { body: 1 }, name: 'body_1' }] }],
      ['collMod', DB, { collMod: 'posts', validator: { n: { $gte: 0 } } }],
      ['renameCollection', 'admin', { renameCollection: `${DB}.posts`, to: `${DB}.renamed` }],
      ['profile', DB, { profile: 2 }],
      ['aggregate', DB, { aggregate: 'posts', pipeline: [{ $match: {} }, { $out: 'copy' }], cursor: {} }],
      [
        'aggregate',
        DB,
        {
          aggregate: 'posts',
          pipeline: [{ $facet: { all: [{ $match: {} }], saved: [{ $merge: { into: 'copy' } }] } }],
          cursor: {},
        },
      ],
      [
        'aggregate',
        DB,
        {
          aggregate: 'posts',
          pipeline: [{ $lookup: { from: 'other', as: 'o', pipeline: [{ $out: 'copy' }] } }],
          cursor: {},
        },
      ],
      [
        'aggregate',
        DB,
        {
          aggregate: 'posts',
          pipeline: [{ $unionWith: { coll: 'other', pipeline: [{ $merge: { into: { db: DB, coll: 'copy' } } }] } }],
          cursor: {},
        },
      ],
      ['explain', DB, { explain: { delete: 'posts', deletes: [{ q: {}, limit: 0 }] } }],
      [
        'explain',
        DB,
        {
          explain: { update: 'posts', updates: [{ q: {}, u: { $set: { n: 0 } }, multi: true }] },
          verbosity: 'allPlansExecution',
        },
      ],
      ['explain', DB, { explain: { findAndModify: 'posts', query: {}, remove: true }, verbosity: 'queryPlanner' }],
    ];
    for (const [name, db, cmd] of refused) {
      const before = started.length;
      const err = await gate.command(db, cmd).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, `${name} ${JSON.stringify(cmd)} was not refused`).toBeInstanceOf(RefusedCommand);
      expect((err as Error).message).toMatch(
        new RegExp(
          `^mongo-advisor refused to send ${name} while inspecting: only reading commands are allowed \\(.+\\)$`,
        ),
      );
      expect(
        sentSince(before).map((e) => e.commandName),
        `${name} reached the server`,
      ).toEqual([]);
    }
    // the server state says the same: every collection there, unchanged, and no copy made
    expect(await collections()).toEqual(seeded);
    expect(await postCount()).toBe(POSTS);
    expect(await plain.db(DB).collection('posts').countDocuments({ n: -1 })).toBe(0);
  });

  it('lets reads through, and getMore/killCursors only for cursors it opened itself', async () => {
    // a cursor another client opened: the gate will not read on with it, nor close it
    const foreign = (await plain.db(DB).command({ find: 'posts', filter: {}, batchSize: 2 })) as {
      cursor: { id: unknown };
    };
    const fid = asLong(foreign.cursor.id);
    let before = started.length;
    await expect(gate.command(DB, { getMore: fid, collection: 'posts', batchSize: 2 })).rejects.toThrow(
      joinRegex(
        /^mongo-advisor refused to send getMore while inspecting: only reading commands are allowed \(getMore of /,
        /cursor \d+ on mongo_advisor_test_read_only, which this inspection did not open\)$/,
      ),
    );
    await expect(gate.command(DB, { killCursors: 'posts', cursors: [fid] })).rejects.toThrow(
      /killCursors of cursor \d+ on mongo_advisor_test_read_only, which this inspection did not open/,
    );
    expect(sentSince(before)).toEqual([]);
    // untouched: its owner reads on from where it was
    const more = (await plain.db(DB).command({ getMore: fid, collection: 'posts', batchSize: 100 })) as {
      cursor: { nextBatch: Doc[] };
    };
    expect(more.cursor.nextBatch).toHaveLength(POSTS - 2);

    // its own cursors: read to the end, and closed early
    before = started.length;
    expect(
      await commandCursor(gate, DB, { find: 'posts', filter: {}, batchSize: 7 }, { maxTimeMS: 10_000 }),
    ).toHaveLength(POSTS);
    expect(
      await commandCursor(gate, DB, { find: 'posts', filter: {}, batchSize: 5 }, { limit: 3, maxTimeMS: 10_000 }),
    ).toHaveLength(3);
    const names = sentSince(before).map((e) => e.commandName);
    expect(names).toContain('getMore');
    expect(names).toContain('killCursors');

    // a cursor it opened and closed is no longer its to read
    const own = (await gate.command(DB, { find: 'posts', filter: {}, batchSize: 2 })) as { cursor: { id: unknown } };
    const oid = asLong(own.cursor.id);
    expect(
      (
        (await gate.command(DB, { getMore: oid, collection: 'posts', batchSize: 2 })) as {
          cursor: { nextBatch: Doc[] };
        }
      ).cursor.nextBatch,
    ).toHaveLength(2);
    await gate.command(DB, { killCursors: 'posts', cursors: [oid] });
    before = started.length;
    await expect(gate.command(DB, { getMore: oid, collection: 'posts' })).rejects.toThrow(RefusedCommand);
    expect(sentSince(before)).toEqual([]);
    // another gate (another adapter) cannot use this one's cursors
    const mine = (await gate.command(DB, { find: 'posts', filter: {}, batchSize: 2 })) as { cursor: { id: unknown } };
    const other = readOnly(adapterOver(watched));
    await expect(other.command(DB, { getMore: asLong(mine.cursor.id), collection: 'posts' })).rejects.toThrow(
      RefusedCommand,
    );
    await gate.command(DB, { killCursors: 'posts', cursors: [asLong(mine.cursor.id)] });
  });

  it(
    'sends an explain of a delete at queryPlanner (the clustered-trap collector does): the server plans it ' +
      'and deletes nothing',
    async () => {
      const before = started.length;
      const reply = await gate
        .command(DB, {
          explain: { delete: 'posts', deletes: [{ q: { n: { $in: [1, 2] } }, limit: 0 }] },
          verbosity: 'queryPlanner',
        })
        .then(
          (r) => `answered ok: ${String(r.ok)}`,
          (e: unknown) => `refused by the server: ${(e as Error).message.split('\n')[0] ?? ''}`,
        );
      console.log(`[read-only live] ${kind}: explain of a delete at queryPlanner ${reply}`);
      expect(sentSince(before).map((e) => e.commandName)).toEqual(['explain']);
      expect(await postCount()).toBe(POSTS);
    },
  );

  it('collectSnapshot goes through the gate: every command it sends is a read, and none is refused', async () => {
    const before = started.length;
    // countFirstAbove 1: the count path of large databases; largeDocBytes 1,000: documents measured on the server
    // Every built-in rule's collectors, so each goes through the gate too.
    const collectors = collectorsOf(rules);
    const snaps: Snapshot[] = [
      await collectSnapshot(adapterOver(watched), { db: DB, sampleSize: 30, collectors }),
      await collectSnapshot(adapterOver(watched), { db: DB, countFirstAbove: 1, largeDocBytes: 1000, collectors }),
    ];
    const sent = sentSince(before);
    const names = [...new Set(sent.map((e) => e.commandName))].sort();
    console.log(`[read-only live] ${kind}: collect sent ${sent.length} commands: ${names.join(', ')}`);
    expect(names.filter((n) => !READS.has(n))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining(['aggregate', 'buildInfo', 'count', 'find', 'listCollections', 'listIndexes']),
    );
    // collectors turn errors into notes: a refusal would hide there, so look
    const text = JSON.stringify(snaps);
    expect(text).not.toMatch(/refused to send/);
    expect(snaps[0]?.databases[0]?.collections.find((c) => c.name === 'posts')?.sample.size).toBeGreaterThan(0);
    expect(await collections()).toEqual(seeded);
    expect(await postCount()).toBe(POSTS);
  });

  it('hands out member connections read-only', async () => {
    const adapter = await DriverAdapter.connect(uri);
    try {
      const host = /^mongodb:\/\/(?:[^@/]*@)?([^/?,]+)/.exec(uri)?.[1] as string;
      for (const member of [
        await adapter.connectMember(host),
        await (readOnly(adapter).connectMember as (h: string) => Promise<Adapter>)(host),
      ]) {
        expect(isReadOnly(member)).toBe(true);
        await expect(member.command(DB, { insert: 'posts', documents: [{ n: -2 }] })).rejects.toThrow(
          /^mongo-advisor refused to send insert while inspecting/,
        );
        expect(
          await commandCursor(member, DB, { find: 'posts', filter: {}, batchSize: 3 }, { limit: 5, maxTimeMS: 10_000 }),
        ).toHaveLength(5);
      }
      expect(await plain.db(DB).collection('posts').countDocuments({ n: -2 })).toBe(0);
    } finally {
      await adapter.close();
    }
  });

  it('the scratch gate refuses any database outside the scratch prefix, and $out/$merge into one', async () => {
    const scratch = scratchOnly(adapterOver(watched));
    const name = `${SCRATCH_PREFIX}ro${Date.now().toString(36)}`;
    const refused: [string, Doc][] = [
      [DB, { insert: 'posts', documents: [{ n: -3 }] }],
      [DB, { drop: 'posts' }],
      [DB, { find: 'posts', filter: {} }],
      ['mongo_advisor_scratch', { insert: 'x', documents: [{ n: -3 }] }],
      ['admin', { fsync: 1, lock: true }],
      ['admin', { renameCollection: `${DB}.posts`, to: `${name}.posts` }],
      ['admin', { createUser: 'u', pwd: 'p', roles: [] }],
      [name, { aggregate: 'x', pipeline: [{ $out: { db: DB, coll: 'stolen' } }], cursor: {} }],
      [
        name,
        {
          aggregate: 'x',
          pipeline: [{ $facet: { a: [{ $merge: { into: { db: DB, coll: 'stolen' } } }] } }],
          cursor: {},
        },
      ],
      [
        name,
        {
          explain: { aggregate: 'x', pipeline: [{ $out: { db: DB, coll: 'stolen' } }], cursor: {} },
          verbosity: 'queryPlanner',
        },
      ],
      [name, { createUser: 'u', pwd: 'p', roles: [] }],
      [name, { insert: 'x', documents: [{}], $db: DB }],
    ];
    const before = started.length;
    for (const [db, cmd] of refused) {
      await expect(scratch.command(db, cmd), `${db} ${JSON.stringify(cmd)}`).rejects.toThrow(
        joinRegex(
          /^mongo-advisor refused to send \S+ to database \S+: experiments write only to databases named /,
          /mongo_advisor_scratch_… \(.+\)$/,
        ),
      );
    }
    expect(sentSince(before)).toEqual([]);
    expect(await collections()).toEqual(seeded);
    // inside the prefix it writes; outside, listDatabases and fsync (no lock) on admin
    try {
      await scratch.command(name, { insert: 'x', documents: [{ a: 1 }] });
      await scratch
        .command(name, { aggregate: 'x', pipeline: [{ $match: {} }, { $out: 'y' }], cursor: {} })
        .catch(() => undefined); // a server without $out may refuse
      await scratch.command('admin', { fsync: 1 }).catch(() => undefined); // a server may refuse fsync: not the gate
      const listed = await scratch.command('admin', { listDatabases: 1, nameOnly: true });
      expect((listed.databases as { name: string }[]).map((d) => d.name)).toContain(name);
      expect(await plain.db(name).collection('x').countDocuments()).toBe(1);
    } finally {
      await scratch.command(name, { dropDatabase: 1 });
    }
  });

  it('experiments read the source through the gate and write only through the scratch handle', async () => {
    const snap = await collectSnapshot(adapterOver(watched), { db: DB, collections: ['posts'], sampleSize: 20 });
    const attempts: string[] = [];
    const tryIt = async (label: string, f: () => Promise<unknown>): Promise<void> => {
      try {
        await f();
        attempts.push(`${label}: sent`);
      } catch (err) {
        attempts.push(
          `${label}: ${err instanceof RefusedCommand ? 'refused' : `server error ${(err as Error).message}`}`,
        );
      }
    };
    const rule: Rule = {
      id: 'read-only-probe',
      meta: {
        description: 'test',
        docsUrl: 'https://example.invalid',
        severity: 'info',
        messages: { probe: 'probe' },
        options: { type: 'object', properties: {}, additionalProperties: false },
        requires: { capabilities: [] },
      },
      scope: 'collection',
      analyze: () => undefined,
      confirm: {
        describe: 'tries to write where it may not',
        run: async (ctx) => {
          const s = ctx.scratch;
          expect(isReadOnly(ctx.source)).toBe(true);
          expect('adapter' in s).toBe(false);
          expect(await ctx.sourceDocs(DB, 'posts', { limit: 5 })).toHaveLength(5);
          await tryIt('source insert', () => ctx.source.command(DB, { insert: 'posts', documents: [{ n: -4 }] }));
          await tryIt('source drop', () => ctx.source.command(DB, { drop: 'other' }));
          await tryIt('source $out', () =>
            ctx.source.command(DB, { aggregate: 'posts', pipeline: [{ $out: 'stolen' }], cursor: {} }),
          );
          await tryIt('scratch insert', () =>
            s.command({ insert: 't', documents: [{ _id: s.bson.objectId(), a: 1 }] }),
          );
          await tryIt('scratch $out to the source', () =>
            s.command({ aggregate: 't', pipeline: [{ $out: { db: DB, coll: 'stolen' } }], cursor: {} }),
          );
          await tryIt('scratch $merge to the source', () =>
            s.command({ aggregate: 't', pipeline: [{ $merge: { into: { db: DB, coll: 'stolen' } } }], cursor: {} }),
          );
          await tryIt('scratch read', async () => expect(await s.cursor({ find: 't', filter: {} })).toHaveLength(1));
          return { status: 'supported', summary: attempts.join('; '), measurements: [] };
        },
      },
    };
    const finding: Finding = {
      ruleId: rule.id,
      messageId: 'probe',
      severity: 'info',
      target: { db: DB, collection: 'posts' },
      message: 'probe',
      evidence: {},
      docsUrl: rule.meta.docsUrl,
    };
    const before = started.length;
    const run = await confirmFindings(snap, [finding], adapterOver(watched), [rule], { budgetMs: 10_000 });
    expect(run.findings[0]?.confirmation?.status, run.findings[0]?.confirmation?.summary).toBe('supported');
    expect(attempts).toEqual([
      'source insert: refused',
      'source drop: refused',
      'source $out: refused',
      'scratch insert: sent',
      'scratch $out to the source: refused',
      'scratch $merge to the source: refused',
      'scratch read: sent',
    ]);
    expect(run.cleanedUp).toBe(true);
    // every command that went anywhere but the scratch database was a read (or the scratch checkpoint/listing on admin)
    const outside = sentSince(before).filter((e) => !e.databaseName.startsWith(SCRATCH_PREFIX));
    expect(outside.map((e) => e.commandName).filter((n) => !READS.has(n))).toEqual([]);
    expect(await collections()).toEqual(seeded);
    expect(await postCount()).toBe(POSTS);
  });
});
