import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { descendsFrom, Terminal } from './support/pty';
import { runProcess } from './support/run';
import { checksums, scratchDbs, useInterruptSource } from './support/scratch';

const ROOT = join(__dirname, '..');
const MONGOSH = join(ROOT, 'node_modules', '.bin', 'mongosh');
const PLUGIN = join(ROOT, 'dist', 'advisor.js');
const DB = 'mongo_advisor_test_mongosh_interrupt';
/**
 * One collection with two experiments that copy several documents (id-pattern's clustered copy, the validator's): every
 * phase is reached without collecting the whole database first (the tenants stay for the checksums).
 */
const CHECKED = JSON.stringify('sessions');

const mongosh = (uri: string, script: string, env: Record<string, string> = {}) =>
  runProcess(
    MONGOSH,
    [
      `${uri.replace(/\/?(\?.*)?$/, '')}/${DB}`,
      '--quiet',
      '--norc',
      '--eval',
      `load(${JSON.stringify(PLUGIN)}); ${script}`,
    ],
    { env: { MONGOSH_NO_UPDATE_CHECK: '1', ...env } },
  );

// One seeded source for the whole file: every test leaves it unchanged (each asserts so).
const src = useInterruptSource(inject('mongoUri'), DB);

describe('interrupting advisor.check (real mongosh)', () => {
  const uri = inject('mongoUri');

  // Every phase with SIGTERM; SIGHUP (the same handler, another exit code) at the phase with writes in flight.
  for (const [signal, exit, phases] of [
    ['SIGTERM', 143, ['after-marker', 'mid-insert', 'mid-timing']],
    ['SIGHUP', 129, ['mid-insert']],
  ] as const) {
    for (const phase of phases) {
      it(`${signal} at ${phase}: the plugin drops the scratch database and says so`, async () => {
        const r = await mongosh(uri, `advisor.check(${CHECKED}, { confirmBudget: 2 })`, {
          MONGO_ADVISOR_TEST_INTERRUPT_AT: `${phase}:${signal}`,
        });
        const name =
          /dropped the scratch database (mongo_advisor_scratch_[0-9a-f]+) \(listDatabases no longer lists it\)/.exec(
            r.err,
          )?.[1];
        expect(name, r.err + r.out).toBeDefined();
        expect(r.code).toBe(exit);
        expect(await scratchDbs(src.client)).not.toContain(name);
        expect(await checksums(src.client, DB)).toEqual(src.before);
      }, 180_000);
    }
  }

  it(
    'SIGINT ends a mongosh script at once (mongosh owns it): the marker makes the leftover stale, and ' +
      'advisor.cleanup drops it',
    async () => {
      const had = new Set(await scratchDbs(src.client));
      const r = await mongosh(uri, `advisor.check(${CHECKED}, { confirmBudget: 2 })`, {
        MONGO_ADVISOR_TEST_INTERRUPT_AT: 'mid-insert:SIGINT',
      });
      // mongosh ends the evaluation (MongoshInterruptedError, exit 1) or the process (130): no plugin code runs either
      // way
      expect(
        r.code === 1 || r.code === 130 || r.signal === 'SIGINT',
        `${String(r.code)} ${String(r.signal)} ${r.err}`,
      ).toBe(true);
      // Other test files share this server and may be confirming right now: ours is the new scratch database whose
      // marker names a mongosh process that no longer runs.
      const alive = (pid: number): boolean => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      const left: string[] = [];
      for (const n of (await scratchDbs(src.client)).filter((x) => !had.has(x))) {
        const marker = await src.client
          .db(n)
          .collection<{ _id: string; via?: string; pid?: number }>('_advisor_marker')
          .findOne({ _id: 'owner' });
        if (marker?.via === 'mongosh' && typeof marker.pid === 'number' && !alive(marker.pid)) left.push(n);
      }
      expect(left.length, 'mongosh was expected to leave its scratch database behind on SIGINT').toBe(1);
      const name = left[0] as string;
      // The next session, one mongosh for its three steps (a start costs seconds): a read-only run reports the leftover
      // advisor.cleanup() lists it without dropping it (the server's listing printed after it, between markers), and
      // advisor.cleanup({ drop: true }) drops it.
      const next = await mongosh(
        uri,
        // the shell awaits each advisor call where the script uses its value, as it does its own methods
        'const r = advisor.check("posts", { confirm: false }); print(r.notes.map((n) => n.message).join("\\n")); ' +
          'const t = advisor.cleanup(); print("@@listed"); print(t); print("@@still there: " + ' +
          'JSON.stringify(db.adminCommand({ listDatabases: 1, nameOnly: true }).databases.map((d) => d.name))); ' +
          'print("@@drop"); print(advisor.cleanup({ drop: true }))',
      );
      const at = (marker: string): number => {
        const i = next.out.indexOf(marker);
        expect(i, next.out + next.err).toBeGreaterThanOrEqual(0);
        return i;
      };
      const listed = { out: next.out.slice(at('@@listed'), at('@@still there: ')) };
      const stillThere = JSON.parse(next.out.slice(at('@@still there: ') + 15, at('@@drop')).trim()) as string[];
      const dropped = { out: next.out.slice(at('@@drop')) };
      // the next run reports it (read-only run too), with its size and the command that removes it
      expect(next.out.slice(0, at('@@listed'))).toMatch(
        new RegExp(
          `stale scratch databases? left by earlier runs .*${name} \\([^;]+; mongo-advisor \\S+ \\(mongosh, ` +
            `pid \\d+ on [^)]+\\) started [^;]+; that process no longer runs\\).*Remove (it|them) with: ` +
            `advisor\\.cleanup\\(\\)`,
        ),
      );
      expect(listed.out).toMatch(new RegExp(`${name}\\s+\\S+ \\w+\\s+STALE: `));
      expect(stillThere).toContain(name);
      expect(dropped.out).toContain(`dropped ${name} (listDatabases no longer lists it)`);
      expect(await scratchDbs(src.client)).not.toContain(name);
      expect(await checksums(src.client, DB)).toEqual(src.before);
    },
    240_000,
  );
});

