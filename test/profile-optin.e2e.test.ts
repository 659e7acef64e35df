import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CommandStartedEvent, Long, MongoClient, ObjectId, UUID } from 'mongodb';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { profilerOnly, RefusedCommand } from '../src/adapters/read-only';
import type { Adapter, Doc } from '../src/adapters/types';
import { type ProcessResult, runProcess } from './support/run';
import { liveUri } from './support/live-uri';

const CLI = join(__dirname, '..', 'dist', 'cli.cjs');
const DB = 'mongo_advisor_test_profile';
/** What the test puts in place before each run: off, a slowms of its own, so the restore is seen to be exact. */
const BEFORE = { was: 0, slowms: 37, sampleRate: 1 };
const REFUSAL = new RegExp(
  `^mongo-advisor refused to send \\S+ to database \\S+: only the profiling level of ${DB} may be changed \\(.+\\)$`,
);
const BY_HAND = `db.getSiblingDB("${DB}").setProfilingLevel(0, { slowms: 37 })`;

/** The real CLI's `profile` on DB; `onStarted` runs once the level is on (the "Profiler on" line), with the child. */
async function profile(
  uri: string,
  args: string[],
  onStarted?: (child: ChildProcess) => void,
  onErr?: (all: string) => void,
): Promise<ProcessResult> {
  let started = false;
  let err = '';
  return await runProcess(process.execPath, [CLI, 'profile', uri, '--db', DB, ...args], {
    timeoutMs: 60_000,
    onOut: (chunk, child) => {
      if (!started && chunk.includes('Profiler on for')) {
        started = true;
        onStarted?.(child);
      }
    },
    onErr: (chunk) => {
      err += chunk;
      onErr?.(err);
    },
  });
}

