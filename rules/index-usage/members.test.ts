import { describe, expect, it } from 'vitest';
import { memberList, mergeMemberStats } from '../../src/collect/index-usage-members';
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
    expect(mergeMemberStats(c, rows)).toBe(2);
    expect(c.indexes[1]?.accesses).toEqual([
      { host: 'm1:27017', ops: 0, since: '2026-09-01T00:00:00.000Z' },
      { host: 'm2:27017', ops: 42, since: '2026-09-01T00:00:00.000Z' },
    ]);
    // the connected member seen again (e.g. under the name hello.me gives it) is not counted twice
    expect(mergeMemberStats(c, [{ name: 'status_1', host: 'm1:27017', accesses: { ops: 3, since } }])).toBe(0);
  });
});
