import { redactUri } from '../core/format';
import { tagged, versionOfReply } from './tag';
import { type HostCursor, readHostCursor } from './cursor';
import type { Adapter, BsonKit, CommandOptions, CursorOptions, CursorRead, Doc } from './types';

/** How long `ready()` waits for mongosh to take commands again after an interrupt, and how often it asks. */
const READY_MS = 10_000;
const READY_POLL_MS = 100;

/**
 * mongosh's refusal of every shell call between Ctrl-C and the end of its interrupt handling: @mongosh/shell-api
 * lib/interruptor.js, `InterruptFlag.checkpoint()` throws `MongoshInterruptedError` ("execution was interrupted")
 * while the flag is set, and `set()` rejects the calls in flight with it. The flag is reset by
 * `ShellInstanceState.onResumeExecution()` once the shell has reconnected the clients it closed
 * (`onInterruptExecution()` suspends them).
 */
export function isShellInterrupt(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown } | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    (e.name === 'MongoshInterruptedError' || e.message === 'execution was interrupted')
  );
}

/** The driver's errors while mongosh has closed its client for an interrupt and not yet reconnected it. */
function isSuspended(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown } | null;
  const name = typeof e?.name === 'string' ? e.name : '';
  const message = typeof e?.message === 'string' ? e.message : '';
  return (
    name === 'MongoNotConnectedError' ||
    name === 'MongoTopologyClosedError' ||
    name === 'MongoClientClosedError' ||
    /must be connected|topology is closed|client was closed|client is closed/i.test(message)
  );
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

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
  /** Set when a command met mongosh's interrupt (Ctrl-C); cleared once the shell took a command again. */
  private interrupted = false;
  /** Called the first time a command meets mongosh's interrupt: the plugin stops the run there. */
  onInterrupt: (() => void) | null = null;

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
    try {
      const sibling = this.g.db.getSiblingDB(db);
      // mongosh's runCommand(cmd, options) applies options.readPreference (shell-api lib/database.js)
      const reply = await (opts.readPreference
        ? sibling.runCommand(tagged(cmd, this.version), { readPreference: opts.readPreference })
        : sibling.runCommand(tagged(cmd, this.version)));
      this.version = versionOfReply(cmd, reply) ?? this.version;
      return reply;
    } catch (err) {
      this.noticeInterrupt(err);
      throw err;
    }
  }

  isInterrupt(err: unknown): boolean {
    return isShellInterrupt(err);
  }

  /** An interrupt seen in a command's failure: remembered (for `ready`) and told once to `onInterrupt`. */
  noticeInterrupt(err: unknown): void {
    if (!isShellInterrupt(err)) return;
    const first = !this.interrupted;
    this.interrupted = true;
    if (first) this.onInterrupt?.();
  }

  /** Marks the shell as interrupted (the plugin's own SIGINT listener), so `ready` waits before the next command. */
  interruptedByUser(): void {
    this.interrupted = true;
  }

  /**
   * Once mongosh was interrupted: asks `ping` every 100 ms until the shell sends it (its interrupt handling has
   * reconnected and reset the flag), at most 10 s. Null when it takes commands; else the real reason it does not.
   */
  async ready(): Promise<string | null> {
    if (!this.interrupted) return null;
    const until = Date.now() + READY_MS;
    let last: unknown = null;
    while (Date.now() < until) {
      try {
        await this.g.db.getSiblingDB('admin').runCommand({ ping: 1 });
        this.interrupted = false;
        return null;
      } catch (err) {
        last = err;
        if (!isShellInterrupt(err) && !isSuspended(err)) {
          // The server answered (with an error): the shell sends commands again.
          this.interrupted = false;
          return null;
        }
      }
      await sleep(READY_POLL_MS);
    }
    const why = last instanceof Error ? last.message : String(last);
    return (
      `mongosh still refused commands ${READY_MS / 1000} s after the interrupt (${why}); its interrupt handling ` +
      'did not finish'
    );
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
        try {
          while (out.length < n && cursor && cursor.objsLeftInBatch() > 0) {
            const d = await cursor.next();
            if (d === null) break;
            out.push(d);
          }
        } catch (err) {
          this.noticeInterrupt(err);
          throw err;
        }
        return out;
      },
      fetch: async () => {
        if (!opened) {
          // The shell cursor sends nothing until it is iterated: the opening command goes with this first fetch.
          opened = true;
          const run = sibling._runCursorCommand?.bind(sibling);
          if (!run) throw new Error('this mongosh has no cursor-command runner');
          try {
            cursor = await run(
              tagged(cmd, this.version),
              opts.readPreference ? { readPreference: this.readPreference(opts.readPreference) } : {},
            );
          } catch (err) {
            this.noticeInterrupt(err);
            throw err;
          }
        }
        try {
          return cursor ? await cursor.tryNext() : null;
        } catch (err) {
          this.noticeInterrupt(err);
          throw err;
        }
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
