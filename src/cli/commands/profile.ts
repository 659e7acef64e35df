import type { Command } from 'commander';
import { hostname } from 'node:os';
import { profilerOnly, readOnly } from '../../adapters/read-only';
import type { Adapter, Doc } from '../../adapters/types';
import { isRefusal, UserError } from '../../core/errors';
import { terminalLine } from '../../core/format';
import { checkTargets } from '../../core/names';
import { redactServerText } from '../../lib/redact';
import { onInterrupt, type RestoreAction } from '../interrupt';
import { EXIT, type Io } from '../io';
import { connect } from '../shared';
import {
  describeSettings,
  markerRunAlive,
  type ProfileMarker,
  readMarker,
  removeMarker,
  restoreByHand,
  runWords,
  writeMarker,
} from '../profile-marker';

export { describeSettings, restoreByHand } from '../profile-marker';
import { ask } from './cleanup';
import { dbFromUri } from './check';

/**
 * `mongo-advisor profile <uri> --db <name> --for <duration>`: the one way the advisor changes the profiling level, and
 * only when asked. It reads the settings first (`profile: -1`), does nothing when the profiler is already on, asks
 * (or takes --yes), sets level 1 for the stated time, then puts back exactly what was there (level, slowms,
 * sampleRate, filter) on every exit path: the end of the wait, an error, Ctrl-C, SIGTERM, SIGHUP
 * (src/cli/interrupt.ts).
 * The changes go through `profilerOnly` (src/adapters/read-only.ts): the profile command on that database, nothing
 * else.
 */

interface ProfileFlags {
  db?: string;
  for?: string;
  slowms?: string;
  yes?: boolean;
}

/** What `profile: -1` answers: the level (`was`), slowms, sampleRate and the filter when one is set. */
export interface ProfilerSettings {
  was: number;
  slowms: number;
  sampleRate: number;
  filter?: Doc;
}

/** MongoDB's default slowms (https://www.mongodb.com/docs/manual/reference/command/profile/: "Default: 100"). */
export const DEFAULT_SLOWMS = 100;
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const MAX_MS = 24 * 3_600_000;

/** `--for`: 30s, 10m, 1h, 1.5h (at least 1 s, at most 24 h); a bad one is a UserError. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text.trim());
  const ms = m ? Math.round(Number(m[1]) * (UNITS[m[2] as string] as number)) : NaN;
  if (!(ms >= 1000 && ms <= MAX_MS)) {
    const shown = JSON.stringify(terminalLine(text));
    throw new UserError(`--for ${shown} is not a duration from 1s to 24h: write it like 30s, 10m or 1h.`);
  }
  return ms;
}

function parseSlowms(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n))
    throw new UserError(`--slowms ${JSON.stringify(terminalLine(text))} is not a whole number of milliseconds.`);
  return n;
}

export function formatDurationText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** The profile command that puts `s` back: level, slowms, sampleRate, and the filter if one was set. */
export function restoreCommand(s: ProfilerSettings): Doc {
  return { profile: s.was, slowms: s.slowms, sampleRate: s.sampleRate, ...(s.filter ? { filter: s.filter } : {}) };
}

const firstLine = (e: unknown): string =>
  terminalLine(redactServerText(((e as Error | null)?.message ?? String(e)).split('\n')[0] ?? ''));

function noProfiler(err: unknown): boolean {
  const e = err as { code?: unknown; codeName?: unknown; message?: unknown } | null;
  return e?.code === 59 || e?.codeName === 'CommandNotFound' || /no such (command|cmd)/i.test(String(e?.message));
}

/**
 * Why level 1 was not set, in one line. A refusal says what grants the change: MongoDB lets a user with find on
 * system.profile read the settings (profile -1) but wants enableProfiler to change them (profile_common.cpp of
 * mongodb/mongo, `checkAuthForOperation`), so a user may get this far and be refused here.
 */
export function refusedToSet(db: string, err: unknown): string {
  const shown = JSON.stringify(terminalLine(db));
  if (isRefusal(err))
    return (
      `Not allowed to set the profiling level of ${shown} (${firstLine(err)}): the change needs the enableProfiler ` +
      `action on that database (the built-in role dbAdmin grants it); reading it needs only find on system.profile.`
    );
  return `The server refused to set the profiling level of ${shown}: ${firstLine(err)}.`;
}

