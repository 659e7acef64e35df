import { describe, expect, it } from 'vitest';
import type { Adapter, Doc } from '../../src/adapters/types';
import { collectIndexUsageMembers, memberList, mergeMemberStats } from '../../src/collect/index-usage-members';
import { snapshotOf } from '../../test/support/fixtures';
import { collectionOf } from '../../test/support/fixtures';

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

describe('replica-set members for $indexStats', () => {
  it('lists data-bearing members other than the connected one, hidden ones from the config, never arbiters', () => {
    expect(memberList(hello, config, null)).toEqual({
      self: 'm1.example.net:27017',
      others: ['backup.example.net:27017', 'm2.example.net:27017', 'm3.example.net:27017', 'm4.example.net:27017'],
    });
  });

  it('says hidden members may be missing when replSetGetConfig is refused', () => {
    const list = memberList(hello, null, 'Unauthorized (13): not authorized on admin to execute command { replSetGetConfig: 1 }');
    expect(list.others).toEqual(['m2.example.net:27017', 'm3.example.net:27017', 'm4.example.net:27017']);
    expect(list.hiddenUnknown).toContain('Unauthorized (13)');
  });

  it('adds each member\'s counters to the indexes, once per host', () => {
    const since = new Date('2026-09-01T00:00:00Z');
    const c = collectionOf('orders', {
      indexes: [
        { name: '_id_', key: { _id: 1 }, sizeBytes: 1, accesses: [{ host: 'm1:27017', ops: 5, since: since.toISOString() }] },
        { name: 'status_1', key: { status: 1 }, sizeBytes: 1, accesses: [{ host: 'm1:27017', ops: 0, since: since.toISOString() }] },
      ],
    });
    // $indexStats rows as documented: name, key, host, accesses {ops, since}, spec
    const rows = [
      { name: '_id_', key: { _id: 1 }, host: 'm2:27017', accesses: { ops: 7, since }, spec: { v: 2, key: { _id: 1 }, name: '_id_' } },
      { name: 'status_1', key: { status: 1 }, host: 'm2:27017', accesses: { ops: 42, since }, spec: { v: 2, key: { status: 1 }, name: 'status_1' } },
      { name: 'gone_1', key: { gone: 1 }, host: 'm2:27017', accesses: { ops: 1, since } },
    ];
    expect(mergeMemberStats(c, rows)).toEqual({ used: 2, alreadyRead: [] });
    expect(c.indexes[1]?.accesses).toEqual([
      { host: 'm1:27017', ops: 0, since: '2026-09-01T00:00:00.000Z' },
      { host: 'm2:27017', ops: 42, since: '2026-09-01T00:00:00.000Z' },
    ]);
    // the connected member seen again (e.g. under the name hello.me gives it) is not counted twice
    expect(mergeMemberStats(c, [{ name: 'status_1', host: 'm1:27017', accesses: { ops: 3, since } }])).toEqual({ used: 0, alreadyRead: ['m1:27017'] });
  });

  it('a one-member replica set that does not answer replSetGetConfig: nobody else to read, hidden members unknown', () => {
    // SecantusDB 0.7 presents itself as a one-member replica set (hello as it sent it, trimmed) and answers
    // replSetGetConfig with CommandNotFound, where MongoDB's manual documents replSetGetConfig on every member.
    const one = { isWritablePrimary: true, setName: 'secantus', setVersion: 1, hosts: ['127.0.0.1:28103'], passives: [], arbiters: [], secondary: false, primary: '127.0.0.1:28103', me: '127.0.0.1:28103', ok: 1 };
    expect(memberList(one, null, "CommandNotFound (59): no such command: 'replSetGetConfig'")).toEqual({
      self: '127.0.0.1:28103',
      others: [],
      hiddenUnknown: "hello does not list them and replSetGetConfig was not answered (CommandNotFound (59): no such command: 'replSetGetConfig')",
    });
  });

  it('reads every other member directly; a member whose rows name a host already read is not added, and says why', async () => {
    const since = new Date('2026-09-01T00:00:00Z');
    // $indexStats rows as documented: each member names its own host:port
    const rows = (host: string, ops: number): Doc[] => [
      { name: '_id_', key: { _id: 1 }, host, accesses: { ops, since } },
      { name: 'status_1', key: { status: 1 }, host, accesses: { ops, since } },
    ];
    const cursor = (batch: Doc[]): Doc => ({ cursor: { id: 0, ns: 'app.orders', firstBatch: batch }, ok: 1 });
    const fake = (answer: (cmd: Doc) => Doc, members: Record<string, Adapter> = {}): Adapter => ({
      kind: 'driver',
      source: 'mongodb://fixture/',
      bson: { objectId: () => null, uuid: () => null, long: (v) => v },
      roundTrips: 0,
      command: async (_db, cmd) => answer(cmd),
      connectMember: async (host) => {
        const m = members[host];
        if (!m) throw new Error(`connect ECONNREFUSED ${host}`);
        return m;
      },
      close: async () => undefined,
    });
    const m2 = fake(() => cursor(rows('m2.example.net:27017', 7)));
    // m3 answers with m1's host name: its counters cannot be told apart from m1's
    const m3 = fake(() => cursor(rows('m1.example.net:27017', 9)));
    const primary = fake(
      (cmd) => {
        if ('hello' in cmd) return { ...hello, passives: [], arbiters: [] };
        if ('replSetGetConfig' in cmd) return config;
        throw new Error(`unexpected ${Object.keys(cmd)[0] ?? ''}`);
      },
      { 'm2.example.net:27017': m2, 'm3.example.net:27017': m3 },
    );
    const snap = snapshotOf([]);
    snap.server.topology = 'replicaSet';
    const c = collectionOf('orders', {
      indexes: [
        { name: '_id_', key: { _id: 1 }, sizeBytes: null, accesses: [{ host: 'm1.example.net:27017', ops: 5, since: since.toISOString() }] },
        { name: 'status_1', key: { status: 1 }, sizeBytes: null, accesses: [{ host: 'm1.example.net:27017', ops: 0, since: since.toISOString() }] },
      ],
    });
    await collectIndexUsageMembers({ adapter: primary, server: snap.server, collection: c, rawDocs: [], maxTimeMS: 1000, options: { db: 'app' } });
    expect(c.indexUsageMembers?.read).toEqual(['m1.example.net:27017', 'm2.example.net:27017']);
    expect(c.indexUsageMembers?.notRead.map((n) => n.host)).toEqual(['backup.example.net:27017', 'm3.example.net:27017']);
    expect(c.indexUsageMembers?.notRead[0]?.reason).toMatch(/^could not connect: .*ECONNREFUSED backup.example.net:27017/);
    expect(c.indexUsageMembers?.notRead[1]?.reason).toBe('its $indexStats rows name host "m1.example.net:27017", whose counters were already read, so they could not be told apart from that member\'s and were not added twice');
    expect(c.indexes[1]?.accesses?.map((a) => [a.host, a.ops])).toEqual([
      ['m1.example.net:27017', 0],
      ['m2.example.net:27017', 7],
    ]);
  });
});