describe('mongo-advisor profile (real CLI): the profiler opt-in, restored on every exit path', () => {
  const uri = liveUri();
  const has = inject('capabilities').has;
  let client: MongoClient;
  const settings = async (): Promise<{ was: unknown; slowms: unknown; sampleRate: unknown }> => {
    const r = await client.db(DB).command({ profile: -1 });
    return { was: r.was, slowms: r.slowms, sampleRate: r.sampleRate };
  };

  // the marker a run leaves while it holds the level (src/cli/profile-marker.ts): a directory of this file's own
  const stateDir = mkdtempSync(join(tmpdir(), 'mongo-advisor-state-'));
  const markers = (): string[] => {
    try {
      return readdirSync(join(stateDir, 'profiler'));
    } catch {
      return [];
    }
  };

  beforeAll(async () => {
    process.env.MONGO_ADVISOR_STATE_DIR = stateDir; // the CLI children inherit it (test/support/run.ts)
    client = await MongoClient.connect(uri);
    await client
      .db(DB)
      .collection('orders')
      .insertMany(Array.from({ length: 20 }, (_, i) => ({ n: i })));
  });
  beforeEach(async () => {
    if (has.profiler) await client.db(DB).command({ profile: 0, slowms: BEFORE.slowms, sampleRate: 1 });
    // the level was just put back by hand: a marker an earlier test left (a second Ctrl-C, a SIGKILL) is stale
    rmSync(join(stateDir, 'profiler'), { recursive: true, force: true });
  });
  afterAll(async () => {
    // MongoDB's defaults back (slowms is server-wide), then the database goes
    if (has.profiler) await client?.db(DB).command({ profile: 0, slowms: 100, sampleRate: 1 });
    await client?.db(DB).dropDatabase();
    await client?.close();
    delete process.env.MONGO_ADVISOR_STATE_DIR;
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('a bad duration is one line, exit 2, before anything connects', async () => {
    for (const bad of ['10x', '0s', '25h', 'soon']) {
      const r = await runProcess(process.execPath, [CLI, 'profile', uri, '--db', DB, '--for', bad, '--yes']);
      expect(r.code, r.err).toBe(2);
      expect(r.err.trim().split('\n'), r.err).toHaveLength(1);
      expect(r.err).toMatch(/^mongo-advisor: --for ".*" is not a duration from 1s to 24h: write it like 30s/);
      expect(r.out).toBe('');
    }
  });

  it('FerretDB and other servers without a profiler: one line saying so, exit 2', async (ctx) => {
    if (has.profiler) ctx.skip('this server has a profiler (profile -1 answers a level)');
    const r = await profile(uri, ['--for', '2s', '--yes']);
    expect(r.code, r.err).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(
      /^mongo-advisor: The server at mongodb:\/\/\S+ has no profiler \(it does not know the profile/,
    );
  });

  it('--yes --for 3s: level 1 during (read over the test own connection), the previous settings after', async (ctx) => {
    if (!has.profiler) ctx.skip('no profiler on this server (profile -1 fails)');
    let during: unknown = null;
    const r = await profile(uri, ['--for', '3s', '--slowms', '0', '--yes'], () => {
      void (async () => {
        during = await settings();
        for (let i = 0; i < 10; i++) await client.db(DB).collection('orders').find({ n: i }).toArray();
      })();
    });
    expect(r.code, r.err).toBe(0);
    expect(during).toEqual({ was: 1, slowms: 0, sampleRate: 1 });
    expect(await settings()).toEqual(BEFORE);
    const entries = await client.db(DB).collection('system.profile').countDocuments();
    expect(entries).toBeGreaterThan(0);
    const lines = r.out.trim().split('\n');
    expect(lines[0]).toMatch(
      /^Profiler on for "mongo_advisor_test_profile": level 1, slowms 0, until \d\d:\d\d:\d\d UTC/,
    );
    expect(lines[0]).toContain(`restore by hand in mongosh: ${BY_HAND}`);
    expect(lines[1]).toBe(
      'Restored the profiling level of "mongo_advisor_test_profile": level 0, slowms 37 (read back from the server).',
    );
    expect(lines[2]).toBe(
      `system.profile of "mongo_advisor_test_profile" now holds ${entries} entries. Next: mongo-advisor check ` +
        `<uri> --db ${DB} (reads the profiler's entries)`,
    );
    console.log(`[profile e2e] ${inject('serverKind')}:\n${r.out}${r.err}`);
  });

  for (const [signal, exit] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const) {
    it(`${signal} mid-wait: the level is put back and read back, exit ${exit}`, async (ctx) => {
      if (!has.profiler) ctx.skip('no profiler on this server (profile -1 fails)');
      let during: unknown = null;
      const r = await profile(uri, ['--for', '60s', '--slowms', '5', '--yes'], (child) => {
        void settings().then((s) => {
          during = s;
          child.kill(signal);
        });
      });
      expect(during).toEqual({ was: 1, slowms: 5, sampleRate: 1 });
      expect(r.code, r.err).toBe(exit);
      expect(await settings()).toEqual(BEFORE);
      expect(r.err).toMatch(/(Interrupted|Terminated \(SIGTERM\)|The terminal closed \(SIGHUP\)): restoring the/);
      expect(r.err).toContain('Restored the profiling level of "mongo_advisor_test_profile": level 0, slowms 37');
    });
  }

  it('SIGKILL mid-wait: the next profile, collect and check notice it and print the exact restore', async (ctx) => {
    if (!has.profiler) ctx.skip('no profiler on this server (profile -1 fails)');
    // SIGKILL cannot be caught: nothing restores, and only the marker written before the level was set remains
    const killed = await profile(uri, ['--for', '60s', '--slowms', '5', '--yes'], (child) => {
      expect(markers()).toHaveLength(1);
      child.kill('SIGKILL');
    });
    expect(killed.signal ?? killed.code, killed.err).toBe('SIGKILL');
    expect(await settings()).toEqual({ was: 1, slowms: 5, sampleRate: 1 });
    expect(markers()).toHaveLength(1);
    const notice = new RegExp(
      `^An earlier mongo-advisor profile run \\(pid \\d+ on .+, started .+, meant to restore at .+\\) was stopped ` +
        `before it restored the profiling level of "${DB}": it still reads level 1, slowms 5, as that run set it; ` +
        `before it: level 0, slowms 37\\. Restore it in mongosh: ${BY_HAND.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`,
    );

    // without --yes and without a terminal: the notice and the line to paste; nothing changed, exit 1
    const asked = await profile(uri, ['--for', '2s']);
    expect(asked.code, asked.err).toBe(1);
    const lines = asked.out.trim().split('\n');
    expect(lines[0]).toMatch(notice);
    expect(lines[1]).toBe(
      `Nothing changed: pass --yes to restore level 0, slowms 37 on "${DB}" now, or paste the line above.`,
    );
    expect(await settings()).toEqual({ was: 1, slowms: 5, sampleRate: 1 });

    // collect and check say it too, one line each on stderr, without sending anything for it
    for (const cmd of [
      ['collect', '-o', join(stateDir, 'snap.json')],
      ['check', '--no-confirm'],
    ]) {
      const r = await runProcess(process.execPath, [CLI, cmd[0] as string, uri, '--db', DB, ...cmd.slice(1)]);
      expect(r.code === 0 || r.code === 1, r.err).toBe(true);
      expect(r.err).toContain(
        `mongo-advisor: the profiler of "${DB}" may still be at level 1 (slowms 5), set by a mongo-advisor ` +
          `profile run that was stopped before it restored`,
      );
      expect(r.err).toContain(`Restore in mongosh: ${BY_HAND}`);
    }

    // with --yes: restored and read back, the marker gone, then the run asked for goes on and restores in turn
    const fixed = await profile(uri, ['--for', '2s', '--yes']);
    expect(fixed.code, fixed.err).toBe(0);
    const out = fixed.out.trim().split('\n');
    expect(out[0]).toMatch(notice);
    expect(out[1]).toBe(`Restored the profiling level of "${DB}": level 0, slowms 37 (read back from the server).`);
    expect(out[2]).toMatch(/^Profiler on for "mongo_advisor_test_profile": level 1, slowms 37/);
    expect(await settings()).toEqual(BEFORE);
    expect(markers()).toEqual([]);
    console.log(`[profile e2e] ${inject('serverKind')} after SIGKILL:\n${asked.out}${fixed.out}`);
  });

  it('settings changed by hand after a killed run: said, left as they are, the marker dropped', async (ctx) => {
    if (!has.profiler) ctx.skip('no profiler on this server (profile -1 fails)');
    await profile(uri, ['--for', '60s', '--slowms', '5', '--yes'], (child) => child.kill('SIGKILL'));
    await client.db(DB).command({ profile: 0, slowms: 21, sampleRate: 1 });
    const r = await profile(uri, ['--for', '2s']);
    expect(r.out).toContain(
      `ended without restoring, but the settings have changed since (now level 0, slowms 21): left as they are. ` +
        `Before that run they were level 0, slowms 37 (in mongosh: ${BY_HAND}).`,
    );
    expect(markers()).toEqual([]);
    expect(await settings()).toEqual({ was: 0, slowms: 21, sampleRate: 1 });
  });

  it('a closed terminal (stdout and stderr gone, then SIGHUP) still restores the level', async (ctx) => {
    if (!has.profiler) ctx.skip('no profiler on this server (profile -1 fails)');
    const r = await profile(uri, ['--for', '60s', '--slowms', '5', '--yes'], (child) => {
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.kill('SIGHUP');
    });
    expect(r.code).toBe(129);
    expect(await settings()).toEqual(BEFORE);
  });

  it('a second Ctrl-C quits at once and prints the mongosh line that restores by hand', async (ctx) => {
    if (!has.profiler) ctx.skip('no profiler on this server (profile -1 fails)');
    let cli: ChildProcess | null = null;
    let again = false;
    const r = await profile(
      uri,
      ['--for', '60s', '--yes'],
      (child) => {
        cli = child;
        child.kill('SIGINT');
      },
      (all) => {
        if (!again && cli && all.includes('Interrupted:')) {
          again = true;
          cli.kill('SIGINT');
        }
      },
    );
    expect(r.code, r.err).toBe(130);
    console.log(`[profile e2e] second Ctrl-C:\n${r.err}`);
    if (r.err.includes('Quit before')) {
      expect(r.err).toContain(`Quit before restoring the profiling level of "${DB}" to level 0, slowms 37 was done; `);
      expect(r.err).toContain(`by hand: ${BY_HAND}`);
      await client.db(DB).command({ profile: 0, slowms: BEFORE.slowms });
    } else {
      // the restore won the race against the second Ctrl-C
      expect(r.err).toContain('Restored the profiling level');
    }
    expect(await settings()).toEqual(BEFORE);
  });

  it('without --yes and without a terminal: refused, exit 2, one line saying why; nothing changed', async (ctx) => {
    if (!has.profiler) ctx.skip('no profiler on this server (profile -1 fails)');
    const r = await profile(uri, ['--for', '2s']);
    expect(r.code, r.err).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toMatch(
      /^mongo-advisor: Refused: the advisor changes the profiling level only with consent, and there is no terminal/,
    );
    expect(r.err).toContain('Pass --yes to set the profiling level of "mongo_advisor_test_profile"');
    expect(r.out).toBe('');
    expect(await settings()).toEqual(BEFORE);
  });

  it('a profiler filter set before the run is unset while profiling and put back after', async (ctx) => {
    if (!has.profiler) ctx.skip('no profiler on this server (profile -1 fails)');
    // The manual's profile page: a filter overrides slowms and sampleRate; `filter: "unset"` removes it.
    const filter = { millis: { $gt: 3 } };
    await client.db(DB).command({ profile: 0, slowms: BEFORE.slowms, filter });
    const kept = (await client.db(DB).command({ profile: -1 })).filter as unknown;
    try {
      if (kept === undefined)
        return ctx.skip(
          `${inject('serverKind')} accepts profile's filter but keeps none (profile -1 answers no filter after it ` +
            'is set): there is no filter to put back',
        );
      expect(kept).toEqual(filter);
      let during: unknown = 'not read';
      const r = await profile(uri, ['--for', '2s', '--yes'], () => {
        void client
          .db(DB)
          .command({ profile: -1 })
          .then((s) => {
            during = s.filter as unknown;
          });
      });
      expect(r.code, r.err).toBe(0);
      expect(during).toBeUndefined();
      expect((await client.db(DB).command({ profile: -1 })).filter).toEqual(filter);
      expect(r.out).toContain('level 0, slowms 37, filter {"millis":{"$gt":3}} (read back from the server)');
    } finally {
      await client.db(DB).command({ profile: 0, slowms: BEFORE.slowms, filter: 'unset' });
    }
  });

  it('a profiler already on: nothing to do, the level left as it is', async (ctx) => {
    if (!has.profiler) ctx.skip('no profiler on this server (profile -1 fails)');
    await client.db(DB).command({ profile: 1, slowms: 20 });
    const r = await profile(uri, ['--for', '2s', '--yes']);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      /^The profiler of "mongo_advisor_test_profile" is already on \(level 1, slowms 20\): nothing/,
    );
    expect(await settings()).toEqual({ was: 1, slowms: 20, sampleRate: 1 });
  });
});

describe('the profiler gate (live): only the profile command on its database reaches the server', () => {
  const uri = liveUri();
  let watched: MongoClient;
  const started: CommandStartedEvent[] = [];
  let gate: Adapter;

  beforeAll(async () => {
    watched = await MongoClient.connect(uri, { monitorCommands: true });
    watched.on('commandStarted', (e) => started.push(e));
    const adapter: Adapter = {
      kind: 'driver',
      source: 'profiler gate test',
      bson: { objectId: () => new ObjectId(), uuid: (hex) => new UUID(hex), long: (v) => Long.fromString(String(v)) },
      roundTrips: 0,
      command: async (db, cmd) => await watched.db(db).command(cmd),
      close: async () => undefined,
    };
    gate = profilerOnly(adapter, DB);
  });
  afterAll(async () => {
    await watched?.close();
  });

  it('refuses anything else before it is sent', async () => {
    const refused: [string, Doc][] = [
      [DB, { profile: 2 }],
      [DB, { profile: 1, slowms: 0, comment: 'x' }],
      [DB, { profile: 1, slowms: -5 }],
      [DB, { profile: 1, sampleRate: 2 }],
      [DB, { profile: 1, filter: 'all' }],
      [DB, { profile: -1, slowms: 0 }],
      [DB, { profile: '1' }],
      [DB, { insert: 'orders', documents: [{ n: -1 }] }],
      [DB, { dropDatabase: 1 }],
      [DB, { find: 'system.profile', filter: {} }],
      [DB, { profile: 1, $db: 'other' }],
      ['other', { profile: 1, slowms: 0 }],
      ['admin', { setParameter: 1, logLevel: 1 }],
    ];
    const before = started.length;
    for (const [db, cmd] of refused) {
      const err = await gate.command(db, cmd).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, `${db} ${JSON.stringify(cmd)} was not refused`).toBeInstanceOf(RefusedCommand);
      expect((err as Error).message).toMatch(REFUSAL);
    }
    expect(started.slice(before).map((e) => e.commandName)).toEqual([]);
  });

  it('sends profile -1 (the server answers a level, or says it has no profile command)', async () => {
    const before = started.length;
    await gate.command(DB, { profile: -1 }).catch(() => undefined);
    expect(started.slice(before).map((e) => e.commandName)).toEqual(['profile']);
  });
});
