import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { commandCursor } from '../adapters/cursor';
import { readOnly, SCRATCH_PREFIX, scratchOnly } from '../adapters/read-only';
import { type Adapter, type BsonKit, type Doc, asServerError, describeServerError } from '../adapters/types';
import { formatBytes, formatNumber } from '../core/format';
import { isRefusal } from '../core/errors';
import { VERSION } from '../version';
import { shellDbCall } from '../lib/shell';
import { bsonSizes, type CopyLimits, limitsFromHello, planCopyBatches } from './copy';

/** Every database the advisor writes to starts with this; nothing else is ever written. */
export { SCRATCH_PREFIX };

/**
 * How much more than the run's slowest drop (or checkpoint) so far a proof reserves for the next one: on a loaded
 * machine the same drop on SecantusDB took 2 s in one proof and 4-6 s in the next (issue 27; CI's shop-done run ended
 * a proof 3.1 s past its budget with the reserve at the slowest drop alone).
 */
export const RESERVE_MARGIN = 1.5;

/**
 * What a drop is taken to cost before the run has timed one that removed data: MongoDB drops in milliseconds,
 * SecantusDB took 2-5 s, and the run's first proof would otherwise reserve nothing for its copies.
 */
export const FIRST_DROP_MS = 1000;

/** dropDatabase attempts before cleanup gives up, and the pause before the second (doubled before the third). */
const DROP_ATTEMPTS = 3;
const DROP_PAUSE_MS = 500;
/** How long cleanup waits for writes already sent (an experiment a Ctrl-C interrupted) before it drops anyway. */
const SETTLE_MS = 5000;
/** Errors a retry cannot cure: the user may not drop the database. */
const NOT_RETRYABLE = new Set([13, 18]);

/**
 * After an interrupt cut commands off unanswered (mongosh's Ctrl-C), the server may still be running one of them: an
 * insert landing after the drop would recreate the database. listDatabases is asked again after these pauses, and the
 * database dropped again if it is back.
 */
const STRAGGLER_CHECKS_MS = [500, 1000];

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The scratch databases this process's runs are writing now: from a run's first write until its cleanup ends
 * (dropped, or given up on). A database whose marker names this process but is not here was left by a run of this
 * process that has ended (an interrupt in mongosh, a drop that failed): a leftover, not a run in progress.
 */
const runningHere = new Set<string>();

/** Whether a run of this process is writing to the scratch database `name` now (src/confirm/leftovers.ts). */
export function runInProgressHere(name: string): boolean {
  return runningHere.has(name);
}

/**
 * The collection every scratch database gets first, with one document: who writes there (host, pid, start time, tool
 * version). A later run reads it to tell a leftover (the pid is gone from this host, or the run started too long ago)
 * from a run still going on (src/confirm/leftovers.ts).
 */
export const MARKER_COLLECTION = '_advisor_marker';

export interface ScratchMarker {
  _id: 'owner';
  tool: 'mongo-advisor';
  version: string;
  host: string;
  pid: number;
  /** When the run began writing (ISO 8601). */
  startedAt: string;
  /** 'cli' or 'mongosh' or 'api': who to blame, in the leftover report. */
  via: string;
}

/** What one copy did (`Scratch.copy`). */
export interface Copied {
  /** Documents the server reports inserted. */
  inserted: number;
  /** The replies' write errors, as the server sent them (their messages may hold values: never print them raw). */
  writeErrors: Doc[];
  /** Documents over maxBsonObjectSize, not sent. */
  tooLarge: number;
}

/** What the run will write, told before it writes (consent): the plan the front doors print. */
export interface ScratchPlan {
  experiments: number;
  maxDocs: number;
  maxBytes: number;
}

/**
 * The phases at which a test may interrupt a confirmation, in the order a run meets them:
 *
 * - `after-marker`: the scratch database exists and holds only its marker;
 * - `after-create`: an experiment's first collection was created;
 * - `mid-insert`: a copy of several documents was sent and has not been answered: an insert command carrying more
 *   than one document, or any batch of an `insertMany` of more than one document (large documents go one per batch);
 * - `after-index`: an index build on scratch was answered;
 * - `mid-timing`: a timed trial is in flight (the fourth identical command in a row: warm-up and trials);
 * - `before-drop`: cleanup has begun and refuses new commands, and the dropDatabase is about to be sent.
 */