/** Reads the settings; a server without the profile command, or a refusal, is one line saying so. */
export async function readSettings(gate: Adapter, db: string): Promise<ProfilerSettings> {
  const shown = JSON.stringify(terminalLine(db));
  let r: Doc;
  try {
    r = await gate.command(db, { profile: -1 });
  } catch (err) {
    if (noProfiler(err))
      throw new UserError(
        `The server at ${gate.source} has no profiler (it does not know the profile command, ${firstLine(err)}): ` +
          `nothing was changed, and there are no profiler entries to read there.`,
      );
    if (isRefusal(err))
      throw new UserError(
        `Not allowed to read the profiling level of ${shown} (${firstLine(err)}): the profile command needs the ` +
          `enableProfiler action on that database (the built-in role dbAdmin grants it). Nothing was changed.`,
      );
    throw new UserError(`Could not read the profiling level of ${shown}: ${firstLine(err)}. Nothing was changed.`);
  }
  if (typeof r.was !== 'number')
    throw new UserError(`The server answered profile -1 without a level: it has no profiler. Nothing was changed.`);
  const filter = r.filter !== null && typeof r.filter === 'object' ? (r.filter as Doc) : undefined;
  return {
    was: r.was,
    slowms: typeof r.slowms === 'number' ? r.slowms : DEFAULT_SLOWMS,
    sampleRate: typeof r.sampleRate === 'number' ? r.sampleRate : 1,
    ...(filter ? { filter } : {}),
  };
}

/** How many entries `system.profile` of `db` holds (a read), or null when it cannot be counted. */
async function entries(adapter: Adapter, db: string): Promise<number | null> {
  const r = await readOnly(adapter, { readPreference: 'primary' })
    .command(db, { count: 'system.profile', maxTimeMS: 10_000 })
    .catch(() => null);
  return typeof r?.n === 'number' ? r.n : null;
}

/** Asks for consent on a terminal, or takes --yes; without either, refused (exit 2). False when the user says no. */
async function consent(plan: string, flags: ProfileFlags, confirm: (q: string) => Promise<boolean>): Promise<boolean> {
  if (flags.yes) return true;
  if (!process.stdin.isTTY)
    throw new UserError(
      `Refused: the advisor changes the profiling level only with consent, and there is no terminal to ask on. ` +
        `Pass --yes to ${plan}.`,
    );
  return await confirm(terminalLine(`${plan[0]?.toUpperCase() ?? ''}${plan.slice(1)}? [y/N] `));
}

/** Waits `ms` (cut short by `signal`), with a progress line on stderr now and then. */
async function wait(ms: number, signal: AbortSignal, tick: (elapsed: number) => Promise<void>): Promise<void> {
  const every = Math.min(60_000, Math.max(5_000, Math.round(ms / 10)));
  const start = Date.now();
  while (!signal.aborted) {
    const left = start + ms - Date.now();
    if (left <= 0) return;
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(
        () => {
          signal.removeEventListener('abort', stop);
          resolve();
        },
        Math.min(left, every),
      );
      signal.addEventListener('abort', stop, { once: true });
    });
    if (!signal.aborted && Date.now() - start < ms) await tick(Date.now() - start);
  }
}

/**
 * The restore, once: it waits for the level change it undoes to be answered (never two profile commands in flight on
 * two connections, the restore overtaken), puts back the settings and reads them back to prove it.
 */
function restorer(gate: Adapter, db: string, old: ProfilerSettings, setting: Promise<unknown>): () => Promise<string> {
  let once: Promise<string> | null = null;
  const shown = JSON.stringify(terminalLine(db));
  const same = (now: ProfilerSettings): boolean =>
    now.was === old.was &&
    now.slowms === old.slowms &&
    now.sampleRate === old.sampleRate &&
    (now.filter === undefined) === (old.filter === undefined);
  const run = async (): Promise<string> => {
    if (
      !(await setting.then(
        () => true,
        () => false,
      ))
    ) {
      // refused (no right to, a mongos): most likely nothing changed, and then nothing is to be put back
      const now = await readSettings(gate, db).catch(() => null);
      if (now && same(now)) {
        removeMarker(gate.source, db);
        return `The profiling level of ${shown} was not changed: ${describeSettings(now)}.`;
      }
    }
    await gate.command(db, restoreCommand(old));
    const now = await readSettings(gate, db);
    if (!same(now))
      throw new Error(`the server reads ${describeSettings(now)} after the restore, not ${describeSettings(old)}`);
    // proved restored: the marker goes (kept on any failure, so the next run can tell)
    removeMarker(gate.source, db);
    return `Restored the profiling level of ${shown}: ${describeSettings(now)} (read back from the server).`;
  };
  return () => (once ??= run());
}

