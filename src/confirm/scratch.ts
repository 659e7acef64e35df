import { randomBytes } from 'node:crypto';
import { commandCursor } from '../adapters/cursor';
import { SCRATCH_PREFIX, scratchOnly } from '../adapters/read-only';
import { type Adapter, type BsonKit, type Doc, asServerError, describeServerError } from '../adapters/types';

/** Every database the advisor writes to starts with this; nothing else is ever written. */
export { SCRATCH_PREFIX };

const MAX_BATCH_BYTES = 8 * 1024 * 1024;
/** dropDatabase attempts before cleanup gives up, and the pause before the second (doubled before the third). */
const DROP_ATTEMPTS = 3;
const DROP_PAUSE_MS = 500;
/** How long cleanup waits for writes already sent (an experiment a Ctrl-C interrupted) before it drops anyway. */
const SETTLE_MS = 5000;
/** Errors a retry cannot cure: the user may not drop the database. */
const NOT_RETRYABLE = new Set([13, 18]);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

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
  private used = false;
  private dropped = false;
  private cleaning: Promise<string | null> | null = null;
  /** Set when cleanup starts: from then on no command is sent, so nothing recreates the database after its drop. */
  private closing = false;
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(adapter: Adapter, suffix = randomBytes(4).toString('hex')) {
    this.#adapter = scratchOnly(adapter);
    this.bson = adapter.bson;
    this.source = adapter.source;
    this.db = `${SCRATCH_PREFIX}${suffix}`;
  }

  get where(): string {
    return `scratch database ${this.db} on ${this.source}`;
  }

  async command(cmd: Doc): Promise<Doc> {
    if (this.closing) throw new Error(`the scratch database ${this.db} is being dropped: no more commands are sent to it`);
    this.used = true;
    const sent = this.#adapter.command(this.db, cmd);
    this.inflight.add(sent);
    try {
      return await sent;
    } finally {
      this.inflight.delete(sent);
    }
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
      command: (db, c) => (db === this.db ? this.command(c) : Promise.reject(new Error(`the scratch handle sends only to ${this.db}, not ${db}`))),
      close: () => Promise.resolve(),
    };
    return await commandCursor(handle, this.db, cmd, { maxTimeMS: opts.maxTimeMS ?? 10_000, ...(opts.limit !== undefined ? { limit: opts.limit } : {}) });
  }

  /** fsync on admin (never with lock): a checkpoint, so storage sizes count what was written to scratch. */
  async fsync(): Promise<Doc> {
    return await this.#adapter.command('admin', { fsync: 1 });
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
   * Inserts in batches under 8 MB (documents are sized by the caller's estimate). Returns how many documents the
   * server reports inserted (`n`): with `ordered: false` a rejected document is a write error in a reply that
   * still reads ok, so a caller that times the inserts checks this against `docs.length`.
   */
  async insertMany(coll: string, docs: readonly Doc[], approxDocBytes: number): Promise<number> {
    const perBatch = Math.max(1, Math.min(1000, Math.floor(MAX_BATCH_BYTES / Math.max(1, approxDocBytes))));
    let inserted = 0;
    for (let i = 0; i < docs.length; i += perBatch) {
      const r = await this.command({ insert: coll, documents: docs.slice(i, i + perBatch), ordered: false });
      inserted += Number(r.n ?? 0);
    }
    return inserted;
  }

  async drop(coll: string): Promise<void> {
    await this.command({ drop: coll }).catch(() => undefined);
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
      return Promise.resolve(null);
    }
    this.cleaning ??= this.dropWithRetries().finally(() => {
      this.cleaning = null;
    });
    return this.cleaning;
  }

  private async dropWithRetries(): Promise<string | null> {
    // A write sent before cleanup began (the experiment a Ctrl-C interrupted) may reach the server after the drop and
    // recreate the database: refuse new commands, and let those already sent finish first (for a while).
    this.closing = true;
    if (this.inflight.size > 0) await Promise.race([Promise.allSettled([...this.inflight]), sleep(SETTLE_MS)]);
    const byHand = `drop it by hand with db.getSiblingDB("${this.db}").dropDatabase()`;
    const failures: string[] = [];
    for (let attempt = 1; attempt <= DROP_ATTEMPTS; attempt++) {
      if (attempt > 1) await sleep(DROP_PAUSE_MS * 2 ** (attempt - 2));
      try {
        await this.#adapter.command(this.db, { dropDatabase: 1 });
      } catch (err) {
        failures.push(`attempt ${attempt}: ${describeServerError(err)}`);
        const code = asServerError(err).code;
        // No code: the connection failed, and listDatabases would wait for the same server.
        if (code === undefined) return `could not drop ${this.db} (${failures.join('; ')}): the server could not be reached to check whether it remains; ${byHand}`;
        if (NOT_RETRYABLE.has(code)) break;
        continue;
      }
      // The reply said dropped: believe it unless listDatabases still shows the database (a write that was still
      // in flight, such as the experiment a Ctrl-C interrupted, recreates it).
      if ((await this.listed()) !== true) {
        this.dropped = true;
        return null;
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

  /** Whether listDatabases lists the scratch database; a string says why that could not be read. */
  private async listed(): Promise<boolean | string> {
    try {
      const r = await this.#adapter.command('admin', { listDatabases: 1, nameOnly: true, filter: { name: this.db } });
      return ((r.databases as Doc[] | undefined) ?? []).some((d) => d.name === this.db);
    } catch (err) {
      return `listDatabases failed: ${describeServerError(err)}`;
    }
  }

  get cleanedUp(): boolean {
    return this.dropped;
  }
}