export const INTERRUPT_PHASES = [
  'after-marker',
  'after-create',
  'mid-insert',
  'after-index',
  'mid-timing',
  'before-drop',
] as const;
export type InterruptPhase = (typeof INTERRUPT_PHASES)[number];
export const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

let testInterruptFired = false;

/**
 * TEST-ONLY, the one place it is read: `MONGO_ADVISOR_TEST_INTERRUPT_AT=<phase>[:<SIGNAL>]` (phase from
 * INTERRUPT_PHASES, signal SIGINT by default, or SIGTERM, SIGHUP) makes the process send that signal to itself the
 * first time the run reaches that phase, so tests interrupt each phase deterministically instead of sleeping. Without
 * the variable this does nothing; it never changes what is sent to the server. Documented in docs/architecture.md.
 */
function testInterrupt(phase: InterruptPhase): void {
  const at = typeof process === 'object' ? process.env?.MONGO_ADVISOR_TEST_INTERRUPT_AT : undefined;
  if (!at || testInterruptFired) return;
  const [want, signal = 'SIGINT'] = at.split(':');
  if (want !== phase || !(INTERRUPT_SIGNALS as readonly string[]).includes(signal)) return;
  testInterruptFired = true;
  process.kill(process.pid, signal);
}

/**
 * A scratch database on the user's server (or on another URI): the only place the advisor writes.
 * Drop it with `cleanup()`; the checker calls that on success, error and Ctrl-C.
 *
 * Every command goes through `scratchOnly` (src/adapters/read-only.ts): the handle sends only to its own database
 * (plus listDatabases and fsync on admin), and the adapter beneath it is private, so an experiment has no way to
 * write anywhere else. What experiments need besides commands is here: `bson` (the host's BSON values), `cursor`
 * (a cursor read to the end) and `fsync` (a checkpoint before reading storage sizes).
 */
export class Scratch {
  readonly db: string;
  /** BSON values made with the host's own library (ObjectIds, UUIDs, 64-bit integers). */
  readonly bson: BsonKit;
  /** The server, described without a password. */
  readonly source: string;
  readonly #adapter: Adapter;
  /** The same server through the read-only gate: `hello`, for the limits of a copy. */
  readonly #reads: Adapter;
  private limits: Promise<CopyLimits> | null = null;
  /** What copies left out and why (a document over the server's size limit): the run's notes. */
  readonly notes: string[] = [];
  private used = false;
  /** Why the server refused the first write (the marker): no experiment can write here. Null until then. */
  refused: string | null = null;
  private dropped = false;
  private cleaning: Promise<string | null> | null = null;
  /** Set when cleanup starts: from then on no command is sent, so nothing recreates the database after its drop. */
  private closing = false;
  private readonly inflight = new Set<Promise<unknown>>();
  /** Set when the host cut a command off unanswered (mongosh's Ctrl-C): the server may still be running it. */
  private abandoned = false;
  private marking: Promise<void> | null = null;
  /** What this run will write (set by confirm before any write; the front doors print it). */
  plan: ScratchPlan | null = null;
  /** Called before heavy writes (creates, copies, index builds): the load guard (src/confirm/load.ts). */
  beforeWrite: (() => Promise<void>) | null = null;
  /** For the mid-timing phase: the last command's name and how many times in a row it was sent. */
  private last = { name: '', times: 0 };
  /** For the mid-insert phase: how many `insertMany` copies of several documents are under way. */
  private copying = 0;
  private slowestDrop = 0;
  private slowestFsync = 0;
  readonly marker: ScratchMarker;

  constructor(adapter: Adapter, suffix = randomBytes(4).toString('hex'), via = 'api') {
    this.#adapter = scratchOnly(adapter);
    this.#reads = readOnly(adapter);
    this.bson = adapter.bson;
    this.source = adapter.source;
    this.db = `${SCRATCH_PREFIX}${suffix}`;
    this.marker = {
      _id: 'owner',
      tool: 'mongo-advisor',
      version: VERSION,
      host: hostname(),
      pid: process.pid,
      startedAt: new Date().toISOString(),
      via,
    };
  }

  /** A handle on an existing scratch database (a leftover), only to drop it: `cleanup()` drops it. */
  static adopt(adapter: Adapter, name: string): Scratch {
    if (!name.startsWith(SCRATCH_PREFIX)) throw new Error(`${name} is not a scratch database (${SCRATCH_PREFIX}…)`);
    const s = new Scratch(adapter, name.slice(SCRATCH_PREFIX.length));
    s.used = true;
    s.marking = Promise.resolve();
    return s;
  }