/** Runs the opt-in; the exit code. */
export async function runProfile(
  uri: string,
  flags: ProfileFlags,
  io: Io,
  confirm: (q: string) => Promise<boolean> = ask,
): Promise<number> {
  const db = flags.db ?? dbFromUri(uri);
  if (!db) throw new UserError('Which database? Pass --db <name>: the profiling level is set per database.');
  if (flags.for === undefined)
    throw new UserError('How long? Pass --for <duration>, e.g. --for 10m: the level is put back after it.');
  const ms = parseDuration(flags.for);
  const slowms = flags.slowms === undefined ? undefined : parseSlowms(flags.slowms);
  checkTargets([db]);
  const adapter = await connect(uri);
  try {
    return await optIn(adapter, db, { ms, slowms, flags, io, confirm });
  } finally {
    await adapter.close().catch(() => undefined);
  }
}

export interface OptIn {
  ms: number;
  slowms: number | undefined;
  flags: ProfileFlags;
  io: Io;
  confirm: (q: string) => Promise<boolean>;
}

export async function optIn(adapter: Adapter, db: string, o: OptIn): Promise<number> {
  const { io } = o;
  const gate = profilerOnly(adapter, db);
  const shown = JSON.stringify(terminalLine(db));
  let old = await readSettings(gate, db);
  const next = `mongo-advisor check <uri> --db ${terminalLine(db)}`;
  const marker = readMarker(gate.source, db);
  if (marker) {
    const after = await killedRun(gate, db, marker, old, o);
    if (typeof after === 'number') return after;
    old = after;
  }
  if (old.was !== 0) {
    io.out(`The profiler of ${shown} is already on (${describeSettings(old)}): nothing to do. Next: ${next}`);
    return EXIT.ok;
  }
  const slowms = o.slowms ?? old.slowms;
  const target = { ...old, was: 1, slowms };
  const global =
    slowms === old.slowms ? '' : ` (slowms is server-wide: the slow-query log uses ${slowms} ms meanwhile)`;
  const plan =
    `set the profiling level of ${shown} on ${adapter.source} to 1 (operations slower than ${slowms} ms) ` +
    `for ${formatDurationText(o.ms)}, then restore ${describeSettings(old)}${global}`;
  if (!(await consent(plan, o.flags, o.confirm))) {
    io.out('Nothing changed.');
    return EXIT.findings;
  }
  try {
    writeMarker({
      source: gate.source,
      db,
      before: old,
      set: { was: 1, slowms },
      pid: process.pid,
      host: hostname(),
      startedAt: new Date().toISOString(),
      until: new Date(Date.now() + o.ms).toISOString(),
    });
  } catch (err) {
    throw new UserError(
      `Could not write the marker that lets a later run restore the level if this one is killed ` +
        `(${firstLine(err)}): nothing was changed. Set MONGO_ADVISOR_STATE_DIR to a writable directory.`,
    );
  }
  const interrupt = onInterrupt(io, { nothing: 'the profiling level was not changed' });
  // A filter overrides slowms and sampleRate (the manual's profile page): it is unset for the run, put back after.
  const setting = gate.command(db, { profile: 1, slowms, ...(old.filter ? { filter: 'unset' } : {}) });
  const restore = restorer(gate, db, old, setting);
  const byHand = restoreByHand(db, old);
  const action: RestoreAction = {
    what: `restoring the profiling level of ${shown} to ${describeSettings(old)}`,
    run: restore,
    byHand,
  };
  interrupt.restore(action);
  try {
    const signal = interrupt.signal;
    return await during(adapter, gate, db, { ...o, target, old, setting, interrupt: signal, byHand, next, restore });
  } catch (err) {
    // An error after the level was set: put it back first, then the error's own line.
    if (!interrupt.signal.aborted && !(err instanceof RestoreFailed))
      io.out(
        await restore().catch((e: unknown) => `NOT restored: ${firstLine(e)}; restore by hand in mongosh: ${byHand}`),
      );
    throw err;
  } finally {
    if (interrupt.signal.aborted) await restore().catch(() => undefined);
    interrupt.dispose();
  }
}

/**
 * A marker left by an earlier run (src/cli/profile-marker.ts). Still running: nothing to do. Killed while the level
 * it set is still there: says so with the exact restore, and restores with consent (then the run goes on from the
 * restored settings). Killed, but the settings have changed since: someone else owns them now; the marker goes.
 * The exit code, or the settings to go on from.
 */
