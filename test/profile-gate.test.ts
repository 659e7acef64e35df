import { Long, ObjectId, UUID } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { whyNotProfileCommand } from '../src/adapters/read-only';
import type { Adapter, Doc } from '../src/adapters/types';
import {
  optIn,
  describeSettings,
  parseDuration,
  restoreByHand,
  restoreCommand,
  type ProfilerSettings,
} from '../src/cli/commands/profile';

describe('the profiler gate: the profile command, its levels and fields, nothing else', () => {
  it('lets through the read, level 1 with slowms, and the restore with sampleRate and a filter', () => {
    for (const cmd of [
      { profile: -1 },
      { profile: 1, slowms: 0 },
      { profile: 1, slowms: 100, filter: 'unset' },
      { profile: 0, slowms: 100, sampleRate: 0.5, filter: { millis: { $gt: 5 } } },
    ])
      expect(whyNotProfileCommand(cmd), JSON.stringify(cmd)).toBeNull();
  });

  it('refuses level 2, other fields, bad values and other commands, saying why', () => {
    const cases: [unknown, RegExp][] = [
      [{ profile: 2 }, /^profile level 2: only -1 \(read\), 0 \(off\) and 1/],
      [{ profile: 1, maxTimeMS: 5 }, /^profile with maxTimeMS: only profile, slowms, sampleRate, filter/],
      [{ profile: 1, slowms: 1.5 }, /^slowms must be a whole number/],
      [{ profile: 1, sampleRate: -0.1 }, /^sampleRate must be a number from 0 to 1/],
      [{ profile: 1, filter: 'x' }, /^filter must be a query document or "unset"/],
      [{ profile: -1, slowms: 5 }, /^profile -1 reads the settings and takes no other field/],
      [{ setParameter: 1, slowms: 5 }, /^setParameter is not the profile command/],
      [{ profile: 1, $db: 'admin' }, /may not name its own database/],
      [[{ profile: 1 }], /must be a plain document/],
    ];
    for (const [cmd, why] of cases) expect(whyNotProfileCommand(cmd), JSON.stringify(cmd)).toMatch(why);
  });
});

describe('profile: durations and the restore', () => {
  it('reads 30s, 10m, 1.5h; refuses what is not a duration from 1s to 24h', () => {
    expect(parseDuration('30s')).toBe(30_000);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('1500ms')).toBe(1500);
    for (const bad of ['', '10', '10x', '500ms', '25h', '-1s', '1e3s'])
      expect(() => parseDuration(bad), bad).toThrow(/is not a duration from 1s to 24h/);
  });

  it('restores exactly what was there, and says the mongosh line that does it by hand', () => {
    const plain: ProfilerSettings = { was: 0, slowms: 100, sampleRate: 1 };
    expect(restoreCommand(plain)).toEqual({ profile: 0, slowms: 100, sampleRate: 1 });
    expect(restoreByHand('shop', plain)).toBe('db.getSiblingDB("shop").setProfilingLevel(0, { slowms: 100 })');
    const full: ProfilerSettings = { was: 0, slowms: 40, sampleRate: 0.25, filter: { op: 'query' } };
    expect(restoreCommand(full)).toEqual({ profile: 0, slowms: 40, sampleRate: 0.25, filter: { op: 'query' } });
    expect(restoreByHand('a"b', full)).toBe(
      'db.getSiblingDB("a\\"b").setProfilingLevel(0, { slowms: 40, sampleRate: 0.25, filter: {"op":"query"} })',
    );
    expect(describeSettings(full)).toBe('level 0, slowms 40, sampleRate 0.25, filter {"op":"query"}');
  });
});

/** A server in memory that answers profile and count as mongod does; `lie` makes the read after the set say level 2. */
function fakeServer(opts: { filter?: Doc; refuseSet?: boolean; lie?: boolean } = {}) {
  let state: Doc = { was: 0, slowms: 100, sampleRate: 1, ...(opts.filter ? { filter: opts.filter } : {}) };
  const sent: Doc[] = [];
  let reads = 0;
  const adapter: Adapter = {
    kind: 'driver',
    source: 'mongodb://fake/',
    bson: { objectId: () => new ObjectId(), uuid: (hex) => new UUID(hex), long: (v) => Long.fromString(String(v)) },
    roundTrips: 0,
    command: async (_db, cmd) => {
      await Promise.resolve();
      sent.push(cmd);
      if (cmd.count) return { n: 3, ok: 1 };
      if (cmd.profile === -1) return ++reads === 2 && opts.lie ? { ...state, was: 2 } : { ...state, ok: 1 };
      if (opts.refuseSet && cmd.profile === 1)
        throw Object.assign(new Error('not authorized on shop to execute command'), { code: 13 });
      const { filter, profile: was, ...rest } = cmd;
      state = { ...state, ...rest, was };
      if (filter === 'unset') delete state.filter;
      else if (filter) state.filter = filter;
      return { ok: 1 };
    },
    close: async () => undefined,
  };
  return { adapter, sent, state: () => state };
}

describe('profile over a server in memory: every path puts back what was there', () => {
  const run = async (server: ReturnType<typeof fakeServer>): Promise<{ out: string[]; err: unknown }> => {
    const out: string[] = [];
    const io = { out: (s: string) => out.push(s), err: () => undefined, isTTY: false };
    const options = { ms: 1000, slowms: 0, flags: { yes: true }, io, confirm: async () => true };
    const err = await optIn(server.adapter, 'shop', options).then(
      () => null,
      (e: unknown) => e,
    );
    return { out, err };
  };

  it('a filter is unset for the run and put back with level, slowms and sampleRate', async () => {
    const server = fakeServer({ filter: { millis: { $gt: 5 } } });
    const { out, err } = await run(server);
    expect(err).toBeNull();
    expect(server.sent.filter((c) => c.profile !== -1 && !c.count)).toEqual([
      { profile: 1, slowms: 0, filter: 'unset' },
      { profile: 0, slowms: 100, sampleRate: 1, filter: { millis: { $gt: 5 } } },
    ]);
    expect(server.state()).toEqual({ was: 0, slowms: 100, sampleRate: 1, filter: { millis: { $gt: 5 } } });
    expect(out[1]).toBe(
      'Restored the profiling level of "shop": level 0, slowms 100, filter {"millis":{"$gt":5}} (read back from ' +
        'the server).',
    );
  });

  it('an error after the level was set: restored first, then the error', async () => {
    const server = fakeServer({ lie: true });
    const { out, err } = await run(server);
    expect(String(err)).toMatch(/The server reads level 2, slowms 0 after setting level 1: it did not take/);
    expect(out).toEqual(['Restored the profiling level of "shop": level 0, slowms 100 (read back from the server).']);
    expect(server.state()).toEqual({ was: 0, slowms: 100, sampleRate: 1 });
  });

  it('a refused set: nothing was changed, so nothing is sent to put back', async () => {
    const server = fakeServer({ refuseSet: true });
    const { out, err } = await run(server);
    expect(String(err)).toMatch(/The server refused to set the profiling level of "shop": not authorized/);
    expect(out).toEqual(['The profiling level of "shop" was not changed: level 0, slowms 100.']);
    expect(server.sent.filter((c) => c.profile === 0)).toEqual([]);
  });
});