  /** The mongosh line that drops this database by hand. */
  get dropByHand(): string {
    return shellDbCall(this.db, 'dropDatabase');
  }

  get where(): string {
    return `scratch database ${this.db} on ${this.source}`;
  }

  async command(cmd: Doc): Promise<Doc> {
    this.refuseIfClosing();
    // The marker first: the database never exists without a note of who made it.
    if (!this.marking) runningHere.add(this.db);
    this.marking ??= this.send({ insert: MARKER_COLLECTION, documents: [this.marker] }).then(
      () => testInterrupt('after-marker'),
      (err: unknown) => {
        // Refused (the user's roles): nothing was written, so there is nothing to drop, and no later write would pass.
        if (isRefusal(err)) [this.refused, this.used] = [describeServerError(err), false];
        throw err;
      },
    );
    await this.marking;
    const name = Object.keys(cmd)[0] ?? '';
    if (
      this.beforeWrite &&
      (name === 'create' ||
        name === 'createIndexes' ||
        (name === 'insert' && Array.isArray(cmd.documents) && cmd.documents.length > 1))
    )
      await this.beforeWrite();
    this.refuseIfClosing();
    this.last = name === this.last.name ? { name, times: this.last.times + 1 } : { name, times: 1 };
    // A copy of several documents, whichever path sends it: one insert of several, or a batch of an insertMany.
    const copy = name === 'insert' && ((Array.isArray(cmd.documents) && cmd.documents.length > 1) || this.copying > 0);
    const sent = this.send(cmd);
    if (copy) testInterrupt('mid-insert');
    if (this.last.times === 4 && name !== 'create' && name !== 'getMore' && !copy) testInterrupt('mid-timing');
    const reply = await sent;
    if (name === 'create') testInterrupt('after-create');
    if (name === 'createIndexes') testInterrupt('after-index');
    return reply;
  }

  private refuseIfClosing(): void {
    if (this.closing)
      throw new Error(`the scratch database ${this.db} is being dropped: no more commands are sent to it`);
  }

  /** Sends one command and keeps it in `inflight` until it is answered: cleanup waits for those before it drops. */
  private send(cmd: Doc): Promise<Doc> {
    this.used = true;
    const sent = this.#adapter.command(this.db, cmd);
    this.inflight.add(sent);
    const settle = (): void => {
      this.inflight.delete(sent);
    };
    sent.then(settle, (err: unknown) => {
      settle();
      if (this.#adapter.isInterrupt?.(err) === true) this.abandoned = true;
    });
    return sent;
  }

  /**
   * A cursor-returning command (find, aggregate, listCollections…) on the scratch database, read to the end or to
   * `limit` documents; getMore and killCursors go to the same database.
   */
  async cursor(cmd: Doc, opts: { limit?: number; maxTimeMS?: number } = {}): Promise<Doc[]> {
    const handle: Adapter = {
      kind: this.#adapter.kind,
      source: this.source,
      bson: this.bson,
      roundTrips: 0,
      command: (db, c) =>
        db === this.db
          ? this.command(c)
          : Promise.reject(new Error(`the scratch handle sends only to ${this.db}, not ${db}`)),
      close: () => Promise.resolve(),
    };
    return await commandCursor(handle, this.db, cmd, {
      maxTimeMS: opts.maxTimeMS ?? 10_000,
      ...(opts.limit !== undefined ? { limit: opts.limit } : {}),
    });
  }

  /** fsync on admin (never with lock): a checkpoint, so storage sizes count what was written to scratch. */
  async fsync(): Promise<Doc> {
    const t = performance.now();
    const out = await this.#adapter.command('admin', { fsync: 1 });
    this.slowestFsync = Math.max(this.slowestFsync, performance.now() - t);
    return out;
  }

  /**
   * The slowest checkpoint (fsync) this run took, in ms, times RESERVE_MARGIN (0 before the first): a proof starts one
   * only when that much of its budget is left.
   */
  get fsyncReserveMs(): number {
    return this.slowestFsync * RESERVE_MARGIN;
  }

  /** Creates a collection and returns the options the server reports back (listCollections), not the ones asked for. */
  async create(name: string, options: Doc = {}): Promise<Doc> {
    await this.command({ create: name, ...options });
    return await this.optionsOf(name);
  }

  async optionsOf(name: string): Promise<Doc> {
    const rows = await this.cursor({ listCollections: 1, filter: { name }, cursor: {} });
    return (rows[0]?.options as Doc | undefined) ?? {};
  }

  /**
   * The server's limits for one write command (`hello`: maxBsonObjectSize, maxMessageSizeBytes, maxWriteBatchSize),
   * read once through the read-only gate; MongoDB's documented values when it does not answer.
   */
  copyLimits(): Promise<CopyLimits> {
    this.limits ??= this.#reads.command('admin', { hello: 1 }).then(
      (hello) => limitsFromHello(hello),
      () => limitsFromHello(null),
    );
    return this.limits;
  }

