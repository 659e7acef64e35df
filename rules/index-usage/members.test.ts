import { describe, expect, it } from 'vitest';
import type { Adapter, Doc } from '../../src/core/adapter';
import type { CollectionContext } from '../../src/core/collector';
import type { CollectionSnapshot, ServerInfo } from '../../src/core/types';
import { collectionOf, snapshotOf, withData } from '../../test/support/fixtures';
import { snapshotProblems } from '../../test/support/rule-tester';
import {
  type IndexAccess,
  type IndexUsageData,
  indexUsageCollector,
  memberList,
  mergeMemberStats,
  sinceOf,
} from './collect';

// hello on a replica-set primary, as documented (fields the collector reads, plus some it ignores)
const hello = {
  topologyVersion: { processId: 'x', counter: 6 },
  hosts: ['m1.example.net:27017', 'm2.example.net:27017', 'm3.example.net:27017'],
  passives: ['m4.example.net:27017'],
  arbiters: ['arb.example.net:27017'],
  setName: 'rs0',
  setVersion: 9,
  isWritablePrimary: true,
  secondary: false,
  primary: 'm1.example.net:27017',
  me: 'm1.example.net:27017',
  maxBsonObjectSize: 16777216,
  ok: 1,
};

// replSetGetConfig as documented: members with host, arbiterOnly, hidden, priority…
const config = {
  config: {
    _id: 'rs0',
    version: 9,
    members: [
      { _id: 0, host: 'm1.example.net:27017', arbiterOnly: false, hidden: false, priority: 1, votes: 1 },
      { _id: 1, host: 'm2.example.net:27017', arbiterOnly: false, hidden: false, priority: 1, votes: 1 },
      { _id: 2, host: 'm3.example.net:27017', arbiterOnly: false, hidden: false, priority: 1, votes: 1 },
      { _id: 3, host: 'm4.example.net:27017', arbiterOnly: false, hidden: false, priority: 0, votes: 1 },
      { _id: 4, host: 'backup.example.net:27017', arbiterOnly: false, hidden: true, priority: 0, votes: 0 },
      { _id: 5, host: 'arb.example.net:27017', arbiterOnly: true, hidden: false, priority: 0, votes: 1 },
    ],
  },
  ok: 1,
};

const since = new Date('2026-09-01T00:00:00Z');
const SINCE = '2026-09-01T00:00:00.000Z';
/** $indexStats rows as documented: name, key, host, accesses {ops, since}, spec; each member names its own
 * host:port. */
const rows = (host: string, ops: number, when: unknown = since): Doc[] => [
  {
    name: '_id_',
    key: { _id: 1 },
    host,
    accesses: { ops, since: when },
    spec: { v: 2, key: { _id: 1 }, name: '_id_' },
  },
  {
    name: 'status_1',
    key: { status: 1 },
    host,
    accesses: { ops, since: when },
    spec: { v: 2, key: { status: 1 }, name: 'status_1' },
  },
];
const cursor = (batch: Doc[]): Doc => ({ cursor: { id: 0, ns: 'app.orders', firstBatch: batch }, ok: 1 });

/** A fake adapter answering each command with `answer`, recording what it was sent; members by host. */
function fake(
  answer: (cmd: Doc) => Doc,
  members: Record<string, Adapter> = {},
  kind: Adapter['kind'] = 'driver',
): Adapter & { sent: string[] } {
  const sent: string[] = [];
  return {
    kind,
    source: 'mongodb://fixture/',
    bson: { objectId: () => null, uuid: () => null, long: (v) => v },
    get roundTrips() {
      return sent.length;
    },
    sent,
    command: async (_db, cmd) => {
      const name = Object.keys(cmd)[0] ?? '';
      sent.push(
        name === 'aggregate'
          ? `aggregate ${Object.keys((cmd.pipeline as Doc[] | undefined)?.[0] ?? {})[0] ?? ''}`
          : name,
      );
      return answer(cmd);
    },
    ...(kind === 'driver'
      ? {
          connectMember: async (host: string) => {
            const m = members[host];
            if (!m) throw new Error(`connect ECONNREFUSED ${host}`);
            return m;
          },
        }
      : {}),
    close: async () => undefined,
  };
}

const orders = (): CollectionSnapshot =>
  collectionOf('orders', {
    indexes: [
      { ...(collectionOf('x').indexes[0] as CollectionSnapshot['indexes'][number]) },
      {
        ...(collectionOf('x').indexes[0] as CollectionSnapshot['indexes'][number]),
        name: 'status_1',
        key: { status: 1 },
      },
    ],
  });