describe('Ctrl-C at the mongosh prompt (a real mongosh on a pseudo-terminal)', () => {
  const uri = inject('mongoUri');
  const shellUri = `${uri.replace(/\/?(\?.*)?$/, '')}/${DB}`;
  const env = { MONGOSH_NO_UPDATE_CHECK: '1' };

  /** A mongosh session with the plugin loaded, at its prompt. */
  async function session(): Promise<Terminal> {
    const t = new Terminal(MONGOSH, [shellUri, '--norc', '--quiet'], env);
    expect(await t.waitFor(/> $/m, 60_000), t.output).not.toBeNull();
    t.type(`load(${JSON.stringify(PLUGIN)})\r`);
    expect(await t.waitFor(/\btrue\b/, 60_000), t.output).not.toBeNull();
    return t;
  }

  it(
    'ends a confirming advisor.check within 5 s: no further experiment, the scratch database dropped, the partial ' +
      'report printed, and the shell usable (advisor.cleanup in the same session finds nothing of this run)',
    async () => {
      const t = await session();
      try {
        t.type(`advisor.check(${CHECKED}, { confirmBudget: 2 })\r`);
        const started = await t.waitFor(/confirming 1 of (\d+)/, 240_000);
        expect(started, t.output).not.toBeNull();
        const from = t.output.length;
        const pressed = performance.now();
        t.type('\x03');
        const done = await t.waitFor(
          new RegExp(
            'interrupted\\. Dropped the scratch database (mongo_advisor_scratch_[0-9a-f]+) \\(listDatabases no ' +
              'longer lists it\\)\\. (\\d+) experiments? not run',
          ),
          5_000,
          from,
        );
        const took = performance.now() - pressed;
        expect(done, t.output.slice(from)).not.toBeNull();
        expect(took).toBeLessThan(5_000);
        const name = done?.[1] as string;
        // the experiment under way and every later one are not run; none started after Ctrl-C
        expect(Number(done?.[2])).toBe(Number(started?.[1]));
        expect(t.output.slice(from)).not.toMatch(/confirming \d+ of/);
        expect(t.output.slice(from)).not.toMatch(/execution was interrupted|could not be reached/);
        expect(await t.waitFor(/Not run: the run was interrupted before this experiment began/, 5_000, from)).not.toBe(
          null,
        );
        expect(await scratchDbs(src.client)).not.toContain(name);
        // the shell takes commands again, and nothing of this run is left in use. mongosh ignores a line typed in the
        // moment it still finishes its own interrupt handling (its prompt then lacks the database's name): a user
        // types later than that, and so does this test.
        await t.waitFor(/printed above/, 5_000, from);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        const at = t.output.length;
        t.type('advisor.cleanup()\r');
        const listed = await t.waitFor(
          /(No scratch databases|nothing to drop|advisor\.cleanup\(\{ drop)[^\n]*\n/,
          30_000,
          at,
        );
        expect(listed, t.output.slice(at)).not.toBeNull();
        expect(t.output.slice(at)).not.toContain(name);
        expect(t.output.slice(at)).not.toMatch(/this very process, a run going on now/);
        expect(await checksums(src.client, DB)).toEqual(src.before);
      } finally {
        t.type('.exit\r');
        await t.close();
      }
    },
    360_000,
  );

  it('a mongosh killed with SIGKILL mid-confirmation leaves a database the next session drops', async () => {
    const had = new Set(await scratchDbs(src.client));
    const t = await session();
    let name = '';
    try {
      t.type(`advisor.check(${CHECKED}, { confirmBudget: 2 })\r`);
      expect(await t.waitFor(/confirming 1 of/, 240_000), t.output).not.toBeNull();
      // ours: a new scratch database whose marker names a mongosh that descends from this terminal (its first write
      // follows the progress line: wait for it)
      for (const until = Date.now() + 60_000; name === '' && Date.now() < until; ) {
        for (const n of (await scratchDbs(src.client)).filter((x) => !had.has(x))) {
          const marker = await src.client
            .db(n)
            .collection<{ _id: string; via?: string; pid?: number }>('_advisor_marker')
            .findOne({ _id: 'owner' });
          if (
            marker?.via === 'mongosh' &&
            typeof marker.pid === 'number' &&
            descendsFrom(marker.pid, t.child.pid ?? 0)
          ) {
            name = n;
            process.kill(marker.pid, 'SIGKILL');
          }
        }
        if (name === '') await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(name, 'no scratch database of this mongosh was found').not.toBe('');
      await t.exited;
    } finally {
      await t.close();
    }
    expect(await scratchDbs(src.client)).toContain(name);
    const next = await mongosh(uri, 'print(advisor.cleanup({ drop: true }))');
    expect(next.out).toContain(`dropped ${name} (listDatabases no longer lists it)`);
    expect(await scratchDbs(src.client)).not.toContain(name);
    expect(await checksums(src.client, DB)).toEqual(src.before);
  }, 360_000);
});
