import { formatBytes } from '../core/format';
import { hostname } from 'node:os';
import { readOnly } from '../adapters/read-only';
import { type Adapter, type Doc, describeServerError } from '../adapters/types';
import { MARKER_COLLECTION, runInProgressHere, SCRATCH_PREFIX, Scratch, type ScratchMarker } from './scratch';

/**
 * A run that started longer ago than this is over, whatever its pid says (a pid is reused, and a run on another host
 * cannot be asked): a confirmation is bounded by its budget (30 s per finding by default, `--confirm-budget`), so six
 * hours is far past any real run.
 */
export const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

export interface ScratchDatabase {
  name: string;
  /** listDatabases' sizeOnDisk (bytes), when the server reports it. */
  bytes: number | null;
  marker: ScratchMarker | null;
  /**
   * stale: our leftover, to drop; running: another run is using it now (never offered for dropping); foreign: it has
   * the prefix but not our marker, so it is someone else's (dropped only when named: `cleanup --drop <name>`).
   */
  state: 'stale' | 'running' | 'foreign';
  /** Why it is said to be stale, running or foreign, in words. */
  why: string;
}

/** Why a prefixed database without our marker is left alone (listed by cleanup, named by every connecting command). */
export const NOT_OURS = 'has the scratch prefix but no mongo-advisor marker: not ours, left in place';

/** The state of a scratch database as cleanup lists it. */
export function stateLabel(d: Pick<ScratchDatabase, 'state'>): string {
  return { stale: 'STALE', running: 'in use', foreign: 'NOT OURS' }[d.state];
}

/** Whether a process with this pid runs on this machine (signal 0 probes without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // it exists, owned by another user
  }
}

/**
 * The staleness rule: a scratch database with our marker is stale when it was started more than STALE_AFTER_MS ago,
 * or on this host by a pid that no longer runs. One started by a live pid on this host, or by any run on another host
 * less than STALE_AFTER_MS ago, belongs to a run in progress. One started by this very process is in use only while
 * one of its runs writes there (`inProgressHere`, given the database's name); once that run has ended (interrupted in
 * mongosh, or its drop failed) it is a leftover like any other. Without the marker it is not ours (`foreign`): the
 * prefix alone proves nothing (a user may name a database so), and nothing that is not ours is dropped unasked.
 */
export function staleness(
  marker: ScratchMarker | null,
  now = Date.now(),
  here = hostname(),
  isAlive = alive,
  inProgressHere: () => boolean = () => true,
): Pick<ScratchDatabase, 'state' | 'why'> {
  if (!marker) return { state: 'foreign', why: NOT_OURS };
  const started = Date.parse(marker.startedAt);
  const by =
    `mongo-advisor ${marker.version} (${marker.via}, pid ${marker.pid} on ${marker.host}) ` +
    `started ${marker.startedAt}`;
  if (!Number.isFinite(started) || now - started > STALE_AFTER_MS)
    return { state: 'stale', why: `${by}, more than ${STALE_AFTER_MS / 3_600_000} hours ago` };
  if (marker.host === here && marker.pid !== process.pid && !isAlive(marker.pid))
    return { state: 'stale', why: `${by}; that process no longer runs` };
  if (marker.host === here && marker.pid === process.pid)
    return inProgressHere()
      ? { state: 'running', why: `${by}: this very process, a run going on now` }
      : { state: 'stale', why: `${by}: this very process, whose run has ended (interrupted, or its drop failed)` };
  const elsewhere = ' (another host: not checked, treated as running until it is 6 hours old)';
  return { state: 'running', why: `${by}: still running${marker.host === here ? '' : elsewhere}` };
}

function asMarker(d: Doc | undefined): ScratchMarker | null {
  if (
    !d ||
    d.tool !== 'mongo-advisor' ||
    typeof d.pid !== 'number' ||
    typeof d.host !== 'string' ||
    typeof d.startedAt !== 'string'
  )
    return null;
  return {
    _id: 'owner',
    tool: 'mongo-advisor',
    version: typeof d.version === 'string' ? d.version : '?',
    host: d.host,
    pid: d.pid,
    startedAt: d.startedAt,
    via: typeof d.via === 'string' ? d.via : '?',
  };
}

