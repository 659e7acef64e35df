import { describe, expect, it } from 'vitest';
import { whyNotProfileCommand } from '../src/adapters/read-only';
import {
  describeSettings,
  parseDuration,
  refusedToSet,
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
      'db.getSiblingDB("a\\"b").setProfilingLevel(0, { slowms: 40, sampleRate: 0.25, filter: { op: "query" } })',
    );
    expect(describeSettings(full)).toBe('level 0, slowms 40, sampleRate 0.25, filter {"op":"query"}');
  });
});

describe('profile: a refused change', () => {
  it('says what grants it when the server refuses (code 13), and quotes any other error', () => {
    // What mongod answers a user without enableProfiler: ErrorCodes::Unauthorized, "unauthorized"
    // (mongo/src/mongo/db/commands/profile_common.cpp, ProfileCmdBase::checkAuthForOperation)
    const unauthorized = Object.assign(new Error('unauthorized'), { code: 13, codeName: 'Unauthorized' });
    expect(refusedToSet('shop', unauthorized)).toBe(
      'Not allowed to set the profiling level of "shop" (unauthorized): the change needs the enableProfiler action ' +
        'on that database (the built-in role dbAdmin grants it); reading it needs only find on system.profile.',
    );
    const other = Object.assign(new Error('profile not allowed on a mongos\nsecond line'), { code: 2 });
    expect(refusedToSet('a\u001bb', other)).toBe(
      'The server refused to set the profiling level of "a\\\\u{1b}b": profile not allowed on a mongos.',
    );
  });
});