/** One run's collector state per ServerInfo: the tests make a new ServerInfo for each run, as the probe does. */
const runs = new WeakMap<ServerInfo, Map<string, unknown>>();

/** One run's context for a collection. */
function ctxFor(
  adapter: Adapter,
  server: ServerInfo,
  collection: CollectionSnapshot,
  notes: string[],
): CollectionContext {
  let run = runs.get(server);
  if (!run) runs.set(server, (run = new Map<string, unknown>()));
  return {
    adapter,
    server,
    maxTimeMS: 1000,
    serverStatus: null,
    note: (m) => notes.push(m),
    collection,
    listed: { name: collection.name, type: 'collection', options: {} },
    docs: [],
    ids: [],
    naturalIds: null,
    run,
  };
}
const serverOf = (topology: ServerInfo['topology']): ServerInfo => ({ ...snapshotOf([]).server, topology });

/** The data as a snapshot file would hold it: checked against the collector's schema. */
const fitsSchema = (c: CollectionSnapshot, data: IndexUsageData | null): string[] =>
  data ? snapshotProblems(snapshotOf([withData(c, indexUsageCollector, data)]), [indexUsageCollector]) : [];

describe('replica-set members for $indexStats', () => {
  it('lists data-bearing members other than the connected one, hidden ones from the config, never arbiters', () => {
    expect(memberList(hello, config, null)).toEqual({
      self: 'm1.example.net:27017',
      others: ['backup.example.net:27017', 'm2.example.net:27017', 'm3.example.net:27017', 'm4.example.net:27017'],
    });
  });

  it('says hidden members may be missing when replSetGetConfig is refused', () => {
    const list = memberList(
      hello,
      null,
      'Unauthorized (13): not authorized on admin to execute command { replSetGetConfig: 1 }',
    );
    expect(list.others).toEqual(['m2.example.net:27017', 'm3.example.net:27017', 'm4.example.net:27017']);
    expect(list.hiddenUnknown).toContain('Unauthorized (13)');
  });

  it("adds each member's counters to the indexes listIndexes names, once per host", () => {
    const accesses: Record<string, IndexAccess[]> = {
      _id_: [{ host: 'm1:27017', ops: 5, since: SINCE }],
      status_1: [{ host: 'm1:27017', ops: 0, since: SINCE }],
    };
    const listed = [{ name: '_id_' }, { name: 'status_1' }];
    expect(
      mergeMemberStats(accesses, listed, [
        ...rows('m2:27017', 42),
        { name: 'gone_1', key: { gone: 1 }, host: 'm2:27017', accesses: { ops: 1, since } },
      ]),
    ).toEqual({ used: 2, alreadyRead: [] });
    expect(accesses.status_1).toEqual([
      { host: 'm1:27017', ops: 0, since: SINCE },
      { host: 'm2:27017', ops: 42, since: SINCE },
    ]);
    expect(Object.keys(accesses)).toEqual(['_id_', 'status_1']);
    // the connected member seen again (e.g. under the name hello.me gives it) is not counted twice
    expect(
      mergeMemberStats(accesses, listed, [{ name: 'status_1', host: 'm1:27017', accesses: { ops: 3, since } }]),
    ).toEqual({ used: 0, alreadyRead: ['m1:27017'] });
  });

  it('keeps an index named like an Object property as its own entry', () => {
    const accesses: Record<string, IndexAccess[]> = {};
    mergeMemberStats(
      accesses,
      [{ name: '__proto__' }, { name: 'constructor' }],
      [
        { name: '__proto__', host: 'h:1', accesses: { ops: 1, since } },
        { name: 'constructor', host: 'h:1', accesses: { ops: 2, since } },
      ],
    );
    expect(Object.getPrototypeOf(accesses)).toBe(Object.prototype);
    expect(Object.keys(accesses).sort()).toEqual(['__proto__', 'constructor']);
    expect(JSON.parse(JSON.stringify(accesses)) as unknown).toEqual(
      JSON.parse(
        '{"__proto__":[{"host":"h:1","ops":1,"since":"2026-09-01T00:00:00.000Z"}],' +
          '"constructor":[{"host":"h:1","ops":2,"since":"2026-09-01T00:00:00.000Z"}]}',
      ) as unknown,
    );
  });

  it('keeps a start date as ISO text, and of anything else only its type: never a value', () => {
    expect(sinceOf(since)).toBe(SINCE);
    expect(sinceOf(null)).toBe('null');
    expect(sinceOf(undefined)).toBe('undefined');
    expect(sinceOf('2026-09-01 secret')).toBe('string');
    expect(sinceOf(17)).toBe('double');
    expect(sinceOf({ _bsontype: 'Timestamp', low: 1, high: 2 })).toBe('timestamp');
    expect(sinceOf(new Date(Number.NaN))).toBe('invalidDate');
  });

  it(
    'a one-member replica set that does not answer replSetGetConfig: nobody else to read, hidden members ' + 'unknown',
    () => {
      // SecantusDB 0.7 presents itself as a one-member replica set (hello as it sent it, trimmed) and answers
      // replSetGetConfig with CommandNotFound, where MongoDB's manual documents replSetGetConfig on every member.
      const one = {
        isWritablePrimary: true,
        setName: 'secantus',
        setVersion: 1,
        hosts: ['127.0.0.1:28103'],
        passives: [],
        arbiters: [],
        secondary: false,
        primary: '127.0.0.1:28103',
        me: '127.0.0.1:28103',
        ok: 1,
      };
      expect(memberList(one, null, "CommandNotFound (59): no such command: 'replSetGetConfig'")).toEqual({
        self: '127.0.0.1:28103',
        others: [],
        hiddenUnknown:
          'hello does not list them and replSetGetConfig was not answered (CommandNotFound (59): no such ' +
          "command: 'replSetGetConfig')",
      });
    },
  );
});