  /**
   * Inserts documents (`ordered: false`) in as many commands as their own BSON sizes need under the server's limits
   * (src/confirm/copy.ts). A document over maxBsonObjectSize is not sent: `notes` says how many were left out. Returns
   * how many documents the server reports inserted (`n`; a rejected document is a write error in a reply that still
   * reads ok, so a caller that times the inserts checks it against `docs.length`) and those write errors.
   */
  async copy(coll: string, docs: readonly Doc[]): Promise<Copied> {
    const plan = planCopyBatches(bsonSizes(docs), await this.copyLimits());
    if (plan.tooLarge.length > 0) {
      const n = plan.tooLarge.length;
      const limit = formatBytes((await this.copyLimits()).maxBsonObjectSize);
      const what = n === 1 ? 'document was' : 'documents were';
      const note =
        `${formatNumber(n)} ${what} not copied to the scratch collection ${coll}: ` +
        `over the server's maxBsonObjectSize (${limit})`;
      if (!this.notes.includes(note)) this.notes.push(note);
    }
    const out: Copied = { inserted: 0, writeErrors: [], tooLarge: plan.tooLarge.length };
    const several = docs.length > 1;
    if (several) this.copying++;
    try {
      for (const batch of plan.batches) {
        const r = await this.command({ insert: coll, documents: batch.map((i) => docs[i]), ordered: false });
        out.inserted += Number(r.n ?? 0);
        out.writeErrors.push(...((r.writeErrors as Doc[] | undefined) ?? []));
      }
    } finally {
      if (several) this.copying--;
    }
    return out;
  }

  /** `copy`, when only the count matters: how many documents the server reports inserted. */
  async insertMany(coll: string, docs: readonly Doc[]): Promise<number> {
    return (await this.copy(coll, docs)).inserted;
  }

  /**
   * Drops `coll` (no error when it is absent). The slowest drop that removed a collection is kept: a proof reserves
   * that much per copy it will drop, so its own clean-up stays within its budget (SecantusDB takes seconds to drop a
   * collection that held data, a create or an empty drop milliseconds).
   */
  async drop(coll: string): Promise<void> {
    const t = performance.now();
    const dropped = await this.command({ drop: coll }).then(
      () => true,
      () => false,
    );
    if (dropped) this.slowestDrop = Math.max(this.slowestDrop, performance.now() - t);
  }

  /**
   * The slowest drop of a collection this run made (FIRST_DROP_MS before the first), in ms, times RESERVE_MARGIN:
   * what a proof reserves per copy.
   */
  get dropReserveMs(): number {
    return Math.max(this.slowestDrop, FIRST_DROP_MS) * RESERVE_MARGIN;
  }

  async collStats(coll: string): Promise<Doc | null> {
    try {
      const rows = await this.cursor({ aggregate: coll, pipeline: [{ $collStats: { storageStats: {} } }], cursor: {} });
      return (rows[0]?.storageStats as Doc | undefined) ?? null;
    } catch {
      return null;
    }
  }

  /**
   * Drops the scratch database and checks with listDatabases that it is gone. From the first call on, no command is
   * sent to the scratch database, and cleanup waits up to 5 s for those already sent. A drop the server refuses with
   * an error code (a transient failure: a lock, an index build, an engine out of cache) is tried again, up to three
   * times; a database that listDatabases no longer lists counts as dropped whatever the replies said. Safe to call
   * twice, and concurrently (Ctrl-C while the run's own cleanup is under way): one drop at a time. Returns an error
   * line instead of throwing.
   */
  cleanup(): Promise<string | null> {
    if (this.dropped || !this.used) {
      this.dropped = true;
      runningHere.delete(this.db);
      return Promise.resolve(null);
    }
    this.cleaning ??= this.dropWithRetries().finally(() => {
      this.cleaning = null;
      // Dropped, or given up on: no run of this process writes there any more (a leftover advisor.cleanup() may drop).
      runningHere.delete(this.db);
    });
    return this.cleaning;
  }

