import { describe, expect, it } from 'vitest';
import { MONGOSH, MONGOSH_ENV, mongosh as runMongosh, PLUGIN, shellUri } from './support/mongosh';
import { descendsFrom, Terminal } from './support/pty';
import { rulesOff } from './support/rules-off';
import { checksums, INTERRUPT_RULES, scratchDbs, useInterruptSource } from './support/scratch';
import { liveUri } from './support/live-uri';

const DB = 'mongo_advisor_test_mongosh_interrupt';
/**
 * The check every interrupted run makes: sessions with collection-count alone (INTERRUPT_RULES), whose one experiment
 * on the tenants reaches every phase in a few seconds (its copies send several documents per insert; its trials
 * repeat one command); each phase's hook proves it was reached, since a run that never gets there ends without the
 * signal.
 */
const CHECK = `advisor.check("sessions", { confirmBudget: 2, rules: ${JSON.stringify(INTERRUPT_RULES)} })`;
/**
 * The check as a user types it at the prompt, with two experiments (the validator's on sessions, then
 * collection-count's) so that an interrupt during the first leaves one that never began, and the default budget (30 s):
 * where the test interrupts it by hand (Ctrl-C, a SIGKILL), the experiment outlasts the moment the test sees it start,
 * however slow the machine, and the interrupt ends it early, so the longer budget costs no time.
 */
const TYPED_RULES = rulesOff('validator', 'collection-count');
const TYPED = `advisor.check("sessions", { rules: ${JSON.stringify(TYPED_RULES)} })`;

const mongosh = (uri: string, script: string, env: Record<string, string> = {}) => runMongosh(uri, DB, script, { env });

// One seeded source for the whole file: every test leaves it unchanged (each asserts so).
const src = useInterruptSource(liveUri(), DB);

describe('interrupting advisor.check (real mongosh)', () => {
  const uri = liveUri();

  // Every phase with SIGTERM; SIGHUP (the same handler, another exit code) at the phase with writes in flight.
  for (const [signal, exit, phases] of [
    ['SIGTERM', 143, ['after-marker', 'mid-insert', 'mid-timing']],
    ['SIGHUP', 129, ['mid-insert']],
  ] as const) {
    for (const phase of phases) {
      it(`${signal} at ${phase}: the plugin drops the scratch database and says so`, async () => {
        const r = await mongosh(uri, CHECK, {
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
      const r = await mongosh(uri, CHECK, {
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
        'const r = advisor.check("sessions", { confirm: false }); print(r.notes.map((n) => n.message).join("\\n")); ' +
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
  const uri = liveUri();

  /** A mongosh session with the plugin loaded, at its prompt. */
  async function session(): Promise<Terminal> {
    const t = new Terminal(MONGOSH, [shellUri(uri, DB), '--norc', '--quiet'], MONGOSH_ENV);
    expect(await t.waitFor(/> $/m, 60_000), t.output).not.toBeNull();
    t.type(`load(${JSON.stringify(PLUGIN)})\r`);
    expect(await t.waitFor(/\btrue\b/, 60_000), t.output).not.toBeNull();
    return t;
  }

  // One shell for both (a mongosh start costs seconds): Ctrl-C first, which must leave it usable, then a second check
  // in it killed with SIGKILL, which leaves a database only the next session can drop.
  it(
    'ends a confirming advisor.check within 5 s: no further experiment, the scratch database dropped, the partial ' +
      'report printed, and the shell usable (advisor.cleanup in the same session finds nothing of this run); the ' +
      'same shell killed with SIGKILL mid-confirmation then leaves a database the next session drops',
    async () => {
      const t = await session();
      let killed = '';
      try {
        t.type(`${TYPED}\r`);
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

        // The same shell confirms again, and is killed with SIGKILL mid-confirmation: no handler runs.
        const had = new Set(await scratchDbs(src.client));
        const again = t.output.length;
        t.type(`${TYPED}\r`);
        expect(await t.waitFor(/confirming 1 of/, 240_000, again), t.output.slice(again)).not.toBeNull();
        // ours: a new scratch database whose marker names a mongosh that descends from this terminal (its first write
        // follows the progress line: wait for it)
        for (const until = Date.now() + 60_000; killed === '' && Date.now() < until; ) {
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
              killed = n;
              process.kill(marker.pid, 'SIGKILL');
            }
          }
          if (killed === '') await new Promise((resolve) => setTimeout(resolve, 200));
        }
        expect(killed, 'no scratch database of this mongosh was found').not.toBe('');
        await t.exited;
      } finally {
        if (killed === '') t.type('.exit\r');
        await t.close();
      }
      expect(await scratchDbs(src.client)).toContain(killed);
      const next = await mongosh(uri, 'print(advisor.cleanup({ drop: true }))');
      expect(next.out).toContain(`dropped ${killed} (listDatabases no longer lists it)`);
      expect(await scratchDbs(src.client)).not.toContain(killed);
      expect(await checksums(src.client, DB)).toEqual(src.before);
    },
    480_000,
  );
});
