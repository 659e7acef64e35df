/**
 * The marker a `mongo-advisor profile` run leaves while it holds the profiler at level 1: a small local state file,
 * keyed by the server (its redacted address) and the database, written before the level is set and removed once the
 * restore is read back. A run killed with SIGKILL (or a machine that went down) cannot restore anything; its marker
 * stays, and the next `profile`, `check` or `collect` on that database finds it and prints the exact restore.
 *
 * Local, not on the server: the advisor writes to a server only through confirmation's scratch databases and this
 * very opt-in's `profile` command (docs/architecture.md, "Read-only by construction"); a marker document would be one
 * more write outside scratch, need insert rights the opt-in does not ask for (enableProfiler alone), and survive in
 * backups. The cost: another machine, user or state directory does not see it (docs/workload.md says so).
 *
 * Where: `$MONGO_ADVISOR_STATE_DIR`, else `$XDG_STATE_HOME/mongo-advisor`, else `~/.local/state/mongo-advisor`
 * (XDG Base Directory: "state data that should persist between (application) restarts").
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EJSON } from 'bson';
import type { Doc } from '../core/adapter';
import { terminalLine } from '../core/format';
import { shellDbCall } from '../lib/shell';

/** The settings the run replaced, and those it set (as `profile: -1` reads them). */
export interface MarkedSettings {
  was: number;
  slowms: number;
  sampleRate: number;
  filter?: Doc;
}

export interface ProfileMarker {
  format: 'mongo-advisor-profile-marker';
  source: string;
  db: string;
  /** The settings before the run: what a restore puts back. */
  before: MarkedSettings;
  /** What the run set (level 1 and its slowms): a server still reading these was not touched since. */
  set: { was: number; slowms: number };
  pid: number;
  host: string;
  startedAt: string;
  /** When the run meant to restore. */
  until: string;
}

export function stateDir(): string {
  const env = process.env;
  if (env.MONGO_ADVISOR_STATE_DIR) return env.MONGO_ADVISOR_STATE_DIR;
  const base = env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'mongo-advisor');
}

/** The marker's file for this server and database (a hash: names never become paths). */
export function markerFile(source: string, db: string): string {
  const id = createHash('sha256').update(`${source}\0${db}`).digest('hex').slice(0, 24);
  return path.join(stateDir(), 'profiler', `${id}.json`);
}

/** Written before the level is set: if this fails, nothing is changed (the caller stops). */
export function writeMarker(m: Omit<ProfileMarker, 'format'>): string {
  const file = markerFile(m.source, m.db);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, EJSON.stringify({ format: 'mongo-advisor-profile-marker', ...m }, undefined, 2), {
    mode: 0o600,
  });
  fs.renameSync(tmp, file);
  return file;
}

export function removeMarker(source: string, db: string): void {
  fs.rmSync(markerFile(source, db), { force: true });
}

/** The marker for this server and database, or null (none, or unreadable: then it is no evidence of anything). */
export function readMarker(source: string, db: string): ProfileMarker | null {
  let text: string;
  try {
    text = fs.readFileSync(markerFile(source, db), 'utf8');
  } catch {
    return null;
  }
  try {
    const m = EJSON.parse(text, { relaxed: true }) as Partial<ProfileMarker>;
    const ok =
      m.format === 'mongo-advisor-profile-marker' &&
      m.source === source &&
      m.db === db &&
      typeof m.before?.was === 'number' &&
      typeof m.before.slowms === 'number' &&
      typeof m.before.sampleRate === 'number' &&
      typeof m.set?.was === 'number' &&
      typeof m.set.slowms === 'number' &&
      typeof m.pid === 'number';
    return ok ? (m as ProfileMarker) : null;
  } catch {
    return null;
  }
}

/** Whether the run that wrote the marker still runs (same machine, its process alive); false when it cannot be. */
export function markerRunAlive(m: ProfileMarker): boolean {
  if (m.host !== os.hostname() || m.pid === process.pid) return false;
  try {
    process.kill(m.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** "level 0, slowms 100" (with the sample rate when it is not 1, and the filter when one is set). */
export function describeSettings(s: MarkedSettings): string {
  const rate = s.sampleRate === 1 ? '' : `, sampleRate ${s.sampleRate}`;
  const filter = s.filter ? `, filter ${terminalLine(EJSON.stringify(s.filter, { relaxed: true }))}` : '';
  return `level ${s.was}, slowms ${s.slowms}${rate}${filter}`;
}

/** The mongosh line that puts `s` back by hand. */
export function restoreByHand(db: string, s: MarkedSettings): string {
  // The filter as relaxed Extended JSON read back: the same object literal, its strings escaped by the builder.
  const filter = s.filter ? { filter: JSON.parse(EJSON.stringify(s.filter, { relaxed: true })) as unknown } : {};
  const opts = { slowms: s.slowms, ...(s.sampleRate !== 1 ? { sampleRate: s.sampleRate } : {}), ...filter };
  return shellDbCall(db, 'setProfilingLevel', s.was, opts);
}

/** "pid 123 on host, started 01:02:03 UTC, meant to restore at 01:12:03 UTC" */
export function runWords(m: ProfileMarker): string {
  const at = (iso: string): string => `${iso.slice(11, 19)} UTC ${iso.slice(0, 10)}`;
  return `pid ${m.pid} on ${terminalLine(m.host)}, started ${at(m.startedAt)}, meant to restore at ${at(m.until)}`;
}

/**
 * `check` and `collect`: one line per database whose profiler an earlier `profile` run changed and was killed before
 * restoring (its marker, src/cli/profile-marker.ts), with the exact restore. No command is sent for it.
 */
export function killedProfileLines(source: string, dbs: readonly string[]): string[] {
  const out: string[] = [];
  for (const db of dbs) {
    const m = readMarker(source, db);
    if (!m || markerRunAlive(m)) continue;
    out.push(
      `mongo-advisor: the profiler of ${JSON.stringify(terminalLine(db))} may still be at level ${m.set.was} ` +
        `(slowms ${m.set.slowms}), set by a mongo-advisor profile run that was stopped before it restored ` +
        `(${runWords(m)}). Before it: ${describeSettings(m.before)}. Restore in mongosh: ` +
        `${restoreByHand(db, m.before)} (or run mongo-advisor profile <uri> --db ${terminalLine(db)}, which ` +
        `checks and offers to).`,
    );
  }
  return out;
}
