import { redactUri } from '../core/format';
import { tagged, versionOfReply } from './tag';
import { type HostCursor, readHostCursor } from './cursor';
import type { Adapter, BsonKit, CommandOptions, CursorOptions, CursorRead, Doc } from './types';

/**
 * mongosh's RunCommandCursor (@mongosh/shell-api lib/abstract-cursor.js, AbstractFiniteCursor), the methods used:
 * `objsLeftInBatch()` is the driver cursor's `bufferedCount()`, `isClosed()` its `closed`, `tryNext()` one fetch.
 */
export interface ShellCursor {
  objsLeftInBatch(): number;
  next(): Promise<Doc | null> | Doc | null;
  tryNext(): Promise<Doc | null> | Doc | null;
  isClosed(): boolean;
  close(): Promise<void> | void;
}

/** A database as mongosh's `db.getSiblingDB` returns it. */
export interface ShellDatabase {
  runCommand(cmd: Doc, options?: Doc): Promise<Doc> | Doc;
  /**
   * mongosh's cursor-command runner (@mongosh/shell-api lib/database.js, `Database._runCursorCommand(cmd, options)`,
   * mongosh 2.x): the driver's `runCursorCommand` wrapped in a shell RunCommandCursor. Not in mongosh's documented
   * API, but its public `db.checkMetadataConsistency()` and `db.sql()` are built on it; the adapter checks that it is
   * there and falls back to getMore sent by `commandCursor` otherwise.
   */
  _runCursorCommand?(cmd: Doc, options?: Doc): Promise<ShellCursor> | ShellCursor;
}

/** The parts of mongosh's global scope the plugin uses. Inside require()d code shell calls return Promises. */
export interface ShellGlobals {
  db: {
    getSiblingDB(name: string): ShellDatabase;
    getName(): string;
    getMongo(): { _uri?: string; getURI?: () => string; getReadPref?: () => unknown };
  };
  ObjectId: (...args: unknown[]) => unknown;
  UUID: (hex?: string) => unknown;
  NumberLong: (v: string) => unknown;
}

/**
 * Adapter over the mongosh shell context: commands go through `db.getSiblingDB(name).runCommand`, cursors through
 * the shell's RunCommandCursor (see `ShellDatabase._runCursorCommand`), whose getMore and killCursors keep the
 * cursor's session and server.
 */
export class ShellAdapter implements Adapter {
  readonly kind = 'mongosh' as const;
  readonly bson: BsonKit;
  readonly source: string;
  private count = 0;

  constructor(private readonly g: ShellGlobals) {
    this.bson = {
      objectId: (hex?: string) =>
        new (g.ObjectId as unknown as new (hex?: string) => unknown)(...(hex === undefined ? [] : [hex])),
      uuid: (hex) => g.UUID(hex),
      long: (v) => g.NumberLong(String(v)),
    };
    let uri = 'mongosh';
    try {
      const m = g.db.getMongo();
      uri = (typeof m.getURI === 'function' ? m.getURI() : m._uri) ?? 'mongosh';
    } catch {
      // the URI is only for display
    }
    this.source = redactUri(uri);
  }

  get roundTrips(): number {
    return this.count;
  }

  async command(db: string, cmd: Doc, opts: CommandOptions = {}): Promise<Doc> {
    this.count++;
    const sibling = this.g.db.getSiblingDB(db);
    // mongosh's runCommand(cmd, options) applies options.readPreference (shell-api lib/database.js)
    const reply = await (opts.readPreference
      ? sibling.runCommand(tagged(cmd, this.version), { readPreference: opts.readPreference })
      : sibling.runCommand(tagged(cmd, this.version)));
    this.version = versionOfReply(cmd, reply) ?? this.version;
    return reply;
  }

  /** The server's version, once a buildInfo reply said it: count and distinct get tagged (src/adapters/tag.ts). */
  private version: number[] | undefined;

  /** Absent when this mongosh has no cursor-command runner: `commandCursor` then sends getMore itself. */
  get cursor(): Adapter['cursor'] {
    if (typeof this.g.db.getSiblingDB('admin')._runCursorCommand !== 'function') return undefined;
    return (db: string, cmd: Doc, opts: CursorOptions = {}) => this.readCursor(db, cmd, opts);
  }

  private async readCursor(db: string, cmd: Doc, opts: CursorOptions): Promise<CursorRead> {
    const sibling = this.g.db.getSiblingDB(db);
    let cursor: ShellCursor | null = null;
    let opened = false;
    const host: HostCursor = {
      buffered: () => cursor?.objsLeftInBatch() ?? 0,
      take: async (n) => {
        const out: Doc[] = [];
        while (out.length < n && cursor && cursor.objsLeftInBatch() > 0) {
          const d = await cursor.next();
          if (d === null) break;
          out.push(d);
        }
        return out;
      },
      fetch: async () => {
        if (!opened) {
          // The shell cursor sends nothing until it is iterated: the opening command goes with this first fetch.
          opened = true;
          const run = sibling._runCursorCommand?.bind(sibling);
          if (!run) throw new Error('this mongosh has no cursor-command runner');
          cursor = await run(
            tagged(cmd, this.version),
            opts.readPreference ? { readPreference: this.readPreference(opts.readPreference) } : {},
          );
        }
        return cursor ? await cursor.tryNext() : null;
      },
      done: () => (cursor ? cursor.isClosed() && cursor.objsLeftInBatch() === 0 : false),
      close: async () => {
        if (cursor) await cursor.close();
      },
    };
    return await readHostCursor(host, opts, () => this.count++);
  }

  /**
   * The mode as the shell's own driver's ReadPreference: its cursors (AbstractCursor) drop a mode given as a string
   * and read from the primary (seen on the wire: test/exact-commands.live.test.ts). The class is taken from
   * `db.getMongo().getReadPref()` (mongosh's documented Mongo API), so it is the one the shell's driver checks for.
   */
  private readPreference(mode: string): unknown {
    try {
      const ctor = (
        this.g.db.getMongo().getReadPref?.() as { constructor?: { fromString?: (m: string) => unknown } } | undefined
      )?.constructor;
      if (typeof ctor?.fromString === 'function') return ctor.fromString(mode);
    } catch {
      // fall through: the mode's name, which `runCommand` accepts
    }
    return mode;
  }

  close(): Promise<void> {
    return Promise.resolve(); // the shell owns its connection
  }
}
