/**
 * The contract between the engine and a host (the Node driver or the mongosh shell): the documents it hands back and
 * the one interface collect and confirm reach a server through. Types only; src/adapters/ implements them, and
 * src/adapters/types.ts re-exports them for the modules that import them from there.
 */

/** A server document as the host (driver or mongosh) returns it. */
export type Doc = Record<string, unknown>;

/** BSON values made with the host's own library, so the host can serialize them. */
export interface BsonKit {
  /** A new ObjectId, or the one 24 hex digits spell. */
  objectId(hex?: string): unknown;
  /** A UUID (Binary subtype 4) from 32 hex digits. */
  uuid(hex: string): unknown;
  /** A 64-bit integer (cursor ids must be sent back as one). */
  long(value: number | string): unknown;
}

/**
 * Where a read may go. `secondaryPreferred` lets reads that describe the data (documents, collections, indexes,
 * sizes, plans) run on a secondary when there is one, to spare the primary; node-specific figures (serverStatus,
 * $indexStats) and every write go to the primary whatever is asked (src/adapters/read-only.ts, docs/roles.md).
 */
export type ReadPreferenceMode = 'primary' | 'secondaryPreferred';

export interface CommandOptions {
  /** Absent: the primary (what `db.command` / `db.runCommand` do by default). */
  readPreference?: ReadPreferenceMode;
}

export interface CursorOptions extends CommandOptions {
  /** Stop after this many documents; a cursor the server still holds is then closed (killCursors). */
  limit?: number;
  /** Stop after this many replies (the opening one counts); `1` reads the first batch only. */
  batches?: number;
  /**
   * Streams the read: each reply's documents are handed here as they arrive and not kept (the read's `docs` is then
   * empty), so a cursor of a million catalogue entries is never held whole.
   */
  each?: (docs: Doc[]) => void;
  /**
   * The batchSize of each getMore (without it the host sends none and the server fills 16 MiB replies), so a streamed
   * read holds one bounded batch at a time. The driver adapter honours it; mongosh's cursor runner has no way to.
   */
  getMoreBatchSize?: number;
}

/** A cursor read: the documents, and whether the server had nothing more (false: it was closed early). */
export interface CursorRead {
  docs: Doc[];
  exhausted: boolean;
}

/**
 * The one interface collect and confirm use to reach a server: database commands, and cursors read through the
 * host's own cursor API.
 * Two implementations: the Node driver (CLI, Node API) and the mongosh shell context (plugin).
 */
export interface Adapter {
  readonly kind: 'driver' | 'mongosh';
  /** The connection described without a password. */
  readonly source: string;
  readonly bson: BsonKit;
  /** Commands sent so far (each is one round trip). */
  readonly roundTrips: number;
  command(db: string, cmd: Doc, opts?: CommandOptions): Promise<Doc>;
  /**
   * Runs a cursor-returning command (find, aggregate, listCollections, listIndexes) and reads its batches through
   * the host's cursor (the driver's `Db.runCursorCommand`, mongosh's RunCommandCursor), which sends every getMore and
   * the closing killCursors on the session and the server that opened the cursor. Each reply is one round trip, and
   * so is the killCursors of a cursor closed early. Optional only so in-process stubs need not implement it:
   * `commandCursor` (src/adapters/cursor.ts) then sends getMore itself, which a real server may refuse ("Cannot run
   * getMore on cursor … created in session …") — every adapter that talks to a server implements it.
   */
  cursor?(db: string, cmd: Doc, opts?: CursorOptions): Promise<CursorRead>;
  /**
   * A direct connection to one replica-set member (`host:port` as `hello.hosts` lists it), with the same
   * credentials and TLS settings. Optional: only adapters that own their connection can open another one.
   * Connections are cached per host and closed by `close()`; their commands count in `roundTrips`. Members are only
   * read: the driver hands them out through `readOnly` (src/adapters/read-only.ts), and so does a read-only gate.
   */
  connectMember?(host: string): Promise<Adapter>;
  /**
   * After the host's user interrupted it (Ctrl-C at the mongosh prompt), waits until the host takes commands again
   * and resolves to null, or to why it still refuses them; at once null when nothing was interrupted. Optional: only
   * mongosh refuses commands for a while (between the interrupt and the end of its own interrupt handling).
   */
  ready?(): Promise<string | null>;
  /** Whether `err` is the host refusing a command because its user interrupted it (mongosh's Ctrl-C). */
  isInterrupt?(err: unknown): boolean;
  close(): Promise<void>;
}