  /** Waits for the commands already sent, at most `ms`; true when none is left. */
  private async settle(ms: number): Promise<boolean> {
    if (this.inflight.size === 0) return true;
    await Promise.race([Promise.allSettled([...this.inflight]), sleep(ms)]);
    return this.inflight.size === 0;
  }

  private async dropWithRetries(): Promise<string | null> {
    // A write sent before cleanup began (the experiment a Ctrl-C interrupted) may reach the server after the drop and
    // recreate the database: refuse new commands, and let those already sent finish first (for a while).
    this.closing = true;
    await this.settle(SETTLE_MS);
    testInterrupt('before-drop');
    const byHand = `drop it by hand with ${this.dropByHand}`;
    const failures: string[] = [];
    for (let attempt = 1; attempt <= DROP_ATTEMPTS; attempt++) {
      if (attempt > 1) await sleep(DROP_PAUSE_MS * 2 ** (attempt - 2));
      // mongosh refuses every command for a moment after Ctrl-C: wait until it takes them again, or say why not.
      const refused = (await this.#adapter.ready?.()) ?? null;
      if (refused !== null) return `could not drop ${this.db}: ${refused}; ${byHand}`;
      try {
        await this.#adapter.command(this.db, { dropDatabase: 1 });
      } catch (err) {
        failures.push(`attempt ${attempt}: ${describeServerError(err)}`);
        // The shell's interrupt refused it, not the server: try again once the shell takes commands.
        if (this.#adapter.isInterrupt?.(err) === true) continue;
        const code = asServerError(err).code;
        // No code: the connection failed, and listDatabases would wait for the same server.
        if (code === undefined)
          return (
            `could not drop ${this.db} (${failures.join('; ')}): the server could not be reached to check ` +
            `whether it remains; ${byHand}`
          );
        if (NOT_RETRYABLE.has(code)) break;
        continue;
      }
      // A command still unanswered past the settle wait may land after this drop and recreate the database: wait for
      // it once more, then believe listDatabases, not the reply.
      if (!(await this.settle(SETTLE_MS)))
        failures.push(`attempt ${attempt}: ${this.inflight.size} command(s) sent before cleanup were still unanswered`);
      if ((await this.listed()) !== true) {
        if (!(await this.stragglerBack())) {
          this.dropped = true;
          return null;
        }
        failures.push(
          `attempt ${attempt}: a write the interrupt had cut off landed after the drop and recreated the database`,
        );
        continue;
      }
      failures.push(`attempt ${attempt}: dropDatabase answered ok but listDatabases still lists the database`);
    }
    const listed = await this.listed();
    if (listed === false) {
      // The drop reported an error, yet the database is gone (it was dropped, or never held anything).
      this.dropped = true;
      return null;
    }
    const tried = `${failures.length} attempt${failures.length === 1 ? '' : 's'} failed (${failures.join('; ')})`;
    return listed === true
      ? `could not drop ${this.db}: ${tried}; listDatabases still lists it; ${byHand}`
      : `could not drop ${this.db}: ${tried}; whether it remains is unknown (${listed}); ${byHand}`;
  }

  /**
   * After commands were cut off unanswered (mongosh's Ctrl-C): whether one of them, still running on the server,
   * recreated the database after its drop (listDatabases asked again after short pauses). False at once otherwise.
   */
  private async stragglerBack(): Promise<boolean> {
    if (!this.abandoned) return false;
    for (const ms of STRAGGLER_CHECKS_MS) {
      await sleep(ms);
      if ((await this.listed()) === true) return true;
    }
    return false;
  }

  /** Whether listDatabases lists the scratch database; a string says why that could not be read. */
  private async listed(): Promise<boolean | string> {
    try {
      const r = await this.#adapter.command('admin', {
        listDatabases: 1,
        nameOnly: true,
        filter: { name: this.db },
        maxTimeMS: 10_000,
      });
      return ((r.databases as Doc[] | undefined) ?? []).some((d) => d.name === this.db);
    } catch (err) {
      return `listDatabases failed: ${describeServerError(err)}`;
    }
  }

  get cleanedUp(): boolean {
    return this.dropped;
  }
}