/**
 * The scratch databases on a server (read-only: listDatabases, then one find of each marker), stale ones and those of
 * runs in progress. Throws only when listDatabases itself fails.
 */
export async function listScratchDatabases(adapter: Adapter, maxTimeMS = 10_000): Promise<ScratchDatabase[]> {
  const ro = readOnly(adapter);
  const r = await ro.command('admin', { listDatabases: 1, nameOnly: false, maxTimeMS });
  const dbs = ((r.databases as Doc[] | undefined) ?? []).filter(
    (d) => typeof d.name === 'string' && d.name.startsWith(SCRATCH_PREFIX),
  );
  const out: ScratchDatabase[] = [];
  for (const d of dbs) {
    const name = d.name as string;
    let marker: ScratchMarker | null = null;
    try {
      const found = await ro.command(name, { find: MARKER_COLLECTION, filter: { _id: 'owner' }, limit: 1, maxTimeMS });
      marker = asMarker(((found.cursor as Doc | undefined)?.firstBatch as Doc[] | undefined)?.[0]);
    } catch {
      marker = null;
    }
    const size = Number(d.sizeOnDisk);
    out.push({
      name,
      bytes: Number.isFinite(size) && d.sizeOnDisk !== undefined ? size : null,
      marker,
      ...staleness(marker, Date.now(), hostname(), alive, () => runInProgressHere(name)),
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export function formatSize(bytes: number | null): string {
  return bytes === null ? 'size unknown' : formatBytes(bytes);
}

/**
 * One line per stale scratch database, with its size and how to remove it: `removeWith` is the command the front door
 * offers (`mongo-advisor cleanup <uri>` in the CLI, `advisor.cleanup()` in mongosh). Empty when there are none.
 */
export function leftoverLines(found: readonly ScratchDatabase[], removeWith: string): string[] {
  const stale = found.filter((d) => d.state === 'stale');
  const foreign = found.filter((d) => d.state === 'foreign');
  const lines = foreign.map((d) => `${d.name} (${formatSize(d.bytes)}) ${NOT_OURS}.`);
  if (stale.length === 0) return lines;
  const total = stale.reduce((s, d) => s + (d.bytes ?? 0), 0);
  return [
    `${stale.length} stale scratch database${stale.length === 1 ? '' : 's'} left by earlier runs ` +
      `(${formatSize(total)}, copies of source ` +
      `documents): ${stale.map((d) => `${d.name} (${formatSize(d.bytes)}; ${d.why})`).join(', ')}. ` +
      `Remove ${stale.length === 1 ? 'it' : 'them'} with: ${removeWith}`,
    ...lines,
  ];
}

/** Leftover lines for a server, or nothing when it cannot be listed (a user without listDatabases): never throws. */
export async function leftoverNotes(adapter: Adapter, removeWith: string): Promise<string[]> {
  try {
    return leftoverLines(await listScratchDatabases(adapter), removeWith);
  } catch {
    return [];
  }
}

export interface DropOutcome {
  name: string;
  /** null: dropped (listDatabases no longer lists it); else why not, with the command to run. */
  problem: string | null;
}

/**
 * Drops scratch databases by name, each through a Scratch handle (the scratch-only gate, retries, the listDatabases
 * check). A name that does not start with the scratch prefix is refused without being sent.
 */
export async function dropScratchDatabases(adapter: Adapter, names: readonly string[]): Promise<DropOutcome[]> {
  const out: DropOutcome[] = [];
  for (const name of names) {
    try {
      out.push({ name, problem: await Scratch.adopt(adapter, name).cleanup() });
    } catch (err) {
      out.push({ name, problem: describeServerError(err) });
    }
  }
  return out;
}