describe('the index-usage collector', () => {
  it('on a standalone: one $indexStats per collection, no member command (the probe told the topology)', async () => {
    const a = fake(() => cursor(rows('db0:27017', 7)));
    const notes: string[] = [];
    const c = orders();
    const data = await indexUsageCollector.collect(ctxFor(a, serverOf('standalone'), c, notes));
    expect(a.sent).toEqual(['aggregate $indexStats']);
    expect(data).toEqual({
      accesses: {
        _id_: [{ host: 'db0:27017', ops: 7, since: SINCE }],
        status_1: [{ host: 'db0:27017', ops: 7, since: SINCE }],
      },
    });
    expect(notes).toEqual([]);
    expect(fitsSchema(c, data)).toEqual([]);
  });

  it('applies only to ordinary collections with an index besides _id_', () => {
    const applies = indexUsageCollector.appliesTo ?? (() => true);
    expect(applies(orders())).toBe(true);
    expect(applies(collectionOf('users'))).toBe(false);
    expect(applies({ ...orders(), type: 'view' })).toBe(false);
  });

  it(
    'reads every other member directly; a member whose rows name a host already read is not added, and says ' + 'why',
    async () => {
      const m2 = fake(() => cursor(rows('m2.example.net:27017', 7)));
      // m3 answers with m1's host name: its counters cannot be told apart from m1's
      const m3 = fake(() => cursor(rows('m1.example.net:27017', 9)));
      const primary = fake(
        (cmd) => {
          if ('hello' in cmd) return { ...hello, passives: [], arbiters: [] };
          if ('replSetGetConfig' in cmd) return config;
          if ('aggregate' in cmd) return cursor(rows('m1.example.net:27017', 0));
          throw new Error(`unexpected ${Object.keys(cmd)[0] ?? ''}`);
        },
        { 'm2.example.net:27017': m2, 'm3.example.net:27017': m3 },
      );
      const server = serverOf('replicaSet');
      const notes: string[] = [];
      const c = orders();
      const data = await indexUsageCollector.collect(ctxFor(primary, server, c, notes));
      expect(data?.members?.read).toEqual(['m1.example.net:27017', 'm2.example.net:27017']);
      expect(data?.members?.notRead.map((n) => n.host)).toEqual(['backup.example.net:27017', 'm3.example.net:27017']);
      expect(data?.members?.notRead[0]?.reason).toMatch(/^could not connect: .*ECONNREFUSED backup.example.net:27017/);
      expect(data?.members?.notRead[1]?.reason).toBe(
        'its $indexStats rows name host "m1.example.net:27017", whose counters were already read, so they ' +
          "could not be told apart from that member's and were not added twice",
      );
      expect(data?.accesses.status_1?.map((a) => [a.host, a.ops])).toEqual([
        ['m1.example.net:27017', 0],
        ['m2.example.net:27017', 7],
      ]);
      expect(fitsSchema(c, data)).toEqual([]);
      // a second collection of the same run: hello and replSetGetConfig are not sent again
      await indexUsageCollector.collect(ctxFor(primary, server, orders(), notes));
      expect(primary.sent).toEqual(['aggregate $indexStats', 'hello', 'replSetGetConfig', 'aggregate $indexStats']);
      expect(notes).toEqual([]);
    },
  );

  it('with the mongosh adapter (one connection): the other members are named as not read, and why', async () => {
    const primary = fake(
      (cmd) =>
        'hello' in cmd
          ? { ...hello, passives: [], arbiters: [] }
          : 'replSetGetConfig' in cmd
            ? config
            : cursor(rows('m1.example.net:27017', 0)),
      {},
      'mongosh',
    );
    const data = await indexUsageCollector.collect(ctxFor(primary, serverOf('replicaSet'), orders(), []));
    expect(data?.members?.read).toEqual(['m1.example.net:27017']);
    expect(data?.members?.notRead.map((n) => n.reason)).toEqual(
      Array(3).fill(
        'the mongosh adapter has one connection and cannot open another; run the CLI with a connection ' +
          'string to read every member',
      ),
    );
  });

  it('the member list unreadable: the connected member only, with the reason', async () => {
    const primary = fake((cmd) => {
      if ('hello' in cmd) throw Object.assign(new Error('connection reset'), { code: 6, codeName: 'HostUnreachable' });
      return cursor(rows('m1.example.net:27017', 0));
    });
    const data = await indexUsageCollector.collect(ctxFor(primary, serverOf('replicaSet'), orders(), []));
    expect(data?.members).toEqual({
      read: [],
      notRead: [],
      listError: 'hello failed: HostUnreachable (6): connection reset',
    });
  });

  it('a server without $indexStats: asked once per run, said once, the other collections not asked', async () => {
    const a = fake(() => {
      throw Object.assign(new Error('$indexStats is not implemented'), { code: 59, codeName: 'CommandNotFound' });
    });
    const server = serverOf('standalone');
    const notes: string[] = [];
    const out = await Promise.all(
      [orders(), orders(), orders()].map((c) => indexUsageCollector.collect(ctxFor(a, server, c, notes))),
    );
    expect(out).toEqual([null, null, null]);
    expect(a.sent).toEqual(['aggregate $indexStats']);
    expect(notes).toEqual([
      'index use could not be read ($indexStats): CommandNotFound (59): $indexStats is not implemented; ' +
        'this server does not have $indexStats, so index use is not checked on it. The same answer on other ' +
        'collections of this run is not repeated; index-usage names them.',
    ]);
    // the next run (a new probe, a new ServerInfo) asks and says it again
    await indexUsageCollector.collect(ctxFor(a, serverOf('standalone'), orders(), notes));
    expect(a.sent).toHaveLength(2);
    expect(notes).toHaveLength(2);
  });

  it(
    'a user without the privilege: each collection is asked (privileges may differ), the refusal said once, ' +
      'with what to do',
    async () => {
      const a = fake((cmd) => {
        throw Object.assign(
          new Error(`not authorized on app to execute command { aggregate: "${String(cmd.aggregate)}" }`),
          { code: 13, codeName: 'Unauthorized' },
        );
      });
      const server = serverOf('replicaSet');
      const notes: string[] = [];
      for (const c of [orders(), { ...orders(), name: 'carts' }])
        expect(await indexUsageCollector.collect(ctxFor(a, server, c, notes))).toBeNull();
      // no member is asked when the connected one refused
      expect(a.sent).toEqual(['aggregate $indexStats', 'aggregate $indexStats']);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toContain('index use could not be read ($indexStats): Unauthorized (13)');
      expect(notes[0]).toContain('it needs the clusterMonitor role');
    },
  );

  it(
    'keeps values out: a since that is not a date is stored as its type, a host that is not a host name as ' + 'empty',
    async () => {
      const a = fake(() =>
        cursor([{ name: 'status_1', host: 'a host with spaces', accesses: { ops: 3, since: 'secret text' } }]),
      );
      const c = orders();
      const data = await indexUsageCollector.collect(ctxFor(a, serverOf('standalone'), c, []));
      expect(data).toEqual({ accesses: { status_1: [{ host: '', ops: 3, since: 'string' }] } });
      expect(fitsSchema(c, data)).toEqual([]);
    },
  );

  it('its schema refuses a value where a date belongs', () => {
    const c = orders();
    expect(
      fitsSchema(c, { accesses: { status_1: [{ host: 'h:1', ops: 0, since: 'Alice Smith, 12 Main St' }] } }).join('\n'),
    ).toMatch(/since|pattern/);
  });
});