async function killedRun(
  gate: Adapter,
  db: string,
  m: ProfileMarker,
  now: ProfilerSettings,
  o: OptIn,
): Promise<number | ProfilerSettings> {
  const { io } = o;
  const shown = JSON.stringify(terminalLine(db));
  if (markerRunAlive(m)) {
    io.out(
      `Another mongo-advisor profile run is profiling ${shown} (${runWords(m)}); it restores ` +
        `${describeSettings(m.before)} when it ends. Nothing to do.`,
    );
    return EXIT.ok;
  }
  const byHand = restoreByHand(db, m.before);
  if (now.was !== m.set.was || now.slowms !== m.set.slowms) {
    io.out(
      `An earlier mongo-advisor profile run on ${shown} (${runWords(m)}) ended without restoring, but the settings ` +
        `have changed since (now ${describeSettings(now)}): left as they are. Before that run they were ` +
        `${describeSettings(m.before)} (in mongosh: ${byHand}).`,
    );
    removeMarker(gate.source, db);
    return now;
  }
  io.out(
    `An earlier mongo-advisor profile run (${runWords(m)}) was stopped before it restored the profiling level of ` +
      `${shown}: it still reads ${describeSettings(now)}, as that run set it; before it: ` +
      `${describeSettings(m.before)}. Restore it in mongosh: ${byHand}`,
  );
  const plan = `restore ${describeSettings(m.before)} on ${shown} now`;
  if (!o.flags.yes && !process.stdin.isTTY) {
    io.out(`Nothing changed: pass --yes to ${plan}, or paste the line above.`);
    return EXIT.findings;
  }
  if (!(await consent(plan, o.flags, o.confirm))) {
    io.out('Nothing changed.');
    return EXIT.findings;
  }
  await gate.command(db, restoreCommand(m.before));
  const back = await readSettings(gate, db);
  if (back.was !== m.before.was || back.slowms !== m.before.slowms || back.sampleRate !== m.before.sampleRate)
    throw new UserError(
      `NOT restored: the server reads ${describeSettings(back)} after the restore; restore by hand in mongosh: ` +
        byHand,
    );
  removeMarker(gate.source, db);
  io.out(`Restored the profiling level of ${shown}: ${describeSettings(back)} (read back from the server).`);
  return back;
}

interface During extends OptIn {
  target: ProfilerSettings;
  old: ProfilerSettings;
  setting: Promise<Doc>;
  interrupt: AbortSignal;
  byHand: string;
  next: string;
  restore: () => Promise<string>;
}

/** The restore failed: its line says so and gives the command by hand (exit 2). */
class RestoreFailed extends UserError {
  override name = 'RestoreFailed';
}

/** Level 1 set and read back, the wait, the restore proved, the count: what happens between consent and the end. */
async function during(adapter: Adapter, gate: Adapter, db: string, d: During): Promise<number> {
  const { io } = d;
  const shown = JSON.stringify(terminalLine(db));
  await d.setting.catch((err: unknown) => {
    throw new UserError(refusedToSet(db, err));
  });
  const now = await readSettings(gate, db);
  if (now.was !== 1 || now.slowms !== d.target.slowms)
    throw new UserError(
      `The server reads ${describeSettings(now)} after setting level 1: it did not take the setting.`,
    );
  const until = new Date(Date.now() + d.ms).toISOString().slice(11, 19);
  io.out(
    `Profiler on for ${shown}: ${describeSettings(now)}, until ${until} UTC (${formatDurationText(d.ms)}); then ` +
      `${describeSettings(d.old)} is restored. Ctrl-C restores it at once. If this process is killed, restore by ` +
      `hand in mongosh: ${d.byHand}`,
  );
  await wait(d.ms, d.interrupt, async (elapsed) => {
    const n = await entries(adapter, db);
    const count = n === null ? '' : `, ${n} entr${n === 1 ? 'y' : 'ies'} in system.profile so far`;
    const so = formatDurationText(Math.round(elapsed / 1000) * 1000);
    io.err(`profiling ${terminalLine(db)}: ${so} of ${formatDurationText(d.ms)}${count}`);
  });
  if (d.interrupt.aborted) return EXIT.usage; // the interrupt handler restores, says so and exits 128 + signal
  io.out(
    await d.restore().catch((e: unknown) => {
      throw new RestoreFailed(`NOT restored: ${firstLine(e)}; restore by hand in mongosh: ${d.byHand}`);
    }),
  );
  const n = await entries(adapter, db);
  io.out(
    `system.profile of ${shown} now holds ${n === null ? 'an unknown number of' : n} entr${n === 1 ? 'y' : 'ies'}. ` +
      `Next: ${d.next} (reads the profiler's entries)`,
  );
  return EXIT.ok;
}

export function registerProfile(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('profile')
    .description('turn the profiler on (level 1) for a stated time, after asking, then restore the previous level')
    .argument('<uri>', 'connection string, e.g. mongodb://localhost:27017')
    .option('--db <name>', "the database to profile (default: the connection string's; the level is per database)")
    .option('--for <duration>', 'how long, e.g. 30s, 10m, 1h (at most 24h); the previous level is restored after')
    .option('--slowms <ms>', "profile operations slower than this (default: the server's slowms, MongoDB's 100)")
    .option('-y, --yes', 'turn it on without asking (scripts)')
    .action(async (uri: string, flags: ProfileFlags) => {
      setExit(await runProfile(uri, flags, io));
    });
}
